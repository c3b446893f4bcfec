"""An event stream written one JSON object after another over several lines each, as `jq . events.ndjson`
prints it: read as the event stream it is.

A raw line break can only stand between the tokens of a JSON value (inside a string it is written `\\n`), so
each object joined onto one line is the same value: the objects become the lines of an NDJSON text that
`parse_ndjson` reads as any stream (a cut last object left out with a warning, a damaged one an error). The
lines and columns it reports are mapped back to the file's own.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.formats.errors import LoadError, Problem
from afp_desktop.core.formats.ndjson import parse_ndjson
from afp_desktop.core.jsonx import jsonio, jsonscan
from afp_desktop.core.jsonx.jsonio import position_of

_SPACE = b" \t\r\n"
_ONE_LINE = bytes.maketrans(b"\r\n", b"  ")
_EVENT_AT_LINE_START = re.compile(rb'\n\{\s*"type"\s*:')


def object_spans(data: bytes) -> tuple[list[tuple[int, int]], bool] | None:
    """(start, end) of each top-level object of a text that is objects one after another with only white space
    between them, and whether the last is cut off (it then ends with the text); None for anything else, or for a
    single object."""
    if jsonscan.numpy() is None:
        return None
    scan = jsonscan.brackets_outside_strings(data, cut_ok=True)
    if scan is None:
        return None
    positions, _opens, depth = scan
    np = jsonscan.np
    ends = np.flatnonzero(depth == 0)  # the bracket closing each whole top-level value
    cut = bool(depth[-1] != 0)
    firsts = np.concatenate(([0], ends + 1)) if cut else np.concatenate(([0], ends[:-1] + 1))
    if len(firsts) < 2:
        return None
    spans: list[tuple[int, int]] = []
    previous_end = 0
    for k in breathing_over(range(len(firsts))):
        start = int(positions[int(firsts[k])])
        if data[start] != 0x7B or data[previous_end:start].strip(_SPACE):  # not '{', or more than space before
            return None
        end = int(positions[int(ends[k])]) + 1 if k < len(ends) else len(data)
        spans.append((start, end))
        previous_end = end
    if data[previous_end:].strip(_SPACE):
        return None
    return spans, cut


def parse_object_stream(data: bytes, spans: list[tuple[int, int]], cut: bool, path: str,
                        progress: Callable[[float], None] | None = None, cancelled=None,
                        read_so_far=None) -> tuple[list[dict], list[Problem]]:
    """The typed events of the objects at `spans` (the last cut off if `cut`), and the warnings met, at the
    file's lines and columns. Raises LoadError (at the file's line and column) for a damaged object."""
    if cut:
        _check_cut(data, spans[-1][0], path)
    lines = b"\n".join(bytes(data[start:end]).translate(_ONE_LINE) for start, end in breathing_over(spans))
    if not cut:
        lines += b"\n"  # (without it, parse_ndjson takes a damaged last object for a line still being written)
    try:
        events, warnings = parse_ndjson(lines, path, progress=progress, cancelled=cancelled, read_so_far=read_so_far)
    except LoadError as err:
        line, column = _in_file(data, spans, err.problem)
        raise LoadError(path, err.problem.message, line, column) from None
    placed = []
    for warning in warnings:
        line, column = _in_file(data, spans, warning)
        placed.append(replace(warning, line=line, column=column))
    return events, placed


def _check_cut(data: bytes, start: int, path: str) -> None:
    """A last object left open is a cut only if no other event starts after it (jq starts each at a line's
    start): a quote lost in the middle of the file also leaves the rest "open", and must be named as damage."""
    later = _EVENT_AT_LINE_START.search(data, start + 1)
    if later is None:
        return
    try:
        jsonio.loads(memoryview(data)[start:later.start()])
    except jsonio.JSONSyntaxError as err:
        if err.pos is not None:
            text = bytes(data[start:later.start()]).decode("utf-8", "replace")[: err.pos]
            line, column = position_of(data, start + len(text.encode("utf-8")))
            raise LoadError(path, f"not valid JSON ({err.message})", line, column) from None
    line, column = position_of(data, start)
    raise LoadError(path, "not valid JSON: this event's text is damaged (the events after it cannot be told apart)",
                    line, column)


def _in_file(data: bytes, spans: list[tuple[int, int]], problem: Problem) -> tuple[int | None, int | None]:
    """The file's line and column of a place parse_ndjson gave as (object number, column in its line)."""
    if problem.line is None or not 1 <= problem.line <= len(spans):
        return problem.line, problem.column
    start, end = spans[problem.line - 1]
    before = bytes(data[start:end]).decode("utf-8", "replace")[: max((problem.column or 1) - 1, 0)]
    line, column = position_of(data, start + len(before.encode("utf-8")))
    return line, column if problem.column is not None else None
