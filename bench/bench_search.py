"""Search figures on a big run: building the index, and queries (plain, ignore-case, regex; rare and common).

    .venv/bin/python bench/bench_search.py [FILE ...]

Without arguments it uses the 1,000-iteration run of the shared corpus, decompressed to /tmp (never committed):
/work/shared/corpus/big/react-1000/{trace.json.xz, events.ndjson.xz}. The goal: a query ≤ 100 ms; a pattern
that backtracks without end stopped at the time limit (search_limits.py) with a sentence.
"""

from __future__ import annotations

import lzma
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from afp_desktop.core.formats import open_run  # noqa: E402
from afp_desktop.core.views.search import QueryError, SearchIndex  # noqa: E402

BIG = Path("/work/shared/corpus/big/react-1000")
QUERIES = (  # (query, regex, ignore_case, what it shows)
    ("round 777: ok", False, False, "rare plain text"),
    ("shard", False, False, "common plain text"),
    ("SHARD", False, True, "common, ignore case"),
    (r"Round 99\d: probing", True, False, "regex"),
    (r"shard (alpha|delta) round \d+: step [1-3]/8", True, True, "regex, ignore case"),
    ("zzz-not-there", False, True, "no match, ignore case"),
    (".", True, False, "regex matching everywhere"),
    ("e", False, False, "plain, nearly everywhere"),
)
CATASTROPHIC = (r"(a|aa)+$", r"(a+)+$", r"(x+x+)+y", r"\s*\s*\s*\s*\s*#", r"(.*a){25}")


def decompressed(name: str) -> Path:
    out = Path("/tmp/afp-bench-search") / name.removesuffix(".xz")
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        with lzma.open(BIG / name) as src, open(out, "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
    return out


def best_of(func, repeat: int = 5) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = func()
        best = min(best, time.perf_counter() - t0)
    return best, value


def bench(path: Path) -> None:
    print(f"\n{path} ({os.path.getsize(path) / 1e6:.1f} MB)")
    t0 = time.perf_counter()
    run = open_run(str(path)).prepare()
    loaded = time.perf_counter() - t0
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    index = SearchIndex(run)
    built = time.perf_counter() - t0
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    content, status = index.parts
    print(f"  load + prepare {loaded:6.2f} s   build index {built:6.2f} s  ({built / loaded:.2f}× the load)")
    print(f"  indexed texts {len(index):,} ({len(content.texts):,} distinct, {len(content.blob) / 1e6:.1f} M chars); "
          f"status lines {len(status):,}; peak RSS +{(rss1 - rss0) / 1024:.0f} MB while building")
    t0 = time.perf_counter()
    index.with_templates({"tool": "Running {{toolName}}"}, "Bot")
    print(f"  new template map (status part only) {time.perf_counter() - t0:6.3f} s")
    for query, regex, ignore_case, what in QUERIES:
        limited, result = best_of(lambda: index.find(query, regex=regex, ignore_case=ignore_case, limit=10_000))
        try:
            seconds, every = best_of(lambda: index.find(query, regex=regex, ignore_case=ignore_case), repeat=2)
            unlimited = f"{len(every):>9,} hits unlimited {seconds * 1000:7.1f} ms"
        except QueryError as err:  # (every hit of a query matching everywhere: past the time limit)
            unlimited = f"unlimited: {str(err)[:40]}"
        first, _ = best_of(lambda: [result[i] for i in range(min(50, len(result)))])
        verdict = "ok" if limited <= 0.100 else "OVER 100 ms"
        print(f"  {what:24} {query!r:22} limit 10k: {len(result):>6,} hits {limited * 1000:7.1f} ms; {unlimited}; "
              f"50 excerpts {first * 1000:5.2f} ms  {verdict}")
    for query in CATASTROPHIC:  # each ends: with its hits, or stopped at the time limit
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            said = f"{len(index.find(query, regex=True, limit=10_000)):,} hits"
        except QueryError as err:
            said = str(err)[:50]
        print(f"  catastrophic {query!r:24} {time.perf_counter() - t0:6.2f} s ({time.process_time() - c0:5.2f} s of "
              f"processor): {said}")


def main(argv: list[str]) -> None:
    paths = [Path(a) for a in argv] or [decompressed("trace.json.xz"), decompressed("events.ndjson.xz")]
    for path in paths:
        bench(path)


if __name__ == "__main__":
    main(sys.argv[1:])
