"""The window's copy of a prepared run (core/views/window_copy.py): its projections as they were, its events, payloads
and snapshot left in the engine (counted, a few events kept, none readable), and the run whole again when a copy
made whole is unpacked."""

from __future__ import annotations

import gc
import io
import pickle
import types

import pytest

from afp_desktop.core.model.timeline import PreparedDrills, inner_stops
from afp_desktop.core.views.window_copy import (
    CARD_TEXT_CHARS,
    IN_THE_ENGINE,
    PAYLOAD_FIELDS,
    EventsInTheEngine,
    EventsNotHere,
    Packed,
    dump_with_stand_ins,
    holds_events,
    part_counts,
    load_with_stand_ins,
    whole_run,
    window_copy,
    write_window_copy,
)
from afp_desktop.engine.service import load_run
from tests.corpus_util import corpus_path

FILES = [("02-react-two-tools", "trace.json"), ("02-react-two-tools", "events.ndjson"),
         ("06-pause-resume", "recording.json")]


def _event_dicts_reachable(root) -> int:
    """Dicts shaped like an event reachable from `root` (not through the packed run, the events kept, types or
    modules)."""
    skip = (str, bytes, int, float, Packed, EventsInTheEngine, type, types.ModuleType, types.FunctionType)
    seen, stack, found = set(), [root], 0
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, skip):
            continue
        seen.add(id(item))
        if isinstance(item, dict) and "type" in item and "payload" in item:
            found += 1
        stack.extend(gc.get_referents(item))
    return found


def _engine_copy(run, parts=()) -> tuple[object, bytes]:
    """The copy the engine process sends of a run it holds (not made whole), and its bytes."""
    out = io.BytesIO()
    write_window_copy(run, out, parts)
    data = out.getvalue()
    return load_with_stand_ins(io.BytesIO(data)), data


@pytest.mark.parametrize(("scenario", "name"), FILES)
def test_the_copy_counts_its_events_reads_none_and_unpacks_to_the_same_run(scenario, name):
    run = load_run(str(corpus_path(scenario, name)))
    shown = window_copy(run)
    assert not holds_events(shown) and holds_events(run)
    assert len(shown.domain_events) == len(run.domain_events) and bool(shown.domain_events) == bool(run.domain_events)
    if run.typed_events is not None:
        assert len(shown.typed_events) == len(run.typed_events)
    with pytest.raises(EventsNotHere):
        list(shown.domain_events)
    assert shown.stops == run.stops and len(shown.axis) == len(run.axis) and shown.views.summary == run.views.summary
    whole = whole_run(shown)
    assert whole.domain_events == run.domain_events and whole.typed_events == run.typed_events
    assert whole.document == run.document and whole.all_notices() == run.all_notices()
    assert whole.stepgraph == run.stepgraph and whole.snapshot == run.snapshot


@pytest.mark.parametrize(("scenario", "name"), FILES)
def test_each_step_is_copied_without_its_payloads_and_every_holder_holds_the_same_copy(scenario, name):
    run = load_run(str(corpus_path(scenario, name)), fold_above=0)
    shown, _data = _engine_copy(run)
    nodes, original = shown.step_fold.nodes, run.step_fold.nodes
    assert [list(node) for node in nodes] == [list(node) for node in original]  # (the same fields, in order)
    left_out = 0
    for node, whole in zip(nodes, original):
        for key, value in whole.items():
            if key in PAYLOAD_FIELDS:
                assert node[key] is IN_THE_ENGINE
                left_out += 1
            elif key == "assistantText":  # (the first line, where the card shows it)
                shown_on_card = isinstance(value, str) and not (whole.get("toolName") or whole.get("llmModel"))
                assert node[key] == (value.strip().split("\n", 1)[0][:CARD_TEXT_CHARS] if shown_on_card
                                     else IN_THE_ENGINE)
            else:
                assert node[key] == value
    assert left_out > 0
    assert shown.replay_facts.nodes is nodes  # (one list, as in the engine)
    folded = shown.views.folded_graph
    if folded is not None:  # (the folded graph's steps are the same objects)
        ids = {id(node) for node in nodes}
        kept = [node for node in folded.shown["nodes"] if not str(node.get("id", "")).startswith("fold:")]
        assert kept and all(id(node) in ids for node in kept)


