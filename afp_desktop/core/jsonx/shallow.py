"""A JSON document's top two levels parsed, everything nested deeper left as spans of its bytes.

A bug-report bundle's conversation file is `{"envelopes": [...]}` or `{"recordings": [...]}`: to list its
recordings and to open one of them, only those lists are needed, not every recording parsed at once (parsed
JSON is many times its text in Python objects). `two_levels(data)` parses the document with each container
three levels deep (each item of a top-level list, each member of a top-level object's object) replaced by a
salted number, and gives those containers back as `Span`s of the bytes, parsed when somebody asks
(`Span.bytes_of`). None when there is no scanner (numpy) or the scan cannot pair the brackets: the caller then
parses the document whole, which also says what is wrong with it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from afp_desktop.core.jsonx import jsonio, jsonscan

REPLACED_DEPTH = 3  # the nesting depth, after its opening bracket, of a container left as a span


@dataclass(frozen=True)
class Span:
    """A container of the document, as the bytes data[start:end]."""

    start: int
    end: int

    def bytes_of(self, data: bytes) -> bytes:
        return data[self.start:self.end]


def two_levels(data: bytes) -> Any | None:
    scan = jsonscan.brackets_outside_strings(data)
    if scan is None:
        return None
    positions, opens, depth = scan
    deep = jsonscan.numpy().flatnonzero(opens & (depth == REPLACED_DEPTH))
    starts = positions[deep].tolist()
    ends = (positions[jsonscan.closing_brackets(depth, deep)] + 1).tolist()
    del scan, positions, opens, depth, deep
    salt = secrets.randbits(52)
    holes = ((start, end, salt + number) for number, (start, end) in enumerate(zip(starts, ends)))
    try:
        skeleton = jsonio.loads(b"".join(jsonscan.with_placeholders(memoryview(data), 0, len(data), holes)))
    except jsonio.JSONSyntaxError:
        return None
    count = len(starts)

    def restored(value: Any) -> Any:
        if type(value) is int and 0 <= value - salt < count:
            return Span(starts[value - salt], ends[value - salt])
        return value

    def restored_inside(value: Any) -> Any:
        if isinstance(value, list):
            return [restored(item) for item in value]
        if isinstance(value, dict):
            return {key: restored(item) for key, item in value.items()}
        return value

    if isinstance(skeleton, dict):
        return {key: restored_inside(value) for key, value in skeleton.items()}
    if isinstance(skeleton, list):
        return [restored_inside(item) for item in skeleton]
    return skeleton
