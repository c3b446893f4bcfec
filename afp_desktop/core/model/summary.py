"""Figures about a run for a person: name, models, LLM and tool calls, tokens, duration, errors."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from afp_desktop.core.jsonx.lazyjson import resolve_quietly
from afp_desktop.core.library.events import domain_indices_of
from afp_desktop.core.breathing import breathing_over


@dataclass
class RunSummary:
    name: str | None = None
    models: list[str] = field(default_factory=list)
    llm_calls: int = 0
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    duration_ms: int | None = None
    errors: int = 0
    started_at_ms: int | None = None

    def as_json(self) -> dict:
        """The figures with camelCase keys, as the command line gives them."""
        return {_camel(key): value for key, value in asdict(self).items()}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _num(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def tool_names_called(run) -> list[str]:
    """Names of the tools the run actually called, in first-call order."""
    names: dict[str, None] = {}
    domain = run.domain_events
    for i in breathing_over(domain_indices_of(run, "tool.start")):
        if isinstance(domain[i].get("toolName"), str):
            names[domain[i]["toolName"]] = None
    typed = run.typed_events or []
    for j in breathing_over(run.typed_by_type.get("agentfootprint.stream.tool_start", ())):
        payload = typed[j].get("payload")
        if isinstance(payload, dict) and isinstance(payload.get("toolName"), str):
            names[payload["toolName"]] = None
    return list(names)


def _top_level(event: dict) -> bool:
    depth = event.get("depth", 0)  # (a depth of the wrong type: not known to be the top)
    return isinstance(depth, (int, float)) and not isinstance(depth, bool) and depth <= 1


def _clock(value) -> int | float | None:
    """A time stamp that can be used as one: a finite number. (Every parser refuses a number beyond a double:
    core/jsonx/jsonio.py; a difference of two stamps can still be infinite.)"""
    finite = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return value if finite else None


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


_TOLD_BY_TYPED = frozenset({"agentfootprint.agent.run_configured", "agentfootprint.error.fatal",
                            "agentfootprint.composition.enter"})


def summarize(run) -> RunSummary:
    s = RunSummary()
    models: dict[str, None] = {}
    times = []
    for event in breathing_over(run.domain_events):
        etype = event.get("type")
        ts = event.get("ts")
        if ts.__class__ is int or _clock(ts) is not None:  # (an int, not a bool, is always finite)
            times.append(ts)
        if etype == "llm.start":
            s.llm_calls += 1
            if isinstance(event.get("model"), str):
                models[event["model"]] = None
        elif etype == "llm.end":
            usage = event.get("usage") if isinstance(event.get("usage"), dict) else {}
            s.tokens_in += _num(usage.get("input"))
            s.tokens_out += _num(usage.get("output"))
        elif etype == "tool.start" and not event.get("notDispatched"):
            s.tool_calls += 1
        elif etype == "tool.end" and event.get("error") is True:
            s.errors += 1
        elif etype == "run.exit" and _has_error(event.get("payload")):
            s.errors += 1
        elif etype in ("subflow.entry", "composition.start") and s.name is None and _top_level(event):
            if event.get("primitiveKind") in ("Agent", "LLMCall", "Sequence", "Parallel", "Conditional", "Loop"):
                s.name = _text(event.get("subflowName")) or _text(event.get("name"))
            elif etype == "composition.start":
                s.name = _text(event.get("name"))
    for event in breathing_over(run.typed_events or []):
        etype = event.get("type")
        meta = event.get("meta")
        if isinstance(meta, dict):
            ts = meta.get("wallClockMs")
            if ts.__class__ is int or _clock(ts) is not None:
                times.append(ts)
        if etype.__class__ is not str or etype not in _TOLD_BY_TYPED:
            continue  # (most of a long run's events: tokens, progress reports, injections)
        if etype == "agentfootprint.agent.run_configured" and s.name is None:
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            s.name = payload.get("agentId") if isinstance(payload.get("agentId"), str) else None
        elif etype == "agentfootprint.error.fatal":
            s.errors += 1
        elif etype == "agentfootprint.composition.enter" and s.name is None:
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            s.name = payload.get("name") if isinstance(payload.get("name"), str) else None
    s.models = list(models)
    if times:
        # (each a C call over every time: breathing, they let the window run beside them; one min() over all of a
        # big run's times would hold Python's lock throughout)
        first = min(breathing_over(times))
        span = max(breathing_over(times)) - first
        s.started_at_ms = int(first)
        s.duration_ms = int(span) if _clock(span) is not None else None  # (1e308 after -1e308: none to give)
    return s


def _has_error(payload) -> bool:
    """A run.exit payload `{error: …}` (a large Trace's payloads are LazyJSON until read)."""
    payload = resolve_quietly(payload)
    return isinstance(payload, dict) and "error" in payload
