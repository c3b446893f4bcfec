"""Core benchmark (a script, not a test): prints figures and ratios for the large corpus run.

    .venv/bin/python bench/bench_core.py [--repeat N]

- bare `orjson.loads` of trace.json (the floor) vs `open_run(trace.json)` + StepGraph;
- the status pass over every prefix of events.ndjson (incremental: linear in events);
- the same with rendering both template maps (what `afp-desktop status` does);
- open_run(recording.json) (deeply nested; parsed with the deep fallback) and its stops;
- peak memory (tracemalloc) of loading trace.json + StepGraph relative to the file size.
"""

from __future__ import annotations

import argparse
import gc
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
from afp_desktop.core.status import render_status_line, status_timeline  # noqa: E402
from afp_desktop.core.stepgraph import build_step_graph  # noqa: E402

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
    args = parser.parse_args()
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
        print(f"  peak memory, trace + StepGraph   {peak / 1e6:8.1f} MB  = {peak / trace.stat().st_size:.2f}x the "
              f"file size (target < 4x)")


if __name__ == "__main__":
    main()
