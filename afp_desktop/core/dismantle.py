"""Freeing a big run a piece at a time.

Freeing a run is one long C call: dropping the last reference to a big run frees its objects one after another,
and no other thread runs Python meanwhile. On the window's thread that would freeze the window each time a big run
is replaced or closed. So a run no longer shown is handed to `take_apart` on another thread: it empties the run's
containers a slice at a time, breathing between slices (core/breathing.py), so each piece of freeing is short.

Only what nobody else holds is emptied: a container or object is taken apart only when the reference being
walked is its last one (its reference count says so). Anything still shared — with the run now shown, a panel,
a cache — is left whole and freed by whoever drops it last, as usual.
"""

from __future__ import annotations

import ctypes
import mmap
import sys
import sysconfig
import time
from itertools import islice
from typing import Any

from afp_desktop.core.breathing import breathe

PIECE_S = 0.001  # each piece of freeing aims at this long (a breath between two pieces)
MANY = 256  # a list or dict of more than this many items is freed a slice of items at a time, unwalked
_ATOMS = (str, bytes, bytearray, int, float, complex, bool, type(None), memoryview, range)
BIG_TEXT = 32 << 20  # a text this big has its own mapping (glibc maps chunks over 32 MB by themselves)
MADV_DONTNEED = 4  # (Linux)
_TEXTS = (bytes, bytearray)  # a file's text, read whole: its pages are given back before it is freed
_OWNED = 2  # sys.getrefcount of a value held by one local variable (the variable and getrefcount's argument)
# Reference counts tell "held only here" on the CPython this app pins (3.11). Python 3.14 may count fewer (borrowed
# references on the stack) and a free-threaded build counts per thread: there a value is only let go of, whole.
COUNTS_ARE_EXACT = sys.version_info < (3, 14) and not sysconfig.get_config_var("Py_GIL_DISABLED")


def take_apart(value: Any) -> int:
    """Free `value` a piece at a time. The caller passes it on and keeps no reference (`take_apart(held.pop())`);
    what anyone else still holds is only let go of, never changed. Returns how many containers and objects were
    emptied (for tests)."""
    pending: list = [value]
    del value
    if not COUNTS_ARE_EXACT:
        return 0
    emptied = 0
    pieces = _Pieces()
    while pending:
        item = pending.pop()
        if isinstance(item, _ATOMS) or sys.getrefcount(item) > _OWNED:
            if type(item) in _TEXTS and sys.getrefcount(item) <= _OWNED:
                let_pages_go(item)  # (ours alone: a file's text, read whole)
            del item  # no parts, or someone else holds it: let go of our reference only
            pieces.count(1)
            continue
        if type(item) in (list, dict) and len(item) > MANY:
            emptied += 1
            pieces.empty(item)  # a big collection of elements (events, steps, commits): sliced, not walked
            del item
            continue
        parts = _parts_of(item)
        del item  # emptied (a tuple or set: freed here, its items now held by `parts`)
        if parts is None:
            continue
        emptied += 1
        while parts:
            part = parts.pop()
            if sys.getrefcount(part) <= _OWNED:
                if type(part) in _TEXTS:
                    let_pages_go(part)
                elif not isinstance(part, _ATOMS):
                    pending.append(part)
            del part
            pieces.count(1)
    return emptied


def let_pages_go(text: bytes | bytearray) -> None:
    """Give a big text's memory back to the system before it is freed; only for a value nobody else holds (its
    contents read as zeros after this). Freeing it is one munmap with Python's lock held, long for a big text, and
    the window cannot run Python meanwhile. madvise through ctypes lets go of the lock while the system takes the
    pages, and the munmap that follows has nothing left to free. (Whole pages inside its contents only: the
    object's header and the allocator's stay.)"""
    if type(text) not in _TEXTS or len(text) < BIG_TEXT:
        return
    madvise = _madvise_function()
    if not madvise:
        return
    address, page = _buffer_address(text), mmap.PAGESIZE
    start = (address + page - 1) // page * page
    end = (address + len(text)) // page * page
    if address and end > start:
        madvise(start, end - start, MADV_DONTNEED)


def _buffer_address(text: bytes | bytearray) -> int:
    """Where `text`'s contents start in memory (its own buffer, not a copy; 0 if unknown)."""
    if isinstance(text, bytearray):
        contents = (ctypes.c_char * len(text)).from_buffer(text)
        address = ctypes.addressof(contents)
        del contents  # (its hold on the bytearray's buffer)
        return address
    return ctypes.cast(ctypes.c_char_p(text), ctypes.c_void_p).value or 0


_madvise: Any = None  # the C library's madvise, once looked up (False: none to use)


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


class _Pieces:
    """Breathes once about PIECE_S of freeing has been done; frees big collections in slices sized to that."""

    def __init__(self) -> None:
        self.size = 64  # items in the next slice of a big collection
        self.since = 0  # items let go of one by one since the last look at the clock
        self.began = time.perf_counter()

    def count(self, items: int) -> None:
        self.since += items
        if self.since >= 64:
            self.since = 0
            if time.perf_counter() - self.began >= PIECE_S:
                self._breathe()

    def empty(self, collection: list | dict) -> None:
        while collection:
            began = time.perf_counter()
            if type(collection) is list:
                del collection[-self.size:]
            else:
                for key in list(islice(iter(collection), self.size)):
                    del collection[key]
            took = time.perf_counter() - began
            if took < PIECE_S / 2:
                self.size = min(self.size * 2, 1024)
            elif took > PIECE_S * 2:
                self.size = max(self.size // 4, 1)
            self._breathe()

    def _breathe(self) -> None:
        breathe()
        self.began = time.perf_counter()


def _parts_of(item: Any) -> list | None:
    """Empty `item` (held only by the caller) and return what it held; None: nothing to take out."""
    kind = type(item)
    if kind is list:
        return item  # (popped from the end, an item at a time)
    if kind is dict:
        parts = [*item.keys(), *item.values()]
        item.clear()
        return parts
    if kind in (set, frozenset, tuple):
        return list(item)  # (not emptied: freed once the caller lets go of it, its items then held here)
    if isinstance(item, type) or hasattr(kind, "__del__"):
        return None  # (a finaliser may read what it holds)
    parts = []
    attributes = getattr(item, "__dict__", None)
    if type(attributes) is dict:
        parts.extend(attributes.values())
        attributes.clear()
    for name in _slot_names(kind):  # (a frozen dataclass refuses delattr: object's own one does not)
        if hasattr(item, name):
            parts.append(getattr(item, name))
            object.__delattr__(item, name)
    return parts or None


_slots_of: dict[type, tuple[str, ...]] = {}


def _slot_names(kind: type) -> tuple[str, ...]:
    known = _slots_of.get(kind)
    if known is not None:
        return known
    names: list[str] = []
    for cls in kind.__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    found = _slots_of[kind] = tuple(names)
    return found
