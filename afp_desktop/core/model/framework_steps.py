"""The framework's own steps: what a person debugging THEIR agent did not write. Pure, no Qt.

agentfootprint runs its own machinery inside every agent — the Injection Engine, the cache and its gate, thinking
normalization, the ReAct Route, the final branch — and marks it `isAgentInternal` on the boundary events
(PROJECTIONS.md §2.3). The library's StepGraph fold drops those events (§3.3 rules 3, 4, 6), so the graph the
window draws has none of them: they are already hidden. agentfootprint-lens goes one step further: by default it
hides every node whose own path segment is reserved (`sf-*`, the library's plumbing law, §4.3) except the context
slots, and says so. This module gives both halves:

* `framework_steps(domain_events)` — the internal subflows and decisions the fold dropped, each with the
  DomainEvent indices of its entry and exit, so the window can draw them (when the user asks) as they happen;
* `framework_nodes(nodes)` — the StepGraph nodes that are plumbing by the lens's law although the fold kept them:
  a subflow whose own segment is `sf-*` but outside the closed internal list (a newer library's, e.g.
  `sf-memory-read-x`, §8 E7b), or a decision made by such a stage. None in the 9.62 corpus runs;
* `shown_graph(...)` — the graph to draw with them folded away or shown, and `ShownSteps`, the index map between
  the run's nodes and the graph drawn (a hidden node is stood in for by its nearest visible enclosing element, so
  the cursor never goes dark).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

from afp_desktop.core.library.conventions import is_agent_internal
from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.jsonx import jsonio

FRAMEWORK_KIND = "framework"  # a drawn framework step: a chip, like the context chips
SLOT_SEGMENTS = frozenset({"sf-system-prompt", "sf-messages", "sf-tools"})  # the slots: the lens's heroes
RESERVED_PREFIX = "sf-"


def _segment(stage_id: object) -> str:
    """The last path segment of a stage or subflow id, without its `#n`."""
    text = stage_id if isinstance(stage_id, str) else ""
    return text.rsplit("/", 1)[-1].split("#", 1)[0]


def is_framework_segment(segment: str) -> bool:
    """True for the library's own plumbing: a reserved `sf-*` segment other than the three context slots, or an
    id of the closed internal list (`final`, `cache-gate`, `client`, `extract-final`, `thinking-*`)."""
    segment = _segment(segment)
    if segment in SLOT_SEGMENTS or not segment:
        return False
    return segment.startswith(RESERVED_PREFIX) or is_agent_internal(segment)


def _chip_stage(node: dict, prefix: str) -> str | None:
    """The stage a fork or decision chip's id names: "decision-route#1-urgent" → "route#1"."""
    node_id, label = node.get("id"), node.get("label")
    if not isinstance(node_id, str) or not node_id.startswith(prefix) or not isinstance(label, str):
        return None
    if not node_id.endswith("-" + label):
        return None
    return node_id[len(prefix):len(node_id) - len(label) - 1] or None


_PLUMBING_KINDS = frozenset({"subflow", "decision-branch", "fork-branch"})


def framework_nodes(nodes: list) -> list[int]:
    """Indices of the StepGraph nodes that are framework plumbing (see the module's docstring)."""
    out: list[int] = []
    for i, node in enumerate(nodes):
        kind = node.get("kind") if isinstance(node, dict) else None
        if kind not in _PLUMBING_KINDS:
            continue
        if kind == "subflow":
            path = node.get("subflowPath")
            own = path[-1] if isinstance(path, list) and len(path) > 1 else None
            if isinstance(own, str) and is_framework_segment(own):
                out.append(i)
        elif kind in ("decision-branch", "fork-branch"):
            stage = _chip_stage(node, "decision-" if kind == "decision-branch" else "fork-")
            if stage is not None and is_framework_segment(stage):
                out.append(i)
    return out


@dataclass(frozen=True, slots=True)
class FrameworkStep:
    kind: str              # "subflow" | "decision"
    label: str             # what the chip says: "InjectionEngine", "Route → tool-calls"
    segment: str           # the library's id: "sf-injection-engine", "sf-route"
    runtime_stage_id: str
    owner: tuple[str, ...]  # the path of the agent (or composition) it ran for
    entry: int             # DomainEvent index of its entry (a decision: of itself)
    exit: int | None       # DomainEvent index of its exit; None while it has not exited
    start_ms: float | None = None  # offset from the run's first event, as the StepGraph's startOffsetMs
    end_ms: float | None = None

    def started(self, n_domain: int) -> bool:
        return self.entry < n_domain

    def active(self, n_domain: int) -> bool:
        return self.entry < n_domain and (self.exit is None or self.exit >= n_domain) and self.kind == "subflow"


def _path(event: dict) -> tuple[str, ...]:
    path = event.get("subflowPath")
    if not isinstance(path, list):
        return ("__root__",)
    return tuple(jsonio.text_of(p) for p in path)


