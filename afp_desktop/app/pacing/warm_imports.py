"""numpy imported on a thread of its own once the window has painted its first frame.

numpy's import is long, most of it module set-up that holds Python: on the window's thread it would be a freeze
just after start-up, or in the middle of opening a file. On this thread the window keeps its turn. Started before
the first frame, the imports would slow the first frame down, so they wait for it.

pyqtgraph is NOT imported here, though its import is longer still: it reads every attribute of PySide6's QtCore,
QtGui and QtWidgets (which makes shiboken create those types) and defines Qt subclasses, and doing that on a
thread while the window runs its event loop can crash the app (SIGSEGV in the window's thread). The timeline
imports it on the window's thread when it is built (panels/timeline_host.py), once numpy is in.

The app waits for the thread before it ends (`finish`, and the thread is not a daemon): a window closed just after
start-up would leave a module half imported, and tearing down the interpreter then crashes (SIGSEGV).
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
        import numpy  # noqa: F401  (nothing Qt: safe off the window's thread)
    except Exception:  # noqa: BLE001 - the window's own import then says what is wrong
        pass


def ready() -> bool:
    """Nothing is being imported on the thread (done, or never started)."""
    return _thread is None or not _thread.is_alive()


def finish(timeout: float = 30.0) -> None:
    """Wait until the imports are done: a half-imported module must not meet the interpreter's teardown."""
    if _thread is not None:
        _thread.join(timeout)
