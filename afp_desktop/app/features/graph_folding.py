"""The graph as shown with runs of similar iterations folded (core/fold_iterations.py) and the framework's own
steps hidden or drawn (core/model/framework_steps.py), between the session and the canvas: the canvas draws the
graph shown and knows nothing of either; this maps node indices both ways (run → framework steps → folds).

On: each run of alike iterations is one chip ("Iterations 3–149, ×147 alike"); clicking a chip expands it.
Off: every step is drawn. Until the user chooses (View ▸ Fold similar iterations), a graph is folded only when it
has more than AUTO_FOLD_STEPS steps — too many to find one's way in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from afp_desktop.app.look.style import palette_for
from afp_desktop.core.model.fold_iterations import AUTO_FOLD_STEPS, FoldMap, find_folds, fold_graph
from afp_desktop.core.model.layout import GraphLayout, layout_step_graph
from afp_desktop.core.model.framework_steps import (
    ShownSteps,
    framework_nodes,
    framework_steps,
    hidden_count,
    shown_graph,
)

if TYPE_CHECKING:  # (the run's views are imported with the first run, not with the window: graph_layout_of)
    from afp_desktop.core.views.prepared_views import FoldedGraph


def graph_layout_of(run) -> GraphLayout:
    """The whole graph's layout of `run` (core/views/prepared_views.py)."""
    from afp_desktop.core.views.prepared_views import graph_layout_of as whole_layout

    return whole_layout(run)


def empty_graph_reason(run) -> str:
    """Why a run's graph has no card (said on the empty canvas)."""
    if not run.domain_events:
        return "This file holds no events the step graph is built from (LLM calls, tool calls, subflows)."
    return "None of this file's events makes a step in the graph (no LLM call, tool call or subflow)."


@dataclass(frozen=True)
class ShownMoment:
    """The parts of a core Moment the canvas reads, in the folded graph's node indices."""

    nodes_started: int
    active_nodes: tuple[int, ...]
    current_node: int | None
    _errors: dict

    def error_nodes(self) -> dict:
        return self._errors


