"""The typed event stream as the file sink writes it (PROJECTIONS.md §1.5, §7.6): one JSON envelope per line.

A file still being written can end in a cut line: what is there loads, and the cut line is reported as a
warning. Any other invalid line is an error naming its line and column — we never guess around damage.
"""

from __future__ import annotations

from typing import Any, Callable

import re

import orjson

from afp_desktop.core import compiled
from afp_desktop.core.breathing import breathe, find_breathing
from afp_desktop.core.formats.errors import LoadCancelled, LoadError, Problem, describe_type
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.jsonx.jsonio import position_of

native: Any = compiled.load("afp_desktop.core.formats.ndjson_c")  # None: the Python loop below

ProgressFn = Callable[[float], None]
NON_SPACE = re.compile(rb"\S")
EVENT_HEAD = re.compile(rb'\{\s*"type"\s*:\s*"')  # how an event's text starts (the library writes "type" first)
_SHARED_STRING = 512  # longer strings are rarely repeated, and each lookup would hash all of it


def parse_ndjson(data: bytes, path: str, *, first_line: int = 1, progress: ProgressFn | None = None,
                 cancelled: Callable[[], bool] | None = None,
                 read_so_far: Callable[[list[dict], float], None] | None = None) -> tuple[list[dict], list[Problem]]:
    """Typed events of an NDJSON file and the warnings met. Raises LoadError on a damaged line.
    `read_so_far(events, fraction)` is told the events read so far every few thousand lines."""
    events: list[dict] = []
    warnings: list[Problem] = []
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    ends_with_newline = data.endswith(b"\n")
    total = len(data)
    last_content = _last_content_offset(data)
    missing_meta = 0
    types: dict[str, str] = {}  # one string object per event type, not one per event (many tiny lines)
    shared: dict = {}  # one object per distinct meta value (share_meta)
    metas: dict[int, dict] = {}  # one meta object per distinct meta (share_whole_meta)
    strings: dict[str, str] = {}  # one object per distinct short payload string (share_strings)
    i = offset = 0
    while offset <= total:  # (a line starts at every offset up to the end: data ending in "\n" has a last, empty one)
        if not i & 255:  # (a breath every 256 lines: the window never waits on a long stretch of lines)
            breathe()
        if i % 2000 == 0:
            if progress is not None:
                if cancelled is not None and cancelled():
                    raise LoadCancelled()
                progress(offset / max(total, 1))
            if read_so_far is not None and events:
                read_so_far(events, offset / max(total, 1))
        if native is not None:  # the lines up to the next of the checks above, in C
            reached, index, missing = native.parse_lines(data, offset, i, _next_check(i), orjson.loads, orjson.dumps,
                                                         types, metas, shared, strings, events)
            missing_meta += missing
            if index > i:
                i, offset = index, reached
                continue
        # One line in Python: every line without the C loop; with it, a line the C loop left (what it refuses).
        end = data.find(b"\n", offset)
        end = total if end < 0 else end
        raw = data[offset:end]
        line = raw.strip()
        if line:
            try:
                event = loads_line(line)
            except (orjson.JSONDecodeError, jsonio.JSONSyntaxError) as err:
                if offset <= last_content < offset + len(raw) + 1 and not ends_with_newline:
                    warnings.append(Problem(path, "the last line is cut off (the file was probably still being "
                                                  "written); it was left out and everything before it is shown",
                                            first_line + i))
                    break
                pos = getattr(err, "pos", None)
                column = position_of(raw, pos)[1] if isinstance(pos, int) else None
                raise LoadError(path, f"not valid JSON ({err.msg if hasattr(err, 'msg') else err})",
                                first_line + i, column) from None
            missing_meta += _add_event(event, path, first_line + i, events, types, metas, shared, strings)
        i, offset = i + 1, end + 1
    if missing_meta:
        warnings.append(Problem(path, f"{missing_meta} event(s) have no \"meta\" object; their time, stage and "
                                      "run id are unknown"))
    return events, warnings


