"""What the projections read along a long run in C (itertools over the events) against a plain reading, one
entry or event at a time: the event axis (core/model/axis.py: where each event sits, the counts before each
position, the commits carried, a count that goes back starting a new leg), each entry's stage id and the
DomainEvents replay counts with their typed events, the time stamps a summary reads and the typed events found by
type. Each is checked on any mix of anchored and loose events, times, commit counts and odd values."""

from __future__ import annotations

import dataclasses

import math
from types import SimpleNamespace
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.formats import open_run
from afp_desktop.core.library.events import indices_of, typed_indices_by_type
from afp_desktop.core.model import axis as axis_module
from afp_desktop.core.model.axis import TYPED_TO_DOMAIN, build_axis, per_entry, runtime_stage_id_of, stage_ids_on_axis
from afp_desktop.core.model.replay import ReplayFacts
from afp_desktop.core.model.summary import summarize
from tests.corpus_util import corpus_path

_COMMITS = st.sampled_from([0, 0, None, False, 0.0, 1, 2, 3, 7, -1, [1], "2", True])
_TIMES = st.sampled_from([None, 0, 1, 2, 5, 5.5, "x", True, -3])
_TYPED_TYPES = st.sampled_from([*TYPED_TO_DOMAIN, "agentfootprint.stream.token"])
_STAGE_IDS = st.sampled_from(["call-llm#1", "tools#2", "", None, 3, ["x"]])


def _plain_walk(entries: list[int], domain: list[dict], anchors: list) -> dict:
    """Each count and commit computed entry by entry (the axis's walk before it used C iterators)."""
    anchored_commit = {anchor: domain[i].get("commitIdxBefore") for i, anchor in enumerate(anchors)
                       if anchor is not None}
    typed_count = sum(1 for code in entries if code < 0)
    out: dict = {"domain_after": [0] * len(domain), "typed_after": [0] * typed_count, "domain_before": [0],
                 "typed_before": [0], "commit_before": [], "legs": 1}
    d_count = t_count = carried = 0
    for position, code in enumerate(entries, start=1):
        if code >= 0:
            out["domain_after"][code] = position
            d_count += 1
            c = domain[code].get("commitIdxBefore")
        else:
            out["typed_after"][-1 - code] = position
            t_count += 1
            c = anchored_commit.get(-1 - code)
        if isinstance(c, int) and not isinstance(c, bool):
            if c < carried:
                out["commit_before"][:] = [-1] * len(out["commit_before"])
                out["legs"] += 1
            carried = c
        out["domain_before"].append(d_count)
        out["typed_before"].append(t_count)
        out["commit_before"].append(carried)
    return out


@st.composite
def _runs(draw):
    typed = [{"type": draw(_TYPED_TYPES), "meta": {"wallClockMs": draw(_TIMES), "runtimeStageId": draw(_STAGE_IDS)}}
             for _ in range(draw(st.integers(0, 12)))]
    domain: list[dict] = []
    for event in typed:  # the typed half: a DomainEvent mapped from each typed event that maps (§2.5)
        if event["type"] in TYPED_TO_DOMAIN and draw(st.booleans()):
            domain.append({"type": TYPED_TO_DOMAIN[event["type"]], "ts": draw(_TIMES),
                           "commitIdxBefore": draw(_COMMITS), "runtimeStageId": draw(_STAGE_IDS)})
    for _ in range(draw(st.integers(0, 8))):  # the engine's own events, merged by time
        domain.insert(draw(st.integers(0, len(domain))), {"type": "stage.exec", "ts": draw(_TIMES),
                                                          "commitIdxBefore": draw(_COMMITS),
                                                          "runtimeStageId": draw(_STAGE_IDS)})
    return domain, typed


@settings(max_examples=400, deadline=None)
@given(_runs(), st.booleans(), st.sampled_from([1, 2, 3, axis_module.PIECE]))
def test_the_axis_counts_are_those_of_a_walk_over_its_entries(run, typed_too, piece):
    """(`piece`: the entries counted per C call, so that the pieces' edges fall anywhere.)"""
    domain, typed = run
    with mock.patch.object(axis_module, "PIECE", piece):
        _check_axis(domain, typed, typed_too)