@pytest.mark.parametrize(("scenario", "name"), FILES)
def test_a_copy_the_engine_keeps_the_run_for_carries_no_event_and_cannot_be_unpacked(scenario, name):
    run = load_run(str(corpus_path(scenario, name)))
    shown, _data = _engine_copy(run)
    assert _event_dicts_reachable(run) > 20
    assert _event_dicts_reachable(shown) == 0
    assert shown.domain_events[0] == run.domain_events[0] and shown.domain_events[-1] == run.domain_events[-1]
    with pytest.raises(EventsNotHere):
        shown.domain_events[1]
    with pytest.raises(EventsNotHere):
        whole_run(shown)


def test_a_big_recordings_copy_holds_none_of_its_payloads():
    """A recording keeps its payloads as bytes in one block (lazy JSON, packed): the copy the window receives refers
    to none of it (the few events it keeps have bytes of their own), and is a small part of what the engine holds."""
    run = load_run(str(corpus_path("15-large-run", "recording.json")))
    _shown, data = _engine_copy(run)
    held = len(pickle.dumps(run, protocol=5))
    assert b"PackedBytes" not in data
    assert len(data) < held / 10, (len(data), held)


def test_the_drills_of_a_recording_are_made_ahead_and_give_the_same_stops():
    run = load_run(str(corpus_path("15-large-run", "recording.json")))
    shown, _data = _engine_copy(run)
    assert isinstance(shown.snapshot, PreparedDrills) and shown.has_commit_log == run.has_commit_log is True
    mounts = [stop for stop in run.stops if stop.get("kind") == "mount"]
    assert mounts
    inner_mounts = 0
    for mount in mounts:
        inner = inner_stops(run.snapshot, mount)
        assert inner_stops(shown.snapshot, mount) == inner
        for stop in inner or ():  # (a drill inside a drill)
            if stop.get("kind") == "mount":
                inner_mounts += 1
                assert inner_stops(shown.snapshot, stop) == inner_stops(run.snapshot, stop)
    assert inner_stops(shown.snapshot, {"kind": "mount", "runtimeStageId": "no-such-stage"}) is None


def test_a_copy_keeps_the_last_event_of_each_part_shown_before_it():
    """So that the whole run can be told to extend a part shown while it was read (window_copy.extends)."""
    from afp_desktop.core.views.window_copy import extends

    path = str(corpus_path("06-pause-resume", "events.ndjson"))
    whole, part = load_run(path), load_run(path)
    cut = len(part.typed_events) // 2
    part.typed_events[cut:] = []
    part_copy = window_copy(part)  # (a part of the file: its first `cut` typed events)
    shown = window_copy(whole, [part_counts(part)])
    assert shown.typed_events[cut - 1] == whole.typed_events[cut - 1]
    assert extends(shown, part_copy)
    assert not extends(window_copy(whole), part_copy)  # (its last event unknown: not told to extend it)


def test_a_run_with_no_views_is_not_copied():
    from afp_desktop.core.formats import open_run

    run = open_run(str(corpus_path("02-react-two-tools", "events.ndjson")))
    assert window_copy(run) is run and whole_run(run) is run


def test_a_stand_in_takes_the_place_of_its_original_wherever_the_value_holds_it():
    original, other = {"payload": "x" * 1000}, {"kept": [1, 2]}
    value = {"a": [original, original], "b": (original, other), "c": other, "d": "text"}
    out = io.BytesIO()
    stand_in = {"payload": "left out"}
    dump_with_stand_ins(value, out, [(original, stand_in)])
    back = load_with_stand_ins(io.BytesIO(out.getvalue()))
    assert back == {"a": [stand_in, stand_in], "b": (stand_in, other), "c": other, "d": "text"}
    assert back["a"][0] is back["a"][1] is back["b"][0] and back["b"][1] is back["c"]
    assert b"x" * 1000 not in out.getvalue()


