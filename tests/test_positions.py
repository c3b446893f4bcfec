"""Cursor alignment: at any position, exactly the events that have happened — in both lists — and the
StepGraph and status evaluated over exactly those."""

from __future__ import annotations

import pytest

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.core.formats import open_run
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.library.status import select_status
from afp_desktop.core.library.stepgraph import build_step_graph
from tests.corpus_util import SMALL_SCENARIOS, corpus_path


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
@pytest.mark.parametrize("name", ["recording.json", "events.ndjson", "trace.json"])
def test_every_position_is_a_prefix_of_both_lists(scenario, name):
    run = open_run(corpus_path(scenario, name))
    typed = run.typed_events or []
    replay = Replay(run)
    previous = (0, 0)
    for position in range(len(run.axis) + 1):
        n_domain, n_typed = run.at(position)
        assert n_domain >= previous[0] and n_typed >= previous[1]
        assert (n_domain - previous[0]) + (n_typed - previous[1]) == (1 if position else 0)
        previous = (n_domain, n_typed)
        moment = replay.moment(position)
        # a DomainEvent mirroring a typed event that has happened counts as happened (one happening, told twice)
        assert moment.n_domain - n_domain in (0, 1)
        graph = build_step_graph(run.domain_events[:moment.n_domain])
        assert moment.nodes_started == len(graph["nodes"])  # exactly the nodes whose events have happened
        assert [n["id"] for n in graph["nodes"]] == [n["id"] for n in run.stepgraph["nodes"][:moment.nodes_started]]
        if run.status_states is not None:
            assert run.status_at(position) == select_status(typed[:n_typed])
    assert previous == (len(run.domain_events), len(typed))


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_stops_are_ordered_and_land_on_their_stage(scenario):
    run = open_run(corpus_path(scenario, "recording.json"))
    ends = [s["axisEnd"] for s in run.stops]
    assert ends == sorted(ends) and ends[-1] == len(run.axis)
    for stop in run.stops:
        assert stop["axisStart"] <= stop["axisEnd"]
        if stop["kind"] in ("start", "end") or stop["axisStart"] == stop["axisEnd"] or stop.get("derived"):
            continue
        # the first event of the stop belongs to the stop's commit range
        first = run.axis.entries[stop["axisStart"]]
        if first[0] == "d":
            assert run.domain_events[first[1]]["commitIdxBefore"] >= stop["commitIdx"] - 1


def test_tool_call_stop_shows_the_tool_node_and_the_tool_status():
    run = open_run(corpus_path("04-tool-progress", "recording.json"))
    stop = next(s for s in run.stops if s["label"] == "Tool call")
    moment = Replay(run).moment(stop["axisEnd"])
    nodes = run.stepgraph["nodes"][:moment.nodes_started]
    assert nodes[-1]["kind"] == "llm->tool"
    assert moment.current_node == len(nodes) - 1


def test_pause_resume_recording_has_stops_in_every_leg():
    """The snapshot's commit log covers only the resumed leg; stepping stop by stop must still visit the first
    leg's LLM turn and tool call, so the stops are derived from the events of both legs, and a notice says so."""
    run = open_run(corpus_path("06-pause-resume", "recording.json"))
    assert run.axis.legs == 2
    assert "several-legs" in {n.code for n in run.notices}
    assert "stops-derived-legs" in {n.code for n in run.all_notices()}
    leg_start = next(i for i in range(1, len(run.domain_events))
                     if run.domain_events[i]["commitIdxBefore"] < run.domain_events[i - 1]["commitIdxBefore"])
    first_leg = [s for s in run.stops if s["axisEnd"] <= run.axis.domain_after[leg_start - 1]]
    assert {"LLM turn", "Tool call"} <= {s["label"] for s in first_leg}


