"""A JSON document's top level parsed, everything below left as spans of its bytes (and, for the lists asked
for, their items).

A bug-report bundle's conversation file is `{"envelopes": [...]}` or `{"recordings": [...]}`: to list its
recordings and to open one of them, only those lists' items are needed, not every recording parsed at once
(parsed JSON is many times its text in Python objects). `two_levels(data, split)` parses the document with each
container directly inside the top level replaced by a salted number, given back as a `Span` of the bytes; the
top-level members named in `split` that are lists are parsed the same way one level down, so that their items
are Spans (parsed when somebody asks: `Span.bytes_of`). Nothing else is made per container, so a document
holding millions of small containers costs its one scan, not an object for each. None when there is no scanner
(numpy) or the scan cannot pair the brackets: the caller then parses the document whole, which also says what
is wrong with it.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from afp_desktop.core.jsonx import jsonio, jsonscan

_NO_KEYS: tuple[str, ...] = ()


class TooManyItems(ValueError):
    """A list asked to be split holds more containers than the caller takes (`most`)."""

    def __init__(self, key: str, count: int):
        super().__init__(f"{key!r} holds {count:,} containers")
        self.key, self.count = key, count


@dataclass(frozen=True)
class Span:
    """A container of the document, as the bytes data[start:end]."""

    start: int
    end: int

    def bytes_of(self, data: bytes) -> bytes:
        return data[self.start:self.end]


def two_levels(data: bytes, split: Collection[str] = _NO_KEYS, most: int | None = None) -> Any | None:
    """`most`: raise TooManyItems, before anything is made for them, when a list of `split` holds more
    containers than that."""
    scan = jsonscan.brackets_outside_strings(data)
    if scan is None:
        return None
    positions, opens, depth = scan
    np = jsonscan.numpy()
    members = np.flatnonzero(opens & (depth == 2))
    top = _with_spans(data, 0, len(data), positions[members].tolist(),
                      (positions[jsonscan.closing_brackets(depth, members)] + 1).tolist())
    if not isinstance(top, dict):
        return top
    for key in split:
        value = top.get(key)
        if not isinstance(value, Span) or data[value.start:value.start + 1] != b"[":
            continue
        low, high = np.searchsorted(positions, [value.start, value.end])
        items = low + np.flatnonzero(opens[low:high] & (depth[low:high] == 3))
        if most is not None and len(items) > most:
            raise TooManyItems(key, len(items))
        listed = _with_spans(data, value.start, value.end, positions[items].tolist(),
                             (positions[jsonscan.closing_brackets(depth, items)] + 1).tolist())
        if listed is None:
            return None
        top[key] = listed
    return top


def _with_spans(data: bytes, start: int, end: int, starts: list[int], ends: list[int]) -> Any | None:
    """data[start:end] parsed with each container data[starts[i]:ends[i]] (each directly inside it) a Span."""
    salt = secrets.randbits(52)
    holes = ((s, e, salt + number) for number, (s, e) in enumerate(zip(starts, ends)))
    try:
        value = jsonio.loads(b"".join(jsonscan.with_placeholders(memoryview(data), start, end, holes)))
    except jsonio.JSONSyntaxError:
        return None
    count = len(starts)

    def restored(item: Any) -> Any:
        if type(item) is int and 0 <= item - salt < count:
            return Span(starts[item - salt], ends[item - salt])
        return item

    if isinstance(value, dict):
        return {key: restored(item) for key, item in value.items()}
    if isinstance(value, list):
        return [restored(item) for item in value]
    return value