def _check_axis(domain: list, typed: list, typed_too: bool) -> None:
    axis = build_axis(domain, typed if typed_too else None)
    entries = list(axis.entries.codes)
    assert sorted(code for code in entries if code >= 0) == list(range(len(domain)))
    assert sorted((-1 - code for code in entries if code < 0)) == list(range(len(typed) if typed_too else 0))
    walked = _plain_walk(entries, domain, axis.anchors)
    assert {name: list(getattr(axis, name)) if name != "legs" else axis.legs for name in walked} == walked
    # what is read per entry, merged from the two lists in C, is what reading each entry gives
    typed_read = typed if typed_too else []
    assert stage_ids_on_axis(axis, domain, typed_read) == [runtime_stage_id_of(entry, domain, typed_read)
                                                             for entry in axis.entries]
    assert per_entry(axis.entries, range(len(domain)), range(100, 100 + len(typed_read))) == [
        index if kind == "d" else 100 + index for kind, index in axis.entries]


def test_a_stream_without_commit_counts_carries_none_and_a_count_that_goes_back_starts_a_leg():
    typed = [{"type": "agentfootprint.stream.llm_start", "meta": {"wallClockMs": 1}},
             {"type": "agentfootprint.stream.token", "meta": {"wallClockMs": 2}}]
    plain = build_axis([{"type": "llm.start", "ts": 1, "commitIdxBefore": 0}], typed)
    assert list(plain.entries) == [("t", 0), ("d", 0), ("t", 1)] and plain.commit_before == [0, 0, 0]
    resumed = build_axis([{"type": "a", "ts": 1, "commitIdxBefore": 4}, {"type": "b", "ts": 2, "commitIdxBefore": 1}],
                         None)
    assert resumed.commit_before == [-1, 1] and resumed.legs == 2


def _effective_walk(axis, domain: list, typed: list) -> list[int]:
    """domain_before, a DomainEvent counted as happened right after the typed event it mirrors (entry by entry)."""
    counts = list(axis.domain_before)
    codes = list(axis.entries.codes)
    for p in range(1, len(codes)):
        before, code = codes[p - 1], codes[p]
        if before < 0 <= code and axis.anchors[code] == -1 - before \
                and TYPED_TO_DOMAIN.get(typed[-1 - before].get("type")) == domain[code].get("type"):
            counts[p] += 1
    return counts


@settings(max_examples=300, deadline=None)
@given(_runs())
def test_replay_counts_a_mirrored_domain_event_with_its_typed_event(run):
    domain, typed = run
    axis = build_axis(domain, typed)
    shaped = SimpleNamespace(axis=axis, typed_events=typed, domain_events=domain)
    # private: the count per step checked against a naive walk; the facts show only what it sums to
    assert list(ReplayFacts._effective_domain_counts(shaped)) == _effective_walk(axis, domain, typed)



_STAMPS = st.one_of(st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                    st.none(), st.just("12"), st.just([1]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_STAMPS, max_size=6), st.lists(_STAMPS, max_size=6))
def test_a_summary_times_the_run_from_every_usable_time_stamp(domain_stamps, typed_stamps):
    """A usable stamp is a finite number, not a bool (summary._clock); the run starts at the first and lasts
    until the last, whichever list they are in."""
    domain = [{"type": "stage.exec", "ts": stamp} for stamp in domain_stamps]
    typed = [{"type": "agentfootprint.stream.token", "meta": {"wallClockMs": stamp}} for stamp in typed_stamps]
    typed.append({"type": "agentfootprint.stream.token", "meta": "not an object"})
    usable = [stamp for stamp in domain_stamps + typed_stamps
              if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) and math.isfinite(stamp)]
    summary = summarize(SimpleNamespace(domain_events=domain, typed_events=typed))
    assert summary.started_at_ms == (int(min(usable)) if usable else None)
    span = max(usable) - min(usable) if usable else None
    assert summary.duration_ms == (int(span) if span is not None and math.isfinite(span) else None)


_TYPED_ODD = st.one_of(st.fixed_dictionaries({"type": st.sampled_from(["a", "b", "c", 3, None, ["a"]])}),
                       st.just({}), st.just(7), st.just(None))


@given(st.lists(_TYPED_ODD, max_size=30), st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3))
def test_the_typed_events_of_some_types_are_found_in_order(events, wanted):
    """One pass indexes the typed events by type; the projections that want a few types read from it."""
    found = list(indices_of(typed_indices_by_type(events), *wanted))
    assert found == [j for j, event in enumerate(events)
                     if isinstance(event, dict) and isinstance(event.get("type"), str) and event["type"] in wanted]


