"""The window's copy of a prepared run (core/views/window_copy.py): its projections as they were, its events packed
(counted, a few kept, none readable), and the run whole again when unpacked."""

from __future__ import annotations

import gc
import pickle
import types

import pytest

from afp_desktop.core.views.window_copy import (
    EventsInTheEngine,
    EventsNotHere,
    Packed,
    holds_events,
    part_counts,
    whole_run,
    window_copy,
)
from afp_desktop.engine.service import load_run
from tests.corpus_util import corpus_path

FILES = [("02-react-two-tools", "trace.json"), ("02-react-two-tools", "events.ndjson"),
         ("06-pause-resume", "recording.json")]


def _event_dicts_reachable(root) -> int:
    """Dicts shaped like an event reachable from `root` (not through the packed lists, types or modules)."""
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


@pytest.mark.parametrize(("scenario", "name"), FILES)
def test_the_copy_counts_its_events_reads_none_and_unpacks_to_the_same_run(scenario, name):
    run = load_run(str(corpus_path(scenario, name)))
    shown = pickle.loads(pickle.dumps(window_copy(run), protocol=5))  # (as the engine process sends it)
    assert not holds_events(shown) and holds_events(run)
    assert len(shown.domain_events) == len(run.domain_events) and bool(shown.domain_events) == bool(run.domain_events)
    if run.typed_events is not None:
        assert len(shown.typed_events) == len(run.typed_events)
    with pytest.raises(EventsNotHere):
        list(shown.domain_events)
    assert shown.stops == run.stops and shown.stepgraph == run.stepgraph and len(shown.axis) == len(run.axis)
    whole = whole_run(shown)
    assert whole.domain_events == run.domain_events and whole.typed_events == run.typed_events
    assert whole.document == run.document and whole.all_notices() == run.all_notices()


def test_the_copy_holds_no_event_but_its_ends():
    run = load_run(str(corpus_path("02-react-two-tools", "trace.json")))
    assert _event_dicts_reachable(run) > 20
    assert _event_dicts_reachable(window_copy(run)) == 0  # (a Trace's DomainEvents: kept ones are behind the stand-in)
    shown = window_copy(run)
    assert shown.domain_events[0] == run.domain_events[0] and shown.domain_events[-1] == run.domain_events[-1]
    with pytest.raises(EventsNotHere):
        shown.domain_events[1]


def test_a_copy_keeps_the_last_event_of_each_part_shown_before_it():
    """So that the whole run can be told to extend a part shown while it was read (growth_delta.extends)."""
    from afp_desktop.engine.growth_delta import extends

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


def test_a_recordings_events_are_kept_as_they_are_not_packed_twice():
    """A recording's snapshot and step graph hold its events' payloads: its copy keeps the lists, unpacked (packing
    them would hold every payload twice), and still reads none of them."""
    run = load_run(str(corpus_path("06-pause-resume", "recording.json")))
    shown = window_copy(run)
    assert shown.domain_events.packed.data is None
    assert whole_run(shown).domain_events is run.domain_events
    with pytest.raises(EventsNotHere):
        shown.domain_events[1]
    trace = window_copy(load_run(str(corpus_path("06-pause-resume", "trace.json"))))
    assert trace.domain_events.packed.data is not None and trace.domain_events.packed.lists is None


def test_unpacking_a_copy_breathes_between_the_frames_of_its_pickle():
    """A thread unpacking a big run's events (compare; a request about a run no engine holds) lets the window's
    thread run and can be stopped every frame, not once at the end."""
    from afp_desktop.core.breathing import breathing

    run = load_run(str(corpus_path("15-large-run", "trace.json")))
    shown = window_copy(run)
    frames = len(shown.domain_events.packed.data) // (64 << 10)
    breaths: list[int] = []
    with breathing(lambda: breaths.append(1)):
        whole = whole_run(shown)
    assert frames > 10 and len(breaths) >= frames
    assert len(whole.domain_events) == len(run.domain_events)
