"""Command-line start-up benchmark (a script, not a test): `afp-desktop stepgraph FILE` against a bare parse.

    .venv/bin/python bench/bench_cli_startup.py [FILE] [--runs N] [--command stepgraph|info|...]

The floor is a bare process that only parses the file: `python -c 'import orjson,sys;
orjson.loads(open(sys.argv[1],"rb").read())' FILE`. The two commands run alternately, each in a fresh process
with its output discarded, so a busy machine slows both alike; the figures are the medians and their ratio
(target: at most 1.5x), with the load average before and after. Without FILE, a ~12 MB Trace is made from the
corpus's large run (its events three times over). Also prints the slowest imports of one `-X importtime` run of
the command, and whether it imported numpy, lz4, Qt or the app.
"""

from __future__ import annotations

import argparse
import lzma
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
LARGE_TRACE = ROOT / "tests" / "corpus" / "15-large-run" / "trace.json.xz"
BARE = 'import orjson,sys; orjson.loads(open(sys.argv[1],"rb").read())'
TARGET_RATIO = 1.5
WATCHED = ("numpy", "lz4", "PySide6", "pyqtgraph", "platformdirs", "afp_desktop.app")


def make_trace(folder: Path) -> Path:
    """The large run's Trace with its events three times over (~12 MB)."""
    doc = orjson.loads(lzma.decompress(LARGE_TRACE.read_bytes()))
    out = folder / "trace-x3.json"
    out.write_bytes(orjson.dumps({**doc, "events": doc["events"] * 3}))
    return out


def environment() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # (as installed: bytecode cached)
    env["PYTHONPATH"] = str(ROOT)
    return env


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall-clock seconds, processor seconds: user + system) of one fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment(), cwd=ROOT)
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(argv)} exited with {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def slowest_imports(argv: list[str], count: int = 12) -> tuple[list[tuple[int, str]], set[str]]:
    err = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=environment(), cwd=ROOT).stderr
    rows, names = [], set()
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self, cumulative, shown = line[len("import time:"):].split("|")
        name = shown.strip()
        names.add(name)
        if len(shown) - len(shown.lstrip()) <= 1:  # (imported at the top: not by another module)
            rows.append((int(cumulative), name))
    return sorted(rows, reverse=True)[:count], names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--command", default="stepgraph")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        file = args.file.resolve() if args.file else make_trace(Path(tmp))
        bare = [sys.executable, "-c", BARE, str(file)]
        cli = [sys.executable, "-m", "afp_desktop", args.command, str(file)]
        print(f"`afp-desktop {args.command}` vs a bare orjson.loads process, {file.name} "
              f"({file.stat().st_size / 1e6:.1f} MB), {args.runs} runs each, alternated")
        load_before = os.getloadavg()
        timed(bare), timed(cli)  # warm the disk cache and the bytecode
        bare_times, cli_times = [], []
        for i in range(args.runs):
            first, second = (bare, cli) if i % 2 == 0 else (cli, bare)
            a, b = timed(first), timed(second)
            bare_s, cli_s = (a, b) if first is bare else (b, a)
            bare_times.append(bare_s)
            cli_times.append(cli_s)
            print(f"  run {i + 1}: bare {bare_s[0] * 1000:6.0f} ms ({bare_s[1] * 1000:4.0f} ms processor)   "
                  f"afp-desktop {cli_s[0] * 1000:6.0f} ms ({cli_s[1] * 1000:4.0f} ms processor)")
        load_after = os.getloadavg()
        for what, index in (("wall-clock", 0), ("processor time (user + system)", 1)):
            floor = statistics.median(t[index] for t in bare_times)
            ours = statistics.median(t[index] for t in cli_times)
            print(f"median {what}: bare {floor * 1000:.0f} ms, afp-desktop {args.command} {ours * 1000:.0f} ms, "
                  f"ratio {ours / floor:.2f} (target <= {TARGET_RATIO})")
        print(f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after, {os.cpu_count()} cores")
        top, names = slowest_imports(cli)
        print("slowest imports at the top level (cumulative, one run):")
        for micros, name in top:
            print(f"  {micros / 1000:7.1f} ms  {name}")
        imported = [w for w in WATCHED if any(n == w or n.startswith(w + ".") for n in names)]
        print(f"imported of {', '.join(WATCHED)}: {', '.join(imported) or 'none'}")


if __name__ == "__main__":
    main()
