"""Typed event stream → DomainEvents (PROJECTIONS.md §2.3, §2.5).

| typed event (`agentfootprint.` prefix)  | DomainEvent          | fields copied                                        |
|------------------------------------------|----------------------|------------------------------------------------------|
| stream.llm_start                         | llm.start            | model, provider, systemPromptChars?, messagesCount?, toolsCount?, actorArrow |
| stream.llm_end                           | llm.end              | content, toolCallCount, usage{input,output}, stopReason (truthy), actorArrow |
| stream.tool_start                        | tool.start           | toolName, toolCallId, args?  (+ notDispatched, newer)  |
| stream.tool_end                          | tool.end             | toolCallId, result?, durationMs?, error?             |
| context.injected                         | context.injected     | slot, source, six strings if truthy, four numbers if present |
| composition.enter / composition.exit     | composition.start/end| kind, compositionId, name, (status, durationMs)      |
| anything else                            | —                    |                                                      |

`actorArrow` is capture-time state: one flag, "the previous llm.end asked for tools", global to the run.
"""

from __future__ import annotations

from array import array
from typing import Any, Iterable, Sequence
from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.jsonx.fields import indices_by_text

PREFIX = "agentfootprint."
_MISSING = object()

# Strings copied only when truthy, numbers whenever present (0 kept) — §2.5 / §3.1 ContextInjection.
INJECTION_STRING_FIELDS = ("sourceId", "asRole", "contentSummary", "reason", "sectionTag", "upstreamRef")
INJECTION_NUMBER_FIELDS = ("retrievalScore", "rankPosition")


def _common(meta: dict, commit_idx: int) -> dict:
    path = meta.get("subflowPath")
    subflow_path = ["__root__", *(path if isinstance(path, list) else [])]
    return {
        "runtimeStageId": meta.get("runtimeStageId") or "",
        "subflowPath": subflow_path,
        "depth": len(subflow_path) - 1,
        "ts": meta.get("wallClockMs"),
        "commitIdxBefore": commit_idx,
        "commitIdxAfter": commit_idx,
    }


def injection_fields(payload: dict) -> dict:
    """The ContextInjection fields of a context.injected payload (same truthiness rules everywhere)."""
    source = payload.get("source")
    out: dict[str, Any] = {"slot": payload.get("slot"), "source": "unknown" if source is None else source}
    for key in INJECTION_STRING_FIELDS:
        if payload.get(key):
            out[key] = payload[key]
    for key in INJECTION_NUMBER_FIELDS:
        if key in payload:
            out[key] = payload[key]
    budget = payload.get("budgetSpent")
    if isinstance(budget, dict):
        if "tokens" in budget:
            out["budgetTokens"] = budget["tokens"]
        if "fractionOfCap" in budget:
            out["budgetFraction"] = budget["fractionOfCap"]
    return out


class TypedToDomain:
    """Incremental §2.5 mapper: feed typed events in order, get the DomainEvent (or None) for each."""

    def __init__(self) -> None:
        self.prev_llm_end_had_tools = False

    def map(self, event: Any, commit_idx: int = 0) -> dict | None:
        if not isinstance(event, dict):
            return None
        etype = event.get("type")
        # (one lookup: most of a long run's events are tokens and others that map to nothing)
        mapping = _MAPPINGS.get(etype) if isinstance(etype, str) else None
        if mapping is None:
            return None
        payload = event.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        meta = event.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        return mapping(self, payload, meta, commit_idx)

    def _llm_start(self, payload: dict, meta: dict, commit_idx: int) -> dict:
        out = {"type": "llm.start", **_common(meta, commit_idx),
               "model": payload.get("model"), "provider": payload.get("provider")}
        for key in ("systemPromptChars", "messagesCount", "toolsCount"):
            if key in payload:
                out[key] = payload[key]
        out["actorArrow"] = "tool→llm" if self.prev_llm_end_had_tools else "user→llm"
        self.prev_llm_end_had_tools = False
        return out

    def _llm_end(self, payload: dict, meta: dict, commit_idx: int) -> dict:
        usage = payload.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        count = payload.get("toolCallCount")
        has_tools = isinstance(count, (int, float)) and not isinstance(count, bool) and count > 0
        out = {"type": "llm.end", **_common(meta, commit_idx),
               "content": payload.get("content"), "toolCallCount": count,
               "usage": {"input": usage.get("input"), "output": usage.get("output")}}
        if payload.get("stopReason"):
            out["stopReason"] = payload["stopReason"]
        out["actorArrow"] = "llm→tool" if has_tools else "llm→user"
        self.prev_llm_end_had_tools = has_tools
        return out

    def _tool_start(self, payload: dict, meta: dict, commit_idx: int) -> dict:
        out = {"type": "tool.start", **_common(meta, commit_idx),
               "toolName": payload.get("toolName"), "toolCallId": payload.get("toolCallId")}
        if "args" in payload:
            out["args"] = payload["args"]
        if payload.get("notDispatched"):
            out["notDispatched"] = True
        return out

    def _tool_end(self, payload: dict, meta: dict, commit_idx: int) -> dict:
        out = {"type": "tool.end", **_common(meta, commit_idx), "toolCallId": payload.get("toolCallId")}
        for key in ("result", "durationMs", "error"):
            if key in payload:
                out[key] = payload[key]
        return out

    def _injected(self, payload: dict, meta: dict, commit_idx: int) -> dict:
        return {"type": "context.injected", **_common(meta, commit_idx), **injection_fields(payload)}

    def _composition_enter(self, payload: dict, meta: dict, commit_idx: int) -> dict:
        return {"type": "composition.start", **_common(meta, commit_idx), "kind": payload.get("kind"),
                "compositionId": payload.get("id"), "name": payload.get("name")}

    def _composition_exit(self, payload: dict, meta: dict, commit_idx: int) -> dict:
        return {"type": "composition.end", **_common(meta, commit_idx), "kind": payload.get("kind"),
                "compositionId": payload.get("id"), "name": payload.get("name") or "",
                "status": payload.get("status"), "durationMs": payload.get("durationMs")}


