"""The StepGraph fold (`buildStepGraphFromEvents`, PROJECTIONS.md §3): one forward pass over DomainEvents.

| DomainEvent       | effect                                                                                  |
|-------------------|-----------------------------------------------------------------------------------------|
| run.entry         | subflow node "Run" (primitiveKind Run), opened, becomes active                          |
| run.exit          | closes the open node with that id (endOffsetMs, exitPayload); active cleared always     |
| subflow.entry     | slot → buffer for the next llm.start; agent-internal → ignored; else subflow node, active |
| subflow.exit      | slot → merge exit into the buffered slot; internal → ignored; else close the open node  |
| fork.branch       | fork-branch node                                                                        |
| decision.branch   | decision-branch node unless agent-internal                                              |
| loop.iteration    | loop-iteration self-edge on the active node (dropped when none)                          |
| context.injected  | buffered injection for the next llm.start                                               |
| llm.start         | user->llm / tool->llm node (takes injections, slots, pending tool result), `next` edge   |
| llm.end           | tokens + end on the LAST llm-start node; llm->user node, or stash assistant text        |
| tool.start        | llm->tool node (takes assistant text), `next` edge; `notDispatched` → nothing (newer)  |
| tool.end          | end on the LAST llm->tool node; stash result for the next tool->llm                      |
| anything else     | nothing (but the first event of any type fixes the time origin)                         |

Absent and null are kept apart throughout: a key missing from the input stays missing from the output, the
way `JSON.stringify` drops `undefined`. `StepGraphFold` is incremental so a viewer can record, for every node,
the index of the event that created it and of the last event that changed it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, cast

from afp_desktop.core.library.events import INJECTION_NUMBER_FIELDS, INJECTION_STRING_FIELDS
from afp_desktop.core.shapes import StepGraph
from afp_desktop.core.library.jsstring import js_string
from afp_desktop.core.breathing import breathing_over

KNOWN_PRIMITIVES = frozenset({"Agent", "LLMCall", "Sequence", "Parallel", "Conditional", "Loop"})
SLOT_PROPERTY = {"system-prompt": "systemPrompt", "messages": "messages", "tools": "tools"}
LLM_START_KINDS = ("user->llm", "tool->llm")
_UNSET = object()


class MalformedRunError(ValueError):
    """The TypeScript fold would throw here (e.g. an llm.end without usage)."""


def _offset(ts: Any, origin: Any) -> Any:
    try:
        return ts - origin
    except TypeError:
        return None  # JS: NaN, which JSON writes as null


_INJECTION_STRINGS = INJECTION_STRING_FIELDS
_INJECTION_NUMBERS = (*INJECTION_NUMBER_FIELDS, "budgetTokens", "budgetFraction")


def _injection(event: dict) -> dict:
    """ContextInjection: the six strings only when truthy, the four numbers when present (0 kept)."""
    get = event.get
    out = {"slot": get("slot"), "source": get("source")}
    for key in _INJECTION_STRINGS:
        value = get(key)
        if value:
            out[key] = value
    for key in _INJECTION_NUMBERS:
        if key in event:
            out[key] = event[key]
    return out


def _copy_present(target: dict, source: dict, key: str, as_key: str | None = None) -> None:
    if key in source:
        target[as_key or key] = source[key]


class StepGraphFold:
    """Incremental fold. `feed(event)` one DomainEvent at a time; `graph()` gives the StepGraph so far."""

    def __init__(self) -> None:
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.node_created_at: list[int] = []  # index of the event that appended each node
        self.node_changed_at: list[int] = []  # index of the last event that changed each node
        self.edge_created_at: list[int] = []
        # Indices of the subflow entries and exits and the decisions marked `isAgentInternal: true`: the
        # framework's own steps, which the fold drops (model/framework_steps.py reads them from here instead of
        # looking at every event again).
        self.internal_at: list[int] = []
        self._iter = 0
        self._pending_injections: list[dict] = []
        self._pending_slots: dict[str, dict] = {}
        self._pending_assistant_text: Any = None
        self._pending_tool_result: Any = _UNSET
        self._prev_react: int | None = None  # index of the last ReAct node
        self._last_llm_start: int | None = None
        self._last_tool: int | None = None
        self._run_start_ts: Any = _UNSET
        self._active: int | None = None
        self._open: dict[Any, int] = {}
        self._not_dispatched: set = set()
        self._count = 0

    # -- helpers ---------------------------------------------------------------------------------------
    def _append_node(self, node: dict) -> int:
        self.nodes.append(node)
        self.node_created_at.append(self._count)
        self.node_changed_at.append(self._count)
        return len(self.nodes) - 1

    def _touch(self, index: int) -> None:
        self.node_changed_at[index] = self._count

    def _chain(self, index: int) -> None:
        if self._prev_react is not None:
            src, dst = self.nodes[self._prev_react]["id"], self.nodes[index]["id"]  # ReAct nodes always have ids
            self._add_edge({"id": f"{src}->{dst}", "from": src, "to": dst, "kind": "next"})
        self._prev_react = index

    def _add_edge(self, edge: dict) -> None:
        self.edges.append(edge)
        self.edge_created_at.append(self._count)

    def _open_subflow(self, event: dict, node: dict) -> None:
        index = self._append_node(node)
        if "runtimeStageId" in event:
            key = _map_key(event["runtimeStageId"])
            if key is not None:
                self._open[key] = index
        self._active = index

    def _close_subflow(self, event: dict, t: Any) -> None:
        index = self._open.pop(_map_key(event.get("runtimeStageId")), None)
        if index is None:
            return
        node = self.nodes[index]
        node["endOffsetMs"] = t
        _copy_present(node, event, "payload", "exitPayload")
        self._touch(index)

    # -- the fold -------------------------------------------------------------------------------------
    def feed_all(self, events: Iterable[Any]) -> None:
        """`feed` every event: the same fold with the per-event dispatch kept in local variables."""
        handlers, unset = _HANDLERS, _UNSET
        for event in breathing_over(events):
            if type(event) is dict:
                if self._run_start_ts is unset:
                    self._run_start_ts = event.get("ts")
                try:
                    handler = handlers.get(event.get("type"))
                except TypeError:  # an unhashable "type" value: not an event we know
                    handler = None
                if handler is not None:
                    ts, origin = event.get("ts"), self._run_start_ts
                    t = ts - origin if type(ts) is int and type(origin) is int else _offset(ts, origin)
                    handler(self, event, t)
            self._count += 1

    def feed(self, event: Any) -> None:
        """Advance the fold by one DomainEvent."""
        self.feed_all((event,))

    def _run_entry(self, ev: dict, t: Any) -> None:
        node = _node(ev, "subflow", "Run", t)
        node["primitiveKind"] = "Run"
        node["isPrimitiveBoundary"] = False
        _copy_present(node, ev, "payload", "entryPayload")
        _copy_present(node, ev, "runtimeStageId")
        self._open_subflow(ev, node)

    def _run_exit(self, ev: dict, t: Any) -> None:
        self._close_subflow(ev, t)
        self._active = None

    def _subflow_entry(self, ev: dict, t: Any) -> None:
        internal = ev.get("isAgentInternal")
        if internal is True:
            self.internal_at.append(self._count)
        slot_kind = ev.get("slotKind")
        if _js_truthy(slot_kind):
            boundary = {"runtimeStageId": ev.get("runtimeStageId")}
            _copy_present(boundary, ev, "payload", "entryPayload")
            key = js_string(slot_kind)  # (a JS object key: any value is turned into its string)
            self._pending_slots[SLOT_PROPERTY.get(key, key)] = boundary
            return
        if internal:
            return
        primitive = ev.get("primitiveKind")
        node = _node(ev, "subflow", ev.get("subflowName"), t, label_present="subflowName" in ev)
        node["isAgentBoundary"] = primitive == "Agent"
        node["isPrimitiveBoundary"] = primitive in KNOWN_PRIMITIVES
        _copy_present(node, ev, "primitiveKind")
        _copy_present(node, ev, "payload", "entryPayload")
        _copy_present(node, ev, "runtimeStageId")
        self._open_subflow(ev, node)

    def _subflow_exit(self, ev: dict, t: Any) -> None:
        internal = ev.get("isAgentInternal")
        if internal is True:
            self.internal_at.append(self._count)
        slot_kind = ev.get("slotKind")
        if _js_truthy(slot_kind):
            key = js_string(slot_kind)
            key = SLOT_PROPERTY.get(key, key)
            buffered = self._pending_slots.get(key)
            if buffered is not None:
                merged = dict(buffered)
                _copy_present(merged, ev, "payload", "exitPayload")
                self._pending_slots[key] = merged
            return
        if internal:
            return
        self._close_subflow(ev, t)

    def _fork_branch(self, ev: dict, t: Any) -> None:
        child = ev.get("childName")
        node = {"id": f"fork-{_js_field(ev, 'runtimeStageId')}-{_js_field(ev, 'childName')}", "kind": "fork-branch",
                "label": child,
                "startOffsetMs": t, "subflowPath": ev.get("subflowPath")}
        self._append_node(node)

    def _decision_branch(self, ev: dict, t: Any) -> None:
        internal = ev.get("isAgentInternal")
        if internal:
            if internal is True:
                self.internal_at.append(self._count)
            return
        chosen = ev.get("chosen")
        node = {"id": f"decision-{_js_field(ev, 'runtimeStageId')}-{_js_field(ev, 'chosen')}", "kind": "decision-branch",
                "label": chosen, "startOffsetMs": t, "subflowPath": ev.get("subflowPath")}
        self._append_node(node)

    def _loop_iteration(self, ev: dict, t: Any) -> None:
        if self._active is None:
            return
        active_id = self.nodes[self._active].get("id")
        edge = {"id": f"loop-{_js_str(active_id)}-{_js_field(ev, 'iteration')}", "from": active_id, "to": active_id,
                "kind": "loop-iteration"}
        _copy_present(edge, ev, "iteration")
        self._add_edge(edge)

    def _context_injected(self, ev: dict, t: Any) -> None:
        self._pending_injections.append(_injection(ev))

    def _llm_start(self, ev: dict, t: Any) -> None:
        self._iter += 1
        injections, self._pending_injections = self._pending_injections, []
        slots, self._pending_slots = self._pending_slots, {}
        is_tool = ev.get("actorArrow") == "tool→llm"
        node: dict[str, Any] = {"id": f"step-llm-start-{_js_field(ev, 'runtimeStageId')}-{self._iter}",
                                "kind": "tool->llm" if is_tool else "user->llm",
                                "label": "tool → llm" if is_tool else "user → llm", "startOffsetMs": t}
        _copy_present(node, ev, "model", "llmModel")
        node.update({"subflowPath": ev.get("subflowPath"), "injections": injections,
                     "iterationIndex": self._iter, "slotUpdated": "messages"})
        _copy_present(node, ev, "runtimeStageId")
        if slots:
            node["slotBoundaries"] = slots
        if is_tool:
            result, self._pending_tool_result = self._pending_tool_result, _UNSET
            if result is not _UNSET:
                node["toolResult"] = result
        index = self._append_node(node)
        self._last_llm_start = index
        self._chain(index)

    def _llm_end(self, ev: dict, t: Any) -> None:
        usage = ev.get("usage")
        if not isinstance(usage, dict):
            raise MalformedRunError(f"llm.end at {ev.get('runtimeStageId')!r} has no usage")
        if self._last_llm_start is not None:
            node = self.nodes[self._last_llm_start]
            tokens: dict[str, Any] = {}
            _copy_present(tokens, usage, "input", "in")
            _copy_present(tokens, usage, "output", "out")
            node["tokens"] = tokens
            node["endOffsetMs"] = t
            self._touch(self._last_llm_start)
        content = ev.get("content")
        if ev.get("actorArrow") == "llm→user":
            node = {"id": f"step-llm-end-{_js_field(ev, 'runtimeStageId')}-{self._iter}", "kind": "llm->user",
                    "label": "llm → user",
                    "startOffsetMs": t, "endOffsetMs": t, "subflowPath": ev.get("subflowPath"),
                    "iterationIndex": self._iter}
            _copy_present(node, ev, "runtimeStageId")
            if content:
                node["assistantText"] = content
            self._chain(self._append_node(node))
        else:
            self._pending_assistant_text = content if content else None

    def _tool_start(self, ev: dict, t: Any) -> None:
        if ev.get("notDispatched"):  # [NEWER 9.113] a paused batch never ran this call (§3.8)
            self._not_dispatched.add(ev.get("toolCallId"))
            return
        text, self._pending_assistant_text = self._pending_assistant_text, None
        node: dict[str, Any] = {
            "id": f"step-tool-start-{_js_field(ev, 'runtimeStageId')}-{_js_field(ev, 'toolCallId')}",
            "kind": "llm->tool", "label": f"llm → tool ({_js_field(ev, 'toolName')})", "startOffsetMs": t}
        if "toolName" in ev:
            node["toolName"] = ev["toolName"]
        node["subflowPath"] = ev.get("subflowPath")
        node["iterationIndex"] = self._iter
        node["slotUpdated"] = "tools"
        if "runtimeStageId" in ev:
            node["runtimeStageId"] = ev["runtimeStageId"]
        if text:
            node["assistantText"] = text
        if "args" in ev:
            node["toolArgs"] = ev["args"]
        index = self._append_node(node)
        self._last_tool = index
        self._chain(index)

    def _tool_end(self, ev: dict, t: Any) -> None:
        if self._not_dispatched and ev.get("toolCallId") in self._not_dispatched:
            return
        if self._last_tool is not None:
            self.nodes[self._last_tool]["endOffsetMs"] = t
            self._touch(self._last_tool)
        if "result" in ev:
            self._pending_tool_result = ev["result"]

    def graph(self) -> StepGraph:
        out: dict[str, Any] = {"nodes": self.nodes, "edges": self.edges}
        if self._active is not None:
            active_id = self.nodes[self._active].get("id")
            if active_id is not None:
                out["activeNodeId"] = active_id
        return cast(StepGraph, out)


def _node(ev: dict, kind: str, label: Any, t: Any, label_present: bool = True) -> dict:
    node: dict[str, Any] = {}
    _copy_present(node, ev, "runtimeStageId", "id")
    node["kind"] = kind
    if label_present:
        node["label"] = label
    node["startOffsetMs"] = t
    node["subflowPath"] = ev.get("subflowPath")
    return node


def _map_key(value: Any) -> Any:
    """A JavaScript Map key as a Python dict key: strings as they are; other scalars tagged with their type (in
    JS true and 1 are different keys); a list or object None — in JS it is only found again by identity, and
    each parsed event holds its own."""
    if type(value) is str:
        return value
    if isinstance(value, (list, dict)):
        return None
    return (type(value).__name__, value)


def _js_truthy(value: Any) -> bool:
    """JavaScript's truthiness of a parsed JSON value (an empty list or object is true there, unlike Python)."""
    if isinstance(value, (list, dict)):
        return True
    if isinstance(value, float) and value != value:
        return False
    return bool(value)