def test_a_paused_runs_banners_and_timeline_say_the_same_about_its_stops(qtbot):
    """The commit log covers only the resume; the stops are derived from every leg. No banner may say the
    timeline shows only the last leg, and the timeline's own note gives the same reason."""
    from afp_desktop.app.panels.notice_words import SENTENCES
    from afp_desktop.app.panels.timeline.timeline import TimelinePanel
    from afp_desktop.app.session import Session

    run = open_run(corpus_path("06-pause-resume", "recording.json"))
    codes = [n.code for n in run.all_notices()]
    assert "stops-derived-legs" in codes and "several-legs" not in codes
    said = " ".join(SENTENCES.get(code) or "" for code in codes)
    assert "shows the last" not in said and "every leg" in said
    session = Session()
    panel = shown_alone(session, TimelinePanel(session))
    qtbot.addWidget(panel)
    session.set_run(run)
    session.flush()
    assert "covers only the last leg" in panel.note.text()
    assert "no top-level milestones" not in panel.note.text()
    whole = open_run(corpus_path("02-react-two-tools", "recording.json"))
    assert "repeated-recorder" in [n.code for n in whole.all_notices()]  # two identical recordings: said once


def test_derived_stops_for_a_stream_are_marked_and_cover_the_axis():
    run = open_run(corpus_path("02-react-two-tools", "events.ndjson"))
    assert all(s.get("derived") for s in run.stops)
    labels = [s["label"] for s in run.stops]
    assert labels[0] == "Run start" and labels[-1] == "Run end"
    assert {"LLM turn", "Tool call", "Route"} <= set(labels)
    assert run.stops[-1]["axisEnd"] == len(run.axis)


@pytest.mark.parametrize("scenario", ["02-react-two-tools", "04-tool-progress", "15-large-run"])
def test_typed_events_take_the_commit_of_the_domain_event_they_map_to(scenario):
    """A stream.llm_start belongs to the LLM turn stop, not to the slot stop before it."""
    run = open_run(corpus_path(scenario, "recording.json"))
    for before, turn in zip(run.stops, run.stops[1:]):
        if turn["label"] != "LLM turn" or before["axisEnd"] == turn["axisEnd"]:
            continue
        _, n_typed_before = run.at(before["axisEnd"])
        _, n_typed_turn = run.at(turn["axisEnd"])
        types_before = {e["type"] for e in run.typed_events[:n_typed_before]}
        starts_before = sum(e["type"] == "agentfootprint.stream.llm_start" for e in run.typed_events[:n_typed_before])
        starts_turn = sum(e["type"] == "agentfootprint.stream.llm_start" for e in run.typed_events[:n_typed_turn])
        assert starts_turn == starts_before + 1, (before["label"], turn["label"], types_before)


@pytest.mark.parametrize("scenario", ["07-flow-sequence", "09-flow-conditional", "10-flow-loop"])
def test_composition_recordings_fall_back_to_derived_stops_with_a_notice(scenario):
    """Their commit log's top level has only bookends; the timeline still gets the nested LLM turns."""
    from afp_desktop.core.library.stops import milestone_stops

    run = open_run(corpus_path(scenario, "recording.json"))
    assert len(milestone_stops(run.commit_log, run.execution_tree)) == 2
    assert len(run.stops) > 2 and all(s.get("derived") for s in run.stops)
    assert "LLM turn" in {s["label"] for s in run.stops}
    assert "stops-derived-nested" in {n.code for n in run.all_notices()}
    assert "stops-derived-nested" not in {n.code for n in run.notices}  # computed, never appended to the Run


def test_flat_agent_recordings_keep_commit_stops():
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    assert not any(s.get("derived") for s in run.stops)
    assert "stops-derived-nested" not in {n.code for n in run.notices}


def test_axis_entries_read_as_pairs_and_compare_with_lists():
    from afp_desktop.core.model.axis import AxisEntries

    pairs = [("d", 0), ("t", 0), ("t", 1), ("d", 1), ("d", 7)]
    entries = AxisEntries(pairs)
    assert list(entries) == pairs and entries == pairs and len(entries) == 5
    assert entries[1] == ("t", 0) and entries[-1] == ("d", 7) and entries[1:3] == pairs[1:3]
    copied = entries.copy()
    copied.append(("t", 2))
    assert copied == pairs + [("t", 2)] and entries == pairs  # a copy does not grow the original
    assert entries != pairs[:4] and entries != [("t", 0)] * 5
