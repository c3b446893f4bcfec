"""How long the run's figures take: the tally made once per run (core/model/summary.py) and the figures as known
at one position, asked at every move of the cursor by the header. Prints figures, asserts nothing.

    python bench/bench_summary_at.py [FILE]

FILE defaults to the corpus's large run (tests/corpus/15-large-run/recording.json.xz).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from afp_desktop.core.formats import load_bytes  # noqa: E402
from afp_desktop.core.model.summary import summary_at, tally_run  # noqa: E402


def read(path: Path) -> bytes:
    if path.suffix == ".xz":
        import lzma

        return lzma.open(path).read()
    return path.read_bytes()


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests/corpus/15-large-run/recording.json.xz"
    name = path.name.removesuffix(".xz")
    run = load_bytes(read(path), name)
    events = len(run.domain_events) + len(run.typed_events or [])
    print(f"{path.name}: {events:,} events, {len(run.axis):,} positions")
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        tally_run(run).whole()
        best = min(best, time.perf_counter() - start)
    print(f"{'the tally, once per run (and the whole summary)':<52} {best * 1000:8.2f} ms")
    _ = run.summary_tally  # (made once, as the loader does)
    positions = [random.randrange(len(run.axis) + 1) for _ in range(20_000)]
    start = time.perf_counter()
    for position in positions:
        summary_at(run, position)
    each = (time.perf_counter() - start) / len(positions)
    print(f"{'the figures at one position (a move of the cursor)':<52} {each * 1e6:8.2f} µs")


if __name__ == "__main__":
    main()