def _agent_path(segments: tuple[str, ...]) -> tuple[str, ...]:
    """The path of the agent or composition a framework step ran for: its path up to the first plumbing segment
    ("__root__/step-work/sf-cache" → "__root__/step-work")."""
    out: list[str] = []
    for segment in segments:
        if out and is_framework_segment(segment):
            break
        out.append(segment)
    return tuple(out) or ("__root__",)


def _stage_path(runtime_stage_id: str) -> tuple[str, ...]:
    """"step-work/sf-route#21" → ("__root__", "step-work", "sf-route")."""
    return ("__root__", *(p for p in runtime_stage_id.split("#", 1)[0].split("/") if p))


def _last(value: object) -> str:
    return value.rsplit("/", 1)[-1] if isinstance(value, str) and value else "?"


def _finite_ts(event: object) -> float | None:
    ts = event.get("ts") if isinstance(event, dict) else None
    if not isinstance(ts, (int, float)) or isinstance(ts, bool) or not math.isfinite(ts):
        return None
    return float(ts)


def framework_steps(domain_events: list, internal_at: list[int] | None = None) -> list[FrameworkStep]:
    """The internal subflows and decisions of a run, in the order they began (none for a typed-only stream).
    `internal_at`: the indices of the events that may be one (StepGraphFold.internal_at, of a fold fed these events
    from the first), so that only those are looked at; None looks at every event."""
    steps: list[list] = []  # each FrameworkStep's fields, made one once its exit is known
    open_at: dict[str, list[int]] = {}  # runtimeStageId → indices into steps still open
    # (the fold's runStartTs: the first event's, whatever its type; no offset before that event)
    origin, start_ts = next(((k, ts) for k, event in enumerate(domain_events)
                             if (ts := _finite_ts(event)) is not None), (len(domain_events), 0.0))

    def offset(k: int, event: dict) -> float | None:
        ts = _finite_ts(event) if k >= origin else None
        return None if ts is None else ts - start_ts

    count = len(domain_events)
    if internal_at is not None:  # (ascending; a fold fed further than these events holds later ones too)
        internal_at = internal_at[:bisect.bisect_left(internal_at, count)]
    for k in breathing_over(range(count) if internal_at is None else internal_at):
        event = domain_events[k]
        if not isinstance(event, dict) or event.get("isAgentInternal") is not True:
            continue
        kind = event.get("type")
        stage = event.get("runtimeStageId")
        rsid: str = stage if isinstance(stage, str) else ""
        if kind == "subflow.entry":
            path = _path(event)
            segment = _segment(event.get("subflowId") or (path[-1] if path else ""))
            name = event.get("subflowName")
            label = name if isinstance(name, str) and name.strip() else segment
            open_at.setdefault(rsid, []).append(len(steps))
            steps.append(["subflow", label, segment, rsid, _agent_path(path), k, None, offset(k, event), None])
        elif kind == "subflow.exit":
            waiting = open_at.get(rsid)
            if waiting:
                step = steps[waiting.pop()]
                step[6], step[8] = k, offset(k, event)
        elif kind == "decision.branch":
            label = f"{_last(event.get('decider'))} → {_last(event.get('chosen'))}"
            at = offset(k, event)
            steps.append(["decision", label, _segment(rsid), rsid, _agent_path(_stage_path(rsid)), k, k, at, at])
    return [FrameworkStep(*fields) for fields in steps]


def hidden_count(nodes: list, steps: list[FrameworkStep], plumbing: list[int] | None = None) -> int:
    """How many framework steps the graph hides when they are folded away (`plumbing`: framework_nodes(nodes),
    if known)."""
    return len(steps) + len(framework_nodes(nodes) if plumbing is None else plumbing)


def describe_hidden(nodes: list, steps: list[FrameworkStep], plumbing: list[int] | None = None) -> str:
    """"InjectionEngine ×3, Cache ×3, …": what is hidden, for a tooltip."""
    counts: dict[str, int] = {}
    for step in steps:
        counts[step.segment or step.label] = counts.get(step.segment or step.label, 0) + 1
    for i in framework_nodes(nodes) if plumbing is None else plumbing:
        node = nodes[i]
        name = str(node.get("label") or node.get("id") or "step")
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{name} ×{n}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


# --------------------------------------------------------------------------------------------- the graph drawn


