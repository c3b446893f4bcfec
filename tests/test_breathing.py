"""Breathing points (core/breathing.py): the core's long loops let the thread loading a run pause every few
thousand items (the window's loader waits there while the window is at work), and what they compute is the
same with or without anyone listening."""

from __future__ import annotations

import sys
import threading
from functools import partial
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from afp_desktop.core import breathing as breathing_module
from afp_desktop.core.breathing import breathe, breathing, breathing_over
from afp_desktop.core.model.replay import opens_inward
from afp_desktop.core.formats import open_run
from afp_desktop.core.jsonx import jsonscan
from afp_desktop.core.views.prepared_views import prepare_views
from afp_desktop.core.views.inspect import pauses
from tests.corpus_util import SMALL_SCENARIOS, corpus_path, read_bytes

# Python function calls allowed between two breathing points: ~2–5 ms of the core's work on this machine.
MAX_CALLS_BETWEEN_BREATHS = 12_000


def test_without_a_hook_the_items_come_back_untouched():
    items = [1, 2, 3]
    assert breathing_over(items) is items  # no wrapper, so no cost, outside a load
    breathe()  # and breathing does nothing


def test_with_a_hook_every_item_comes_through_and_it_breathes_every_few_thousand():
    breaths: list[int] = []
    with breathing(lambda: breaths.append(1)):
        items = list(breathing_over(iter(range(2 * breathing_module.EVERY + 5))))
    assert items == list(range(2 * breathing_module.EVERY + 5))
    assert len(breaths) == 3
    breathe()
    assert len(breaths) == 3, "the hook is gone once the block ends"


def test_a_hook_belongs_to_its_thread_and_nested_hooks_restore_the_outer_one():
    outer: list[str] = []
    other_thread: list[str] = []
    with breathing(lambda: outer.append("outer")):
        thread = threading.Thread(target=lambda: (breathe(), other_thread.append("ran")))
        thread.start()
        thread.join()
        with breathing(lambda: outer.append("inner")):
            breathe()
        breathe()
    assert other_thread == ["ran"] and outer == ["inner", "outer"]


def projections(run) -> dict:
    views = prepare_views(run)
    return {"stepgraph": run.stepgraph, "stops": run.stops, "status": run.status_states,
            "axis": list(run.axis.entries), "layout": views.graph_layout, "summary": views.summary,
            "errors": run.replay_facts.errors, "pauses": pauses(run)}


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
@pytest.mark.parametrize("name", ["events.ndjson", "trace.json"])
def test_what_is_computed_does_not_depend_on_breathing(scenario, name):
    try:
        path = corpus_path(scenario, name)
    except FileNotFoundError:
        pytest.skip(f"{scenario} has no {name}")
    alone = projections(open_run(path))
    breaths: list[int] = []
    with breathing(lambda: breaths.append(1)):
        listened = projections(open_run(path))
    assert listened == alone


@pytest.mark.parametrize("name", ["events.ndjson", "trace.json", "recording.json"])
def test_a_large_run_breathes_often_from_reading_to_the_last_projection(name, tmp_path):
    """Counted in Python calls, not milliseconds (a test machine's speed varies): the most work done between two
    breathing points while a large run is read and every projection the window shows is computed. Each stage
    on its own (the status states, the fold, the axis, the stops…) is several times this on this run."""
    path = tmp_path / name
    path.write_bytes(read_bytes("15-large-run", name))
    warm = open_run(path)  # (modules imported on first use are not the core's work)
    prepare_views(warm)
    pauses(warm)
    def load():
        run = open_run(path)
        run.views = prepare_views(run)
        pauses(run)
        return run

    run, most, breaths = _calls_between_breaths(load)
    assert breaths > len(run.axis) // breathing_module.EVERY
    assert most <= MAX_CALLS_BETWEEN_BREATHS, f"{most:,} calls without a breath"


