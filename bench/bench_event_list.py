"""Event list and Context figures on big runs: listing types, filtering, one screen of summaries, and folding
the commit log to a stop (cold and warm); the engine's answers to the window, pickled, in bytes.

    .venv/bin/python bench/bench_event_list.py [EVENTS_FILE [RECORDING_FILE]]

Defaults: the 1,000-iteration run's events.ndjson (136k typed events plus the DomainEvents derived from them),
decompressed to /tmp (never committed), and the corpus' 15-large-run recording for the fold (3,022 commits).
The goal: a filter ≤ 300 ms, a screen of rows ≤ 10 ms, a fold on a settled stop ≤ 300 ms.
"""

from __future__ import annotations

import lzma
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from afp_desktop.core.views.context_state import ContextStates  # noqa: E402
from afp_desktop.core.views.event_list import (  # noqa: E402
    EventListAnswers,
    event_stage,
    event_summary,
    event_type,
    event_types,
    filter_entries,
    type_counts,
)
from afp_desktop.core.formats import open_run  # noqa: E402

BIG = Path("/work/shared/corpus/big/react-1000")
LARGE_RECORDING = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "15-large-run" / "recording.json.xz"


def decompressed(name: str) -> Path:
    for folder in (Path("/tmp/afp-bench-search"), Path("/tmp/afp-bench-events")):
        if (folder / name.removesuffix(".xz")).exists():
            return folder / name.removesuffix(".xz")
    out = Path("/tmp/afp-bench-events") / name.removesuffix(".xz")
    out.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(BIG / name) as src, open(out, "wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
    return out


def timed(label: str, func, repeat: int = 3):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    print(f"  {label:<44} {best * 1000:9.1f} ms")
    return result


def main() -> None:
    events_file = Path(sys.argv[1]) if len(sys.argv) > 1 else decompressed("events.ndjson.xz")
    recording = Path(sys.argv[2]) if len(sys.argv) > 2 else LARGE_RECORDING
    start = time.perf_counter()
    run = open_run(events_file)
    entries = run.axis.entries
    print(f"{events_file}: {len(entries):,} events on the axis (opened and aligned in "
          f"{time.perf_counter() - start:.1f} s)")
    types = timed("event_types (once per run, when the list shows)", lambda: event_types(run), 1)
    counts = timed("type_counts (the type list)", lambda: type_counts(run, types))
    common = counts[0][0]
    timed(f"filter by type {common!r}", lambda: filter_entries(run, exact_type=common, types=types))
    timed("filter by text 'tool_end'", lambda: filter_entries(run, "tool_end", types=types))
    timed("filter by text matching nothing", lambda: filter_entries(run, "zzz-not-there", types=types))
    middle = len(entries) // 2

    def screen():
        return [(event_type(run, e), event_stage(run, e), event_summary(run, e)) for e in entries[middle:middle + 40]]

    timed("one screen of rows (40 rows, 3 cells each)", screen)
    answers = EventListAnswers(run)
    page = timed("the engine's page of rows (120 rows)", lambda: answers.rows(range(middle, middle + 120)))
    kept = answers.filtered("tool_end")
    print(f"  pickled answers: a page {len(pickle.dumps(page)):,} bytes; the 'tool_end' filter "
          f"({0 if kept is None else len(kept):,} rows) {len(pickle.dumps(kept)):,} bytes")

    print(f"{recording}:")
    large = open_run(recording)
    log = large.commit_log or []
    states = ContextStates(large)
    cold = timed("fold to the middle commit (cold)", lambda: ContextStates(large).state_through(len(log) // 2), 1)
    timed("fold to the last commit (cold)", lambda: ContextStates(large).state_through(len(log) - 1), 1)
    states.state_through(len(log) // 2)
    timed("the next stop after a cached one (warm)", lambda: states.view(len(log) // 2 + 20, len(log) // 2), 1)
    answer = states.answer(len(large.axis))
    print(f"  pickled answer: the Context tab at the end {len(pickle.dumps(answer)):,} bytes")
    print(f"  ({len(log):,} commits; {len(cold):,} state keys)")


if __name__ == "__main__":
    main()