def _js_field(event: dict, key: str) -> str:
    """How a JS template literal prints `event[key]`: a missing key prints "undefined", null prints "null"."""
    value = event.get(key, _UNSET)
    if type(value) is str:  # the usual case, first
        return value
    return "undefined" if value is _UNSET else _js_str(value)


def _js_str(value: Any) -> str:
    """How a JS template literal prints a value."""
    if type(value) is str:
        return value
    if value is None:
        return "null"
    if value is True:
        return "true"
    return js_string(value)  # (numbers, lists and objects as JavaScript prints them)


_HANDLERS: dict[Any, Callable[..., None]] = {
    "run.entry": StepGraphFold._run_entry,
    "run.exit": StepGraphFold._run_exit,
    "subflow.entry": StepGraphFold._subflow_entry,
    "subflow.exit": StepGraphFold._subflow_exit,
    "fork.branch": StepGraphFold._fork_branch,
    "decision.branch": StepGraphFold._decision_branch,
    "loop.iteration": StepGraphFold._loop_iteration,
    "context.injected": StepGraphFold._context_injected,
    "llm.start": StepGraphFold._llm_start,
    "llm.end": StepGraphFold._llm_end,
    "tool.start": StepGraphFold._tool_start,
    "tool.end": StepGraphFold._tool_end,
}
_REACT_TYPES = frozenset({"llm.start", "llm.end", "tool.start", "tool.end", "context.injected"})


def build_step_graph(events: Iterable[Any]) -> StepGraph:
    """`buildStepGraphFromEvents`: the StepGraph of a DomainEvent list (raises MalformedRunError like the TS)."""
    fold = StepGraphFold()
    fold.feed_all(events)
    return fold.graph()


def build_step_graph_safe(events: list) -> tuple[StepGraphFold, str | None]:
    """The fold, or — where the TypeScript would throw — the subflow-only graph and a note saying why (the
    newer lens does the same)."""
    fold = StepGraphFold()
    try:
        fold.feed_all(events)
        return fold, None
    except MalformedRunError as err:
        fallback = StepGraphFold()
        for event in events:
            if not (isinstance(event, dict) and event.get("type") in _REACT_TYPES):
                fallback.feed(event)
            else:  # skipped, but it still fixes the time origin and keeps event indices aligned
                if fallback._run_start_ts is _UNSET:
                    fallback._run_start_ts = event.get("ts")
                fallback._count += 1
        return fallback, (f"Per-iteration detail is missing: {err}. Only the subflow boxes are shown.")