def test_a_streams_document_is_its_typed_events_and_keeps_their_count():
    run = load_run(str(corpus_path("02-react-two-tools", "events.ndjson")))
    shown, _data = _engine_copy(run)
    assert len(shown.typed_events) == len(run.typed_events) > 1


def test_unpacking_a_copy_breathes_between_the_frames_of_its_pickle():
    """A thread unpacking a big run (a request about a run no engine holds) lets the window's thread run and can be
    stopped every frame, not once at the end."""
    from afp_desktop.core.breathing import breathing

    run = load_run(str(corpus_path("15-large-run", "trace.json")))
    shown = window_copy(run)
    frames = len(shown.domain_events.packed.data) // (64 << 10)
    breaths: list[int] = []
    with breathing(lambda: breaths.append(1)):
        whole = whole_run(shown)
    assert frames > 10 and len(breaths) >= frames
    assert len(whole.domain_events) == len(run.domain_events)


def test_the_axis_stage_ids_and_commit_counts_travel_compact_and_read_the_same():
    """The stage ids are each text once and a column of codes in the copy (read as the list they stand for), and the
    commit counts a column of machine integers."""
    from array import array

    from afp_desktop.core.views.window_copy import StageIds

    run = load_run(str(corpus_path("15-large-run", "recording.json")))
    shown, _data = _engine_copy(run)
    ids, whole = shown.stage_ids_on_axis(), run.stage_ids_on_axis()
    assert isinstance(ids, StageIds) and ids.codes.itemsize <= 4
    assert ids == whole and list(ids) == whole and len(ids) == len(whole)
    assert len({id(text) for text in ids}) == len(set(whole)) < len(whole) // 5
    assert [ids[k] for k in range(0, len(whole), 97)] == whole[::97] and ids[-1] == whole[-1]
    assert ids[10:40] == whole[10:40]
    for text in list(dict.fromkeys(whole))[:40]:
        assert text in ids and ids.index(text) == whole.index(text)
    assert "no such stage" not in ids
    with pytest.raises(ValueError):
        ids.index("no such stage")
    assert isinstance(shown.axis.commit_before, array) and list(shown.axis.commit_before) == run.axis.commit_before
    for name in ("domain_before", "typed_before", "domain_after", "typed_after"):  # (32-bit: half the room)
        column = getattr(shown.axis, name)
        assert column.typecode == "i" and column == getattr(run.axis, name), name
    assert shown.axis.entries.codes.typecode == "i" and shown.axis.entries == run.axis.entries
    for stop in run.stops[:50]:
        if "commitIdx" in stop:
            assert shown.axis.position_after_commit(stop["commitIdx"]) == run.axis.position_after_commit(stop["commitIdx"])


def test_a_column_with_a_value_past_32_bits_keeps_its_own_integers():
    from array import array

    from afp_desktop.core.views.window_copy import narrowed

    wide = array("q", [0, 2 ** 31])
    assert narrowed(wide) is wide and narrowed(array("q", [-(2 ** 31) - 1])).typecode == "q"
    assert narrowed(array("q", [0, 2 ** 31 - 1, -(2 ** 31)])).typecode == "i" and narrowed(array("q")).typecode == "q"


def test_a_card_shows_the_same_text_from_the_copy_as_from_the_whole_step():
    from afp_desktop.app.panels.graph.card_text import card_lines

    for scenario, name in FILES + [("15-large-run", "trace.json")]:
        run = load_run(str(corpus_path(scenario, name)))
        shown, _data = _engine_copy(run)
        for node, whole in zip(shown.step_fold.nodes, run.step_fold.nodes):
            title, corner, detail, footer = card_lines(whole)
            assert card_lines(node) == (title, corner, detail[:CARD_TEXT_CHARS], footer), whole.get("id")