_MAPPINGS = {PREFIX + name: mapping for name, mapping in (
    ("stream.llm_start", TypedToDomain._llm_start), ("stream.llm_end", TypedToDomain._llm_end),
    ("stream.tool_start", TypedToDomain._tool_start), ("stream.tool_end", TypedToDomain._tool_end),
    ("context.injected", TypedToDomain._injected), ("composition.enter", TypedToDomain._composition_enter),
    ("composition.exit", TypedToDomain._composition_exit))}


def domain_events_from_typed(events: Iterable[Any]) -> tuple[list[dict], list[int]]:
    """Map a typed stream to DomainEvents. Returns the events and, for each, the index of its typed source."""
    mapper = TypedToDomain()
    domain: list[dict] = []
    sources: list[int] = []
    for i, event in enumerate(breathing_over(events)):
        mapped = mapper.map(event)
        if mapped is not None:
            domain.append(mapped)
            sources.append(i)
    return domain, sources


def event_meta(event: Any) -> dict:
    """A typed event's `meta` object ({} when the event or its meta is not an object)."""
    meta = event.get("meta") if isinstance(event, dict) else None
    return meta if isinstance(meta, dict) else {}


def event_payload(event: Any) -> dict:
    """A typed event's `payload` object ({} when the event or its payload is not an object)."""
    payload = event.get("payload") if isinstance(event, dict) else None
    return payload if isinstance(payload, dict) else {}


# DomainEvent types that come from the typed channel (the rest come from the engine's traversal channel).
TYPED_DOMAIN_TYPES = frozenset({
    "llm.start", "llm.end", "tool.start", "tool.end", "context.injected", "composition.start", "composition.end",
})
TRAVERSAL_DOMAIN_TYPES = frozenset({
    "run.entry", "run.exit", "subflow.entry", "subflow.exit", "fork.branch", "decision.branch", "loop.iteration",
})


def typed_indices_by_type(events: list) -> dict[str, array]:
    """The indices of the typed events of each type, in order: one pass over a long run's 100,000s of events
    that the projections looking for a few types share (each pass waits on memory; in C when built:
    core/jsonx/fields.py). Kept as machine integers (8 bytes an event, not 36 for a list's int objects:
    the run holds them while it is open)."""
    return indices_by_text(events, "type")


def domain_indices_of(run, *types: str) -> Sequence[int]:
    """The indices of the run's DomainEvents of any of these types, in order, from the run's shared index
    (Run.domain_by_type)."""
    return indices_of(run.domain_by_type, *types)


def indices_of(by_type: dict[str, array], *types: str) -> Sequence[int]:
    """The indices of the events of any of these types, in order (from an index by type: indices_by_text)."""
    kinds = dict.fromkeys(types)  # (each type once)
    if len(kinds) == 1:
        return by_type.get(types[0], [])
    return sorted(j for kind in kinds for j in by_type.get(kind, ()))