class GraphFolding(QObject):
    expanded = Signal(str)  # what the status bar says when a chip was expanded
    folding_changed = Signal(bool)  # folds are (not) in effect for the run shown
    framework_changed = Signal(int)  # how many framework steps the graph shown hides (0: none hidden)

    def __init__(self, session, canvas, parent: QObject | None = None):
        super().__init__(parent)
        self.session, self.canvas = session, canvas
        self.choice: bool | None = None  # the user's choice; None: automatic (fold big graphs)
        self._steps = 0
        self.fmap: FoldMap | None = None
        self._folds: list = []
        self._expanded: set[int] = set()  # fold starts the user opened
        self._domain_seen: int | None = None  # DomainEvents of the run the canvas shows (steps changed since)
        self.hide_framework = True  # View ▸ Hide framework steps (as agentfootprint-lens does by default)
        self.fw_map: ShownSteps | None = None  # run nodes ↔ the graph before folding; None: the same
        self.fw_steps: list = []  # the framework's own steps of the run shown, and its drawn plumbing nodes
        self.fw_nodes: list[int] = []
        self._fw_run, self._fw_seen = None, -1  # the run and DomainEvent count the steps were found for
        self._base: dict | None = None  # the graph before folding (the run's, or with framework steps changed)
        canvas.node_activated.connect(self.activate)

    # -- the graph's calls as a panel (app/panels/panel.py) ------------------------------------------------------
    def run_loaded(self, run) -> None:
        if run.stepgraph.get("nodes"):
            self.show_run(run)
        else:
            self.canvas.clear(empty_graph_reason(run))

    def run_grown(self, run, layout=None) -> None:
        """The run grew (growth's graph job, once the grown graph is laid out: `layout`, or None): extend the graph
        shown."""
        if run.stepgraph.get("nodes"):
            self.grow(run, layout)
        elif self.canvas.art is not None or self.canvas.message is None:
            self.canvas.clear(empty_graph_reason(run))

    def run_closed(self) -> None:
        """No run is shown: nothing of the last one is kept (it can be freed)."""
        self._fw_run, self._fw_seen, self._base, self.fw_map, self.fmap = None, -1, None, None, None
        self.fw_steps, self.fw_nodes = [], []
        self.canvas.clear("")

    def moment(self, moment) -> None:
        self.show_moment(moment)

    def settled(self, _moment) -> None:
        pass

    def selection_changed(self, index: int | None) -> None:
        self.set_selected(index)

    def set_theme(self, theme: str) -> None:
        self.canvas.set_palette(palette_for(theme))

    # -- the graph -------------------------------------------------------------------------------------------
    def show_run(self, run) -> None:
        self._expanded.clear()
        graph = self._make_base(run)
        nodes = graph.get("nodes") or []
        self._steps = len(nodes)
        prepared = self._prepared_fold(run)
        self._folds = list(prepared.folds) if prepared is not None else find_folds(nodes) if nodes else []
        self._show(run)

    def _make_base(self, run) -> dict:
        """The run's graph with its framework steps hidden or drawn; counts what is hidden."""
        events = run.domain_events
        graph = run.stepgraph
        fold = run.step_fold  # (when each node was made: where a framework step goes)
        if run is not self._fw_run or len(events) != self._fw_seen:  # (a run followed grows)
            views = run.views if run is not self._fw_run else None  # (what the loader thread made, for a new run)
            self.fw_steps = views.framework_steps if views is not None else framework_steps(events, fold.internal_at)
            self.fw_nodes = views.framework_nodes if views is not None else framework_nodes(graph.get("nodes") or [])
            self._fw_run, self._fw_seen = run, len(events)
        created = fold.node_created_at
        self._base, self.fw_map = shown_graph(graph, created, self.fw_steps, self.hide_framework, self.fw_nodes)
        hidden = hidden_count(graph.get("nodes") or [], self.fw_steps, self.fw_nodes) if self.hide_framework else 0
        self.framework_changed.emit(hidden)
        return self._base

    def set_hide_framework(self, hide: bool) -> None:
        """View ▸ Hide framework steps: the graph is shown anew, folds kept as chosen."""
        if hide == self.hide_framework:
            return
        self.hide_framework = hide
        if self.session.run is not None and (self.session.run.stepgraph.get("nodes") or []):
            self.show_run(self.session.run)
            self.canvas.centre_on_cursor()

    def grow(self, run, layout: GraphLayout | None = None) -> None:
        """The run grew (File ▸ Follow): extend the graph shown, keeping the zoom, the place looked at and the
        user's expanded chips. Folded, the folds may have changed: the graph is shown anew, zoom and scroll kept.
        `layout`: the whole graph's, made already (None: made here when needed)."""
        fold = run.step_fold
        nodes = fold.nodes
        self._steps = len(nodes)
        fw_before = self.fw_map
        nodes = self._make_base(run).get("nodes") or []
        if fw_before is None and self.fw_map is None and not self.enabled:
            # steps changed since the graph was last shown (a step that ended got its duration, tokens)
            since = self._domain_seen if self.fmap is None else None
            changed = None if since is None else \
                [i for i in range(len(self.canvas.node_items)) if fold.node_changed_at[i] >= since]
            self.fmap = None
            self.canvas.grow_graph(run.stepgraph, layout if layout is not None else graph_layout_of(run), changed)
        else:
            views = run.views  # folded in the loader thread (a big file's parts): not again here
            if self.fw_map is None and views is not None:
                self._folds = list(views.folded_graph.folds) if views.folded_graph is not None else []
            else:
                self._folds = find_folds(nodes)
            self._steps = len(nodes)
            canvas = self.canvas
            zoom = canvas.transform()
            scroll = canvas.horizontalScrollBar().value(), canvas.verticalScrollBar().value()
            self._show(run, fit=False)
            canvas.setTransform(zoom)
            canvas.show_for_zoom()  # (overview or detail, by zoom)
            canvas.horizontalScrollBar().setValue(scroll[0])
            canvas.verticalScrollBar().setValue(scroll[1])
        self._domain_seen = len(run.domain_events)
        if self.session.moment is not None:
            self.show_moment(self.session.moment)
        self.set_selected(self.session.selected)

    def _prepared_fold(self, run) -> FoldedGraph | None:
        """The graph as the loader thread folded it (None: not prepared, nothing folds, or the framework steps
        drawn or hidden make the graph shown another one)."""
        return run.views.folded_graph if run.views is not None and self.fw_map is None else None

    @property
    def fold_above(self) -> int | None:
        """A graph of more steps than this is shown folded (None: none is): the user's choice, else more than
        AUTO_FOLD_STEPS. The one rule, also the loader's (prepare_views)."""
        return AUTO_FOLD_STEPS if self.choice is None else -1 if self.choice else None

    def _shows_folded(self, steps: int) -> bool:
        above = self.fold_above
        return above is not None and steps > above

    @property
    def enabled(self) -> bool:
        return self._shows_folded(self._steps)

    def would_fold(self, run) -> bool:
        """Whether `run`'s graph (one that grew, say, not yet shown) is shown folded."""
        return self._shows_folded(len(run.stepgraph.get("nodes") or []))

    def set_enabled(self, enabled: bool) -> None:
        was, self.choice = self.enabled, enabled
        if enabled != was and self.session.run is not None:
            self._show(self.session.run)

    @property
    def folds(self) -> list:
        """The folds in effect (those the user has not expanded)."""
        return [f for f in self._folds if f.start not in self._expanded] if self.enabled else []

    def _show(self, run, fit: bool = True) -> None:
        if self._base is not None and (run is not self._fw_run or len(run.domain_events) != self._fw_seen):
            self._make_base(run)  # the run grew since (a growth whose graph job has not run yet)
        graph = self._base if self._base is not None else run.stepgraph
        self._domain_seen = len(run.domain_events)
        folds = self.folds
        prepared = self._prepared_fold(run)
        if folds and prepared is not None and list(prepared.folds) == folds:
            self.fmap = prepared.fold_map
            self.canvas.set_graph(prepared.shown, prepared.layout)
        elif folds:
            shown, self.fmap = fold_graph(graph, folds)
            self.canvas.set_graph(shown, layout_step_graph(shown))
        elif self.fw_map is not None:
            self.fmap = None
            self.canvas.set_graph(graph, layout_step_graph(graph))
        else:
            self.fmap = None
            self.canvas.set_graph(graph, graph_layout_of(run))  # (laid out in the loader thread when prepared)
        if fit:
            self.canvas.fit_width()  # a wide row's last card is not cut off at the right edge
        self.folding_changed.emit(self.enabled)
        if self.session.moment is not None:
            self.show_moment(self.session.moment)
        self.set_selected(self.session.selected)

    # -- indices both ways: run node → (framework steps) → (folds) → node drawn -----------------------------
    def to_shown(self, index: int | None) -> int | None:
        if index is None:
            return None
        if self.fw_map is not None:
            index = self.fw_map.to_shown(index)
        return index if self.fmap is None else self.fmap.to_shown(index)

    def to_full(self, shown: int) -> int | None:
        """The run's node drawn at `shown` (None: a framework step's chip)."""
        base = self.fmap.to_full(shown) if self.fmap is not None else shown
        return self.fw_map.to_full(base) if self.fw_map is not None else base

    def show_moment(self, moment) -> None:
        if self.canvas.graph_layout is None:
            return
        if self.fmap is None and self.fw_map is None:
            self.canvas.show_moment(moment)
            return
        fw, fmap = self.fw_map, self.fmap
        n_domain = getattr(moment, "n_domain", 0)
        started = moment.nodes_started
        active = [self.to_shown(i) for i in moment.active_nodes]
        current = self.to_shown(moment.current_node)
        if fw is not None:
            base_current = fw.to_shown(moment.current_node) if moment.current_node is not None else -1
            started = fw.shown_started(started, n_domain)
            chips = fw.active_chips(n_domain)
            active += [c if fmap is None else fmap.to_shown(c) for c in chips]
            # A framework step that began after the cursor's step (and is the last thing that began, or is still
            # running) is the step at the cursor: the cursor stands inside it.
            latest = chips[-1] if chips else (started - 1 if (started - 1) in fw.step_of else None)
            if latest is not None and latest > base_current:
                current = latest if fmap is None else fmap.to_shown(latest)
        if fmap is not None:
            started = fmap.shown_started(started)
        errors: dict = {}
        for index, found in moment.error_nodes().items():
            errors.setdefault(self.to_shown(index), []).extend(found)
        self.canvas.show_moment(ShownMoment(started, tuple(dict.fromkeys(a for a in active if a is not None)),
                                            current, errors))

    def set_selected(self, index: int | None) -> None:
        self.canvas.set_selected(self.to_shown(index))

    def select_shown(self, shown: int | None) -> None:
        """The arrow keys selected a card: the session's step (a fold chip or framework chip stands for none)."""
        if shown is None:
            self.session.select_node(None)
        elif self.fmap is None or self.fmap.fold_at(shown) is None:
            full = self.to_full(shown)
            if full is not None:
                self.session.select_node(full)

    def activate(self, shown: int) -> None:
        """A click on a card: a fold chip expands; a framework chip moves the cursor into that step; any other card
        is the session's step."""
        fold = self.fmap.fold_at(shown) if self.fmap is not None else None
        if fold is not None:
            self._expanded.add(fold.start)
            self._show(self.session.run)
            self.canvas.centre_on_cursor()
            self.expanded.emit(f"Expanded iterations {fold.first:,}–{fold.last:,}")
            return
        full = self.to_full(shown)
        if full is not None:
            self.session.activate_node(full)
            return
        base = self.fmap.to_full(shown) if self.fmap is not None else shown
        step = self.fw_map.step_of.get(base) if self.fw_map is not None else None
        run = self.session.run
        if step is not None and run is not None:
            self.session.move_to(run.axis.position_of_domain(step.entry) + 1)
