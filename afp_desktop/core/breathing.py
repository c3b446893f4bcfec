"""Breathing points: where the core's long loops let the thread running them pause, or stop.

The long loops of the core call `breathe()` every few milliseconds of work; whoever runs them may install a hook
there (`breathing`): the engine process's raises LoadCancelled once the window has cancelled the load, a job beside
the window's once it is asked to stop. With no hook installed (the command line, the tests) it does nothing.
"""

from __future__ import annotations

from array import array
import threading
from contextlib import contextmanager
from itertools import chain, islice, repeat
from typing import Callable, Iterable, Iterator, TypeVar

EVERY = 1024  # items between breaths in a per-event loop (a few milliseconds of the slowest loop)
_local = threading.local()
T = TypeVar("T")


def breathe() -> None:
    """Let the hook of this thread, if any, pause or stop the work."""
    hook = getattr(_local, "hook", None)
    if hook is not None:
        hook()


@contextmanager
def _for_this_thread(name: str, value) -> Iterator[None]:
    """`value` as this thread's `name` while the block runs (then what it was)."""
    previous = getattr(_local, name, None)
    setattr(_local, name, value)
    try:
        yield
    finally:
        setattr(_local, name, previous)


def breathing(hook: Callable[[], None]):
    """Call `hook` at every breathing point reached on this thread while the block runs."""
    return _for_this_thread("hook", hook)


def breathing_over(items: Iterable[T], every: int = EVERY) -> Iterable[T]:
    """`items`, breathing every `every` of them (fewer for a loop that does more per item). Without a hook on
    this thread: `items` itself (no cost)."""
    hook = getattr(_local, "hook", None)
    return items if hook is None else _in_chunks(items, hook, every)


def _in_chunks(items: Iterable[T], hook: Callable[[], None], every: int = EVERY) -> Iterator[T]:
    """The items a chunk at a time, the hook called before each chunk. Chained in C (chain, map): a generator
    yielding each item would add Python's per-item cost to every one of the millions of items a big load goes
    through."""
    if isinstance(items, (list, tuple, range, array)):  # (slices: no per-item work)
        pieces: Iterable = (items[start:start + every] for start in range(0, len(items), every))
    else:
        iterator = iter(items)
        pieces = iter(lambda: list(islice(iterator, every)), [])
    return chain.from_iterable(map(_after_breath, repeat(hook), pieces))


def _after_breath(hook: Callable[[], None], piece: T) -> T:
    hook()
    return piece


FIND_PIECE = 1 << 20  # bytes searched between breaths: one find over a whole big file would hold Python throughout


def find_breathing(data: bytes, needle: bytes, start: int = 0) -> int:
    """data.find(needle, start), searched a piece at a time with a breath between pieces."""
    hook = getattr(_local, "hook", None)
    size = len(data)
    if hook is None or not needle or not 0 <= start < size:  # (an empty needle, a start outside: find's answer)
        return data.find(needle, start)
    overlap = len(needle) - 1
    while start < size:
        end = min(start + FIND_PIECE, size)
        found = data.find(needle, start, min(end + overlap, size))
        if found != -1:
            return found
        hook()
        start = end
    return -1


def rfind_breathing(data: bytes, needle: bytes, end: int) -> int:
    """data.rfind(needle, 0, end), searched backwards a piece at a time with a breath between pieces."""
    hook = getattr(_local, "hook", None)
    end = min(end, len(data))
    if hook is None or not needle or end <= 0:
        return data.rfind(needle, 0, end)
    overlap = len(needle) - 1
    limit = end
    while limit > 0:
        start = max(0, limit - FIND_PIECE)
        found = data.rfind(needle, start, min(limit + overlap, end))  # (a match across `limit`: in this piece)
        if found != -1:
            return found
        hook()
        limit = start
    return -1


def reporting(progress: Callable[[float], None] | None):
    """How far this thread's long reads are (`report`) goes to `progress` (0..1) while the block runs."""
    return _for_this_thread("progress", progress)


def progress_span(low: float, high: float):
    """Within the block, a report of f means low + (high - low)·f of the enclosing span."""
    outer = getattr(_local, "progress", None)
    return _for_this_thread("progress", None if outer is None else lambda f: outer(low + (high - low) * f))


def report(fraction: float) -> None:
    """Tell this thread's progress reader (if any) how far the current read is (0..1)."""
    progress = getattr(_local, "progress", None)
    if progress is not None:
        progress(min(max(fraction, 0.0), 1.0))
