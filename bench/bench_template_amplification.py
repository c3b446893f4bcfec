"""Template amplification figures: `status`, `replay` and `tail` with a template map repeating `{{appName}}` and
other placeholders hundreds of thousands of times, and a 5 KB `--app-name` (each run as its own process).

    .venv/bin/python bench/bench_template_amplification.py [FILE]

FILE defaults to the large run of tests/corpus (15-large-run). Prints seconds, peak memory and output size per
command; the goal: every command well under 20 s and 1.5 GB, whatever the map repeats.
"""

from __future__ import annotations

import json
import lzma
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "tests" / "corpus" / "15-large-run" / "events.ndjson.xz"
MAPS = {
    "2.2 MB of {{appName}} per state": {key: "{{appName}}" * 200_000 for key in
                                        ("idle", "streaming", "tool", "paused", "tool.progress")},
    "11 MB: unknown names, app name, empty ids": {"idle": "{{a}}" * 900_000 + "{{appName}}" * 330_000,
                                                  "tool": "{{toolCallId}}" * 220_000},
}


def measure(argv: list[str]) -> tuple[float, int, int, int]:
    """(seconds, the command's peak RSS in MB, stdout bytes, exit code) of one command, as its own process."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "afp_desktop", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    assert child.stdout is not None
    size = sum(len(chunk) for chunk in iter(lambda: child.stdout.read(1 << 20), b""))
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_maxrss // 1024, size, child.returncode


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "events.ndjson"
        run.write_bytes(lzma.decompress(source.read_bytes()) if source.suffix == ".xz" else source.read_bytes())
        app_name = "A" * 5_000
        for title, templates in MAPS.items():
            path = Path(folder) / "map.json"
            path.write_text(json.dumps(templates))
            print(f"{title} ({path.stat().st_size / 1e6:.1f} MB map), --app-name of {len(app_name):,} characters:")
            for command in (["status"], ["replay"], ["tail", "--timeout", "0.5"]):
                seconds, peak, size, code = measure([command[0], str(run), *command[1:], "--templates", str(path),
                                                     "--app-name", app_name])
                print(f"  {command[0]:<7} {seconds:6.2f} s  peak {peak:6,} MB  "
                      f"{size / 1e6:8.1f} MB out  exit {code}")


if __name__ == "__main__":
    main()