@dataclass
class ShownSteps:
    """Node indices of the run ↔ node indices of the graph drawn (framework chips inserted, plumbing nodes
    dropped). Both orders are the run's, so the steps that have happened at a moment are a prefix of both."""

    count: int                       # nodes of the run
    full_of: list[int | None]        # shown index → run node (None: a framework chip)
    step_of: dict[int, FrameworkStep]  # shown index → the framework step it draws
    stand_in: dict[int, int] = field(default_factory=dict)  # a dropped run node → the shown node standing for it
    _shown_of: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        shown_of = [-1] * self.count
        for d, full in enumerate(self.full_of):
            if full is not None:
                shown_of[full] = d
        for i in range(self.count):
            if shown_of[i] < 0:
                shown_of[i] = self.stand_in.get(i, 0)
        self._shown_of = shown_of
        self._chips = sorted(self.step_of)

    def to_shown(self, index: int) -> int:
        return self._shown_of[index] if 0 <= index < self.count else index

    def to_full(self, shown: int) -> int | None:
        return self.full_of[shown] if 0 <= shown < len(self.full_of) else None

    def shown_started(self, started: int, n_domain: int) -> int:
        """How many shown nodes have started when `started` run nodes and `n_domain` DomainEvents have."""
        count = 0
        if started > 0:
            # the shown position of the last started node that is drawn itself
            last = next((self._shown_of[i] for i in range(min(started, self.count) - 1, -1, -1)
                         if self.full_of[self._shown_of[i]] == i), -1)
            count = last + 1
        k = bisect.bisect_left(self._chips, count)
        while k < len(self._chips) and self.step_of[self._chips[k]].started(n_domain):
            count = self._chips[k] + 1
            k += 1
        return count

    def active_chips(self, n_domain: int) -> list[int]:
        return [d for d in self._chips if self.step_of[d].active(n_domain)]


def _stand_in(nodes: list, index: int, dropped: set[int]) -> int:
    """The nearest visible element enclosing a dropped node: the innermost kept subflow whose path prefixes its
    own and that had not ended when it started; else the closest kept node before it; else the first node."""
    node = nodes[index] if isinstance(nodes[index], dict) else {}
    path: list = node["subflowPath"] if isinstance(node.get("subflowPath"), list) else []
    start = node.get("startOffsetMs")
    best, best_len = None, -1
    for j in range(index - 1, -1, -1):
        other = nodes[j]
        if j in dropped or not isinstance(other, dict) or other.get("kind") != "subflow":
            continue
        other_path: list = other["subflowPath"] if isinstance(other.get("subflowPath"), list) else []
        end = other.get("endOffsetMs")
        if isinstance(end, (int, float)) and isinstance(start, (int, float)) and end < start:
            continue
        if len(other_path) <= len(path) and path[:len(other_path)] == other_path and len(other_path) > best_len:
            best, best_len = j, len(other_path)
    if best is not None:
        return best
    return next((j for j in range(index - 1, -1, -1) if j not in dropped), 0)


def shown_graph(graph: dict, created: list[int], steps: list[FrameworkStep], hide: bool,
                plumbing: list[int] | None = None) -> tuple[dict, ShownSteps | None]:
    """The graph to draw. `hide`: the plumbing nodes are dropped and the framework steps left out (as the lens
    does by default); else every framework step is a chip, inserted where it began among the run's nodes
    (`created[i]`: the DomainEvent index that made node i; `plumbing`: framework_nodes(nodes), if known). None for
    the map when the graph is drawn as it is."""
    nodes = graph.get("nodes") or []
    dropped = set(framework_nodes(nodes) if plumbing is None else plumbing) if hide else set()
    inserted = [] if hide else steps
    if not dropped and not inserted:
        return graph, None
    order = sorted(inserted, key=lambda s: s.entry)
    shown: list[dict] = []
    full_of: list[int | None] = []
    step_of: dict[int, FrameworkStep] = {}
    k = 0
    for i, node in enumerate(nodes):
        made = created[i] if i < len(created) else math.inf
        while k < len(order) and order[k].entry < made:
            step_of[len(shown)] = order[k]
            shown.append(_chip(order[k], k))
            full_of.append(None)
            k += 1
        if i in dropped:
            continue
        shown.append(node)
        full_of.append(i)
    while k < len(order):
        step_of[len(shown)] = order[k]
        shown.append(_chip(order[k], k))
        full_of.append(None)
        k += 1
    stand_in_full = {i: _stand_in(nodes, i, dropped) for i in dropped}
    index_of = {full: d for d, full in enumerate(full_of) if full is not None}
    stand_in = {i: index_of.get(full, 0) for i, full in stand_in_full.items()}
    kept_ids = {str(n.get("id")) for n in shown if isinstance(n, dict)}
    edges = [e for e in graph.get("edges") or []
             if not dropped or (isinstance(e, dict) and str(e.get("from")) in kept_ids and str(e.get("to")) in kept_ids)]
    return {**graph, "nodes": shown, "edges": edges}, ShownSteps(len(nodes), full_of, step_of, stand_in)


def _chip(step: FrameworkStep, k: int) -> dict:
    chip: dict = {"id": f"framework:{step.runtime_stage_id}:{k}", "kind": FRAMEWORK_KIND, "label": f"⚙ {step.label}",
            "subflowPath": list(step.owner), "frameworkId": step.segment, "runtimeStageId": step.runtime_stage_id,
            "ownerPath": list(step.owner)}
    if step.start_ms is not None:
        chip["startOffsetMs"] = step.start_ms
    if step.end_ms is not None and step.kind == "subflow":
        chip["endOffsetMs"] = step.end_ms
    return chip
