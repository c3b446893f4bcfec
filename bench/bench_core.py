"""Core benchmark (a script, not a test): prints figures and ratios for the large corpus run.

    .venv/bin/python bench/bench_core.py [--repeat N]

- bare `orjson.loads` of trace.json (the floor) vs `open_run(trace.json)` + StepGraph;
- the status pass over every prefix of events.ndjson (incremental: linear in events);
- the same with rendering both template maps (what `afp-desktop status` does);
- open_run(recording.json) (nested >1,000 levels: orjson reads it in pieces, core/deepjson.py) and its stops;
- peak memory of loading trace.json + StepGraph relative to the file size, two ways: what Python allocates
  (tracemalloc, which also sees numpy's arrays) and the process's peak resident memory over its size before the
  load (a fresh child process; Linux's VmHWM, reset just before loading).
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import lzma
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from afp_desktop.core.formats import open_run  # noqa: E402
from afp_desktop.core.library.status import render_status_line, status_timeline  # noqa: E402
from afp_desktop.core.library.stepgraph import build_step_graph  # noqa: E402

LARGE = ROOT / "tests" / "corpus" / "15-large-run"


def materialize(tmp: Path, name: str) -> Path:
    out = tmp / name
    out.write_bytes(lzma.open(LARGE / (name + ".xz")).read())
    return out


def timed(fn, repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
        gc.enable()
    return statistics.median(samples) * 1000, min(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    parser.add_argument("--eager", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        return _rss_child(args.rss_child, args.eager)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        trace, events, recording = (materialize(tmp, n) for n in ("trace.json", "events.ndjson", "recording.json"))
        size_mb = trace.stat().st_size / 1e6
        n_events = len(orjson.loads(trace.read_bytes())["events"])
        print(f"large run: trace.json {size_mb:.1f} MB, {n_events:,} DomainEvents")

        bare, bare_min = timed(lambda: orjson.loads(trace.read_bytes()), args.repeat)
        full, full_min = timed(lambda: open_run(trace).stepgraph, args.repeat)
        # Paired: each repetition times the floor and the load back to back, so machine drift cancels out.
        paired = []
        for _ in range(args.repeat * 3):
            floor_ms, _ = timed(lambda: orjson.loads(trace.read_bytes()), 1)
            load_ms, _ = timed(lambda: open_run(trace).stepgraph, 1)
            paired.append(load_ms / floor_ms)
        print(f"  orjson.loads(trace.json)         {bare:8.1f} ms (min {bare_min:.1f})   <- floor")
        print(f"  open_run + StepGraph             {full:8.1f} ms (min {full_min:.1f})   ratio {full / bare:.2f}x "
              f"median, {full_min / bare_min:.2f}x best, {statistics.median(paired):.2f}x median of "
              f"{len(paired)} back-to-back pairs (target <= 1.3x)")
        print(f"  same, per MB                     {full / size_mb:8.1f} ms/MB  (agentfootprint's Node parse+fold: "
              f"~140 ms for a 12 MB trace = {140 / 12:.1f} ms/MB)")
        doc = orjson.loads(trace.read_bytes())
        # Node's figure is for a 12 MB, 17.6k-event trace: the large run's events three times over is that size.
        tripled = tmp / "trace-x3.json"
        tripled.write_bytes(orjson.dumps({**doc, "events": doc["events"] * 3}))
        big, big_min = timed(lambda: open_run(tripled).stepgraph, max(3, args.repeat // 2))
        big_floor, _ = timed(lambda: orjson.loads(tripled.read_bytes()), max(3, args.repeat // 2))
        print(f"  the same x3 ({tripled.stat().st_size / 1e6:.1f} MB, {3 * n_events:,} events) {big:6.1f} ms "
              f"(min {big_min:.1f}; bare parse {big_floor:.1f})   agentfootprint's Node parse+fold: ~140 ms")
        fold, _ = timed(lambda: build_step_graph(doc["events"]), args.repeat)
        print(f"  StepGraph fold alone             {fold:8.1f} ms")

        typed = [orjson.loads(line) for line in events.read_bytes().splitlines() if line.strip()]
        status, _ = timed(lambda: status_timeline(typed), args.repeat)
        print(f"  status over all {len(typed) + 1:,} prefixes    {status:8.1f} ms  "
              f"({status * 1000 / (len(typed) + 1):.2f} us per prefix)")
        half, _ = timed(lambda: status_timeline(typed[: len(typed) // 2]), args.repeat)
        print(f"  status over half the prefixes    {half:8.1f} ms  (linear: ratio full/half {status / half:.2f})")
        custom = orjson.loads((ROOT / "tests" / "corpus" / "custom-templates.json").read_bytes())

        def status_cli():
            states = status_timeline(typed)
            return [(render_status_line(s, "Ada"), render_status_line(s, "Ada", custom)) for s in states]

        both, _ = timed(status_cli, args.repeat)
        print(f"  status + render both maps        {both:8.1f} ms")

        rec, rec_min = timed(lambda: open_run(recording).stops, max(2, args.repeat // 3))
        print(f"  open_run(recording.json) + stops {rec:8.1f} ms (min {rec_min:.1f}); "
              f"{recording.stat().st_size / 1e6:.1f} MB, nests >1,000 levels")
        prep, _ = timed(lambda: open_run(recording).prepare(), max(2, args.repeat // 3))
        print(f"  open_run(recording) + prepare()  {prep:8.1f} ms (everything the window needs)")

        gc.collect()
        tracemalloc.start()
        run = open_run(trace)
        _ = run.stepgraph
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del run
        size = trace.stat().st_size
        print(f"  peak memory, trace + StepGraph   {peak / 1e6:8.1f} MB  = {peak / size:.2f}x the file size "
              f"(tracemalloc; target < 4x)")
        rss = [_child_peak_rss(trace) for _ in range(3)]
        if all(r is not None for r in rss):
            print(f"  peak resident memory, same       {min(rss) / 1e6:8.1f} MB  = {min(rss) / size:.2f}x the file "
                  f"size (best of 3 fresh processes, max {max(rss) / size:.2f}x)")
        eager = _child_peak_rss(trace, eager=True)
        if eager is not None:
            print(f"  ... parsing every payload eagerly {eager / 1e6:7.1f} MB  = {eager / size:.2f}x (for comparison)")


def _child_peak_rss(path: Path, eager: bool = False) -> int | None:
    """Peak resident memory of open_run(path) + StepGraph in a fresh process, over its size just before."""
    out = subprocess.run([sys.executable, __file__, "--rss-child", str(path)] + (["--eager"] if eager else []),
                         capture_output=True, text=True)
    return int(out.stdout) if out.returncode == 0 and out.stdout.strip().isdigit() else None


def _rss_child(path: str, eager: bool) -> None:
    import numpy  # noqa: F401 - imported before measuring, as in the engine (its searches import it)

    from afp_desktop.core.formats import lazy_trace

    if eager:
        lazy_trace.MIN_BYTES = 1 << 62

    def status(key: str) -> int:
        with open("/proc/self/status") as handle:
            return next(int(line.split()[1]) * 1024 for line in handle if line.startswith(key))

    gc.collect()
    before = status("VmRSS")
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")  # reset the peak (VmHWM) to the current size
    run = open_run(path)
    _ = run.stepgraph
    print(status("VmHWM") - before)


if __name__ == "__main__":
    main()
