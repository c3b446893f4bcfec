"""One field of each of many parsed JSON objects (a run's events), in C when the optional `fields_c` module was
built (setup.py), else in Python: both give the same answer (tests/test_fields_native.py). A long run's passes
over its typed events are bound by memory, but in Python each also pays the interpreter's work around its two
dict lookups, which the C loop does without."""

from __future__ import annotations

from array import array
from typing import Any

from afp_desktop.core import compiled
from afp_desktop.core.breathing import breathe, breathing_over

native: Any = compiled.load("afp_desktop.core.jsonx.fields_c")  # None: the Python loops

PIECE = 16_384  # items per call of the C loop (each call short): breathing points between them


def texts_of(items: list, key: str, inner: str | None = None) -> list[str]:
    """Each item's `key` (with `inner`: that value's `inner`) when the item (and the value) is a dict and what is
    found is a str; else ""."""
    if native is None or type(items) is not list:
        return _texts_in_python(items, key, inner)
    out: list[str] = []
    for start in range(0, len(items), PIECE):
        breathe()
        out += native.texts(items, start, start + PIECE, key) if inner is None else \
            native.texts(items, start, start + PIECE, key, inner)
    return out


def _texts_in_python(items: Any, key: str, inner: str | None) -> list[str]:
    out: list[str] = []
    for item in breathing_over(items):
        value = item.get(key) if isinstance(item, dict) else None
        if inner is not None:
            value = value.get(inner) if isinstance(value, dict) else None
        out.append(value if isinstance(value, str) else "")
    return out


def indices_by_text(items: list, key: str) -> dict[str, array]:
    """The indices of the items that are dicts whose `key` is a str, by that str (in the order each first
    appears), each list in order, as machine integers."""
    by_value: dict[str, Any] = {}
    if native is None or type(items) is not list:
        for j, item in enumerate(breathing_over(items)):
            value = item.get(key) if isinstance(item, dict) else None
            if isinstance(value, str):
                found = by_value.get(value)
                if found is None:
                    by_value[value] = array("q", (j,))
                else:
                    found.append(j)
        return by_value
    for start in range(0, len(items), PIECE):
        breathe()
        native.index_types(items, start, start + PIECE, key, by_value)
    return {value: array("q", indices) for value, indices in by_value.items()}


def pick_by_code(codes: array, first: list, second: list) -> list | None:
    """For each code: first[code] when it is ≥ 0, else second[-1 - code]; None when the C loop is not built (the
    caller merges its own way). IndexError when a code points past its list."""
    if native is None or type(first) is not list or type(second) is not list or codes.typecode != "q":
        return None
    out: list = []
    for start in range(0, len(codes), PIECE):
        breathe()
        out += native.pick(codes, start, start + PIECE, first, second)
    return out


def share_lists(items: list, key: str, shared: dict) -> None:
    """Each dict item's `key` that is a list replaced by `shared.setdefault(tuple(it), it)`: equal lists become
    one (a list holding an object or a list is left as it is). Nothing may change these lists afterwards."""
    if native is None or type(items) is not list:
        _share_in_python(items, key, shared)
        return
    for start in range(0, len(items), PIECE):
        breathe()
        native.share_lists(items, start, start + PIECE, key, shared)


def _share_in_python(items: Any, key: str, shared: dict) -> None:
    for item in breathing_over(items):
        value = item.get(key) if type(item) is dict else None
        if type(value) is list:
            try:
                item[key] = shared.setdefault(tuple(value), value)
            except TypeError:  # a list holding objects or lists: left as it is
                pass
