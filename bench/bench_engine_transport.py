"""What a run costs on its way from the engine process to the window (a script that prints figures).

    .venv/bin/python bench/bench_engine_transport.py [FILE]

FILE (default /tmp/big-trace.json, else the 1,000-iteration corpus Trace decompressed from $AFP_BIG_CORPUS) is read
and prepared as the engine does (engine/service.py), then pickled as the engine sends it (the window's copy:
core/views/window_copy.py). A second
thread stands for the window's: it asks for Python's lock every 5 ms, and the longest gap between its turns is the
longest the window would wait. Printed: the pickle's size and the time to make it; a plain `pickle.loads` (what the
window's thread must not do: it holds the lock throughout); and `receive` (engine/process.py: the unpickler reads
through Python code a frame at a time, on a thread beside the window's), each with the longest wait of the other
thread. Target: the longest wait ≤ 50 ms.
"""

from __future__ import annotations

import gc
import io
import lzma
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from afp_desktop.engine.collector import collector_paused  # noqa: E402
from afp_desktop.core.views.window_copy import load_with_stand_ins, write_window_copy  # noqa: E402
from afp_desktop.engine.process import receive  # noqa: E402
from afp_desktop.engine.service import Engine  # noqa: E402

TARGET_MS = 50.0
BIG = Path(os.environ.get("AFP_BIG_CORPUS", "/work/shared/corpus/big/react-1000"))


class WindowTurns:
    """A thread that wants Python's lock every 5 ms, as the window's does while it paints: the longest gap."""

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> "WindowTurns":
        self._thread.start()
        time.sleep(0.05)
        return self

    def __exit__(self, *_exc) -> None:
        self._halt.set()
        self._thread.join()

    def _tick(self) -> None:
        last = time.perf_counter()
        while not self._halt.wait(0.005):
            now = time.perf_counter()
            self.gaps.append((now - last - 0.005) * 1000)
            last = now

    def longest(self) -> float:
        return max(self.gaps, default=0.0)


def big_trace() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    cached = Path("/tmp/big-trace.json")
    if not cached.exists():
        with lzma.open(BIG / "trace.json.xz") as source, open(cached, "wb") as out:
            while chunk := source.read(1 << 22):
                out.write(chunk)
    return cached


def main() -> None:
    path = big_trace()
    with collector_paused():
        run = Engine().open(str(path), fold_above=1000)
    began = time.perf_counter()
    buffer = io.BytesIO()
    write_window_copy(run, buffer)
    data = buffer.getvalue()
    dumped = time.perf_counter() - began
    del run
    gc.collect()
    print(f"{path.name}: {path.stat().st_size / 1e6:.0f} MB; the window's copy of the prepared run pickles to {len(data) / 1e6:.1f} MB "
          f"in {dumped * 1000:.0f} ms (in the engine process)")
    with WindowTurns() as turns:
        began = time.perf_counter()
        with collector_paused():
            plain = load_with_stand_ins(io.BytesIO(data))
        took = time.perf_counter() - began
    del plain
    print(f"  one unpickling, whole         {took * 1000:6.0f} ms   the other thread waited up to "
          f"{turns.longest():6.1f} ms   {'MET' if turns.longest() <= TARGET_MS else 'NOT MET'}")
    with tempfile.TemporaryDirectory() as folder:
        spill = os.path.join(folder, "run.pickle")
        with open(spill, "wb") as out:
            out.write(data)
        with WindowTurns() as turns:
            began = time.perf_counter()
            with collector_paused():
                received = receive(spill)
            took = time.perf_counter() - began
    print(f"  receive (a frame at a time)   {took * 1000:6.0f} ms   the other thread waited up to "
          f"{turns.longest():6.1f} ms   {'MET' if turns.longest() <= TARGET_MS else 'NOT MET'}   "
          f"({len(received.axis):,} events on the axis)")


if __name__ == "__main__":
    main()
