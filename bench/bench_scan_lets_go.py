"""Whether the bracket scan's C loop (core/jsonx/brackets_c.c) lets go of the GIL while it runs: the longest a
Python loop on this thread (the window's, in the app) waited between two turns while a scan ran on another thread,
next to the same figure for a call that holds the GIL. A script, not a test: it prints figures.

    .venv/bin/python bench/bench_scan_lets_go.py [MiB]

A scan that lets go: the wait is a small part of the scan's time; a call that holds the GIL: about all of it.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from afp_desktop.core.jsonx import jsonscan  # noqa: E402


def longest_wait_during(call) -> tuple[float, float]:
    """(the longest a Python loop on this thread waited between two turns while `call()` ran on another thread,
    how long the call took)."""
    started, done, took = threading.Event(), threading.Event(), []

    def work():
        started.set()
        time.sleep(0.02)  # (this thread is in its loop by then)
        begun = time.perf_counter()
        call()
        took.append(time.perf_counter() - begun)
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    longest, last = 0.0, time.perf_counter()
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    return longest, took[0]


def main(mib: int = 32) -> int:
    if jsonscan.native is None:
        print("the C bracket scan is not built (bash scripts/setup.sh says why)")
        return 1
    data = b'["' + b"\\\\" * (mib << 20) + b'"]'  # (escapes: the loop's slowest path)
    positions, opens = np.empty(len(data), np.int64), np.empty(len(data), np.uint8)  # (untouched but 2 items)
    for name, call in (("the C scan", lambda: jsonscan.native.scan(data, 0, len(data), 0, positions, opens)),
                       ("bytes.count (holds the GIL)", lambda: bytes(data).count(b"x"))):
        waited, took = longest_wait_during(call)
        print(f"{name:<28} {took * 1000:7.1f} ms; this thread waited at most {waited * 1000:7.1f} ms "
              f"({waited / took:4.0%} of it)")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 32))
