"""How the run ended and what it cost, as the header and the chat bubble say it at the cursor: each only once
known there (core/model/run_end.py, core/views/run_facts.py). No Qt; read from the run's prepared facts (view
data the engine made), never from its events."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the run's facts are imported with the first run, not with the window)
    from afp_desktop.core.model.run_end import RunEnd
    from afp_desktop.core.views.findings import Finding
    from afp_desktop.core.views.run_facts import RunFacts, StepNote

HEADLINES = {
    "completed": "✓ completed",
    "failed": "✖ failed",
    "budget": "■ stopped by a budget",
    "halted": "■ halted by a permission policy",
    "aborted": "✖ aborted",
    "paused": "⏸ paused for a person",
    "unknown": "? how it ended is not in the file",
}
RUNNING = "▶ running at the cursor"
LIMIT_KINDS = ("cost.limit_hit", "agent.budget_exhausted")
TONE = {"completed": "done", "failed": "bad", "aborted": "bad", "budget": "bad", "halted": "bad",
        "paused": "note", "unknown": "note"}


def end_at(run, position: int, live: bool = False) -> RunEnd | None:
    """How the run ended as known at `position`; None while it is running there. At the file's last position a
    run whose end is not in the file is "unknown" (cut off, or its start rotated away) — unless the file is
    followed as it is written (`live`): then it is still running."""
    ends = run.run_ends
    end = ends.at(position)
    if end.reason == "unknown":
        if position < len(run.axis) or live:
            return None
        end = ends.final
    return end


def headline(end: RunEnd | None) -> str:
    """The header's few words: "■ stopped by a budget" (the message is its tooltip)."""
    return RUNNING if end is None else HEADLINES.get(end.reason, end.reason)


def bubble_words(end: RunEnd) -> str:
    """The note under the chat at the run's end (the message says what stopped it)."""
    if end.reason == "completed":
        return "■ The run completed."
    if end.reason == "failed":
        return f"✖ The run failed: {end.message}"
    mark = {"aborted": "✖", "paused": "⏸", "unknown": "?"}.get(end.reason, "■")
    return f"{mark} {end.message}"


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def usd(value: float) -> str:
    return f"${value:,.4f}" if abs(value) < 100 else f"${value:,.2f}"


@dataclass(frozen=True)
class CostWords:
    text: str      # "" when the library priced nothing by then
    tooltip: str


def cost_words(run, position: int) -> CostWords:
    """The library's own estimate at the cursor: the run so far, each priced step, and a limit once hit."""
    from afp_desktop.core.views.run_facts import facts_of_run

    facts = facts_of_run(run)
    so_far = cost_so_far(facts, position)
    limits: list[Finding] = [f for f in facts.findings.known(position) if f.kind in LIMIT_KINDS]
    if so_far is None and not limits:
        return CostWords("", "")
    text = f"cost {usd(so_far)}" if so_far is not None else "cost –"
    lines = ["The library's cost estimate (cost.tick), as known at the cursor."]
    if so_far is not None:
        lines.append(f"The run so far: {usd(so_far)}.")
    nodes = facts.facts.nodes
    for tick in (t for t in facts.costs if t.position <= position):
        spent = tick.payload.get("estimatedUsd")
        priced = _finite(spent)
        name = nodes[tick.node].get("label", "step") if tick.node is not None and tick.node < len(nodes) else "a call"
        iteration = nodes[tick.node].get("iterationIndex") if tick.node is not None and tick.node < len(nodes) else None
        where = f"{name} (iteration {iteration})" if isinstance(iteration, int) else str(name)
        lines.append(f"  event {tick.position:,} · {where}: {usd(spent) if priced else 'not priced'}")
    if limits:
        text += f" · {_limit_of(facts, limits)} hit"
        lines += ["", *(f"Limit: {f.message}" for f in limits)]
    return CostWords(text, "\n".join(lines))


def cost_so_far(facts: RunFacts, position: int) -> float | None:
    """The library's last cumulative estimate (cost.tick) by `position`; None when no call was priced by then
    (run_facts.cost_usd, from the facts' ticks)."""
    for tick in reversed(facts.costs):
        if tick.position > position:
            continue
        cumulative = tick.payload.get("cumulative")
        if isinstance(cumulative, dict):
            for key in ("estimatedUsd", "usd", "costUsd"):
                value = cumulative.get(key)
                if _finite(value):
                    return float(value)
    return None


def _limit_of(facts: RunFacts, limits: list[Finding]) -> str:
    """"cost limit $0.0050" from the last cost.limit_hit's payload, else "a limit"."""
    hits: dict[int, StepNote] = {note.position: note for note in facts.limit_hits}
    for finding in reversed(limits):
        hit = hits.get(finding.position)
        payload = hit.payload if hit is not None else None
        if finding.kind != "cost.limit_hit" or not isinstance(payload, dict):
            continue
        limit = payload.get("limit")
        number = _finite(limit)
        if payload.get("kind") == "max_cost" and number:
            return f"limit {usd(limit)}"  # (beside the cost: a cost limit)
        kind = payload.get("kind")
        words = {"max_tokens": "token limit", "max_iterations": "iteration limit"}.get(kind) \
            if isinstance(kind, str) else None
        if words:
            return f"{words} {limit:g}" if number else words
    return "a limit"
