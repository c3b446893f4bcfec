"""One field of each of many events in C (core/jsonx/fields_c.c) gives what the Python loops give, on any values:
each event's runtimeStageId (and its meta's), the typed events' indices by type, and the axis's merge of its two
lists. Built when the install had a C compiler; CI sets AFP_REQUIRE_NATIVE=1 so that a build that silently fell back
to Python fails here instead of skipping."""

from __future__ import annotations

import os
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.formats import open_run
from afp_desktop.core.jsonx import fields
from afp_desktop.core.model.axis import AxisEntries, per_entry
from tests.corpus_util import SCENARIOS, corpus_path

if os.environ.get("AFP_REQUIRE_NATIVE"):
    assert fields.native is not None, "the C field loops were not built (is a C compiler installed?)"
pytestmark = pytest.mark.skipif(fields.native is None, reason="the C field loops are not built")


def in_python(call, *args):
    saved = fields.native
    fields.native = None
    try:
        return call(*args)
    finally:
        fields.native = saved


class Text(str):
    """A str of another class: still a str to both loops."""


_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5) \
    | st.builds(Text, st.text(max_size=3))
_value = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(
    st.sampled_from(["type", "meta", "runtimeStageId", "x"]), inner, max_size=3), max_leaves=6)
_items = st.lists(_value, max_size=40)


@settings(max_examples=300, deadline=None)
@given(_items)
def test_each_item_s_text_field_is_the_python_loop_s(items):
    for key, inner in (("runtimeStageId", None), ("meta", "runtimeStageId"), ("type", None)):
        assert fields.texts_of(items, key, inner) == in_python(fields.texts_of, items, key, inner)
    assert [list(v) for v in fields.indices_by_text(items, "type").values()] == \
        [list(v) for v in in_python(fields.indices_by_text, items, "type").values()]
    assert list(fields.indices_by_text(items, "type")) == list(in_python(fields.indices_by_text, items, "type"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), max_size=60))
def test_the_axis_merge_in_c_is_per_entry_s(is_domain):
    entries = []
    for domain in is_domain:
        kind = "d" if domain else "t"
        entries.append((kind, sum(1 for e in entries if e[0] == kind)))
    axis_entries = AxisEntries(entries)
    codes = axis_entries.codes
    first = [f"d{i}" for i in range(sum(is_domain))]
    second = [f"t{j}" for j in range(len(is_domain) - sum(is_domain))]
    assert fields.pick_by_code(codes, first, second) == per_entry(axis_entries, first, second)


def test_a_code_past_its_list_is_an_error_not_a_read_past_the_end():
    with pytest.raises(IndexError):
        fields.pick_by_code(array("q", [0, 3]), ["a"], ["b"])
    with pytest.raises(IndexError):
        fields.pick_by_code(array("q", [-5]), ["a"], ["b"])


