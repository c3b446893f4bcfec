"""numpy and pyqtgraph imported on a thread of their own once the window has painted its first frame.

Each takes ~0.1–0.3 s to import, much of it in module set-up that holds Python: on the window's thread that was a
freeze of ~0.3 s just after start-up, or in the middle of opening a file. On this thread the window keeps its
turn, and the timeline (pyqtgraph) is built once they are in (`ready`). Started before the first frame, they
slowed it (0.92 s instead of 0.84 s).

The app waits for the thread before it ends (`finish`, and the thread is not a daemon): a window closed half a
second after start-up left pyqtgraph half imported, and tearing down the interpreter then crashed (SIGSEGV).
"""

from __future__ import annotations

import threading

_thread: threading.Thread | None = None


def start() -> None:
    global _thread
    if _thread is None:
        _thread = threading.Thread(target=_import, name="warm imports", daemon=False)
        _thread.start()


def _import() -> None:
    try:
        import numpy  # noqa: F401
        import pyqtgraph  # noqa: F401
    except Exception:  # noqa: BLE001 - the window's own import then says what is wrong
        pass


def ready() -> bool:
    """Nothing is being imported on the thread (done, or never started)."""
    return _thread is None or not _thread.is_alive()


def finish(timeout: float = 30.0) -> None:
    """Wait until the imports are done: a half-imported module must not meet the interpreter's teardown."""
    if _thread is not None:
        _thread.join(timeout)
