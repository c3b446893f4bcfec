"""The loaded run: what the file holds, what it lacks, and the projections computed from it.

A `Run` is built once by `formats.open_run`; its events and facts never change afterwards. Its own projections
(axis, step graph, stops, status, replay facts, how it ended) are computed once, at the first ask or by `prepare`.
What only the window shows is not the run's: `core/views/prepared_views.prepare_views` makes it, and the loader
hands it on as the run's one `views` attribute (None until then).
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
    # What only the window shows: a PreparedViews made ahead by prepare_views (core/views/prepared_views.py, a
    # floor above the model, so not named here) and handed on with the run (pickled with it too); None: not
    # prepared (the command line, tests, a run followed live): readers compute what they need.
    views: Any = field(default=None, repr=False, compare=False)
    _payload_problems: list[LoadError] | None = field(default=None, init=False, repr=False, compare=False)

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
    def has_commit_log(self) -> bool:
        """Whether the file has a commit log (a window's copy answers from what stands for its snapshot)."""
        held = getattr(self.snapshot, "has_commit_log", None)
        return held if isinstance(held, bool) else bool(self.commit_log)

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

    @property
    def payload_problems(self) -> list[LoadError]:
        """A large Trace's payloads stay bytes until read (core/formats/lazy_trace.py): the errors of those
        that are not valid JSON, in file order (empty for every other file, whose parse checked everything).
        Checked at the first ask, then kept (payloads_checked)."""
        if self._payload_problems is None:
            self._payload_problems = _payload_problems(self.domain_events)
        return self._payload_problems

    def payloads_known(self, problems: list[LoadError]) -> None:
        """The payloads were checked elsewhere (the engine, on its copy of this run): `problems` is what it found."""
        self._payload_problems = list(problems)

    @property
    def payloads_checked(self) -> bool:
        """Whether the payloads kept as bytes have been checked (payload_problems is known)."""
        return self._payload_problems is not None

    # Facts every reader of the run shares (the command line, the share page, the window's replay and run facts).
    @cached_property
    def replay_facts(self):
        """When each step started and ended, and the errors (replay.ReplayFacts)."""
        from afp_desktop.core.model.replay import ReplayFacts

        return ReplayFacts(self)

    @cached_property
    def summary_tally(self):
        """The run's figures as known at every position (summary.SummaryTally)."""
        from afp_desktop.core.model.summary import tally_run

        return tally_run(self)

    @cached_property
    def run_ends(self):
        """How the run ended, as known at every position (run_end.RunEnds)."""
        from afp_desktop.core.model.run_end import RunEnds

        return RunEnds(self)

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

    def seed(self, *, fold: tuple[StepGraphFold, str | None], axis: Axis, status_states: list[dict | None],
             stops_and_notice: tuple[list, Notice | None],
             payload_problems: list[LoadError]) -> "Run":
        """Give the run its own projections computed elsewhere (a live run extends them as events arrive instead
        of computing them from scratch: core/formats/live_run.py)."""
        self.__dict__.update(_fold=fold, axis=axis, status_states=status_states,
                             _stops_and_notice=stops_and_notice)  # (the cached properties' own slots)
        self._payload_problems = payload_problems
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
        """The stage id at each axis position (computed once)."""
        return self._stage_ids

    @cached_property
    def _stage_ids(self) -> list[str]:
        return stage_ids_on_axis(self.axis, self.domain_events, self.typed_events or [])

    def prepare(self, progress: Callable[[float], None] | None = None,
                cancelled: Callable[[], bool] | None = None, check_payloads: bool = True) -> "Run":
        """Compute the run's own projections now (a loader thread calls this so that no reader waits on one).
        `progress` gets 0..1 as they complete; `cancelled` returning True stops with LoadCancelled.
        `check_payloads=False`: the payloads kept as bytes are not checked now (payload_problems).
        What only the window shows is made by core/views/prepared_views.prepare_views."""
        steps: list[Callable[[], object]] = [lambda: self.axis, lambda: self._fold, lambda: self._stops_and_notice,
                                             lambda: self.status_states]
        if check_payloads:
            steps.append(lambda: self.payload_problems)
        if self.typed_events is None:
            steps.append(lambda: self.derived_status_states)
        for done, step in enumerate(steps, start=1):
            if cancelled is not None and cancelled():
                raise LoadCancelled()
            breathe()
            step()
            if progress is not None:
                progress(done / len(steps))
        return self

    # -- positions -------------------------------------------------------------------------------------
    def at(self, position: int) -> tuple[int, int]:
        """(number of DomainEvents, number of typed events) that have happened at axis `position`."""
        return self.axis.counts_at(position)

    def status_at(self, position: int) -> dict | None:
        states = self.status_states
        if states is None:
            return None
        return states[self.at(position)[1]]


def _payload_problems(domain_events: list[dict]) -> list[LoadError]:
    from afp_desktop.core.jsonx.lazyjson import LazyJSON

    problems: list[LoadError] = []
    for event in breathing_over(domain_events):
        payload = event.get("payload") if type(event) is dict else None
        if type(payload) is LazyJSON:
            problem = payload.problem()
            if problem is not None:
                problems.append(problem)
    return problems
