"""What a run holds beyond its steps and status lines, as the command line's `info` gives it and a header shows
it: how it ended, its findings, its retries and fallbacks, its cost, how many events of each type, whether its
start was lost. Pure, no Qt; each part as known at a position (default: the end)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from afp_desktop.core.breathing import breathing_over

from afp_desktop.core.model.replay import ReplayFacts
from afp_desktop.core.views.event_steps import EventSteps
from afp_desktop.core.views.findings import Findings
from afp_desktop.core.views.resilience import Resilience

NO_TYPE = "(no type)"
_TICK = "agentfootprint.cost.tick"
_THINKING = "agentfootprint.stream.thinking_delta"
_THINKING_END = "agentfootprint.stream.thinking_end"
_LIMIT_HIT = "agentfootprint.cost.limit_hit"


def event_type_counts(run, position: int | None = None) -> dict[str, int]:
    """{type: count} over the typed events (up to `position`), every type counted: one the library does not
    declare too, and an event without a type under "(no type)". Nothing is dropped."""
    typed = run.typed_events or []
    upto = len(typed) if position is None else run.axis.typed_before[position]
    counts: dict[str, int] = {}
    for event_type, indices in run.typed_by_type.items():
        if not isinstance(event_type, str):
            continue
        n = len(indices) if upto == len(typed) else sum(1 for j in indices if j < upto)
        if n:
            counts[event_type] = n
    rest = upto - sum(counts.values())
    if rest > 0:
        counts[NO_TYPE] = rest
    return dict(sorted(counts.items()))


def _usd(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def cost_usd(run, position: int | None = None) -> float | None:
    """The run's cost as the library last estimated it (`cost.tick`'s cumulative estimate) by `position`; None
    when the run has no priced call by then."""
    typed = run.typed_events or []
    upto = len(typed) if position is None else run.axis.typed_before[position]
    for j in reversed(run.typed_by_type.get(_TICK, ())):
        if j >= upto:
            continue
        payload = typed[j].get("payload")
        cumulative = payload.get("cumulative") if isinstance(payload, dict) else None
        if isinstance(cumulative, dict):
            for key in ("estimatedUsd", "usd", "costUsd"):
                usd = _usd(cumulative.get(key))
                if usd is not None:
                    return usd
    return None


@dataclass(frozen=True)
class StepNote:
    """A typed event told on its step: a cost tick, a reasoning chunk or a reasoning summary."""

    position: int
    node: int | None
    payload: dict


class RunFacts:
    """The facts of one run, computed once: findings, resilience, how it ended, the steps' costs and reasoning.
    Holds no reference to the run (it travels pickled in the run's prepared views): `as_json` is given it."""

    def __init__(self, run, facts: ReplayFacts | None = None) -> None:
        self.facts = facts or run.replay_facts
        steps = EventSteps(run, self.facts)  # (one index of the steps' stage ids for all three)
        self.findings = Findings(run, self.facts, steps)
        self.resilience = Resilience(run, self.facts, steps)
        self.costs = self._notes(run, _TICK, steps.step_of)
        self.thinking = self._notes(run, _THINKING, steps.llm_step_of)
        self.thinking_ends = self._notes(run, _THINKING_END, steps.step_of)
        self.limit_hits = self._notes(run, _LIMIT_HIT, steps.step_of)  # (what each limit was: its payload)

    @staticmethod
    def _notes(run, event_type: str, step_of) -> list[StepNote]:
        typed = run.typed_events or []
        after = run.axis.typed_after
        out = []
        for j in breathing_over(run.typed_by_type.get(event_type, ())):
            payload = typed[j].get("payload")
            out.append(StepNote(after[j], step_of(j), payload if isinstance(payload, dict) else {}))
        return out

    @staticmethod
    def of_step(notes: list[StepNote], node: int, position: int) -> list[StepNote]:
        return [note for note in notes if note.node == node and note.position <= position]

    def as_json(self, run, position: int | None = None) -> dict:
        """The `info --json` part of `run` (the run these facts were computed from): end, resilience, costUsd,
        eventTypes, findings, startLost."""
        ends = run.run_ends
        end = ends.final if position is None else ends.at(position)
        findings = self.findings.all if position is None else self.findings.known(position)
        return {"end": end.as_json(), "resilience": self.resilience.counts(position),
                "costUsd": cost_usd(run, position), "eventTypes": event_type_counts(run, position),
                "findings": [finding.as_json() for finding in findings], "startLost": ends.start_lost}


def facts_of_run(run) -> RunFacts:
    """The run's facts: the prepared views' (the window's loader made them), else computed now."""
    return run.views.run_facts if run.views is not None else RunFacts(run)
