"""What only the window shows of a run, made ahead of showing it: `prepare_views(run, …)` builds `PreparedViews`.

A Run holds the file's events and facts and the projections every reader shares (axis, step graph, stops, status,
replay facts, how it ended). The window also shows projections nothing else needs: the timeline's spans, figures and
which stops open inward, the chat's bubble model and its long spans' lines, the graph's layout (folded or whole),
the summary strip, the tool names and progress reports, the framework's own steps, the run's facts (findings,
resilience, costs, reasoning), its pauses, the writers of each state key, the iteration bands and the timeline's
series. A loader thread makes them all at once here, so the window's thread never walks a big run to find one, and
hands them on as the run's one `views` attribute; they hold plain values only, so they travel with the run when it
is pickled to the window from another process. Each has a reader beside the function that computes it
(`summary_of`, `facts_of_run`, `pauses`, `key_writes`, `run_iteration_bands`, `run_timeline_series`, …) that
reads the prepared views when the run has them and computes now when it has not.
It is a view of the run, so it lives among the views: the model below it never imports it. A run without them (`run.views is None`: the command line, tests, a run followed live) is shown by
readers that compute what they need themselves.

Every field is made, except one left out on purpose: the whole graph's layout when the graph is shown folded
(`graph_layout is None`; `whole_graph_layout` makes it when first asked: the window, once the user unfolds the
graph). Pure: no Qt, no threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, cast

from afp_desktop.core.breathing import breathe, breathing_over
from afp_desktop.core.model.bubble import BubbleModel
from afp_desktop.core.model.fold_iterations import Fold, FoldMap, find_folds, fold_graph
from afp_desktop.core.model.framework_steps import FrameworkStep, framework_nodes, framework_steps
from afp_desktop.core.model.layout import GraphLayout, layout_step_graph
from afp_desktop.core.model.replay import StopSpan, long_span_lines, spans_for
from afp_desktop.core.model.stop_lines import StopLines
from afp_desktop.core.model.summary import RunSummary, summarize, tool_names_called
from afp_desktop.core.model.timeline import PreparedDrills, StopFigures, prepared_drills, stop_figures
from afp_desktop.core.model.tool_progress import progress_reports_by_call
from afp_desktop.core.problems import LoadCancelled
from afp_desktop.core.views.bookmarks import run_id_of
from afp_desktop.core.views.context_state import find_key_writes
from afp_desktop.core.views.inspect import find_pauses
from afp_desktop.core.views.orientation import IterationBand, iteration_bands
from afp_desktop.core.views.run_facts import RunFacts
from afp_desktop.core.views.timeline_series import TimelineSeries, own_stops_series


def _graph(run) -> dict:
    return cast(dict, run.stepgraph)  # (the StepGraph is the dict the fold and the layout read)


class FoldedGraph(NamedTuple):
    """The step graph with every run of alike iterations folded (fold_iterations.py), and its layout."""

    folds: list[Fold]
    shown: dict
    fold_map: FoldMap
    layout: GraphLayout


def fold_whole_graph(run) -> FoldedGraph | None:
    """`run`'s graph with every run of alike iterations folded; None when nothing folds."""
    folds = find_folds(run.step_fold.nodes)
    if not folds:
        return None
    shown, fold_map = fold_graph(_graph(run), folds)
    return FoldedGraph(folds, shown, fold_map, layout_step_graph(shown))


def shown_folded(run, folded: FoldedGraph | None, fold_above: int | None) -> bool:
    """Whether a window that folds graphs of more than `fold_above` steps (None: never) shows `run`'s folded."""
    steps = len(run.stepgraph.get("nodes") or [])
    return fold_above is not None and steps > fold_above and folded is not None


@dataclass
class PreparedViews:
    """The window's projections of one run (see the module's docstring), each made by `prepare_views`."""

    stop_spans: list[StopSpan]  # the spans of the run's own stops, the timeline's first level (replay.spans_for)
    # the chat's lines during each very long stop span, with the default templates (replay.long_span_lines)
    long_span_lines: dict[tuple[int, int], tuple[StopLines, list[int]]]
    bubble_model: BubbleModel
    folded_graph: FoldedGraph | None  # None: nothing folds
    # The whole graph's layout; None: not made yet, the graph being shown folded (whole_graph_layout makes it).
    graph_layout: GraphLayout | None
    summary: RunSummary
    stop_figures: StopFigures  # tokens per LLM turn and tool time per stop of the run's own stops
    tool_names: list[str]  # the tools the run called, in first-call order
    # every drill the timeline can make (timeline.prepared_drills: a window's copy holds it in the snapshot's place);
    # None: the run has no snapshot to drill into
    drills: PreparedDrills | None
    stops_drillable: list[bool]  # for each of the run's own stops: does it open onto stops of its own?
    progress_by_call: dict[Any, list[int]]  # typed-event indices of each tool call's progress reports
    framework_steps: list[FrameworkStep]  # the framework's own steps the StepGraph fold drops
    framework_nodes: list[int]  # StepGraph nodes that are framework plumbing
    run_facts: RunFacts  # findings, resilience, costs and reasoning (run_facts.facts_of_run)
    pauses: list[dict]  # each pause and its answer (inspect.pauses)
    key_writes: dict[str, list[int]]  # the commits that wrote each top-level state key (context_state.key_writes)
    iteration_bands: list[IterationBand]  # of the run's own stops (orientation.run_iteration_bands)
    timeline_series: TimelineSeries  # the timeline's arrays for the run's own stops (run_timeline_series)
    run_id: str | None  # what the run's bookmarks are filed under with its path (bookmarks.run_id_of)

    def whole_graph_layout(self, run) -> GraphLayout:
        """The whole graph's layout of `run` (the run these views were prepared for): made now if it was left
        out, then kept."""
        if self.graph_layout is None:
            self.graph_layout = layout_step_graph(_graph(run))
        return self.graph_layout


