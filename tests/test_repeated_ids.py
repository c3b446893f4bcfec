"""Repeated ids cost memory linear in the events: a run of one tool call started N times, replayed the way
`replay` and `view` do it, allocates at 4N less than 6 times what it allocates at N (the open steps were
copied per change, which grows with the square of N). And the open steps answer as the set they stand for."""

from __future__ import annotations

import gc
import tracemalloc

from hypothesis import given, settings, strategies as st

from afp_desktop.core.formats import open_run
from afp_desktop.core.model.open_steps import OpenSteps
from afp_desktop.core.model.replay import Replay, node_facts
from tests.repeated_events import repeated_tool_start

SMALL = 1_000
GROWTH = 4
LINEAR_ENOUGH = 6.0  # peak at 4N over peak at N: linear is 4 (with a fixed part, less); the square is 16


def replayed_peak(tmp_path, count: int) -> int:
    """Peak bytes Python allocates, once the file is read, to build the run's step graph and replay (its facts,
    status lines and bubble), list every stop's lines and show the last moment with its step."""
    path = tmp_path / f"repeated-{count}.ndjson"
    path.write_bytes(repeated_tool_start(count))
    run = open_run(str(path))  # (its reader's buffer, of a fixed size, would hide what grows)
    gc.collect()
    tracemalloc.start()
    try:
        replay = Replay(run)
        for span in replay.spans:
            replay.lines_of(span)
        replay.end()
        moment = replay.moment()
        inspector = node_facts(run, replay.facts, moment.current_node, moment.position)
        moment.as_json(inspector)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_one_tool_call_started_over_and_over_costs_memory_linear_in_its_repeats(tmp_path):
    small, large = replayed_peak(tmp_path, SMALL), replayed_peak(tmp_path, SMALL * GROWTH)
    assert large <= LINEAR_ENOUGH * small, f"peak {small:,} B at {SMALL:,} repeats, {large:,} B at {SMALL * GROWTH:,}"


def test_the_step_in_flight_is_the_last_tool_call_started(tmp_path):
    path = tmp_path / "repeated.ndjson"
    path.write_bytes(repeated_tool_start(50))
    replay = Replay(open_run(str(path)))
    replay.end()
    moment = replay.moment()
    assert moment.current_node == len(replay.facts.nodes) - 1
    assert len(moment.active_nodes) == 50


@st.composite
def lives(draw):
    """Nodes created in order (DomainEvent index), each ended later, at once, or never (None)."""
    count = draw(st.integers(0, 24))
    created = sorted(draw(st.lists(st.integers(0, 30), min_size=count, max_size=count)))
    ended = [draw(st.one_of(st.none(), st.just(c), st.integers(c, 40))) for c in created]
    subflow = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    return created, ended, subflow


@settings(max_examples=100, deadline=None)
@given(lives())
def test_open_steps_are_the_nodes_started_and_not_yet_ended(life):
    created, ended, subflow = life
    steps = OpenSteps(created, ended, subflow, checkpoint_gap=2)  # (a small gap: answers from checkpoints too)
    for n in range(0, 43):
        expected = tuple(i for i, (c, e) in enumerate(zip(created, ended))
                         if e != c and c < n and (e is None or n <= e))
        assert steps.at(n) == expected
        in_flight = [i for i in expected if not subflow[i]]
        assert steps.innermost_step(n) == (max(in_flight) if in_flight else None)
        assert steps.innermost(n) == (max(expected) if expected else None)
