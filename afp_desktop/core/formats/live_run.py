"""A Run of an NDJSON typed stream that grows as events arrive: every projection is extended, never rebuilt.

`RunGrower.feed(events)` extends, event by event, what `open_run` computes from the whole file:

| projection            | extended by                                                                    |
|-----------------------|--------------------------------------------------------------------------------|
| DomainEvents          | `TypedToDomain.map` (incremental §2.5 mapper)                                  |
| StepGraph             | `StepGraphFold.feed_all` over the new DomainEvents                              |
| status states         | `StatusSelector.feed`, one state per typed prefix                              |
| axis                  | each typed event, then the DomainEvent mapped from it (a typed stream's axis)  |
| derived stops         | the first row of each stage id, its milestone decided once; stops are cut from these |

`snapshot()` gives a `Run` with those projections in place; a test checks it equals `open_run` of the same
events for every corpus run cut at random points. A snapshot copies the event lists and the axis (its length
stays put while more events arrive) but shares the StepGraph fold, whose prefix never changes: it is meant to
be shown at once and replaced by the next one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from afp_desktop.core.model.axis import Axis
from afp_desktop.core.library.conventions import milestone_for
from afp_desktop.core.library.events import TypedToDomain, event_meta
from afp_desktop.core.model.run import Notice, Run
from afp_desktop.core.model.run_end import MID_WAY_TEXT, is_run_end, is_run_start
from afp_desktop.core.library.status import StatusSelector
from afp_desktop.core.library.stepgraph import MalformedRunError, StepGraphFold, build_step_graph_safe
from afp_desktop.core.library.stops import derived_stop_rows
from afp_desktop.core.model.summary import SummaryTally, tally_more

PREFIX = "agentfootprint."
MID_WAY_ROTATED = "This run starts mid-way: earlier events were rotated out."


def _rid(value: Any) -> str:
    return value if isinstance(value, str) else ""


class _DerivedStops:
    """`stops.derived_stops` over the axis rows, kept incrementally: the first row of each stage id, with its
    milestone decided once; the stops themselves are cut from those firsts (a few per LLM turn), not from the
    whole axis."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.firsts: list[tuple[int, str, dict | None]] = []  # (row index, rid, milestone or None)
        self.mounts: set[str] = set()
        self.rows = 0

    def add(self, kind: str, rid: str) -> None:
        index = self.rows
        self.rows += 1
        if kind == "subflow.entry":
            self.mounts.add(rid)
        if rid and rid not in self.seen:
            self.seen.add(rid)
            self.firsts.append((index, rid, milestone_for(rid)))

    def stops(self) -> list[dict]:
        if not self.rows:
            return []
        kept = [(index, rid, milestone) for index, rid, milestone in self.firsts if milestone]
        prologue = (kept[0][0] != self.firsts[0][0]) if kept else bool(self.firsts)
        return derived_stop_rows(kept, prologue, self.rows, self.mounts, on_axis=True)  # (as positions.py places them)


class RunGrower:
    """The growing Run of one NDJSON typed stream. `feed` new events in order; `snapshot()` the Run so far;
    `restart()` when the file was replaced (everything is dropped)."""

    def __init__(self, path: str):
        self.path = path
        self.restart()

    def restart(self) -> None:
        self.typed: list[dict] = []
        self.domain: list[dict] = []
        self.anchors: list[int | None] = []
        self.axis = Axis(anchors=self.anchors)
        self.status_states: list[dict | None] = [None]
        self.ended = False  # the run's end event has been seen
        self.notices: list[Notice] = []  # what the follow met (rotations, restarts, damaged lines)
        self._mapper = TypedToDomain()
        self._selector = StatusSelector()
        self._fold = StepGraphFold()
        self._fold_note: str | None = None
        self._stops = _DerivedStops()
        self._stops_cache: list[dict] | None = None
        self._tally = SummaryTally()  # the figures of the events tallied so far (extended by each snapshot)

    def __len__(self) -> int:
        return len(self.typed)

    def add_notice(self, code: str, text: str, level: str = "warning") -> None:
        if not any(n.code == code and n.text == text for n in self.notices):
            self.notices.append(Notice(code, text, level))

    def feed(self, events: list[dict]) -> None:
        axis, stops = self.axis, self._stops
        entries, after_t, after_d = axis.entries, axis.typed_after, axis.domain_after
        d_before, t_before, commits = axis.domain_before, axis.typed_before, axis.commit_before
        new_domain: list[dict] = []
        for event in events:
            j = len(self.typed)
            self.typed.append(event)
            entries.append(("t", j))
            after_t.append(len(entries))
            d_before.append(len(self.domain))
            t_before.append(j + 1)
            commits.append(0)  # a typed stream carries no commit counts (every event: before commit 0)
            stops.add("typed", _rid(event_meta(event).get("runtimeStageId")))
            self._selector.feed(event)
            self.status_states.append(self._selector.current())
            mapped = self._mapper.map(event)
            if mapped is not None:
                i = len(self.domain)
                self.domain.append(mapped)
                self.anchors.append(j)
                new_domain.append(mapped)
                entries.append(("d", i))
                after_d.append(len(entries))
                d_before.append(i + 1)
                t_before.append(j + 1)
                commits.append(0)
                stops.add(mapped["type"], _rid(mapped.get("runtimeStageId")))
            if not self.ended and is_run_end(event):
                self.ended = True
        if self._fold_note is None:
            try:
                self._fold.feed_all(new_domain)
            except MalformedRunError:  # the TypeScript fold would throw: from now on, the safe fold's fallback
                self._fold, self._fold_note = build_step_graph_safe(self.domain)
        elif new_domain:
            self._fold, self._fold_note = build_step_graph_safe(self.domain)
        if events:
            self._stops_cache = None

    @property
    def starts_mid_way(self) -> bool:
        return bool(self.typed) and not is_run_start(self.typed[0])

    def snapshot(self, rotated: bool = False) -> Run:
        """The Run as of now, its projections in place (nothing is recomputed from the start).
        `rotated`: the events began in a rotated `.1` file, so a run starting mid-way lost its head there."""
        from afp_desktop.core.formats.assemble import finish

        # The event lists and the axis are copied (a few ms for 10,000 events): a Run shown while more events
        # arrive keeps its length. (The StepGraph fold is shared; its prefix never changes.)
        typed, domain, anchors = list(self.typed), list(self.domain), list(self.anchors)
        a = self.axis
        axis = replace(a, entries=a.entries.copy(), domain_before=a.domain_before[:],
                       typed_before=a.typed_before[:], commit_before=list(a.commit_before),
                       domain_after=a.domain_after[:], typed_after=a.typed_after[:], anchors=anchors)
        run = Run(path=self.path, format="ndjson", typed_events=typed, domain_events=domain,
                  domain_source="typed-stream", redaction="none", document=typed, anchors=anchors)
        finish(run)
        if self.starts_mid_way:
            run.notices = [n for n in run.notices if n.code != "mid-way"]  # (finish's, without the rotation)
            run.notices.insert(0, Notice("mid-way", MID_WAY_ROTATED if rotated else MID_WAY_TEXT))
        run.notices[:0] = self.notices
        if self._stops_cache is None:
            self._stops_cache = self._stops.stops()
        run.seed(fold=(self._fold, self._fold_note), axis=axis, status_states=list(self.status_states),
                 stops_and_notice=(self._stops_cache, None), payload_problems=[])
        run.summary_tally = tally_more(self._tally, domain, typed).copy()  # (the new events tallied, not all again)
        return run