def test_which_stops_can_be_drilled_into_is_found_breathing(monkeypatch):
    """7,008 stops of the 1,000-iteration recording were asked one by one with no breathing point: ~45 ms of the
    loader's Python, each move of the cursor meanwhile stalled 60-75 ms. Every drill is made once, breathing
    between them, and which stops open inward is read from them."""
    from afp_desktop.core.model import timeline

    run = open_run(corpus_path("15-large-run", "recording.json"))  # (a Trace has no snapshot to drill into)
    breaths: list[int] = []
    asked: list[int] = []  # the breaths so far, as each mount is drilled into
    inner_stops = timeline.inner_stops
    monkeypatch.setattr(timeline, "inner_stops",
                        lambda snapshot, mount: (asked.append(len(breaths)), inner_stops(snapshot, mount))[1])
    with breathing(lambda: breaths.append(1)):
        views = prepare_views(run)
    mounts = sum(stop.get("kind") == "mount" and not stop.get("derived") for stop in run.stops)
    assert len(asked) == len(views.drills.inner) >= mounts > 100, "each drill made once"
    assert asked[-1] - asked[0] >= len(asked) // 64, "no breathing point between them"
    assert views.stops_drillable == [opens_inward(run, span.stop) for span in views.stop_spans]


def _calls_between_breaths(work):
    """(work's result, the most Python calls made between two breathing points, how many breaths)."""
    calls, most, breaths = [0], [0], [0]

    def count(_frame, event, _arg) -> None:
        if event == "call":
            calls[0] += 1

    def breath() -> None:
        most[0] = max(most[0], calls[0])
        calls[0] = 0
        breaths[0] += 1

    with breathing(breath):
        sys.setprofile(count)
        try:
            result = work()
        finally:
            sys.setprofile(None)
    breath()  # (the stretch after the last breathing point counts too)
    return result, most[0], breaths[0]


@pytest.mark.parametrize("name", ["events.ndjson", "trace.json"])
def test_the_search_index_of_a_large_run_breathes_often(name, tmp_path):
    """The Find panel builds its index beside the window as a load does (a request answered in the window's process): it must
    reach a breathing point as often, or a paint waits for it (0.5 s on the 1,000-iteration run)."""
    from afp_desktop.core.library.status import DEFAULT_TEMPLATES
    from afp_desktop.core.views.search import SearchIndex

    path = tmp_path / name
    path.write_bytes(read_bytes("15-large-run", name))
    run = open_run(path)
    run.views = prepare_views(run)
    SearchIndex(run, DEFAULT_TEMPLATES, "Agent")  # (imports and caches warmed)
    _index, most, breaths = _calls_between_breaths(lambda: SearchIndex(run, DEFAULT_TEMPLATES, "Agent"))
    assert breaths > len(run.axis) // breathing_module.EVERY
    assert most <= MAX_CALLS_BETWEEN_BREATHS, f"{most:,} calls without a breath"


@given(data=st.binary(max_size=64), needle=st.binary(max_size=4), start=st.integers(0, 70),
       piece=st.integers(1, 9))
def test_a_breathing_find_finds_what_find_finds(data, needle, start, piece):
    """Searched a piece at a time (a needle may straddle two pieces), the answer is bytes.find's."""
    breaths: list[int] = []
    with mock.patch.object(breathing_module, "FIND_PIECE", piece), breathing(lambda: breaths.append(1)):
        found = breathing_module.find_breathing(data, needle, start)
    assert found == data.find(needle, start)
    assert len(breaths) <= len(data) // piece + 1


@given(data=st.binary(max_size=64), needle=st.binary(max_size=4), end=st.integers(-3, 70),
       piece=st.integers(1, 9))
def test_a_breathing_rfind_finds_what_rfind_finds(data, needle, end, piece):
    """Searched backwards a piece at a time (a needle may straddle two pieces), the answer is bytes.rfind's."""
    breaths: list[int] = []
    with mock.patch.object(breathing_module, "FIND_PIECE", piece), breathing(lambda: breaths.append(1)):
        found = breathing_module.rfind_breathing(data, needle, end)
    assert found == data.rfind(needle, 0, end)
    assert len(breaths) <= len(data) // piece + 1


@given(text=st.lists(st.sampled_from(['{', '}', '[', ']', '"', '\\', 'a', ',']), max_size=40),
       start=st.integers(0, 45), end=st.integers(0, 45))
def test_a_scan_of_part_of_a_text_is_the_scan_of_that_part(text, start, end):
    """brackets_outside_strings(data, start=, end=) gives the positions of a scan of data[start:end], shifted."""
    data = "".join(text).encode()
    part = jsonscan.brackets_outside_strings(data[start:end])
    whole = jsonscan.brackets_outside_strings(data, start=start, end=end)
    if part is None:
        assert whole is None
    else:
        assert [p.tolist() for p in whole] == [(part[0] + start).tolist(), part[1].tolist(), part[2].tolist()]