def _next_check(index: int) -> int:
    """The next line after `index` at which the loop breathes (every 256th) or reports (every 2,000th)."""
    return min((index | 255) + 1, (index // 2000 + 1) * 2000)


def _add_event(event, path: str, line_no: int, events: list, types: dict, metas: dict, shared: dict,
               strings: dict) -> int:
    """Shares a parsed line's strings and metas and appends it (what ndjson_c.parse_lines does for each line);
    1 if it has no "meta" object, else 0. Raises LoadError for a value that is no event."""
    if not isinstance(event, dict):
        raise LoadError(path, f"expected an event object {{type, payload, meta}}, found {describe_type(event)}",
                        line_no, 1)
    etype = event.get("type")
    if isinstance(etype, str):
        event["type"] = types.setdefault(etype, etype)
    else:
        raise LoadError(path, "this event has no \"type\" string; is this an agentfootprint event stream?",
                        line_no, 1)
    missing = 0
    meta = event.get("meta")
    if type(meta) is dict:
        event["meta"] = share_whole_meta(meta, metas, shared)
    elif not isinstance(meta, dict):
        missing = 1
    payload = event.get("payload")
    if payload.__class__ is dict:
        share_strings(payload, strings)
    events.append(event)
    return missing


def share_whole_meta(meta: dict, metas: dict[int, dict], shared: dict) -> dict:
    """The one object kept for metas equal to this one: on a long run most events repeat an earlier event's meta
    exactly (a stage's tokens within one millisecond), and each meta object is a few hundred bytes.

    Metas are matched by their JSON text (so true and 1, 1 and 1.0 stay apart), kept only as its hash: orjson's
    output is allocated outside Python's small-object heap, and keeping thousands of them scatters the C heap
    (memory left free but never returned to the system). A hash shared by two different texts whose
    values Python calls equal would be needed to mix two metas up. Nothing changes a meta after loading."""
    try:
        key = hash(orjson.dumps(meta))
    except TypeError:  # a value orjson cannot write (an integer beyond 64 bits): kept as it is
        share_meta(meta, shared)
        return meta
    kept = metas.get(key)
    if kept is not None and kept == meta:
        return kept
    share_meta(meta, shared)
    metas[key] = meta
    return meta


def share_strings(payload: dict, strings: dict[str, str]) -> None:
    """Equal short strings directly in a payload, or in an object in it, become one object: tool names and
    call ids, slots, sources, reasons and summaries repeat across a long run's events. Nothing changes a payload
    after loading."""
    keep = strings.setdefault
    for key, value in payload.items():
        kind = value.__class__
        if kind is str:
            if len(value) <= _SHARED_STRING:
                payload[key] = keep(value, value)
        elif kind is dict:
            for inner, text in value.items():
                if text.__class__ is str and len(text) <= _SHARED_STRING:
                    value[inner] = keep(text, text)


def share_meta(meta: dict, shared: dict) -> None:
    """Equal meta values of different events become one object: every event of a run carries its run id and its
    place (subflow and composition paths, the stage's id, the same for a stage's many tokens) — a third of an
    event's memory on a long run. Nothing changes these values after loading. (Unrolled: it runs per event.)"""
    keep = shared.setdefault
    value = meta.get("runId")
    if value.__class__ is str:
        meta["runId"] = keep(value, value)
    value = meta.get("runtimeStageId")
    if value.__class__ is str:
        meta["runtimeStageId"] = keep(value, value)
    value = meta.get("subflowPath")
    if value.__class__ is list:
        meta["subflowPath"] = _shared_list(value, shared)
    value = meta.get("compositionPath")
    if value.__class__ is list:
        meta["compositionPath"] = _shared_list(value, shared)


def _shared_list(value: list, shared: dict) -> list:
    try:
        return shared.setdefault(tuple(value), value)
    except TypeError:  # a path holding objects or lists: left as it is
        return value


def _last_content_offset(data: bytes) -> int:
    """Offset of the file's last non-whitespace byte (-1 if none), without copying the file."""
    end = len(data)
    while end and data[end - 1:end] in (b" ", b"\t", b"\r", b"\n", b"\x0b", b"\x0c"):
        end -= 1
    return end - 1


def loads_line(line: bytes):
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as err:
        text = str(err)
        if "surrogate" not in text and "depth" not in text and "recursion" not in text:
            raise
        # A lone surrogate escape, or a value nested deeper than orjson goes (1,024 levels): JSON.parse takes
        # both, and so does jsonio (its own messages say where such a line is wrong).
        return jsonio.loads(line)


def looks_like_ndjson(data: bytes) -> bool:
    """True when the first non-empty line is, on its own, a complete JSON object with a "type", and more lines
    follow. (A one-line JSON document is not a stream; checking that first avoids parsing it twice.)"""
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    while data[start:start + 1] in (b"\n", b"\r", b" ", b"\t"):
        start += 1
    newline = find_breathing(data, b"\n", start)  # (a recording is one line: one find would cross all of it)
    if newline < 0 or NON_SPACE.search(data, newline) is None:
        if len(data) - start > 1_000_000 and EVENT_HEAD.match(data, start) is None:
            return False  # a large one-line document (not copied to look at it): parsed once, as what it is
        return _single_event(data[start:].strip())
    first = data[start:newline].strip()
    if not first.startswith(b"{") or not first.endswith(b"}"):
        return False
    try:
        value = loads_line(first)
    except (orjson.JSONDecodeError, jsonio.JSONSyntaxError):
        return False
    return isinstance(value, dict) and "type" in value


def _single_event(line: bytes) -> bool:
    """A file of exactly one typed event is still a stream; only small lines can be one."""
    if not line.startswith(b"{"):
        return False
    try:
        value = loads_line(line)
    except (orjson.JSONDecodeError, jsonio.JSONSyntaxError):
        return False
    return isinstance(value, dict) and isinstance(value.get("type"), str) and isinstance(value.get("meta"), dict)