def graph_layout_of(run) -> GraphLayout:
    """The whole graph's layout: the prepared views' (made now if they left it out), else one made now."""
    if run.views is not None:
        return run.views.whole_graph_layout(run)
    return layout_step_graph(_graph(run))


def summary_of(run) -> RunSummary:
    """The summary strip's facts: the prepared views', else made now."""
    return run.views.summary if run.views is not None else summarize(run)


def run_id_known(run) -> str | None:
    """The run's id (bookmarks.run_id_of): the prepared views', else read from its events now."""
    return run.views.run_id if run.views is not None else run_id_of(run)


def folded_graph_of(run) -> FoldedGraph | None:
    """The graph with alike iterations folded: the prepared views', else folded now."""
    return run.views.folded_graph if run.views is not None else fold_whole_graph(run)


def prepare_views(run, *, fold_above: int | None = None, cancelled: Callable[[], bool] | None = None,
                  progress: Callable[[float], None] | None = None) -> PreparedViews:
    """Everything the window shows of `run`, made now (a loader thread calls this; the run's own projections are
    made first, its payloads' check left out: the engine makes it once the run is shown, app/loading/left_out.py).
    `fold_above`: the window shows a graph of more steps than this folded (None: never), and then the whole
    graph's layout is left out (graph_layout None). `progress` gets 0..1; `cancelled` returning True stops with
    LoadCancelled."""
    made: dict[str, Any] = {}

    def whole_layout() -> GraphLayout | None:
        return None if shown_folded(run, made["folded_graph"], fold_above) else layout_step_graph(_graph(run))

    def drills() -> PreparedDrills | None:
        return None if run.snapshot is None else prepared_drills(run.snapshot, run.stops, run.has_commit_log)

    def drillable() -> list[bool]:
        spans, made_drills = made["stop_spans"], made["drills"]
        return [made_drills is not None and made_drills.opens(spans[i].stop)
                for i in breathing_over(range(len(spans)), every=256)]

    steps: list[tuple[str, Callable[[], Any]]] = [
        ("", lambda: run.replay_facts),
        ("stop_spans", lambda: spans_for(run.stops, run.axis, 0)),
        ("long_span_lines", lambda: long_span_lines(run, made["stop_spans"])),
        ("bubble_model", lambda: BubbleModel(run)),
        ("folded_graph", lambda: fold_whole_graph(run)),
        ("graph_layout", whole_layout),
        ("summary", lambda: run.summary_tally.whole()),
        ("stop_figures", lambda: stop_figures(run, run.stops)),
        ("tool_names", lambda: tool_names_called(run)),
        ("drills", drills),
        ("stops_drillable", drillable),
        ("progress_by_call", lambda: progress_reports_by_call(run)),
        ("framework_steps", lambda: framework_steps(run.domain_events, run.step_fold.internal_at)),
        ("framework_nodes", lambda: framework_nodes(run.stepgraph.get("nodes") or [])),
        ("run_facts", lambda: RunFacts(run)),
        ("pauses", lambda: find_pauses(run)),
        ("key_writes", lambda: find_key_writes(run)),
        ("iteration_bands", lambda: iteration_bands(run.stops)),
        ("timeline_series", lambda: own_stops_series(run, made["stop_spans"], made["stops_drillable"],
                                                     made["stop_figures"])),
        ("run_id", lambda: run_id_of(run)),
    ]
    total = len(steps) + 1  # (the run's own projections first)
    run.prepare(progress=None if progress is None else lambda f: progress(f / total), cancelled=cancelled,
                check_payloads=False)
    for done, (name, make) in enumerate(steps, start=2):
        if cancelled is not None and cancelled():
            raise LoadCancelled()
        breathe()
        value = make()
        if name:
            made[name] = value
        if progress is not None:
            progress(done / total)
    return PreparedViews(**made)
