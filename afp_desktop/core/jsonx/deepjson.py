"""JSON nested deeper than orjson's 1,024 levels, read and written with orjson all the same.

A long run's recording nests its execution tree through `next` more than a thousand levels deep. The standard
library's parser could take over, but from Python 3.12 its C code stops at a fixed ~1,500 levels whatever the
recursion limit, so it cannot be the answer for a longer run. Instead:

- `loads`: the text is cut at every CUT-th level. Each container that opens at depth CUT, 2·CUT, … becomes a
  piece of its own, replaced in its parent piece by a placeholder number; orjson parses every piece (none nests
  deeper than CUT) and each is put back where its placeholder is, reached by keys and indices read off the bytes
  (core/jsonscan.py finds the brackets). Every placeholder must be exactly where the bytes say, holding exactly its
  own salted number, or `loads` returns None and the caller decides (the value is never a guess).
- `dumps`: every container WRITE_CUT levels down is serialized on its own, recursively, and spliced in where a
  salted placeholder string stood (orjson writes at most 255 levels).
Both walk the levels in Python frames, so callers run them with a raised recursion limit (jsonio.run_deep).
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable

import orjson

from afp_desktop.core.jsonx import jsonscan

CUT = 960  # below orjson's parsing limit of 1,024 levels, with room to spare
WRITE_CUT = 200  # below orjson's serializing limit of 255 levels
_SPACE = b" \t\r\n"


# -- reading ------------------------------------------------------------------------------------------------
def loads(data: bytes) -> Any | None:
    """The parsed document, or None when this way cannot tell (invalid JSON, or a shape it does not follow)."""
    np = jsonscan.numpy()
    scan = jsonscan.brackets_outside_strings(data) if np is not None and len(data) < 2**31 else None
    if scan is None:
        return None
    positions, opens, depth = scan
    if data[:int(positions[0])].strip(_SPACE):
        return None  # something before the first bracket
    cuts = np.flatnonzero(opens & (depth % CUT == 0))
    if not len(cuts):
        return None
    closes = jsonscan.closing_brackets(depth, cuts)
    owners = _enclosing_cuts(np, cuts, depth)
    salt = jsonscan.unguessable_number()
    pieces = _parse_pieces(data, positions, cuts, closes, owners, salt)
    if pieces is None:
        return None
    parents = _parent_containers(np, positions, opens, depth)
    return _stitch(data, positions, opens, depth, parents, cuts, pieces, salt)


def _enclosing_cuts(np, cuts, depth):
    """For each cut, the number (in `cuts`) of the cut it lies in, or -1 for the document's own piece."""
    owners = np.full(len(cuts), -1, dtype=np.int64)
    for level in np.unique(depth[cuts]):
        if level == CUT:
            continue
        inner = np.flatnonzero(depth[cuts] == level)
        outer = np.flatnonzero(depth[cuts] == level - CUT)
        owners[inner] = outer[np.searchsorted(cuts[outer], cuts[inner]) - 1]  # the last one opened before it
    return owners


def _parent_containers(np, positions, opens, depth):
    """For every opening bracket, the index of the container it opens in (-1 for the document)."""
    open_at = np.flatnonzero(opens)
    level = depth[open_at].astype(np.int64)
    at = positions[open_at].astype(np.int64)
    key = (level << 32) | at
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    # The parent is the last container opened before it one level up (still open then: brackets balance).
    found = np.searchsorted(ordered, ((level - 1) << 32) | at) - 1
    valid = (found >= 0) & (level > 1)
    valid[valid] = (ordered[found[valid]] >> 32) == level[valid] - 1
    parents = np.full(len(positions), -1, dtype=np.int64)
    parents[open_at[valid]] = open_at[order[found[valid]]]
    return parents


def _parse_pieces(data: bytes, positions, cuts, closes, owners, salt: int) -> list | None:
    """orjson's value of each piece (the document's own last), its inner cuts replaced by placeholders."""
    view = memoryview(data)
    spans = [(int(positions[c]), int(positions[e]) + 1) for c, e in zip(cuts.tolist(), closes.tolist())]
    inner: list[list[int]] = [[] for _ in range(len(cuts) + 1)]
    for number, owner in enumerate(owners.tolist()):
        inner[owner].append(number)  # (-1: the document's piece, the last list)
    values = []
    for piece, (start, end) in enumerate(spans + [(0, len(data))]):
        holes = ((*spans[number], salt + number) for number in inner[piece])
        parts = jsonscan.with_placeholders(view, start, end, holes)
        try:
            values.append(orjson.loads(b"".join(parts)))
        except orjson.JSONDecodeError:
            return None
    return values


