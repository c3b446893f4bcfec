"""Memory a closed run freed, given back to the system.

The C allocator keeps what a run freed for its own reuse: after a big run is closed, the window's process would still
hold much of its memory. glibc gives part of it back when asked (`malloc_trim`); the window asks on a thread of its
own (the call lets Python's lock go), once a run is closed and none replaces it. A run replaced by another is not
asked about: the new one reuses that memory, and the trim's lock on the allocator would lengthen its opening.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

_trim: Any = None  # the C library's malloc_trim, once looked up (False: there is none)


def give_memory_back() -> None:
    """Ask the C library to give freed memory back to the system, where there is a glibc to ask."""
    global _trim
    if _trim is None:
        _trim = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                _trim = ctypes.CDLL("libc.so.6").malloc_trim
            except (OSError, AttributeError):  # (another C library: musl has no malloc_trim)
                pass
    if _trim:
        _trim(0)


def give_memory_back_beside() -> threading.Thread:
    """`give_memory_back` on a thread beside the window's (returned: tests wait for it)."""
    thread = threading.Thread(target=give_memory_back, name="afp-give-back", daemon=True)
    thread.start()
    return thread
