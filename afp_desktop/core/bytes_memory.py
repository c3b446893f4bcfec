"""A big bytes object's own memory, reached through ctypes: made unfilled, written into, given back.

A file's text is one bytes object (a big file is never held twice). Reading a big one in one call, or freeing it in
one call, holds a thread for a long stretch (freeing is one munmap with Python's lock held). These helpers let both
happen a piece at a time, or without the lock. They touch a bytes object's buffer, which Python treats as
immutable: only one made here and not yet handed to anyone (`writable_view`), or one about to be freed that nobody
else holds (`let_pages_go`).
"""

from __future__ import annotations

import ctypes
import mmap
import sys
from typing import Any

BIG_TEXT = 32 << 20  # a bytes object this big has its own mapping (glibc maps chunks over 32 MB by themselves)
MADV_DONTNEED = 4  # (Linux)
_madvise: Any = None  # the C library's madvise, once looked up (False: none to use)


def unfilled_bytes(size: int) -> bytes | None:
    """A new bytes object of `size` bytes whose contents are not set (PyBytes_FromStringAndSize(NULL, size)): its
    pages are touched only as they are written. None without CPython's C API."""
    try:
        make = ctypes.pythonapi.PyBytes_FromStringAndSize
    except AttributeError:
        return None
    make.restype = ctypes.py_object
    make.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
    made = make(None, size)
    return made if type(made) is bytes and len(made) == size else None


def buffer_address(text: bytes) -> int:
    """Where `text`'s contents start in memory (its own buffer, not a copy; 0 if unknown)."""
    return ctypes.cast(ctypes.c_char_p(text), ctypes.c_void_p).value or 0


def writable_view(text: bytes) -> memoryview | None:
    """A writable byte view of `text`'s contents: only for an object just made by `unfilled_bytes`, filled before
    anyone else sees it. The caller releases it."""
    address = buffer_address(text)
    if not address:
        return None
    return memoryview((ctypes.c_char * len(text)).from_address(address)).cast("B")


def let_pages_go(text: bytes) -> None:
    """Give a big bytes object's memory back to the system before it is freed; only for a value nobody else
    holds (its contents read as zeros after this). Freeing it is one munmap with Python's lock held, long for a
    big text, and the window cannot run Python meanwhile. madvise through ctypes lets go of the lock while the
    system takes the pages, and the munmap that follows has nothing left to free. (Whole pages inside its
    contents only: the object's header and the allocator's stay.)"""
    if type(text) is not bytes or len(text) < BIG_TEXT:
        return
    madvise = _madvise_function()
    if not madvise:
        return
    address, page = buffer_address(text), mmap.PAGESIZE
    start = (address + page - 1) // page * page
    end = (address + len(text)) // page * page
    if address and end > start:
        madvise(start, end - start, MADV_DONTNEED)


def _madvise_function():
    global _madvise
    if _madvise is None:
        _madvise = False
        if sys.platform.startswith("linux"):
            try:
                found = ctypes.CDLL(None, use_errno=True).madvise
                found.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
                found.restype = ctypes.c_int
                _madvise = found
            except (OSError, AttributeError):
                pass
    return _madvise
