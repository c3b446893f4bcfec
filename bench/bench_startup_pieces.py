"""Start-up pieces benchmark (a script, not a test): the longest piece of each name in `afp-desktop FILE`.

    .venv/bin/python bench/bench_startup_pieces.py [FILE] [--runs N] [--busy] [--against OLD_CHECKOUT]

Each run starts `afp-desktop FILE` the way bench_startup.py does (its driver: the first frame, the longest stall of the
window's thread from the first frame on, with a 5 ms timer), and times each piece of deferred work the window's
queue runs (app/pacing/scheduler.py), named by its key, and each piece of the window's imports
(app/pacing/window_imports.py), named by what it does: wall-clock and the window's thread's processor time. Prints,
per name, the longest of each run (median over the runs), longest first, so the longest piece of start-up is named.
--busy: a process spinning on one core all along (the target's machine: two cores, one of them busy).
--against: the same for another checkout's start-up (its afp_desktop imported from there), run for run alternately.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_startup  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# Runs before bench_startup's driver in the child: wraps the queue's turn and the imports' step to time each piece.
PIECES_WATCH = r"""
import atexit, time
from afp_desktop.app.pacing import scheduler as _scheduler
_pieces = []

def _timed(name, call):
    wall, work = time.monotonic(), time.thread_time()
    try:
        return call()
    finally:
        _pieces.append((name, (time.monotonic() - wall) * 1000, (time.thread_time() - work) * 1000))

try:
    from afp_desktop.app.pacing import window_imports as _window_imports
except ImportError:  # (a checkout without them)
    _window_imports = None
else:
    _real_step = _window_imports.WindowImports._step

    def _step(self):
        before = len(self.ran)
        wall, work = time.monotonic(), time.thread_time()
        _real_step(self)
        name = self.ran[-1] if len(self.ran) > before else "imports done: what waited for them"
        _pieces.append((name, (time.monotonic() - wall) * 1000, (time.thread_time() - work) * 1000))
    _window_imports.WindowImports._step = _step

_real_run_one = _scheduler.TurnQueue.run_one

def _run_one(self):
    key = next(iter(self.waiting_names()), None)
    name = key[1] if isinstance(key, tuple) and len(key) == 2 else str(key)
    if _window_imports is not None and isinstance(key, tuple) and isinstance(key[0], _window_imports.WindowImports):
        return _real_run_one(self)  # (its step is timed by name)
    return _timed(f"queue: {name}", lambda: _real_run_one(self))
_scheduler.TurnQueue.run_one = _run_one

@atexit.register
def _print_pieces():
    for name, wall, work in _pieces:
        print(f"piece\t{name}\t{wall!r}\t{work!r}", flush=True)
"""


def one_run(file: Path, checkout: Path) -> tuple[float, float | None, dict[str, tuple[float, float]]]:
    """(first frame in s after the command, the longest stall from it on in ms, {piece name: (its longest wall-clock
    ms, the processor ms of that one)})."""
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
           "AFP_DESKTOP_CONFIG_DIR": str(ROOT / "bench" / ".startup-config"), "AFP_STARTUP_UNTIL_WHOLE": "0"}
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", PIECES_WATCH + bench_startup.DRIVER, str(file)], env=env,
                         capture_output=True, text=True, timeout=90, cwd=checkout).stdout
    first = stall = None
    longest: dict[str, tuple[float, float]] = {}
    for line in out.splitlines():
        if line.startswith("first-frame "):
            first = float(line.split()[1]) - start
        elif line.startswith("longest-stall "):
            stall = float(line.split()[1])
        elif line.startswith("piece\t"):
            _tag, name, wall, work = line.split("\t")
            if name not in longest or float(wall) > longest[name][0]:
                longest[name] = (float(wall), float(work))
    if first is None:
        raise SystemExit(f"the window never painted; output:\n{out}")
    return first, stall, longest


def report(label: str, runs: list[tuple[float, float | None, dict[str, tuple[float, float]]]]) -> None:
    stalls = [stall for _first, stall, _pieces in runs if stall is not None]
    print(f"{label}: first frame median {statistics.median(first for first, _s, _p in runs) * 1000:.0f} ms; "
          f"longest stall from the first frame on, median "
          f"{statistics.median(stalls):.0f} ms" if stalls else "—")
    by_name: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for _first, _stall, pieces in runs:
        for name, figures in pieces.items():
            by_name[name].append(figures)
    rows = sorted(((statistics.median(w for w, _ in figures), statistics.median(c for _, c in figures), name,
                    len(figures)) for name, figures in by_name.items()), reverse=True)
    print("  longest piece of each name (median over the runs of each run's longest; wall-clock, then the window's "
          "thread at work):")
    for wall, work, name, count in rows[:25]:
        print(f"  {wall:7.1f} ms  {work:7.1f} ms  {name}{'' if count == len(runs) else f'  (in {count} runs)'}")


def main() -> None:
    args = sys.argv[1:]
    runs, against = bench_startup.runs_and_against(args)
    busy = "--busy" in args
    args = [arg for arg in args if arg != "--busy"]
    file = Path(args[0]).resolve() if args else bench_startup.DEFAULT_FILE
    print(f"start-up pieces of `afp-desktop {file.name}`, {runs} runs, a core kept busy: {'yes' if busy else 'no'}")
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        one_run(file, ROOT)  # warm the disk cache and the bytecode
        mine, other = [], []
        for _i in range(runs):
            if against is not None:
                other.append(one_run(file, against))
            mine.append(one_run(file, ROOT))
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
    report(str(ROOT), mine)
    if other:
        report(str(against), other)


if __name__ == "__main__":
    main()
