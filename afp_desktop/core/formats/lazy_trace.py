"""A large Trace document parsed with its DomainEvent payloads left as bytes (`LazyJSON`).

Why: in a Trace the events' `payload` values are over half the bytes and most of the parsed objects, and no
projection looks inside them. Parsing them eagerly makes a loaded run many times its file in memory; leaving them
as slices of the file keeps it within the Trace's expansion (size_limit.py) and the load faster than a bare
`orjson.loads` of the same file.

How: one vectorised pass (numpy, in chunks) finds every bracket outside strings and its depth. That locates the
`events` array, each event object in it, and each event's own `"payload":` object or array. The rest of the
document (the skeleton) is parsed by orjson, the events in batches so the parser's working memory stays small;
each lazy payload is then put back under its event's `payload` key.

Anything unexpected — not a Trace, an event that is not an object, unbalanced brackets, an unterminated string,
a skeleton orjson refuses (its syntax, its UTF-8) — returns None, and the caller parses the file the ordinary way:
the result is what that parse gives, or its precise error. The bytes of a lazy payload are checked when it is
read (the inspector, an export): a broken one is then reported with its file, line and column, and everything
else in the run still shows.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from afp_desktop.core.formats.documents import RECORDING_HEAD
from afp_desktop.core.jsonx import jsonio, jsonscan
from afp_desktop.core.jsonx.fields import share_lists
from afp_desktop.core.jsonx.lazyjson import LazyJSON
from afp_desktop.core.jsonx.packed import pack
from afp_desktop.core.breathing import breathe, progress_span, report, rfind_breathing

np: Any = None  # numpy, once jsonscan has imported it


MIN_BYTES = 512 * 1024  # smaller files parse eagerly and quickly (and need not import numpy)
ONCE_MIN_BYTES = 32 << 20  # read once (the command line): a smaller Trace is parsed whole, sooner than numpy
#   is imported and the file scanned (its payloads are not kept for later)
_BATCH = 1 << 16  # bytes of events per orjson call: its working memory is many times the text it parses
_OPEN_SQUARE, _OPEN_CURLY = 0x5B, 0x7B
_COMMA = 0x2C
_JSON_SPACE = b" \t\r\n"
_KEY_LEAD = frozenset(b"{, \t\r\n")  # what may stand before a key's opening quote
_COLON_AFTER_KEY = re.compile(rb"[ \t\r\n]*:")


def load_trace_lazily(data: bytes, name: str, read_so_far=None, min_bytes: int | None = None) -> Any:
    """The parsed document with lazy event payloads, or None when this file should be parsed the ordinary way
    (smaller than `min_bytes`, MIN_BYTES if None, among others). `read_so_far(events, fraction, root)` is told the events parsed so
    far after each batch (`root`: the document's other keys)."""
    if len(data) < (MIN_BYTES if min_bytes is None else min_bytes) or data[:1] != b"{" or len(data) >= 2**31:
        return None
    if RECORDING_HEAD.match(data) or rfind_breathing(data, b'"redaction"', len(data)) == -1:
        return None  # a recording: its snapshot first (no search of all of it), or no "redaction" (a Trace has one)
    # (Looked for from the end: the library writes a Trace's "redaction" last, so it is found at once; searched
    # from the start, each search would go through the whole file holding Python.)
    global np
    np = jsonscan.numpy()  # imported by the first large Trace (slow to import): the CLI on small files does without it
    if np is None:
        return None
    with progress_span(0.0, 0.4):
        brackets = jsonscan.brackets_outside_strings(data)
    if brackets is None:
        return None
    positions, opens, depth = brackets
    if not _has_root_key(data, positions, depth, b"redaction"):
        return None  # before parsing the root: a large recording's snapshot is not parsed twice
    breathe()
    events = _events_array(data, positions, opens, depth)
    if events is None:
        return None
    first, last = events
    breathe()
    starts, ends = _event_objects(data, positions, opens, depth, first, last)
    if starts is None:
        return None
    breathe()
    root = _root_without_events(data, int(positions[first]), int(positions[last]))
    if root is None:
        return None
    breathe()
    regions = _payload_regions(data, positions, opens, depth, first, last)
    del brackets, positions, opens, depth  # free before the events' objects are made: it lowers the peak
    told = None if read_so_far is None else (lambda evs, fraction: read_so_far(evs, fraction, root))
    lazies: list[LazyJSON] = []
    with progress_span(0.45, 1.0):
        events = _parse_events(data, name, starts, ends, regions, told, lazies)
    if events is None:
        return None
    store = pack(data)
    if store is not None:  # the payloads point into the compressed copy (packed.py): the file's bytes can go
        for lazy in lazies:
            lazy.repoint(store)
    root["events"] = events
    return root


def _has_root_key(data: bytes, positions, depth, key: bytes) -> bool:
    """Whether `"key":` occurs directly in the root object (at depth 1, between its brackets). (Found a piece at a
    time, from the end, where the library writes a Trace's "redaction": one regex over the file would hold Python
    throughout when the key stands at the document's end.)"""
    quoted = b'"' + key + b'"'
    found = rfind_breathing(data, quoted, len(data))
    while found != -1:
        before = int(np.searchsorted(positions, found)) - 1
        if before >= 0 and depth[before] == 1 and _COLON_AFTER_KEY.match(data, found + len(quoted)):
            return True
        found = rfind_breathing(data, quoted, found + len(quoted) - 1)  # (the next one down: may not overlap)
    return False


def _root_without_events(data: bytes, array_open: int, array_close: int) -> dict | None:
    """The document with an empty events list — if it is a Trace v1 (only a Trace's events are DomainEvents,
    whose payloads nothing reads eagerly)."""
    view = memoryview(data)
    try:  # (jsonio: a Trace's snapshot may nest deeper than orjson goes, like a recording's execution tree)
        root = jsonio.loads(b"".join((view[:array_open + 1], view[array_close:])))
    except jsonio.JSONSyntaxError:
        return None
    if not isinstance(root, dict) or root.get("events") != [] or "format" in root:
        return None
    if root.get("version") != 1 or "redaction" not in root:
        return None
    return root


def _after_key(data: bytes, buffer, at, key: bytes):
    """Mask of the values at positions `at` that directly follow `"key":` (or `"key": `) as an object key."""
    pattern = np.frombuffer(b'"' + key + b'":', np.uint8)
    width = len(pattern)
    mask = np.zeros(len(at), bool)
    for gap in (0, 1):  # `"key":[` and `"key": [` (JSON.stringify with indentation)
        ends = at - gap
        fits = ends - width - 1 >= 0
        index = np.where(fits, ends, width + 1)[:, None] + np.arange(-width, 0)
        same = (buffer[index] == pattern).all(axis=1) & fits
        if gap:
            same &= buffer[np.maximum(at - 1, 0)] == 0x20
        lead = buffer[np.maximum(ends - width - 1, 0)]
        mask |= same & np.isin(lead, np.frombuffer(bytes(_KEY_LEAD), np.uint8))
    return mask


def _events_array(data: bytes, positions, opens, depth):
    """Indices (into `positions`) of the root's `"events": [` and of its `]`; None unless exactly one."""
    buffer = np.frombuffer(data, np.uint8)
    candidates = np.flatnonzero(opens & (depth == 2))
    candidates = candidates[buffer[positions[candidates]] == _OPEN_SQUARE]
    if not len(candidates):
        return None
    keyed = candidates[_after_key(data, buffer, positions[candidates], b"events")]
    if len(keyed) != 1:
        return None
    return int(keyed[0]), int(jsonscan.closing_brackets(depth, keyed)[0])


def _event_objects(data: bytes, positions, opens, depth, first: int, last: int, level: int = 2):
    """(start, end) byte offsets of each element of the events array (its `[` at depth `level`); (None, None)
    unless all are objects."""
    buffer = np.frombuffer(data, np.uint8)
    inner = slice(first + 1, last)
    element_opens = np.flatnonzero(opens[inner] & (depth[inner] == level + 1)) + first + 1
    element_closes = np.flatnonzero(~opens[inner] & (depth[inner] == level)) + first + 1
    if len(element_opens) != len(element_closes) or not len(element_opens):
        return None, None
    if (buffer[positions[element_opens]] != _OPEN_CURLY).any():
        return None, None
    starts, ends = positions[element_opens], positions[element_closes] + 1
    if not _only_commas_between(data, buffer, int(positions[first]) + 1, starts, ends, int(positions[last])):
        return None, None
    return starts, ends


def _only_commas_between(data: bytes, buffer, array_start: int, starts, ends, array_end: int) -> bool:
    """True when nothing but the separating commas (and whitespace) lies between the objects: a number or a
    string among the events would otherwise be skipped, where the ordinary path warns about it."""
    if data[array_start:int(starts[0])].strip(_JSON_SPACE) or data[int(ends[-1]):array_end].strip(_JSON_SPACE):
        return False
    gaps = starts[1:] - ends[:-1]
    plain = (gaps == 1) & (buffer[ends[:-1]] == _COMMA)
    return all(data[int(ends[i]):int(starts[i + 1])].strip(_JSON_SPACE) == b"," for i in np.flatnonzero(~plain))


def _payload_regions(data: bytes, positions, opens, depth, first: int, last: int, level: int = 2):
    """(start, end) byte offsets of each event's own `payload` object or array (the events' `[` at `level`)."""
    buffer = np.frombuffer(data, np.uint8)
    inner = slice(first + 1, last)
    value_opens = np.flatnonzero(opens[inner] & (depth[inner] == level + 2)) + first + 1
    value_opens = value_opens[_after_key(data, buffer, positions[value_opens], b"payload")]
    return positions[value_opens], positions[jsonscan.closing_brackets(depth, value_opens)] + 1


def _parse_events(data: bytes, name: str, starts, ends, regions, read_so_far=None,
                  made: list | None = None) -> list | None:
    """The events, parsed by orjson in batches of about _BATCH bytes, each payload region replaced by a
    placeholder number and then by its LazyJSON."""
    region_starts, region_ends = regions
    owner = np.searchsorted(starts, region_starts, side="right") - 1
    if len(owner) and (np.diff(owner) == 0).any():
        return None  # an event with two "payload" keys: let the ordinary parse decide which one counts
    # Batch k ends with the last event that ends before starts[0] + k·_BATCH (at least one event per batch).
    cuts = np.searchsorted(ends, np.arange(int(starts[0]) + _BATCH, int(ends[-1]), _BATCH), side="right")
    cuts = np.concatenate((cuts[cuts > 0], [len(starts)]))
    cuts = cuts[np.concatenate(([True], cuts[1:] != cuts[:-1]))]  # (sorted already: each once)
    region_cuts = np.searchsorted(region_starts, ends[cuts - 1])
    view = memoryview(data)
    salt = jsonscan.unguessable_number()  # placeholders a file cannot guess
    events: list = []
    paths: dict = {}
    first_event = first_region = 0
    for end_event, end_region in zip(cuts.tolist(), region_cuts.tolist()):
        report(first_event / len(starts))
        holes = ((int(region_starts[k]), int(region_ends[k]), salt + k) for k in range(first_region, end_region))
        parts = jsonscan.with_placeholders(view, int(starts[first_event]), int(ends[end_event - 1]), holes)
        try:
            batch = orjson.loads(b"".join([b"[", *parts, b"]"]))
        except orjson.JSONDecodeError:
            return None
        if len(batch) != end_event - first_event:
            return None
        _share_paths(batch, paths)
        events += batch
        for k in range(first_region, end_region):
            event = events[owner[k]]
            if type(event) is not dict or event.get("payload") != salt + k:
                return None  # a later duplicate "payload" key won: let the ordinary parse decide
            event["payload"] = lazy = LazyJSON(data, int(region_starts[k]), int(region_ends[k]), name)
            if made is not None:
                made.append(lazy)
        first_event, first_region = end_event, end_region
        breathe()
        if read_so_far is not None:
            read_so_far(events, int(ends[end_event - 1]) / len(data))
    return events


def _share_paths(events: list, paths: dict) -> None:
    """Events at the same place carry equal `subflowPath` lists: keep one list per distinct path (a tenth of
    the events' memory on a long run; in C where built). Nothing changes these lists after loading."""
    share_lists(events, "subflowPath", paths)


# -- for other documents holding DomainEvents (a recording's BoundaryEvents, core/formats/lazy_recording.py) ----
def event_regions(data: bytes, positions, opens, depth, first: int, last: int, level: int, payloads: bool = True):
    """((starts, ends), payload regions) of the events array whose `[` is bracket `first` and `]` is bracket
    `last`, at depth `level`; None unless every element is an object. Without `payloads`, no region is lazy."""
    global np
    np = jsonscan.numpy()
    starts, ends = _event_objects(data, positions, opens, depth, first, last, level)
    if starts is None:
        return None
    if payloads:
        regions = _payload_regions(data, positions, opens, depth, first, last, level)
    else:
        regions = (np.empty(0, np.int64), np.empty(0, np.int64))
    return (starts, ends), regions


def parse_events(data: bytes, name: str, spans, regions) -> list | None:
    """The events of `event_regions`, parsed in batches (payload regions as LazyJSON); None when unexpected."""
    starts, ends = spans
    return _parse_events(data, name, starts, ends, regions)
