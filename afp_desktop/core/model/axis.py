"""The run's event axis: one ordered sequence of every typed event and every DomainEvent, so that a cursor
position (an integer p: "the first p entries have happened") says exactly which events of BOTH lists have
happened. Each list keeps its own order inside the axis, so a position is also a pair of prefix lengths.

Alignment: a DomainEvent mapped from a typed event (§2.5) is "anchored" to it and sits right after it. Between
two anchors, the remaining events of both lists are merged by time (traversal first on equal time, §2.8).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any
from afp_desktop.core.breathing import breathing_over

TYPED_TO_DOMAIN = {
    "agentfootprint.stream.llm_start": "llm.start",
    "agentfootprint.stream.llm_end": "llm.end",
    "agentfootprint.stream.tool_start": "tool.start",
    "agentfootprint.stream.tool_end": "tool.end",
    "agentfootprint.context.injected": "context.injected",
    "agentfootprint.composition.enter": "composition.start",
    "agentfootprint.composition.exit": "composition.end",
}
TYPED_DOMAIN_TYPES = frozenset(TYPED_TO_DOMAIN.values())


def typed_ts(event: Any) -> Any:
    meta = event.get("meta") if isinstance(event, dict) else None
    return meta.get("wallClockMs") if isinstance(meta, dict) else None


def anchor_domain_to_typed(domain: list, typed: list) -> list[int | None]:
    """For each DomainEvent of the typed half, the index of the typed event it was mapped from (in order)."""
    anchors: list[int | None] = [None] * len(domain)
    j = 0
    for i, event in enumerate(domain):
        dtype = event.get("type") if isinstance(event, dict) else None
        if dtype not in TYPED_DOMAIN_TYPES:
            continue
        k = j
        while k < len(typed) and TYPED_TO_DOMAIN.get(typed[k].get("type")) != dtype:
            k += 1
        if k == len(typed):
            continue  # the typed stream lacks it (e.g. the recorder's tail cap dropped it); merge it by time
        anchors[i] = k
        j = k + 1
    return anchors


def _sort_key(ts: Any) -> float:
    return ts if isinstance(ts, (int, float)) and not isinstance(ts, bool) else float("-inf")


@dataclass
class Axis:
    """`entries[p]` is ("d", i) or ("t", j); `domain_before[p]`/`typed_before[p]` are prefix counts (p = 0..N)."""

    entries: list[tuple[str, int]] = field(default_factory=list)
    domain_before: list[int] = field(default_factory=lambda: [0])
    typed_before: list[int] = field(default_factory=lambda: [0])
    commit_before: list[int] = field(default_factory=list)  # per entry: commits done when it fired (carried)
    domain_after: list[int] = field(default_factory=list)  # per DomainEvent: the position right after it
    typed_after: list[int] = field(default_factory=list)  # per typed event: the position right after it
    anchors: list[int | None] = field(default_factory=list)  # per DomainEvent: the typed event it mirrors
    legs: int = 1  # commit histories on the axis: a resumed run starts a new one (its snapshot covers the last)

    def __len__(self) -> int:
        return len(self.entries)

    def counts_at(self, position: int) -> tuple[int, int]:
        position = max(0, min(position, len(self.entries)))
        return self.domain_before[position], self.typed_before[position]

    def position_after_commit(self, last_commit_idx: int) -> int:
        """The axis position once commits 0..last_commit_idx are applied: every event that fired before a
        later commit has happened, nothing that fired after it."""
        return bisect_right(self.commit_before, last_commit_idx)

    def position_of_domain(self, index: int) -> int:
        """Axis position just before DomainEvent `index` happens."""
        return self.domain_after[index] - 1 if 0 <= index < len(self.domain_after) else len(self)


def build_axis(domain: list, typed: list | None, anchors: list[int | None] | None = None) -> Axis:
    typed = typed or []
    if anchors is None:
        anchors = anchor_domain_to_typed(domain, typed) if typed else [None] * len(domain)
    axis = Axis(anchors=anchors)
    entries = axis.entries
    next_typed = 0
    loose_domain: list[int] = []

    def flush(until_typed: int) -> None:
        """Merge loose DomainEvents with typed events [next_typed, until_typed) by time, traversal first."""
        nonlocal next_typed, loose_domain
        d = 0
        for j in range(next_typed, until_typed):
            tts = _sort_key(typed_ts(typed[j]))
            while d < len(loose_domain) and _sort_key(domain[loose_domain[d]].get("ts")) <= tts:
                entries.append(("d", loose_domain[d]))
                d += 1
            entries.append(("t", j))
        entries.extend(("d", i) for i in loose_domain[d:])
        loose_domain = []
        next_typed = max(next_typed, until_typed)

    for i in breathing_over(range(len(domain))):
        anchor = anchors[i]
        if anchor is None:
            loose_domain.append(i)
            continue
        flush(anchor + 1)
        entries.append(("d", i))
    flush(len(typed))

    # A typed event mapped to a DomainEvent fired at the same moment: it takes that event's commit count.
    anchored_commit = {anchor: domain[i].get("commitIdxBefore") for i, anchor in enumerate(anchors)
                       if anchor is not None}
    axis.domain_after = [0] * len(domain)
    axis.typed_after = [0] * len(typed)
    d_count = t_count = 0
    carried = 0
    for position, (kind, index) in enumerate(breathing_over(entries), start=1):
        (axis.domain_after if kind == "d" else axis.typed_after)[index] = position
        if kind == "d":
            d_count += 1
            c = domain[index].get("commitIdxBefore")
        else:
            t_count += 1
            c = anchored_commit.get(index)
        if isinstance(c, int) and not isinstance(c, bool):
            if c < carried:
                # The commit count went back: a new leg (a resume) with its own commit log. A snapshot
                # covers only the last leg, so everything before it counts as "before the first commit".
                axis.commit_before[:] = [-1] * len(axis.commit_before)
                axis.legs += 1
            carried = c
        axis.domain_before.append(d_count)
        axis.typed_before.append(t_count)
        axis.commit_before.append(carried)
    return axis


def runtime_stage_id_of(entry: tuple[str, int], domain: list, typed: list) -> str:
    kind, index = entry
    if kind == "d":
        event = domain[index]
        rid = event.get("runtimeStageId") if isinstance(event, dict) else None
    else:
        meta = typed[index].get("meta")
        rid = meta.get("runtimeStageId") if isinstance(meta, dict) else None
    return rid if isinstance(rid, str) else ""