def test_more_items_than_one_piece_are_read_whole(monkeypatch):
    monkeypatch.setattr(fields, "PIECE", 7)
    items = [{"type": f"t{i % 3}", "meta": {"runtimeStageId": f"s{i}"}} for i in range(50)]
    assert fields.texts_of(items, "meta", "runtimeStageId") == [f"s{i}" for i in range(50)]
    assert {k: list(v) for k, v in fields.indices_by_text(items, "type").items()} == \
        {f"t{r}": list(range(r, 50, 3)) for r in range(3)}
    codes = array("q", [0, -1, 1, -2])
    assert fields.pick_by_code(codes, ["a", "b"], ["x", "y"]) == ["a", "x", "b", "y"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_corpus_stream_s_stage_ids_and_types_are_the_same_either_way(scenario):
    path = corpus_path(scenario, "events.ndjson")
    if not path.exists():
        pytest.skip("no stream")
    run = open_run(str(path))
    assert run.stage_ids_on_axis() == in_python(run.stage_ids_on_axis)
    typed = run.typed_events or []
    assert {k: list(v) for k, v in fields.indices_by_text(typed, "type").items()} == \
        {k: list(v) for k, v in in_python(fields.indices_by_text, typed, "type").items()}


class Items(list):
    """A list of another class: neither loop shares it (the Python loop asks `type(value) is list`)."""


_path = st.lists(st.sampled_from(["a", "b", Text("a"), 1, 1.0, True, None]), max_size=3) \
    | st.lists(st.sampled_from([["x"], {"y": 1}, "a"]), min_size=1, max_size=2) \
    | st.builds(Items, st.lists(st.sampled_from(["a", "b"]), max_size=2)) | st.text(max_size=2) | st.none()
_events = st.lists(st.one_of(st.dictionaries(st.sampled_from(["subflowPath", "type"]), _path, max_size=2),
                             st.none(), st.integers()), max_size=40)


def _shape(items: list) -> list:
    """Each item's subflowPath as (its value, the index of the first item holding that very list object)."""
    first: dict[int, int] = {}
    out = []
    for index, item in enumerate(items):
        value = item.get("subflowPath") if type(item) is dict else None
        out.append((repr(value), first.setdefault(id(value), index) if type(value) in (list, Items) else None))
    return out


@settings(max_examples=300, deadline=None)
@given(_events)
def test_equal_lists_are_made_one_list_as_the_python_loop_makes_them(events):
    import copy

    in_c, by_python = copy.deepcopy(events), copy.deepcopy(events)
    shared_c: dict = {}
    shared_python: dict = {}
    fields.share_lists(in_c, "subflowPath", shared_c)
    in_python(fields.share_lists, by_python, "subflowPath", shared_python)
    assert _shape(in_c) == _shape(by_python)
    assert in_c == events and list(shared_c) == list(shared_python)


def test_equal_lists_become_one_and_unhashable_ones_stay():
    items = [{"subflowPath": ["a", "b"]}, {"subflowPath": ["a", "b"]}, {"subflowPath": [["x"]]},
             {"subflowPath": [["x"]]}, {"subflowPath": ("a", "b")}]
    fields.share_lists(items, "subflowPath", {})
    assert items[0]["subflowPath"] is items[1]["subflowPath"]
    assert items[2]["subflowPath"] is not items[3]["subflowPath"] and type(items[4]["subflowPath"]) is tuple


class ClearsOnCompare:
    """A dict key that hashes as `name` does, so that looking `name` up compares with it; the compare empties
    `target` (the list being read), as Python code run by a lookup may."""

    def __init__(self, name: str, target: list) -> None:
        self.name, self.target = name, target

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        self.target.clear()
        return False


class ClearsOnHash:
    """A value whose hash (asked when its list is made a key) empties `target`, the list being read."""

    def __init__(self, target: list) -> None:
        self.target = target

    def __hash__(self) -> int:
        self.target.clear()
        return 7


def _emptied_by_its_first_item(make_first) -> tuple[list, list]:
    """A list whose first item empties it when read, and a copy of what it held."""
    items: list = []
    items += [make_first(items)] + [{"type": f"t{i % 2}", "meta": {"runtimeStageId": f"s{i}"},
                                     "subflowPath": ["a", f"p{i % 2}"]} for i in range(2000)]
    return items, list(items)


@pytest.mark.parametrize("key, inner", [("type", None), ("meta", "runtimeStageId")])
def test_a_list_emptied_while_its_texts_are_read_gives_what_it_held(key, inner):
    items, held = _emptied_by_its_first_item(lambda items: {ClearsOnCompare(key, items): 1})
    assert fields.texts_of(items, key, inner) == in_python(fields.texts_of, list(held), key, inner)
    assert items == []


def test_a_list_emptied_while_it_is_indexed_by_type_gives_what_it_held():
    items, held = _emptied_by_its_first_item(lambda items: {ClearsOnCompare("type", items): 1})
    assert {k: list(v) for k, v in fields.indices_by_text(items, "type").items()} == \
        {k: list(v) for k, v in in_python(fields.indices_by_text, list(held), "type").items()}
    assert items == []


def test_a_list_emptied_while_its_lists_are_shared_shares_what_it_held():
    items, held = _emptied_by_its_first_item(lambda items: {"subflowPath": [ClearsOnHash(items)]})
    fields.share_lists(items, "subflowPath", {})
    assert items == [] and all(item["subflowPath"] is held[1]["subflowPath"] for item in held[1::2])
