"""The "Go to" box's core: what a typed text means, and where on a real run it leads."""

from __future__ import annotations

import pytest

from afp_desktop.core.formats import open_run
from afp_desktop.core.views.goto import GoTo, GoToError, parse_go_to, resolve_go_to
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.views.prepared_views import prepare_views

from tests.corpus_util import corpus_path


@pytest.mark.parametrize("text, expected", [
    ("12", GoTo("stop", 12)), ("stop 12", GoTo("stop", 12)), ("#3", GoTo("stop", 3)), ("S 1,200", GoTo("stop", 1200)),
    ("event 3000", GoTo("event", 3000)), ("@5", GoTo("event", 5)), ("e7", GoTo("event", 7)),
    ("iteration 5", GoTo("iteration", 5)), ("i5", GoTo("iteration", 5)), ("Iter 2", GoTo("iteration", 2)),
    ("1m20s", GoTo("time", 80_000.0)), ("t 12.5s", GoTo("time", 12_500.0)), ("850ms", GoTo("time", 850.0)),
    ("1:20", GoTo("time", 80_000.0)), ("+2.5s", GoTo("time", 2_500.0)), ("1h2m", GoTo("time", 3_720_000.0)),
    ("t5s", GoTo("time", 5_000.0)), ("2m", GoTo("time", 120_000.0)),
    ("call-llm#3", GoTo("step", "call-llm#3")), ("t1", GoTo("step", "t1")), ("  sf-tools ", GoTo("step", "sf-tools")),
])
def test_parse(text, expected):
    assert parse_go_to(text) == expected


def test_an_empty_box_says_what_to_type():
    with pytest.raises(GoToError, match="stop number"):
        parse_go_to("   ")


@pytest.mark.parametrize("text", ["h", "ms", "1:", ":20", "1:2:3:4", "stop", "#", "e", "t", "+", "1.5", "1e5", "-3",
                                  "1m20", "s12x", "\x00", "１２", "9" * 400, "1" * 30 + "ms",
                                  # (these stopped the box with a ValueError or an OverflowError)
                                  "9" * 400 + "h", "1:" + "9" * 400 + ":00", "9" * 5000 + "ms", "s" + "9" * 5000,
                                  "event " + "9" * 5000, "i" + "9" * 19, "9" * 19])
def test_odd_text_goes_somewhere_or_says_why(run, text):
    try:
        goto = parse_go_to(text)
        assert goto.kind in ("stop", "event", "iteration", "time", "step")
        target = resolve_go_to(goto, run, Replay(run).spans)
    except GoToError as err:
        assert str(err) and len(str(err)) < 200
    else:
        assert 0 <= target.position <= len(run.axis)


@pytest.fixture(scope="module")
def run():
    loaded = open_run(str(corpus_path("02-react-two-tools", "events.ndjson")))
    loaded.views = prepare_views(loaded)
    return loaded


def _go(run, text):
    return resolve_go_to(parse_go_to(text), run, Replay(run).spans)


def test_stop_numbers_are_one_based(run):
    spans = Replay(run).spans
    target = _go(run, "stop 2")
    assert (target.position, target.stop) == (spans[1].end, 1)
    assert target.says.startswith(f"Stop 2 of {len(spans)} · {spans[1].label}")
    with pytest.raises(GoToError, match=f"stops run from 1 to {len(spans)}"):
        _go(run, f"stop {len(spans) + 1}")
    with pytest.raises(GoToError):
        _go(run, "0")


def test_event_numbers_are_positions(run):
    assert _go(run, "event 40").position == 40
    assert _go(run, f"event {len(run.axis)}").position == len(run.axis)
    with pytest.raises(GoToError, match="has 98 events"):
        _go(run, "event 99")


def test_iteration_goes_to_its_first_step(run):
    target = _go(run, "iteration 2")
    node = run.step_fold.nodes[target.node]
    assert node["iterationIndex"] == 2 and node["kind"] == "tool->llm"
    created = run.step_fold.node_created_at[target.node]
    assert run.axis.counts_at(target.position)[0] == created + 1  # the step has just appeared
    with pytest.raises(GoToError, match="iterations run from 1 to 3"):
        _go(run, "iteration 9")


def test_time_offset_goes_to_the_first_event_at_or_after_it(run):
    assert _go(run, "0ms").position == 1
    target = _go(run, "20ms")
    times = [e["meta"]["wallClockMs"] for e in run.typed_events]
    start = min(times)
    _n_domain, n_typed = run.axis.counts_at(target.position)
    assert times[n_typed - 1] >= start + 20 and all(t < start + 20 for t in times[:n_typed - 1])
    with pytest.raises(GoToError, match="past its end"):
        _go(run, "5s")


def test_step_id_exact_then_prefix(run):
    node_id = run.step_fold.nodes[3]["id"]
    assert _go(run, node_id).node == 3
    assert _go(run, node_id[:-4].upper()).node == 3 or run.step_fold.nodes[_go(run, node_id[:-4]).node]["id"]\
        .startswith(node_id[:-4])
    with pytest.raises(GoToError, match="no stop, event, iteration, time or step id matches"):
        _go(run, "no-such-step")
