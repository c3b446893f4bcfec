"""take_apart frees a big value a piece at a time, and never changes what anyone else still holds."""

from __future__ import annotations

import copy
import os
import sys
import gc
import weakref
from dataclasses import dataclass

import pytest
from hypothesis import given, settings, strategies as st

from afp_desktop.core import dismantle
from afp_desktop.core.breathing import breathing
from afp_desktop.core.formats import open_run
from afp_desktop.core.library.stepgraph import build_step_graph_safe
from tests.corpus_util import corpus_path


class Attributes:
    def __init__(self, **values):
        self.__dict__.update(values)

    def __eq__(self, other):
        return type(other) is Attributes and vars(self) == vars(other)


@dataclass(frozen=True, slots=True)
class Slotted:
    first: object
    second: object


atoms = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5),
                  st.binary(max_size=5))
values = st.recursive(
    atoms,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.text(max_size=3), inner, max_size=6),
        st.lists(inner, max_size=4).map(tuple),
        st.frozensets(st.text(max_size=3), max_size=4),
        st.dictionaries(st.sampled_from("abcde"), inner, max_size=4).map(lambda d: Attributes(**d)),
        st.tuples(inner, inner).map(lambda pair: Slotted(*pair)),
        # a long list: freed in slices, its items unwalked
        st.tuples(atoms, st.integers(dismantle.MANY + 1, dismantle.MANY + 40)).map(lambda p: [[p[0]]] * p[1]),
    ),
    max_leaves=40,
)


def parts(value) -> list:
    """Every container and object inside `value` (itself included), each once."""
    found, seen, todo = [], set(), [value]
    while todo:
        item = todo.pop()
        # private: the leaves take_apart leaves whole, the same here
        if isinstance(item, dismantle._ATOMS) or id(item) in seen:
            continue
        seen.add(id(item))
        found.append(item)
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, (list, tuple, frozenset, set)):
            todo.extend(item)
        elif isinstance(item, Attributes):
            todo.extend(vars(item).values())
        elif isinstance(item, Slotted):
            todo.extend((item.first, item.second))
    return found


@settings(max_examples=300, deadline=None)
@given(values, st.data())
def test_what_someone_else_holds_is_never_changed(recipe, data):
    value = copy.deepcopy(recipe)  # (Hypothesis holds what it drew: a copy is held by this test alone)
    inside = parts(value)
    chosen = data.draw(st.lists(st.integers(0, len(inside) - 1), max_size=4)) if inside else []
    kept = [inside[i] for i in chosen]  # (indices: a strategy sampling the parts would hold them all)
    copies = [copy.deepcopy(item) for item in kept]
    holder = [value]
    del value, inside
    emptied = dismantle.take_apart(holder.pop())
    assert kept == copies
    emptiable = isinstance(recipe, (list, dict, Slotted)) or (isinstance(recipe, Attributes) and vars(recipe))
    if emptiable and not kept:  # (a tuple of atoms copies as itself: shared with Hypothesis's)
        assert emptied >= 1


@settings(max_examples=100, deadline=None)
@given(values)
def test_what_nobody_else_holds_is_freed(recipe):
    value = copy.deepcopy(recipe)
    objects = [item for item in parts(value) if isinstance(item, Attributes)]
    refs = [weakref.ref(item) for item in objects]
    holder = [value]
    del value, objects
    gc.disable()  # (freed by take_apart, not by a collection)
    try:
        dismantle.take_apart(holder.pop())
        assert [ref() for ref in refs] == [None] * len(refs)
    finally:
        gc.enable()


def test_a_value_the_caller_still_holds_is_left_whole():
    value = {"events": [{"type": "x", "i": i} for i in range(1000)], "meta": Attributes(a=[1, 2, 3])}
    expected = copy.deepcopy(value)
    assert dismantle.take_apart(value) == 0
    assert value == expected


def test_a_big_value_is_freed_in_short_pieces_between_breaths():
    big = {"events": [{"type": "t", "payload": {"n": i, "text": "x" * 20}} for i in range(200_000)],
           "nodes": [Attributes(i=i, parts=[i] * 3) for i in range(20_000)],
           "index": {f"id-{i}": i for i in range(50_000)}}
    breaths: list[int] = []
    holder = [big]
    del big
    with breathing(lambda: breaths.append(1)):
        emptied = dismantle.take_apart(holder.pop())
    assert emptied >= 4  # the root, its three collections
    assert len(breaths) >= 20


def test_a_real_run_taken_apart_leaves_a_run_sharing_its_parts_whole():
    path = corpus_path("15-large-run", "events.ndjson")
    whole, shared = open_run(path), open_run(path)
    expected = build_step_graph_safe(shared.domain_events)[0].graph()
    shared.typed_events = whole.typed_events  # (as a grown run shares what it grew from)
    whole.prepare()
    dismantle.take_apart(whole)  # (the test holds `whole`: nothing changes)
    assert len(whole.axis) > 0 and whole.typed_events is shared.typed_events
    holder = [whole]
    del whole
    dismantle.take_apart(holder.pop())
    assert shared.typed_events and build_step_graph_safe(shared.domain_events)[0].graph() == expected


def resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="madvise through the C library: Linux's")
@pytest.mark.parametrize("kind", [bytes, bytearray])  # (a big file is read into a bytearray)
def test_a_big_text_held_only_here_gives_its_pages_back_before_it_is_freed(kind):
    """Freeing a big text is one munmap with Python's lock held (57 ms for the 894 MB recording's text, the window
    frozen meanwhile): its pages are handed back first through ctypes, which lets go of the lock."""
    size = dismantle.BIG_TEXT + (64 << 20)
    holder = [{"text": kind(b"x" * size), "name": "run"}]
    before = resident_mb()
    dismantle.let_pages_go(holder[0]["text"])  # (the test's own value: its contents read as zeros after this)
    assert resident_mb() < before - 60, "the pages went back to the system while the object was alive"
    holder = [{"text": kind(b"y" * size), "name": "run"}]
    calls: list[int] = []
    real = dismantle.let_pages_go
    try:
        dismantle.let_pages_go = lambda text: (calls.append(len(text)), real(text))
        dismantle.take_apart(holder.pop())
    finally:
        dismantle.let_pages_go = real
    assert calls == [size]


def test_a_big_text_someone_else_holds_keeps_its_pages():
    size = dismantle.BIG_TEXT + (1 << 20)
    text = b"z" * size
    run = {"text": text, "more": [text]}
    holder = [run]
    del run
    dismantle.take_apart(holder.pop())
    assert text[:3] == b"zzz" and text[size // 2] == ord("z") and text[-1] == ord("z")
