"""The first typed events of a big recording, found from the end of the file before the whole of it is read.

A recording as `recordRun` writes it is `{"snapshot": …, "events": […], "structure": …}`. Its typed events come
after the snapshot, which is most of a long run's file, and reading the whole file takes long, so they are found
from the end instead. The document must begin with its `"snapshot"` key (a Trace's
`"structure"` may come last too) and end with its `"structure"` member (`{` + the rest parses as an object with
that key alone: a member of the root); just before it, after a comma, is the `]` that ends the events array; its
`[` follows the last `"events":` key before that. A bracket scan of that array alone (a fraction of the file)
then checks that this `[` and this `]` are partners — the root's `events`, not a list of the same name inside a
payload — and gives the elements' spans. Only then are the first events parsed, as many as are shown next (the
first part is shown before the events of the next are parsed).

`recording_tail_of_file` does this on the ends of a file before the file is read whole: its first bytes, and its
end read backward only as far as the events array begins (within the last quarter of it, at least 64 MB: reading
the whole quarter would cost more than the array; with the C loop the array is scanned from its end down while
the pieces below are read: core/formats/recording_end.py). Anything else (an envelope, another key order, a
structure over a megabyte, a damaged array) gives None: no preview, and the file is read the ordinary way. The
whole file is still read and checked after the preview.
"""

from __future__ import annotations

import os
import re
from typing import Callable

from afp_desktop.core.breathing import breathe, rfind_breathing
from afp_desktop.core.formats import lazy_trace, recording_end
from afp_desktop.core.formats.documents import RECORDING_HEAD
from afp_desktop.core.formats.source import FileEnd, open_file_end
from afp_desktop.core.jsonx import jsonio, jsonscan

STRUCTURE_WITHIN = 1 << 20  # the structure (the flowchart's shape) is small: a larger tail gets no preview
CANDIDATES = 8  # `"events"` strings tried, from the last one back, before giving up
TAIL_AT_LEAST = 64 << 20  # bytes of the end of a file read for the preview (or a quarter of it, if more)
TAIL_FRACTION = 4
PARSE_BATCH = 1000  # events parsed in one call (a breath between two)
SCANS = 2  # arrays scanned (each up to the whole events array) before giving up
_KEY_TO_ARRAY = re.compile(rb'"events"[ \t\r\n]*:[ \t\r\n]*\[')
_SPACE = b" \t\r\n"
_SPACE_WITHIN = 4096  # white space looked over between the events array, its comma and the structure's key
LOOK_BACK = 4096  # bytes looked at a time for the backslashes before a quote


class RecordingTail:
    """The root events array found in a recording (or the end of one): how many events it holds, and its first
    ones parsed on demand — the first part is shown before the events of the next are parsed."""

    def __init__(self, data: bytes, starts, ends):
        self._data, self._starts, self._ends = data, starts, ends
        self.total = len(starts)
        self._parsed: list = []
        self._damaged = False

    def first(self, count: int) -> list | None:
        """The first `count` events (fewer if it holds fewer), or None when one of them is not valid JSON (no
        preview of them: the whole read says where)."""
        shown = min(count, self.total)
        try:
            while not self._damaged and len(self._parsed) < shown:  # (a batch per breath: one parse holds Python)
                breathe()
                low = len(self._parsed)
                high = min(low + PARSE_BATCH, shown)
                self._parsed.extend(jsonio.loads(b"[" + b",".join(
                    self._data[int(s):int(e)] for s, e in zip(self._starts[low:high], self._ends[low:high])) + b"]"))
        except jsonio.JSONSyntaxError:
            self._damaged = True
        return None if self._damaged else self._parsed[:shown]


def recording_tail(data: bytes, count: int) -> tuple[list, int] | None:
    """(the first `count` typed events of the recording `data`, how many it holds), or None (module doc)."""
    tail = find_recording_tail(data)
    return _first(tail, count)


def find_recording_tail(data: bytes) -> RecordingTail | None:
    """The events array of the recording `data`, or None (module doc)."""
    if not RECORDING_HEAD.match(data):
        return None  # (a Trace, whose "structure" may also come last but one)
    return _events_before_structure(data)


def _first(tail: RecordingTail | None, count: int) -> tuple[list, int] | None:
    events = tail.first(count) if tail is not None else None
    return None if events is None or tail is None else (events, tail.total)


def _all_read(index: int) -> None:
    """`need` for data that is all there."""


def _events_before_structure(data: bytes, need: Callable[[int], None] = _all_read,
                             search_for=None) -> RecordingTail | None:
    """Of `data` (a recording, or the end of one): its events array, which the structure follows. `need(index)`
    is called before data[index:] is looked at (a FileEnd's buffer: read backward as far as it is needed);
    `search_for(data, close)` gives the search for the array's `[` (`_ForwardSearch`, or recording_end's
    BackwardSearch, which overlaps the read and the scan)."""
    need(len(data) - STRUCTURE_WITHIN)
    structure = _last_member(data)
    if structure is None:
        return None
    need(structure - 2 * (_SPACE_WITHIN + 1))
    comma = _back_over_space(data, structure)
    if comma < 0 or data[comma] != ord(","):
        return None
    close = _back_over_space(data, comma)
    if close < 0 or data[close] != ord("]"):
        return None
    search = search_for(data, close) if search_for is not None else _ForwardSearch(data, close, need)
    spans = _events_array(data, search)
    if spans is None:
        return None
    return RecordingTail(data, *spans)


