"""The garbage collector paused while a run is built.

Bulk-building millions of small dicts and lists (parsing, folding) triggers collections that find nothing to
free and add greatly to the load time. Counted, so nested or overlapping loads (threads) restore it once.

When the collector comes back on, everything alive is moved to the permanent generation (`gc.freeze`): the run
just built is millions of objects that will live as long as it is shown, and the first full collection over
them would otherwise hold the GIL for a long stretch — freezing whichever thread triggers it, often
the window's. Frozen objects are still freed by reference counting when the run is closed.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_holders = 0
_was_enabled = True


@contextmanager
def gc_paused() -> Iterator[None]:
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.freeze()
                gc.enable()
