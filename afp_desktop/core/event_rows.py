"""The event list (issue 15): every event on the run's axis, typed and domain, in order — the raw truth under
the stops. Rows are made on demand (a big run has 100,000+ events) and a type filter is a list of positions.
Pure, no Qt.

Row k is axis entry k; the cursor position just after it is k + 1.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from afp_desktop.core.lazyjson import resolve_quietly

PREFIX = "agentfootprint."
_SUMMARY_KEYS = ("toolName", "childName", "subflowName", "chosen", "slot", "model", "question", "reason",
                 "iteration", "toolCallId")
SUMMARY_CHARS = 120


def event_of(run, k: int) -> tuple[str, dict]:
    """("typed" | "domain", the event) of axis entry k."""
    kind, index = run.axis.entries[k]
    if kind == "d":
        event = run.domain_events[index]
        return "domain", event if isinstance(event, dict) else {}
    event = (run.typed_events or [])[index]
    return "typed", event if isinstance(event, dict) else {}


def event_type(run, k: int) -> str:
    channel, event = event_of(run, k)
    kind = event.get("type")
    kind = kind if isinstance(kind, str) else "?"
    return kind.removeprefix(PREFIX) if channel == "typed" else kind


def _summary(channel: str, event: dict) -> str:
    source = event
    if channel == "typed":
        payload = resolve_quietly(event.get("payload"))
        source = payload if isinstance(payload, dict) else {"value": payload}
        question = source.get("questionPayload")
        if isinstance(question, dict) and "question" in question:
            source = {**source, "question": question["question"]}
    parts = []
    for key in _SUMMARY_KEYS:
        value = source.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value != "":
            parts.append(f"{key}={value}")
    if not parts and isinstance(source.get("content"), str):
        parts.append(repr(source["content"]))
    text = " ".join(parts)
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def event_row(run, k: int) -> dict[str, Any]:
    channel, event = event_of(run, k)
    if channel == "typed":
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        stage = meta.get("runtimeStageId")
    else:
        stage = event.get("runtimeStageId")
    return {"position": k + 1, "channel": channel, "type": event_type(run, k),
            "stage": stage if isinstance(stage, str) else "", "summary": _summary(channel, event)}


def type_counts(run) -> list[tuple[str, int]]:
    """Every event type with how often it occurs, most frequent first."""
    counts = Counter(event_type(run, k) for k in range(len(run.axis.entries)))
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def positions_of(run, types: set[str] | None) -> list[int]:
    """Axis entries (row numbers) of the given types; all of them for None."""
    if types is None:
        return list(range(len(run.axis.entries)))
    return [k for k in range(len(run.axis.entries)) if event_type(run, k) in types]