def test_a_whole_run_with_a_commit_log_is_not_told_to_extend_a_copy_without_one():
    """window_copy.extends reads whether a copy has a commit log from what stands for its snapshot: stops derived
    from the events are not grown into a commit log's stops."""
    from afp_desktop.core.views.window_copy import extends

    path = str(corpus_path("06-pause-resume", "recording.json"))
    with_log, without_log = load_run(path), load_run(path)
    without_log.snapshot = None
    shown, grown = _engine_copy(without_log)[0], _engine_copy(with_log)[0]
    assert grown.has_commit_log and not shown.has_commit_log
    assert not extends(grown, shown)
    assert extends(_engine_copy(load_run(path))[0], grown)  # (the same run: a growth of nothing new)


def test_a_tool_with_no_name_has_the_same_status_state_in_the_copy(tmp_path):
    """JavaScript's `undefined` (a key the event does not have: UNDEFINED) is read back from the copy as itself: a
    copy of it was a new object, taken for a tool's name ("toolName": <object …>)."""
    import json

    from afp_desktop.core.library.jsstring import UNDEFINED
    from tests.corpus_util import read_bytes

    def without_names(value):
        if isinstance(value, dict):
            return {key: without_names(inner) for key, inner in value.items() if key != "toolName"}
        return [without_names(inner) for inner in value] if isinstance(value, list) else value

    lines = [json.loads(line) for line in read_bytes("04-tool-progress", "events.ndjson").splitlines() if line.strip()]
    path = tmp_path / "events.ndjson"
    path.write_text("".join(json.dumps(without_names(event)) + "\n" for event in lines))
    run = load_run(str(path))
    tools = [state for state in run.status_states if state and state.get("state") == "tool"]
    assert tools and all("toolName" not in state for state in tools)
    assert list(window_copy(run, whole=False).status_states) == list(run.status_states)
    assert pickle.loads(pickle.dumps(UNDEFINED, protocol=5)) is UNDEFINED


def test_big_arrays_travel_in_the_copy_and_read_back_equal(tmp_path):
    """A big array is pickled from its buffer and read back through a bytearray emptied once copied (the reading's
    peak holds each array once, not twice); small ones and every typecode read back equal."""
    from array import array

    from afp_desktop.core.views.window_copy import BIG_ARRAY_BYTES, dump_with_stand_ins, load_with_stand_ins

    big = BIG_ARRAY_BYTES // 8 + 1
    values = [array("q", range(big)), array("d", (k / 3 for k in range(big))), array("b", [1, -2, 3]),
              array("q"), array("B", bytes(range(256)) * (big // 32))]
    shared = values[0]
    out = io.BytesIO()
    dump_with_stand_ins({"values": values, "again": shared}, out, [])
    back = load_with_stand_ins(io.BytesIO(out.getvalue()))
    assert back["values"] == values and all(type(a) is array for a in back["values"])
    assert back["again"] is back["values"][0]  # (one array held twice is read back as one)


def test_stops_of_one_stage_share_their_meta_and_stage_id_in_the_copy():
    """A long run's thousands of derived stops hold a handful of metas and stage ids: each is one object per stage,
    in the engine and in the window's copy, not one per stop."""
    run = load_run(corpus_path("15-large-run", "trace.json"))
    copy = window_copy(run, whole=False)
    for stops in (run.stops, copy.stops):
        derived = [stop for stop in stops if stop.get("derived") and "meta" in stop]
        stages = {stop["stageId"] for stop in derived}
        assert len(derived) > 1000 and len(stages) < 50
        assert len({id(stop["meta"]) for stop in derived}) <= len(stages)
        assert len({id(stop["stageId"]) for stop in derived}) <= len(stages)
    assert [stop.get("meta") for stop in copy.stops] == [stop.get("meta") for stop in run.stops]
