"""Repeated ids benchmark (a script, not a test): one real `stream.tool_start` written N times (one toolCallId,
one stage), opened by `replay`, `view` and, with --window, the window's screenshot path. Prints, per N, each
command's peak resident memory and time in a fresh process, and their growth against the smallest N (linear is
the ratio of the Ns; the square is that ratio squared). Figures, not assertions.

    .venv/bin/python bench/bench_repeated_ids.py [--n 2000 5000 10000 20000] [--window]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.repeated_events import repeated_tool_start  # noqa: E402

# Run in a fresh process: the command, its output thrown away, then its peak resident memory (Linux's VmHWM) and
# its time, as JSON on stderr's last line.
CHILD = r"""
import contextlib, json, os, resource, sys, time
start = time.perf_counter()
argv = sys.argv[1:]
with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
    if argv[0] == "--window":
        from afp_desktop.app.shell.gui import run_gui
        run_gui(argv[1], screenshot=argv[2])
    else:
        from afp_desktop.cli import main
        code = main(argv)
elapsed = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "peak_mb": peak_kb / 1024}), file=sys.stderr)
"""


def measure(argv: list[str]) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False)
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    try:
        return json.loads(last)
    except ValueError:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}") from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[2_000, 5_000, 10_000, 20_000])
    parser.add_argument("--window", action="store_true", help="also the window (screenshot path; slow)")
    args = parser.parse_args()
    counts = sorted(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        commands: dict[str, list] = {"replay": [], "view (last position)": []}
        if args.window:
            commands["window"] = []
        for count in counts:
            path = Path(tmp) / f"repeated-{count}.ndjson"
            path.write_bytes(repeated_tool_start(count))
            commands["replay"].append(measure(["replay", str(path)]))
            commands["view (last position)"].append(measure(["view", str(path), "--position", str(count)]))
            if args.window:
                commands["window"].append(measure(["--window", str(path), str(Path(tmp) / "shot.png")]))
            print(f"N = {count:,}: {path.stat().st_size / 1e6:.1f} MB written", flush=True)
    print()
    print(f"{'command':22} {'N':>8} {'peak MB':>9} {'seconds':>8} {'N ×':>6} {'MB ×':>6} {'s ×':>6}")
    for name, figures in commands.items():
        first = figures[0]
        for count, figure in zip(counts, figures):
            print(f"{name:22} {count:>8,} {figure['peak_mb']:>9.1f} {figure['seconds']:>8.2f} "
                  f"{count / counts[0]:>6.1f} {figure['peak_mb'] / first['peak_mb']:>6.2f} "
                  f"{figure['seconds'] / first['seconds']:>6.2f}")
    print("\n(× columns: against the smallest N; the fixed part of a process makes them lower than N's ratio.)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
