"""The garbage collector held off while a run is built or received: a policy of the process that does it (the
engine process's main, the command line, the window receiving a run), never of the core.

Bulk-building millions of small dicts and lists (parsing, folding, unpickling) triggers collections that find
nothing to free and add greatly to the time taken; in the window's process a full collection over them holds
Python's lock, and the window, for a long stretch. Counted, so nested or overlapping holds (threads) restore it once.

When the collector comes back on, everything alive is moved to the permanent generation (`gc.freeze`): the run
just built is millions of objects that will live as long as it is shown, and the first full collection over
them would otherwise walk them all. Frozen objects are still freed by reference counting when the run is closed.

In the window's process the collector runs on the window's thread only: a collection on another thread may free a
Qt object's Python wrapper there, and Qt's destructor, taking its locks off the window's thread while the window
holds Python's lock and waits for one of them, deadlocks both. A thread of the window's process that computes
(a request answered there) holds the collector off while it works (`freeze=False`: what it made does not outlive it).
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_holders = 0
_was_enabled = True
_freeze = False  # a holder built what lives on: frozen when the collector comes back on


@contextmanager
def collector_paused(freeze: bool = True) -> Iterator[None]:
    global _holders, _was_enabled, _freeze
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
        _freeze = _freeze or freeze
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                if _was_enabled:
                    if _freeze:
                        gc.freeze()
                    gc.enable()
                _freeze = False
