"""Compare benchmark (a script, not a test): prints how long aligning two runs takes on the large corpus run.

    .venv/bin/python bench/bench_compare.py [--repeat N]

- the large run (1,056 steps) against itself: the same content everywhere, one pass;
- against its redacted copy: every payload differs, so the shape pass aligns each step;
- against an edited copy with one iteration fewer (a gap the alignment must find);
- the position map (a cursor position carried to the other run), per position;
- the word diff of the biggest slot payload pair.
Figures are the median of N runs; ratios are against open_run + prepare of the file.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from afp_desktop.core.jsonx import jsonio  # noqa: E402
from afp_desktop.core.views.compare import PositionMap, compare_runs, payload_text, word_diff  # noqa: E402
from afp_desktop.core.formats import load_bytes, open_run  # noqa: E402

LARGE = ROOT / "tests" / "corpus" / "15-large-run"


def timed(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def without_one_iteration(run):
    """The large Trace with the DomainEvents of its 75th LLM turn and tool calls left out."""
    events = [e.value() if hasattr(e, "value") else e for e in run.domain_events]
    starts = [i for i, e in enumerate(events) if e.get("type") == "llm.start"]
    first, last = starts[74], starts[75]
    kept = [copy.deepcopy(e) for i, e in enumerate(events) if not first <= i < last]
    return load_bytes(jsonio.dumps({"version": 1, "events": kept, "redaction": "none"}), "fewer.json").prepare()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    load, run = timed(lambda: open_run(LARGE / "trace.json.xz").prepare(), args.repeat)
    redacted = open_run(LARGE / "trace.redacted.json.xz").prepare()
    fewer = without_one_iteration(run)
    print(f"open_run + prepare of the large Trace: {load * 1000:8.1f} ms (the unit of the ratios)")
    for name, other in (("itself", run), ("its redacted copy", redacted), ("one iteration fewer", fewer)):
        seconds, comparison = timed(lambda: compare_runs(run, other), args.repeat)
        totals = comparison.totals()
        print(f"compare with {name:<20} {seconds * 1000:8.1f} ms  ({seconds / load:4.2f}× a load)  "
              f"aligned {totals['aligned']:,}, changed {totals['changed']:,}, added {totals['added']:,}, "
              f"removed {totals['removed']:,}")
    comparison = compare_runs(run, fewer)
    positions = PositionMap(comparison, run, fewer)
    total = len(run.axis) + 1
    seconds, _ = timed(lambda: [positions.a_to_b(p) for p in range(total)], args.repeat)
    print(f"position map: {seconds / total * 1e6:6.2f} µs per position ({total:,} positions)")
    row = max(compare_runs(run, redacted).rows_with("changed"),
              key=lambda r: len(payload_text(comparison.values_a[r.a].get("messages"))))
    text_a = payload_text(run.stepgraph["nodes"][row.a].get("slotBoundaries", {}).get("messages"))
    text_b = payload_text(redacted.stepgraph["nodes"][row.b].get("slotBoundaries", {}).get("messages"))
    seconds, segments = timed(lambda: word_diff(text_a, text_b), args.repeat)
    print(f"word diff of the largest messages slot ({len(text_a):,} / {len(text_b):,} chars): "
          f"{seconds * 1000:8.1f} ms, {len(segments):,} segments")


if __name__ == "__main__":
    main()
