"""The loaded run: what the file holds, what it lacks, and the projections computed from it.

A `Run` is built once by `formats.open_run` and never mutated afterwards except for its lazily computed caches.
Positions on the run are axis positions (see axis.py); `Run.at(position)` gives the events that have happened.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable

from afp_desktop.core.model.axis import Axis, build_axis, stage_ids_on_axis
from afp_desktop.core.jsonx.fields import indices_by_text
from afp_desktop.core.library.events import typed_indices_by_type
from afp_desktop.core.problems import LoadCancelled, LoadError, Notice, Problem
from afp_desktop.core.shapes import StepGraph, StopDict
from afp_desktop.core.library.stepgraph import StepGraphFold, build_step_graph_safe
from afp_desktop.core.breathing import breathe, breathing_over

if TYPE_CHECKING:
    from afp_desktop.core.library.status import StatusTimeline

FORMAT_NAMES = {
    "ndjson": "NDJSON event stream",
    "trace": "Trace v1",
    "recording": "Recording",
    "recording-envelope": "Recording envelope v1",
    "recording-packed": "Packed recording v1",
    "afp-jsonl": "afp-desktop lossless .jsonl",
    "event-list": "JSON list of typed events",
    "domain-list": "JSON list of DomainEvents",
}


@dataclass
class Run:
    path: str
    format: str
    typed_events: list[dict] | None
    domain_events: list[dict]
    domain_source: str  # "trace" | "boundary-events" | "typed-stream" | "boundary+typed" | "none"
    snapshot: dict | None = None
    structure: Any = None
    redaction: str | None = None
    envelope: dict | None = None
    trace_summary: dict | None = None
    warnings: list[Problem] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    original_format: str | None = None  # for a converted .jsonl: the format it was made from
    document: Any = None  # the parsed source, kept for lossless conversion
    anchors: list[int | None] | None = None
    boundary_mode: str | None = None
    bundle: Any = None  # opened from a bug-report bundle: its facts (core/bugreport.py BundleInfo)
    still_reading: bool = False  # the first part of a file still being read (formats/prefixes.py)
    # …a part whose positions are not the whole run's (a recording's typed events alone: prefixes.same_moment)
    positions_differ: bool = False

    # -- what the file holds -------------------------------------------------------------------------
    @property
    def format_name(self) -> str:
        name = FORMAT_NAMES.get(self.format, self.format)
        if self.original_format:
            name += f" (from {FORMAT_NAMES.get(self.original_format, self.original_format)})"
        if self.bundle is not None:
            name = f"Bug-report bundle, conversation {self.bundle.chosen} ({name})"
        return name

    @property
    def commit_log(self) -> list | None:
        log = self.snapshot.get("commitLog") if isinstance(self.snapshot, dict) else None
        return log if isinstance(log, list) else None

    @property
    def execution_tree(self) -> dict | None:
        tree = self.snapshot.get("executionTree") if isinstance(self.snapshot, dict) else None
        lazy = getattr(tree, "known_mount_ids", None) is not None  # kept as bytes (formats/lazy_recording.py)
        return tree if isinstance(tree, dict) or lazy else None

    # -- projections (computed once) -------------------------------------------------------------------
    @cached_property
    def _fold(self) -> tuple[StepGraphFold, str | None]:
        return build_step_graph_safe(self.domain_events)

    @property
    def step_fold(self) -> StepGraphFold:
        return self._fold[0]

    @property
    def stepgraph(self) -> StepGraph:
        return self._fold[0].graph()

    @property
    def stepgraph_note(self) -> str | None:
        return self._fold[1]

    @cached_property
    def axis(self) -> Axis:
        return build_axis(self.domain_events, self.typed_events, self.anchors)

    @cached_property
    def status_states(self) -> "StatusTimeline | list[dict | None] | None":
        """selectStatus for every prefix of the typed stream (None when the file has no typed stream; a list for
        a run followed live)."""
        if self.typed_events is None:
            return None
        from afp_desktop.core.library.status import status_timeline

        return status_timeline(self.typed_events)

    @cached_property
    def derived_status_states(self) -> list[dict | None]:
        """For a file without the typed stream: the status derived from LLM and tool starts and ends, after
        every DomainEvent prefix (see bubble.py)."""
        from afp_desktop.core.model.bubble import derived_status_timeline

        return derived_status_timeline(self.domain_events)

    @cached_property
    def payload_problems(self) -> list[LoadError]:
        """A large Trace's payloads stay bytes until read (core/formats/lazy_trace.py): the errors of those
        that are not valid JSON, in file order (empty for every other file, whose parse checked everything)."""
        from afp_desktop.core.jsonx.lazyjson import LazyJSON

        problems: list[LoadError] = []
        for event in breathing_over(self.domain_events):
            payload = event.get("payload") if type(event) is dict else None
            if type(payload) is LazyJSON:
                problem = payload.problem()
                if problem is not None:
                    problems.append(problem)
        return problems

    # Projections only the window uses, computed once per run (the loader thread computes them, see prepare).
    @cached_property
    def replay_facts(self):
        """When each step started and ended, and the errors (replay.ReplayFacts)."""
        from afp_desktop.core.model.replay import ReplayFacts

        return ReplayFacts(self)

    @cached_property
    def stop_spans(self) -> list:
        """The spans of the run's own stops (replay.spans_for), the timeline's first level."""
        from afp_desktop.core.model.replay import spans_for

        return spans_for(self.stops, self.axis, 0)

    @cached_property
    def long_span_lines(self) -> dict:
        """The chat's lines during each very long stop span, with the default templates (replay.long_span_lines):
        walked here, not on the window's thread when the cursor lands there."""
        from afp_desktop.core.model.replay import long_span_lines

        return long_span_lines(self)

    @cached_property
    def bubble_model(self):
        from afp_desktop.core.model.bubble import BubbleModel

        return BubbleModel(self)

    @cached_property
    def graph_layout(self):
        """Boxes and routes of the StepGraph (layout.layout_step_graph)."""
        from afp_desktop.core.model.layout import layout_step_graph

        return layout_step_graph(self.stepgraph)

    @cached_property
    def folded_graph(self):
        """(folds, graph shown, FoldMap, its layout) with every run of alike iterations folded
        (fold_iterations.py); None when nothing folds."""
        from afp_desktop.core.model.fold_iterations import find_folds, fold_graph
        from afp_desktop.core.model.layout import layout_step_graph

        folds = find_folds(self.step_fold.nodes)
        if not folds:
            return None
        shown, fmap = fold_graph(self.stepgraph, folds)
        return folds, shown, fmap, layout_step_graph(shown)

    @cached_property
    def framework_steps(self) -> list:
        """The framework's own steps the StepGraph fold drops (framework_steps.py), in the order they began."""
        from afp_desktop.core.model.framework_steps import framework_steps

        return framework_steps(self.domain_events, self.step_fold.internal_at)

    @cached_property
    def framework_nodes(self) -> list[int]:
        """StepGraph nodes that are framework plumbing by agentfootprint-lens's law (framework_steps.py)."""
        from afp_desktop.core.model.framework_steps import framework_nodes

        return framework_nodes(self.stepgraph.get("nodes") or [])

    @cached_property
    def summary_tally(self):
        """The run's figures as known at every position (summary.SummaryTally)."""
        from afp_desktop.core.model.summary import tally_run

        return tally_run(self)

    @cached_property
    def summary(self):
        return self.summary_tally.whole()

    @cached_property
    def run_ends(self):
        """How the run ended, as known at every position (run_end.RunEnds)."""
        from afp_desktop.core.model.run_end import RunEnds

        return RunEnds(self)

    @cached_property
    def progress_by_call(self) -> dict:
        """Typed-event indices of each tool call's progress reports (tool_progress.py)."""
        from afp_desktop.core.model.tool_progress import progress_reports_by_call

        return progress_reports_by_call(self)

    @cached_property
    def tool_names(self) -> list[str]:
        from afp_desktop.core.model.summary import tool_names_called

        return tool_names_called(self)

    @cached_property
    def stops_drillable(self) -> list[bool]:
        """For each of the run's own stops: does it open onto stops of its own (replay.Replay.can_drill)?"""
        from afp_desktop.core.model.replay import Replay

        replay = Replay(self)
        return [replay.can_drill(i) for i in breathing_over(range(len(self.stop_spans)), every=256)]

    @cached_property
    def stop_figures(self):
        """Tokens per LLM turn and tool time per stop of the run's own stops (timeline.stop_figures)."""
        from afp_desktop.core.model.timeline import stop_figures

        return stop_figures(self, self.stops)

    @cached_property
    def _stops_and_notice(self) -> tuple[list[StopDict], Notice | None]:
        from afp_desktop.core.model.positions import stops_for_run

        return stops_for_run(self)

    @property
    def stops(self) -> list[StopDict]:
        """The milestone stops (§5.4); derived from the events when the file has no usable commit log."""
        return self._stops_and_notice[0]

    @property
    def stops_notice(self) -> Notice | None:
        """Why the stops were derived from the events although the file has a commit log (None otherwise)."""
        return self._stops_and_notice[1]

    @property
    def payloads_checked(self) -> bool:
        """Whether the payloads kept as bytes have been checked (payload_problems is known)."""
        return "payload_problems" in self.__dict__

    def all_notices(self, check_payloads: bool = True) -> list[Notice]:
        """Everything the banner says about this run, computed from the run (the loader's notices and what the
        projections found), one per code, in that order. Nothing is appended to the Run by a projection.
        `check_payloads=False`: what the payloads' check found only if it has been made (the window makes it
        once the run is shown, then asks again)."""
        notices = list(self.notices)
        note = self.stepgraph_note
        if note:
            notices.append(Notice("stepgraph-fallback", note))
        broken = self.payload_problems if check_payloads or self.payloads_checked else []
        if broken:
            first = broken[0].problem
            notices.append(Notice("unreadable-payloads", (
                f"{len(broken)} payload(s) in this file are not valid JSON (the first at {first.where()}: "
                f"{first.message.removeprefix('a payload is not valid JSON: ')}). They show as “not readable”; "
                "everything else in the run is shown.")))
        stops_notice = self.stops_notice
        if stops_notice is not None:
            notices.append(stops_notice)
            if stops_notice.code == "stops-derived-legs":  # (it says what several-legs says, and what follows)
                notices = [notice for notice in notices if notice.code != "several-legs"]
        seen: set[str] = set()
        unique = []
        for notice in notices:
            if notice.code not in seen:
                seen.add(notice.code)
                unique.append(notice)
        return unique

    def seed(self, **projections: Any) -> "Run":
        """Give the run projections computed elsewhere, by their cached-property names (a live run extends
        them as events arrive instead of computing them from scratch: core/live_run.py)."""
        for name, value in projections.items():
            if not isinstance(getattr(type(self), name, None), cached_property):
                raise AttributeError(f"Run has no cached projection {name!r}")
            self.__dict__[name] = value
        return self

    @cached_property
    def typed_by_type(self) -> dict[str, array]:
        """The indices of the typed events of each type, in order (read-only): the projections that look for
        a few types of event (pauses, tool progress, errors, tool names, the failure) share one pass."""
        return typed_indices_by_type(self.typed_events or [])

    @cached_property
    def domain_by_type(self) -> dict[str, array]:
        """The indices of the DomainEvents of each type, in order (read-only): the projections that look for a
        few types (subflow mounts, tool names, errors, the chat's prompts) share one pass, in C where built."""
        return indices_by_text(self.domain_events, "type")

    def stage_ids_on_axis(self) -> list[str]:
        return stage_ids_on_axis(self.axis, self.domain_events, self.typed_events or [])

    def prepare(self, progress: Callable[[float], None] | None = None,
                cancelled: Callable[[], bool] | None = None, window: bool = False,
                check_payloads: bool = True, fold_above: int | None = None) -> "Run":
        """Compute every projection now (a loader thread calls this so the window never waits on one).
        `progress` gets 0..1 as they complete; `cancelled` returning True stops with LoadCancelled.
        `window`: also what only the window shows (replay facts, layout, summary, stop figures).
        `check_payloads=False`: the payloads kept as bytes are not checked now (payload_problems).
        `fold_above`: the window shows a graph of more steps than this folded (None: never), and then the whole
        graph's layout (graph_layout) is not made now: only the folded graph's is drawn."""
        steps = ["axis", "_fold", "_stops_and_notice", "status_states"] + (["payload_problems"] if check_payloads
                                                                             else [])
        if self.typed_events is None:
            steps.append("derived_status_states")
        if window:
            steps += ["replay_facts", "stop_spans", "long_span_lines", "bubble_model", "folded_graph", "graph_layout", "summary",
                      "stop_figures", "tool_names", "stops_drillable", "progress_by_call", "framework_steps",
                      "framework_nodes"]
        for done, name in enumerate(steps, start=1):
            if cancelled is not None and cancelled():
                raise LoadCancelled()
            breathe()
            if name != "graph_layout" or not self.shown_folded(fold_above):
                getattr(self, name)
            if progress is not None:
                progress(done / len(steps))
        return self

    def shown_folded(self, fold_above: int | None) -> bool:
        """Whether a window that folds graphs of more than `fold_above` steps shows this one folded."""
        steps = len(self.stepgraph.get("nodes") or [])
        return fold_above is not None and steps > fold_above and self.folded_graph is not None

    # -- positions -------------------------------------------------------------------------------------
    def at(self, position: int) -> tuple[int, int]:
        """(number of DomainEvents, number of typed events) that have happened at axis `position`."""
        return self.axis.counts_at(position)

    def status_at(self, position: int) -> dict | None:
        states = self.status_states
        if states is None:
            return None
        return states[self.at(position)[1]]
