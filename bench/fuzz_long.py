"""The Hypothesis fuzzing of tests/test_fuzz_hypothesis.py, run much longer (random, not derandomized).
Prints each format's count and time; stops at the first failure with Hypothesis' shrunk example.

    .venv/bin/python bench/fuzz_long.py [EXAMPLES_PER_FORMAT] [FORMAT ...]

With AFP_FUZZ_LAST_CASE=PATH each input is written to PATH before it is run, so an input that crashes the
process itself (not a Python exception) can be found afterwards.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.fuzz_cases import (  # noqa: E402
    FORMATS,
    SECONDS_PER_COMMAND,
    check_file,
    file_bytes,
    hostile_documents,
    suffix_of,
)


def main() -> int:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    formats = sys.argv[2:] or list(FORMATS)
    last_case = os.environ.get("AFP_FUZZ_LAST_CASE")  # a path: each input is written there before it is run
    for fmt in formats:
        started = time.perf_counter()

        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(hostile_documents(fmt))
        def run(case):
            data = file_bytes(*case)
            if last_case:  # kept on disk first: a crash of the process itself leaves the input behind
                with open(last_case, "wb") as handle:
                    handle.write(data)
            check_file(data, suffix_of(case[0]), max_seconds=SECONDS_PER_COMMAND)

        run()
        print(f"{fmt:15} {examples:6,} examples  {time.perf_counter() - started:7.1f} s  ok", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