def test_a_trace_s_root_redaction_is_looked_for_from_the_end_a_piece_at_a_time():
    """A Trace's root "redaction" follows its events (the library writes it last), so it is looked for from the end
    of the file: found in the first piece. Where another writer put it first, the search goes through the whole
    file a piece at a time, and the loader breathes between pieces: one regex or find over a 48 MB file held Python
    26–36 ms (the window's thread waited that long)."""
    from afp_desktop.core.formats import lazy_trace

    events = b",".join(b'{"type":"agentfootprint.x","payload":{"i":%d}}' % i for i in range(4000))
    last = b'{"version":1,"events":[' + events + b'],"redaction":{"mode":"none"}}'
    first = b'{"redaction":{"mode":"none"},"version":1,"events":[' + events + b']}'
    lazy_trace.np = jsonscan.numpy()
    for data, most_breaths in ((last, 1), (first, None)):
        positions, _opens, depth = jsonscan.brackets_outside_strings(data)
        breaths: list[int] = []
        with mock.patch.object(breathing_module, "FIND_PIECE", 1024), breathing(partial(breaths.append, 1)):
            assert breathing_module.rfind_breathing(data, b'"redaction"', len(data)) == data.rfind(b'"redaction"')
            # private: the root-key check of the lazy Trace reader, breathing inside
            assert lazy_trace._has_root_key(data, positions, depth, b"redaction")
        if most_breaths is None:
            assert len(breaths) >= 2 * (len(data) // 1024 - 1), "both searches, a piece at a time"
        else:
            assert len(breaths) <= most_breaths


def test_a_recordings_boundary_events_are_checked_a_slice_at_a_time():
    """One C-speed check of a big recording's BoundaryEvents held Python's lock 25 ms (89,970 events scattered over
    gigabytes of heap): it breathes between slices, keeps the list itself when every event is typed, and still
    leaves out (with a warning) what is not an event, wherever it stands."""
    from afp_desktop.core.formats import assemble

    every = assemble.CHECKED_AT_ONCE
    events = [{"type": "stage", "n": i} for i in range(3 * every + 1)]
    breaths = []
    with breathing(lambda: breaths.append(1)):
        warnings: list = []
        # private: the domain-list check of assembly, breathing inside
        assert assemble._domain_list(events, "rec.json", warnings) is events and not warnings
    assert len(breaths) >= 4
    for bad_at in (0, every + 5, len(events) - 1):
        spoiled = list(events)
        spoiled[bad_at] = {"type": 7}
        warnings = []
        # private: the domain-list check of assembly, breathing inside
        kept = assemble._domain_list(spoiled, "rec.json", warnings)
        assert len(kept) == len(events) - 1 and spoiled[bad_at] not in kept
        assert "1 DomainEvent(s)" in str(warnings[0])


def test_a_long_runs_event_types_are_counted_and_its_times_compared_breathing():
    """One Counter call over a big recording's 361,820 event types held Python's lock 9 ms beside the window, each
    min()/max() over its times 7 ms: both breathe now, and count and compare as before."""
    from types import SimpleNamespace

    from afp_desktop.core.model.axis import build_axis
    from afp_desktop.core.model.summary import summarize
    from afp_desktop.core.views.event_list import type_counts

    types = ["llm.start", "llm.end", "tool.start"] * 4_000
    breaths: list[int] = []
    with breathing(lambda: breaths.append(1)):
        counted = type_counts(None, types)
    assert counted == [("llm.end", 4_000), ("llm.start", 4_000), ("tool.start", 4_000)]
    assert len(breaths) >= len(types) // breathing_module.EVERY

    typed = [{"type": "agentfootprint.stream.llm_start", "meta": {"wallClockMs": 1_000 + (i * 7919) % 5_000}}
             for i in range(5_000)]
    run = SimpleNamespace(typed_events=typed, domain_events=[], axis=build_axis([], typed))
    plain = summarize(run)
    breaths.clear()
    with breathing(lambda: breaths.append(1)):
        breathed = summarize(run)
    assert (breathed.started_at_ms, breathed.duration_ms) == (plain.started_at_ms, plain.duration_ms) == (1_000, 4_999)
    assert len(breaths) >= 3 * len(typed) // breathing_module.EVERY