def _stitch(data, positions, opens, depth, parents, cuts, pieces, salt):
    """Put each piece where its placeholder is; None if a placeholder is not exactly where expected."""
    reached: dict[int, Any] = {int(c): pieces[n] for n, c in enumerate(cuts.tolist())}
    reached[0] = pieces[-1]  # the first bracket opens the document

    def container(index: int) -> Any:
        """The list or dict the bracket at `index` opens, walking down from the nearest one already reached."""
        path = []
        while index not in reached:
            path.append(index)
            index = int(parents[index])
            if index < 0:
                raise LookupError(index)
        value = reached[index]
        for child in reversed(path):
            value = value[_step(data, positions, opens, depth, index, child)]
            if not isinstance(value, (dict, list)):
                raise LookupError(child)
            reached[child] = value
            index = child
        return value

    try:
        for number, cut in enumerate(cuts.tolist()):
            parent = int(parents[cut])
            holder = container(parent)
            step = _step(data, positions, opens, depth, parent, cut)
            placeholder = holder[step]
            if type(placeholder) is not int or placeholder != salt + number:
                return None
            holder[step] = pieces[number]
    except (LookupError, ValueError, TypeError, orjson.JSONDecodeError):
        return None
    return pieces[-1]


def _step(data: bytes, positions, opens, depth, parent: int, child: int):
    """The key (in an object) or index (in an array) under which the container at `child` sits in `parent`."""
    at = int(positions[child])
    if data[int(positions[parent])] == 0x7B:  # '{': the key is the string before the ':' before the bracket
        colon = _back_over_space(data, at - 1)
        if colon < 0 or data[colon] != 0x3A:
            raise ValueError("no ':' before a member")
        close = _back_over_space(data, colon - 1)
        if close < 0 or data[close] != 0x22:
            raise ValueError("no key before a ':'")
        start = close - 1
        while True:  # the opening quote: the nearest one before it that no odd run of backslashes escapes
            start = data.rfind(b'"', 0, start + 1)
            if start < 0:
                raise ValueError("no key")
            slashes = 0
            while data[start - 1 - slashes] == 0x5C:
                slashes += 1
            if slashes % 2 == 0:
                break
            start -= 1
        return orjson.loads(data[start:close + 1])
    return _index_in_array(data, positions, opens, depth, parent, child)


def _back_over_space(data: bytes, index: int) -> int:
    while index >= 0 and data[index] in _SPACE:
        index -= 1
    return index


def _index_in_array(data: bytes, positions, opens, depth, parent: int, child: int) -> int:
    """How many elements come before `child` in the array at `parent`: its top-level commas up to the child
    (the containers in between are skipped; commas inside strings do not count)."""
    np = jsonscan.numpy()
    level = int(depth[parent])
    between = slice(parent + 1, child)
    nested_opens = np.flatnonzero(opens[between] & (depth[between] == level + 1)) + parent + 1
    nested_closes = np.flatnonzero(~opens[between] & (depth[between] == level)) + parent + 1
    commas, cursor = 0, int(positions[parent]) + 1
    for start, end in zip(positions[nested_opens].tolist(), positions[nested_closes].tolist()):
        commas += _commas_outside_strings(data[cursor:start])
        cursor = end + 1
    return commas + _commas_outside_strings(data[cursor:int(positions[child])])


def _commas_outside_strings(text: bytes) -> int:
    if b'"' not in text:
        return text.count(b",")
    commas, in_string, escaped = 0, False, False
    for byte in text:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte == 0x2C:
            commas += 1
    return commas


# -- writing ------------------------------------------------------------------------------------------------
def dumps(value: Any, option: int, default: Callable[[Any], Any] | None = None) -> bytes:
    """orjson.dumps of a value of any depth. What lies WRITE_CUT levels down is serialized first (recursively),
    stands in the shallow part as a salted placeholder string, and is spliced into orjson's output in one pass.
    (Not orjson.Fragment: Fragments nested hundreds of levels apart abort the process inside orjson 3.13 with a
    corrupted heap.)"""
    salt = os.urandom(8).hex()
    parts: list[bytes] = []
    shallow = _shallow(value, WRITE_CUT, option, default, salt, parts)
    out = orjson.dumps(shallow, option=option, default=default)
    if not parts:
        return out
    pattern = re.compile(b'"' + re.escape(f"{_HOLE}{salt}-".encode()) + rb'(\d+)"')
    return pattern.sub(lambda match: parts[int(match.group(1))], out)


_HOLE = "afp-deep-"


def _shallow(value: Any, levels: int, option: int, default, salt: str, parts: list[bytes]) -> Any:
    kind = type(value)
    if kind is not dict and kind is not list:
        json_value = getattr(kind, "json_value", None)  # a value kept lazily (lazyjson.py) may hold a deep one
        if json_value is None:
            return value
        value = json_value(value)
        kind = type(value)
        if kind is not dict and kind is not list:
            return value
    if levels == 0:
        parts.append(dumps(value, option, default))
        return f"{_HOLE}{salt}-{len(parts) - 1}"
    if kind is dict:
        return {k: _shallow(v, levels - 1, option, default, salt, parts) for k, v in value.items()}
    return [_shallow(v, levels - 1, option, default, salt, parts) for v in value]
