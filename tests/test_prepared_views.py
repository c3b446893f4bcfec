"""The window's projections of a run are one value made at once (core/views/prepared_views.py), equal to what each
reader computes for itself when the run has none."""

from __future__ import annotations

import pytest

from afp_desktop.core.formats import open_run
from afp_desktop.core.model.bubble import BubbleModel
from afp_desktop.core.model.layout import layout_step_graph
from afp_desktop.core.views.prepared_views import (
    fold_whole_graph,
    graph_layout_of,
    prepare_views,
    summary_of,
)
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.model.summary import summarize, tool_names_called
from afp_desktop.core.model.timeline import stop_figures
from afp_desktop.core.model.tool_progress import progress_reports_by_call
from afp_desktop.core.problems import LoadCancelled
from afp_desktop.core.views.context_state import key_writes
from afp_desktop.core.views.inspect import pauses
from afp_desktop.core.views.orientation import run_iteration_bands
from afp_desktop.core.views.run_facts import facts_of_run
from afp_desktop.core.views.timeline_series import run_timeline_series
from tests.corpus_util import corpus_path


@pytest.mark.parametrize("scenario, name", [("02-react-two-tools", "events.ndjson"), ("07-flow-sequence", "trace.json"),
                                            ("06-pause-resume", "recording.json")])
def test_the_prepared_views_are_what_each_reader_computes_without_them(scenario, name):
    bare, prepared = open_run(corpus_path(scenario, name)), open_run(corpus_path(scenario, name))
    assert bare.views is None
    views = prepared.views = prepare_views(prepared)
    replay = Replay(bare)
    assert views.stop_spans == replay.spans
    assert views.stops_drillable == [replay.can_drill(i) for i in range(len(replay.spans))]
    assert views.summary == summarize(bare) == summary_of(bare) == summary_of(prepared)
    assert views.tool_names == tool_names_called(bare)
    assert views.progress_by_call == progress_reports_by_call(bare)
    assert views.stop_figures == stop_figures(bare, bare.stops)
    assert views.graph_layout == graph_layout_of(bare) == layout_step_graph(bare.stepgraph)
    assert graph_layout_of(prepared) is views.graph_layout
    assert (views.folded_graph is None) == (fold_whole_graph(bare) is None)
    assert isinstance(views.bubble_model, BubbleModel)
    # What the window reads once per run: each reader reads the prepared one, else computes its equal.
    assert views.run_facts.as_json(prepared) == facts_of_run(bare).as_json(bare)
    assert facts_of_run(prepared) is views.run_facts
    assert views.pauses == pauses(bare) and pauses(prepared) is views.pauses
    assert views.key_writes == key_writes(bare) and key_writes(prepared) is views.key_writes
    assert views.iteration_bands == run_iteration_bands(bare) and run_iteration_bands(prepared) is views.iteration_bands
    assert views.timeline_series.labels == run_timeline_series(bare).labels
    assert run_timeline_series(prepared) is views.timeline_series
    # The window's replay takes the prepared ones, not its own.
    shown = Replay(prepared)
    assert shown.bubbles is views.bubble_model and shown.spans is views.stop_spans


def test_a_graph_shown_folded_is_prepared_without_its_whole_layout_which_is_made_when_asked():
    run = open_run(corpus_path("15-large-run", "trace.json"))
    steps = len(run.stepgraph["nodes"])
    views = prepare_views(run, fold_above=steps - 1)
    assert views.folded_graph is not None and views.graph_layout is None  # (said, not found by looking)
    run.views = views
    made = graph_layout_of(run)
    assert views.graph_layout is made and len(made.nodes) == steps  # made once, then kept
    assert views.whole_graph_layout(run) is made
    assert prepare_views(run, fold_above=steps).graph_layout is not None  # (not more steps than that: not folded)


def test_preparing_reports_its_progress_and_stops_when_asked():
    run = open_run(corpus_path("02-react-two-tools", "trace.json"))
    fractions: list[float] = []
    prepare_views(run, progress=fractions.append)
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) > 10
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(LoadCancelled):
        prepare_views(open_run(corpus_path("02-react-two-tools", "trace.json")), cancelled=cancelled)


def test_a_payloads_check_is_an_explicit_state_of_the_run():
    run = open_run(corpus_path("02-react-two-tools", "trace.json"))
    prepare_views(run)  # (the window's preparation leaves the check out)
    assert not run.payloads_checked
    assert run.payload_problems == [] and run.payloads_checked