def recording_tail_of_file(path: str | os.PathLike, count: int, min_bytes: int) -> tuple[list, int] | None:
    """`recording_tail` of the end of the file at `path` (a plain file of `min_bytes` or more), read before the
    whole of it."""
    return _first(find_recording_tail_of_file(path, min_bytes), count)


def find_recording_tail_of_file(path: str | os.PathLike, min_bytes: int) -> RecordingTail | None:
    """`find_recording_tail` of the end of the file at `path` (a plain file of `min_bytes` or more)."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return None
    if size < min_bytes:
        return None
    end = open_file_end(path, max(TAIL_AT_LEAST, size // TAIL_FRACTION))
    if end is None:
        return None
    readers: list[recording_end.BackwardReader] = []

    def backward(data, close: int) -> recording_end.BackwardSearch:
        """The array's `[` searched while the rest is read on another thread (with the C scan)."""
        readers.append(recording_end.BackwardReader(end))
        return recording_end.BackwardSearch(data, close, readers[-1])

    overlapped = jsonscan.native is not None and jsonscan.numpy() is not None
    try:
        if not RECORDING_HEAD.match(end.head(64)):
            return None
        return _events_before_structure(end.buffer, end.need,  # type: ignore[arg-type]
                                        backward if overlapped else None)
    except OSError:
        return None  # the file changed while it was read: the whole read says how
    finally:
        for reader in readers:
            reader.stop()
        end.close()


def _last_member(data: bytes) -> int | None:
    """Where the `"structure"` key is when it is the document's last member (`{` + the rest parses as an
    object with that key alone), else None."""
    key = data.rfind(b'"structure"', max(0, len(data) - STRUCTURE_WITHIN))
    if key <= 0:
        return None
    try:
        rest = jsonio.loads(b"{" + data[key:])
    except jsonio.JSONSyntaxError:
        return None
    return key if list(rest) == ["structure"] else None


def _back_over_space(data: bytes, at: int) -> int:
    """The position of the last non-space byte before `at` (-1: none within 4 KiB)."""
    at -= 1
    floor = max(-1, at - _SPACE_WITHIN)
    while at > floor and data[at] in _SPACE:
        at -= 1
    return at if at > floor else -1


def _events_array(data: bytes, search):
    """(starts, ends) of the elements of the root's events array, whose `]` the search starts from; None unless
    found and every element is an object. The `"events"` keys before it are tried from the last one back
    (within CANDIDATES keys and SCANS arrays scanned); `search` finds them, and tells whether the `[` after one is
    the `]`'s partner (its brackets from there), or that the partner lies elsewhere, so no key further back can
    be it."""
    end, scans = search.close, 0
    for _ in range(CANDIDATES):
        key = search.find(end)
        if key < 0 or scans == SCANS:
            return None
        end = key
        found = _KEY_TO_ARRAY.match(data, key)
        if found is None or is_escaped(data, key, search.need):
            continue  # the string "events" as a value, or inside a string
        scans += 1
        brackets = search.partner_brackets(found.end() - 1)
        if brackets is not None:
            positions, opens, depth = brackets
            regions = lazy_trace.event_regions(data, positions, opens, depth, 0, len(positions) - 1, 1,
                                               payloads=False)
            return None if regions is None else regions[0]
        if search.partner_elsewhere:
            return None
    return None


class _ForwardSearch:
    """The keys found by `_rfind`; each candidate array scanned forward from its `[` to the `]` (jsonscan)."""

    partner_elsewhere = False

    def __init__(self, data: bytes, close: int, need: Callable[[int], None]) -> None:
        self.data, self.close, self.need = data, close, need

    def find(self, end: int) -> int:
        return _rfind(self.data, b'"events"', end, self.need)

    def partner_brackets(self, opening: int):
        scan = jsonscan.brackets_outside_strings(self.data, start=opening, end=self.close + 1)
        if scan is None:
            return None  # unbalanced: a list inside a payload (whose `[` closes early), or a damaged array
        positions, _opens, depth = scan
        if int(positions[0]) != opening or int(positions[-1]) != self.close or (depth[:-1] == 0).any():
            return None
        return scan


def _rfind(data: bytes, needle: bytes, end: int, need: Callable[[int], None]) -> int:
    """data.rfind(needle, 0, end), a piece at a time from the end, each piece read first (and a breath between
    two): the search reads no further back than what it finds."""
    if need is _all_read:
        return rfind_breathing(data, needle, end)
    limit = end
    while limit > 0:
        start = max(0, limit - FileEnd.PIECE)
        need(start)
        found = data.rfind(needle, start, min(limit + len(needle) - 1, end))  # (a match across `limit`: here)
        if found != -1:
            return found
        breathe()
        limit = start
    return -1


def is_escaped(data: bytes, quote: int, need: Callable[[int], None]) -> bool:
    """The quote at `quote` is escaped: an odd run of backslashes before it (looked at 4 KiB at a time, each read
    first: a hostile run of millions of backslashes, looked at byte by byte, would take seconds)."""
    run, end = 0, quote
    while end > 0:
        start = max(0, end - LOOK_BACK)
        need(start)
        piece = data[start:end]
        kept = len(piece.rstrip(b"\\"))
        run += len(piece) - kept
        if kept:
            break
        end = start
    return run % 2 == 1
