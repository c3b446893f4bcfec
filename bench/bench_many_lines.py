"""Memory of an NDJSON file of many tiny lines (issue 10: 2 million lines took 15x the file). Prints figures.

    .venv/bin/python bench/bench_many_lines.py [LINES]
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time

LINE = b'{"type":"agentfootprint.stream.token","payload":{"t":"a"},"meta":{"runOffsetMs":1}}\n'


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "many.ndjson")
        with open(path, "wb") as handle:
            for _ in range(count // 10_000):
                handle.write(LINE * 10_000)
        size = os.path.getsize(path)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        from afp_desktop.core.formats import open_run

        started = time.perf_counter()
        run = open_run(path)
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(f"{count:,} lines, file {size / 2**20:.1f} MiB: open_run {seconds:.2f} s, "
              f"peak RSS {peak / 2**20:.0f} MiB ({(peak - before) / size:.1f}x the file above the start), "
              f"{len(run.typed_events):,} events")


if __name__ == "__main__":
    main()
