"""Where a JSON text's brackets are: one vectorised pass (numpy, in chunks) over the bytes.

`brackets_outside_strings(data)` gives the byte position of every `{ [ ] }` that is not inside a string, whether
it opens, and the nesting depth after it — what lets the loaders find parts of a large document (a Trace's
payloads, a deep recording's levels) without parsing it. Strings are tracked by counting unescaped quotes (an
odd run of backslashes escapes the next character). None for unbalanced brackets or an unterminated string.
`closing_brackets` pairs chosen openings with their closings (a pass per level), `matching_brackets` pairs
every bracket at once (one sort: for documents thousands of levels deep); `with_placeholders` is a span of the
text with parts cut out and a number in place of each — how the readers (lazy Trace payloads, lazy recordings,
deep documents) hand orjson only what it should parse. numpy is imported on first use (`numpy()`), not when this module is.

The scan's loop is in C when the optional `brackets_c` module was built (setup.py): faster than numpy's passes,
and it lets go of the GIL, so the window's thread runs while a big file is scanned. Both give the same answer
(tests/test_native_scan.py).
"""

from __future__ import annotations

import os
from typing import Any

from afp_desktop.core import compiled
from afp_desktop.core.breathing import breathe, find_breathing, report

native: Any = compiled.load("afp_desktop.core.jsonx.brackets_c")  # None: numpy's passes

np: Any = None  # numpy, once imported

_CHUNK = 1 << 17  # bytes per vectorised step: bounds the temporary arrays (and so the peak memory)
NATIVE_CHUNK = 1 << 20  # bytes per call of the C loop (each call short): the output arrays are sized by it
_QUOTE, _BACKSLASH, _OPEN_SQUARE = 0x22, 0x5C, 0x5B


