"""Retries, recoveries, circuit-breaker changes and fallbacks: each with its moment, the step it wrapped, and
in words the attempt, the error, the wait and the reason. Pure, no Qt.

| event (`agentfootprint.` prefix)        | counted as      |
|-----------------------------------------|-----------------|
| error.retried, reliability.retried      | retries         |
| error.recovered, reliability.recovered  | recoveries      |
| error.circuit_changed                   | circuitChanges  |
| fallback.triggered, resilience.output_fallback_triggered | fallbacks |
| resilience.output_canned_used           | (listed on its step; the fallback was counted) |
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Callable

from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.library.event_homes import PREFIX, short_type
from afp_desktop.core.library.events import indices_of
from afp_desktop.core.model.run_end import plain
from afp_desktop.core.views.event_steps import EventSteps

COUNTED = {"error.retried": "retries", "reliability.retried": "retries",
           "error.recovered": "recoveries", "reliability.recovered": "recoveries",
           "error.circuit_changed": "circuitChanges",
           "fallback.triggered": "fallbacks", "resilience.output_fallback_triggered": "fallbacks"}
LISTED = (*COUNTED, "resilience.output_canned_used")


def _n(value: Any) -> str | None:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _s(payload: dict, key: str, limit: int = 300) -> str | None:
    value = payload.get(key)
    return None if value is None or value == "" else plain(value, limit)


def _retried(p: dict) -> tuple[str, str]:
    attempt, most = _n(p.get("attempt")), _n(p.get("maxAttempts"))
    label = f"retry after attempt {attempt}" + (f" of {most}" if most else "") if attempt else "retry"
    text = f"failed: {_s(p, 'lastError') or 'no error given'}"
    wait = _n(p.get("backoffMs"))
    if wait:
        text += f"; waited {wait} ms before the next attempt"
    return label, text + (f" ({_s(p, 'reason', 120)})" if _s(p, "reason") else "")


def _reliability_retried(p: dict) -> tuple[str, str]:
    attempt = _n(p.get("attempt"))
    action = "retry on another provider" if p.get("action") == "retry-other" else "retry"
    text = f"{_s(p, 'errorKind', 80) or 'failed'}" + (f": {_s(p, 'errorMessage')}" if _s(p, "errorMessage") else "")
    route = (_s(p, "fromProvider", 80), _s(p, "toProvider", 80))
    if route[0] or route[1]:
        text += f"; {route[0] or '?'} → {route[1] or '?'}"
    return f"{action} after attempt {attempt}" if attempt else action, text


def _recovered(p: dict) -> tuple[str, str]:
    attempt, took = _n(p.get("attempt")), _n(p.get("totalDurationMs"))
    return "recovered", (f"succeeded at attempt {attempt}" if attempt else "succeeded") + \
        (f", {took} ms with the retries" if took else "")


def _reliability_recovered(p: dict) -> tuple[str, str]:
    via, failures = _s(p, "recoveredVia", 40), _n(p.get("priorFailures"))
    text = f"succeeded via {via}" if via else "succeeded"
    if failures:
        text += f" after {failures} failure(s)"
    return "recovered", text + (f" (last error: {_s(p, 'errorKind', 80)})" if _s(p, "errorKind") else "")


def _circuit(p: dict) -> tuple[str, str]:
    state = _s(p, "state", 20) or "?"
    provider = _s(p, "providerName", 80)
    return f"circuit breaker {state}", (f"{provider}: " if provider else "") + (_s(p, "reason") or "no reason given")


def _fallback(p: dict) -> tuple[str, str]:
    kind = _s(p, "kind", 20)
    return f"{kind + ' ' if kind else ''}fallback", (f"{_s(p, 'primary', 80) or '?'} → {_s(p, 'fallback', 80) or '?'}: "
                                                     f"{_s(p, 'reason') or 'no reason given'}")


def _output_fallback(p: dict) -> tuple[str, str]:
    stage = _s(p, "stage", 40)
    return "output fallback", (f"{stage}: " if stage else "") + (_s(p, "primaryErrorMessage") or "no message")


def _canned(p: dict) -> tuple[str, str]:
    return "canned answer", f"the fallback failed too: {_s(p, 'fallbackErrorMessage') or 'no message'}"


_WORDS: dict[str, Callable[[dict], tuple[str, str]]] = {
    "error.retried": _retried, "reliability.retried": _reliability_retried,
    "error.recovered": _recovered, "reliability.recovered": _reliability_recovered,
    "error.circuit_changed": _circuit, "fallback.triggered": _fallback,
    "resilience.output_fallback_triggered": _output_fallback, "resilience.output_canned_used": _canned,
}


@dataclass(frozen=True)
class ResilienceEvent:
    position: int
    kind: str          # the event type without the prefix
    label: str         # "retry after attempt 1 of 3", "circuit breaker open", "provider fallback"
    text: str          # the error, the wait, the reason
    node: int | None

    def as_json(self, node_id: str | None = None) -> dict:
        return {"position": self.position, "kind": self.kind, "label": self.label, "text": self.text,
                "node": node_id}


class Resilience:
    """The run's resilience events in axis order, computed once."""

    def __init__(self, run, facts, steps: EventSteps | None = None) -> None:
        typed = run.typed_events or []
        steps = steps or EventSteps(run, facts)
        after = run.axis.typed_after
        events: list[ResilienceEvent] = []
        for j in breathing_over(indices_of(run.typed_by_type, *(PREFIX + name for name in LISTED))):
            event = typed[j]
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            kind = short_type(event["type"])
            label, text = _WORDS[kind](payload)
            events.append(ResilienceEvent(after[j], kind, label, text, steps.step_of(j)))
        events.sort(key=lambda e: e.position)
        self.all = events
        self._positions = [e.position for e in events]

    def known(self, position: int) -> list[ResilienceEvent]:
        return self.all[:bisect_right(self._positions, position)]

    def of_step(self, node: int, position: int) -> list[ResilienceEvent]:
        return [e for e in self.known(position) if e.node == node]

    def counts(self, position: int | None = None) -> dict[str, int]:
        out = {"retries": 0, "recoveries": 0, "circuitChanges": 0, "fallbacks": 0}
        for e in self.all if position is None else self.known(position):
            counted = COUNTED.get(e.kind)
            if counted is not None:
                out[counted] += 1
        return out
