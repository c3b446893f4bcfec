"""Long jobs run beside the window, on a thread of their own (a load, the find index, a comparison, a long stop's
lines): Python switching threads often while one runs, the job waiting at its breathing points while the window
is at work (window_activity.py), and ending at the next one once it is asked to stop."""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

from afp_desktop.app.pacing import warm_imports
from afp_desktop.app.pacing.window_activity import Contention
from afp_desktop.core.breathing import breathing, lets_go
from afp_desktop.core.formats import LoadCancelled

# While a load runs, Python hands the GIL between threads this often (default 5 ms). The window's thread needs
# the GIL at every call between Qt and Python — a paint or a layout makes hundreds — and waits up to the whole
# interval at each one while the loader thread runs Python, so the window's work slows by a factor that shrinks
# with the interval: a very short one keeps it close to its speed alone. The loader loses nothing while the
# window is idle (nobody asks for the GIL). (Restored when the last load ends.)
LOADING_SWITCH_INTERVAL_S = 0.00002
_switch_lock = threading.Lock()
_loads_running = 0
_usual_interval = sys.getswitchinterval()


def _load_begins() -> None:
    global _loads_running, _usual_interval
    with _switch_lock:
        if _loads_running == 0:
            _usual_interval = sys.getswitchinterval()
            sys.setswitchinterval(min(_usual_interval, LOADING_SWITCH_INTERVAL_S))
        _loads_running += 1


def _load_ends() -> None:
    global _loads_running
    with _switch_lock:
        _loads_running -= 1
        if _loads_running == 0:
            sys.setswitchinterval(_usual_interval)


@contextmanager
def beside_the_window(stop: threading.Event | None = None,
                      before_python: Callable[[], None] | None = None) -> Iterator[None]:
    """Run a long job on this thread (not the window's) as a load runs: Python switching threads often, and the
    job waiting at its breathing points while the window is at work (window_activity.py). Without this, each
    Python call of a paint waits up to the usual switch interval for its turn, and a big job (a big run's search
    index) freezes the window. Once `stop` is set, the job ends at its next breathing point (LoadCancelled): a
    window closing waits for that, and a thread left running when its window is deleted takes the program down.
    `before_python()` is called at each breathing point but those of C that lets go of Python (lets_go). The job
    starts once the start-up imports are done (warm_imports.py)."""
    warm_imports.finish()  # one thread imports numpy at a time: two at once leave it "partially initialized"
    _load_begins()
    stop = stop if stop is not None else threading.Event()
    contention = Contention(stop)

    def breathe_here() -> None:
        if stop.is_set():
            raise LoadCancelled()
        if lets_go():  # (the window's thread runs meanwhile, unless a processor is all they share)
            contention.yield_if_starved()
            return
        if before_python is not None:
            before_python()
        contention.yield_if_shared()

    try:
        with breathing(breathe_here):
            yield
    finally:
        _load_ends()