def unguessable_number(bits: int = 52) -> int:
    """A random number of `bits` bits that a file cannot guess (a placeholder's salt), from the system's source."""
    return int.from_bytes(os.urandom((bits + 7) // 8), "big") >> (-bits % 8)


def numpy():
    """The numpy module, imported now if need be (a slow import); None if it is not installed."""
    global np
    if np is None:
        try:
            import numpy as module
        except ImportError:  # pragma: no cover - a declared dependency
            return None
        np = module
    return np


def brackets_outside_strings(data: bytes, cut_ok: bool = False, start: int = 0, end: int | None = None):
    """(positions, is-open flags, depth after each) of every bracket outside a string; None if unbalanced.
    `cut_ok`: a text cut off before its end (brackets left open, a last string unterminated) is scanned too.
    `start`, `end`: scan only data[start:end] (which must begin outside a string); positions are still offsets
    into `data`."""
    if numpy() is None:
        return None
    size = len(data) if end is None else min(end, len(data))
    scan = _scan_natively if native is not None else _scan_with_numpy
    found_positions, found_opens, in_string = scan(data, start, size)
    if in_string and not cut_ok:
        return None  # an unterminated string
    if not found_positions:
        return None  # nothing to scan
    positions, opens, depth = _joined(found_positions, found_opens)
    if not len(positions):
        return None
    if (depth[-1] != 0 and not cut_ok) or depth.min() < 0 or depth[0] != 1:
        return None
    return positions, opens, depth


def closings_at_top(data: bytes, start: int, end: int, count: int):
    """Where the first `count` values that data[start:end] opens at its own level end: the positions of their
    closing brackets (an array of ints), up to the first bracket that closes what encloses the span (a list's
    end). data[start:end] begins outside a string and may end anywhere (a cut: what it cuts is not counted).
    None without a scanner."""
    if numpy() is None:
        return None
    scan = _scan_natively if native is not None else _scan_with_numpy
    found_positions, found_opens, _in_string = scan(data, start, min(end, len(data)))
    if not found_positions:
        return np.empty(0, np.int64)
    positions, opens, depth = _joined(found_positions, found_opens)
    below = np.flatnonzero(depth < 0)
    if len(below):
        positions, opens, depth = positions[:below[0]], opens[:below[0]], depth[:below[0]]
    return positions[(depth == 0) & ~opens][:count]


def _joined(found_positions: list, found_opens: list):
    """A scan's pieces as one array each (positions, is-open flags) and the nesting depth after each bracket."""
    positions = np.concatenate(found_positions)
    opens = np.concatenate(found_opens)
    return positions, opens, np.cumsum(opens.astype(np.int32) * 2 - 1, dtype=np.int32)


def _scan_with_numpy(data: bytes, start: int, size: int):
    """The brackets of data[start:size] outside strings, by numpy's passes over chunks of it: (positions in
    parts, is-open flags in parts, whether the end is inside a string)."""
    buffer = np.frombuffer(data, np.uint8)
    first_backslash = find_breathing(data, b"\\", start)
    escapes = first_backslash != -1 and first_backslash < size
    found_positions, found_opens = [], []
    in_string = 0
    first, steps = start, 0
    while start < size:
        stop = min(start + _CHUNK, size)
        while stop < size and buffer[stop - 1] == _BACKSLASH:  # never split a run of backslashes
            stop += 1
        chunk = buffer[start:stop]
        quotes = chunk == _QUOTE
        if escapes:
            _clear_escaped_quotes(chunk, quotes)
        folded = chunk & 0xDF  # '{' → '[' and '}' → ']'
        is_open = folded == _OPEN_SQUARE
        candidates = np.flatnonzero(is_open | (folded == 0x5D))
        quote_at = np.flatnonzero(quotes)
        # A bracket is inside a string when an odd number of (unescaped) quotes came before it.
        before = np.searchsorted(quote_at, candidates) + in_string
        outside = candidates[(before & 1) == 0]
        found_positions.append(outside + start)
        found_opens.append(is_open[outside])
        in_string = (in_string + len(quote_at)) & 1
        start = stop
        breathe()
        steps += 1
        if not steps % 64:  # (every 8 MB)
            report((start - first) / max(size - first, 1))
    return found_positions, found_opens, in_string


def _scan_natively(data: bytes, start: int, size: int):
    """The same by the C loop, a chunk per call (breathing between two)."""
    room = max(min(NATIVE_CHUNK, size - start), 0)  # (a small text: small arrays)
    positions = np.empty(room, np.int64)
    opens = np.empty(room, np.uint8)
    found_positions, found_opens = [], []
    state, first, steps = 0, start, 0
    while start < size:
        stop = min(start + NATIVE_CHUNK, size)
        count, state = native.scan(data, start, stop, state, positions, opens)
        found_positions.append(positions[:count].copy())
        found_opens.append(opens[:count].view(bool).copy())
        start = stop
        breathe()
        steps += 1
        if not steps % 8:  # (every 8 MB)
            report((start - first) / max(size - first, 1))
    breathe()  # (a breath before the arrays are joined)
    return found_positions, found_opens, state & 1


def closing_brackets(depth, open_indices):
    """The index of each opening's closing bracket: the next bracket back at the depth before it opened."""
    closes = np.empty_like(open_indices)
    levels = np.flatnonzero(np.bincount(depth[open_indices]))  # (in order; np.unique would import numpy.ma)
    for level in levels:
        chosen = depth[open_indices] == level
        back = np.flatnonzero(depth == level - 1)
        closes[chosen] = back[np.searchsorted(back, open_indices[chosen], side="right")]
    return closes


def matching_brackets(opens, depth):
    """For every bracket, the index of its partner (int32), pairing all of them at once: sorted (stably) by the
    level each stands at (an opening's depth after it, a closing's depth before it), a level's brackets alternate
    opening, closing, so neighbours in that order are partners. One sort instead of a pass per level (a
    recording nests thousands of levels deep)."""
    level = depth + ~opens  # (~ on booleans: a closing stands one level deeper than the depth after it)
    small = level.max() < 1 << 16  # a 16-bit key sorts by radix, several times faster
    order = np.argsort(level.astype(np.uint16) if small else level, kind="stable").astype(np.int32)
    del level
    partner = np.empty(len(order), np.int32)
    partner[order[0::2]] = order[1::2]
    partner[order[1::2]] = order[0::2]
    return partner


def with_placeholders(view: memoryview, start: int, end: int, holes) -> list:
    """The parts of view[start:end] with each (hole start, hole end, number) replaced by that number, to join."""
    parts: list = []
    cursor = start
    for hole_start, hole_end, number in holes:
        parts += (view[cursor:hole_start], b"%d" % number)
        cursor = hole_end
    parts.append(view[cursor:end])
    return parts


def _clear_escaped_quotes(chunk, quotes) -> None:
    """An odd run of backslashes escapes the character after it: such a quote does not open or close a string."""
    slashes = np.flatnonzero(chunk == _BACKSLASH)
    if not len(slashes):
        return
    breaks = np.flatnonzero(np.diff(slashes) != 1)
    run_last = np.append(breaks, len(slashes) - 1)
    run_first = np.insert(breaks + 1, 0, 0)
    odd = ((run_last - run_first + 1) & 1) == 1
    escaped = slashes[run_last[odd]] + 1
    quotes[escaped[escaped < len(chunk)]] = False