@settings(max_examples=400, deadline=None)
@given(_runs(), st.booleans(), st.data())
def test_the_axis_made_by_numpy_is_the_axis_the_loops_make(run, typed_too, data):
    """Merging anchored DomainEvents and counting by numpy (long runs) gives the very axis the loops give, with
    the file's anchors or any others a file can give (missing, going back, -1, True)."""
    import numpy  # noqa: F401  (the numpy way is taken only once numpy is imported)

    domain, typed = run
    typed_list = typed if typed_too else None
    anchored = st.integers(-1, len(typed) - 1) | st.just(True) if typed_too and len(typed) > 1 else st.just(-1)
    anchor = anchored if data.draw(st.booleans()) else anchored | st.none()  # (all anchored: the numpy way)
    anchors = data.draw(st.none() | st.lists(anchor, min_size=len(domain), max_size=len(domain)))
    with mock.patch.object(axis_module, "ANCHORED_AT_ONCE", 10**9):
        by_loops = build_axis(domain, typed_list, anchors)
    with mock.patch.object(axis_module, "ANCHORED_AT_ONCE", 0):
        by_numpy = build_axis(domain, typed_list, anchors)
    assert by_numpy == by_loops
    assert list(by_numpy.entries.codes) == list(by_loops.entries.codes)


def test_a_long_streams_axis_is_made_by_numpy():
    """(So that the test above compares two ways: a stream long enough is merged and counted by numpy.)"""
    import numpy  # noqa: F401

    typed = [{"type": "agentfootprint.stream.llm_start", "meta": {}} for _ in range(axis_module.ANCHORED_AT_ONCE)]
    domain = [{"type": "llm.start", "commitIdxBefore": 0} for _ in typed]
    merged, counted = [], []
    # private: which way a large anchored run is merged and counted (numpy or not) gives the same answer
    merge, count = axis_module._anchored_entries, axis_module._count_by_numpy
    with mock.patch.object(axis_module, "_anchored_entries", lambda *a: merged.append(merge(*a)) or merged[-1]), \
            mock.patch.object(axis_module, "_count_by_numpy", lambda *a: counted.append(count(*a)) or counted[-1]):
        axis = build_axis(domain, typed, list(range(len(typed))))
    assert merged[0] is not None and counted == [True]
    assert list(axis.entries)[:4] == [("t", 0), ("d", 0), ("t", 1), ("d", 1)]
    assert axis.domain_before[-1] == len(domain) and axis.typed_after[-1] == len(axis.entries) - 1


_DOMAIN_TYPES = st.sampled_from(["tool.start", "tool.end", "run.exit", "subflow.entry", "subflow.exit", "run.entry",
                                 "llm.start", ""])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.fixed_dictionaries({"type": _DOMAIN_TYPES}), st.fixed_dictionaries({"type": st.none()}),
                          st.just({}), st.none(), st.integers(), st.just(["tool.end"])), max_size=30),
       st.lists(_DOMAIN_TYPES, min_size=1, max_size=3, unique=False), st.booleans())
def test_the_domain_events_of_some_types_are_those_a_plain_filter_finds(domain, types, indexed):
    """The projections that visit only some DomainEvents (mounts, tool names, errors, the chat's prompts) visit
    exactly those a pass over every event keeps: dicts of one of the types, in order, each once."""
    from afp_desktop.core.jsonx.fields import indices_by_text
    from afp_desktop.core.library.events import domain_indices_of, typed_indices_by_type

    # (the run's index as made in Python, or in C where built)
    by_type = typed_indices_by_type(domain) if indexed else indices_by_text(domain, "type")
    run = SimpleNamespace(domain_events=domain, domain_by_type=by_type)
    assert list(domain_indices_of(run, *types)) == [i for i, event in enumerate(domain)
                                                    if isinstance(event, dict) and event.get("type") in types]


def test_the_spans_made_field_by_field_are_the_spans_init_makes():
    """spans_for sets each frozen StopSpan's fields through their slots (not through __init__): the spans are equal,
    hash alike, print alike and hold the same fields as those __init__ makes."""
    from afp_desktop.core.model.replay import StopSpan, spans_for

    for name in ("02-react-two-tools", "07-flow-sequence", "10-flow-loop"):
        run = open_run(corpus_path(name, "trace.json"))
        spans = spans_for(run.stops, run.axis, 0)
        assert spans
        for span in spans:
            made = StopSpan(span.index, span.label, span.kind, span.start, span.end, span.typed, span.stop)
            assert span == made and hash(span) == hash(made) and repr(span) == repr(made)
            fields = [field.name for field in dataclasses.fields(StopSpan)]
            assert [getattr(span, name) for name in fields] == [getattr(made, name) for name in fields]
            with pytest.raises(AttributeError):
                span.end = 0  # type: ignore[misc]  (still frozen)
