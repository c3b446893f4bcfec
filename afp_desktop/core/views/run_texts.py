"""Every text a run holds, with where it became known: what core/search.py indexes. Pure, no Qt.

  NodeFinder(run)                               the StepGraph node a DomainEvent's text belongs to
  content_texts(run, nodes)                     (position, text, where, node) of every text but the status lines
  status_texts(run, nodes, templates, app_name) (position, line, "status line", node) of each line the bubble showed

Positions are axis positions (axis.py): right after the event that carried the text, so the cursor moved there
shows it. A typed event mapped to a DomainEvent (§2.5) is indexed once, from the typed event, at the position of
its DomainEvent (right after it), where the node it belongs to exists.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Iterator

from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.model.axis import anchor_domain_to_typed
from afp_desktop.core.jsonx.lazyjson import resolve_quietly

_PREFIX = "agentfootprint."
_SLOT_NAMES = {"system-prompt": "system prompt", "messages": "messages", "tools": "tools"}
# Tokens are left out: the assistant text they stream is indexed whole at the LLM call's end.
_SKIPPED_TYPED = frozenset({"stream.token"})


# ── which node a text belongs to ────────────────────────────────────────────────────────────────────────


class NodeFinder:
    """StepGraph node of a DomainEvent: the node it created; a tool end's or progress report's call; a slot's
    or injection's coming LLM call; else the latest node created before it."""

    def __init__(self, run):
        fold = run.step_fold
        self.created = fold.node_created_at
        self.kinds = [node.get("kind") for node in fold.nodes]
        self.created_by: dict[int, int] = {}
        for node, event_index in enumerate(self.created):
            self.created_by.setdefault(event_index, node)
        self.call_node: dict[Any, int] = {}
        self.open_subflow: dict[Any, int] = {}
        self.next_llm: list[int | None] = [None] * (len(run.domain_events) + 1)
        upcoming = None
        llm_kinds = ("user->llm", "tool->llm")
        for i in range(len(run.domain_events) - 1, -1, -1):
            node = self.created_by.get(i)
            if node is not None and self.kinds[node] in llm_kinds:
                upcoming = node
            self.next_llm[i] = upcoming

    def latest_before(self, n_domain: int) -> int | None:
        """The latest node created by the first `n_domain` DomainEvents."""
        i = bisect_right(self.created, n_domain - 1) - 1
        return i if i >= 0 else None

    def of_domain(self, i: int, event: dict) -> int | None:
        kind = event.get("type")
        node = self.created_by.get(i)
        if kind == "tool.start":
            if node is not None:
                self.call_node[_key(event.get("toolCallId"))] = node
            return node if node is not None else self.latest_before(i + 1)
        if kind == "tool.end":
            found = self.call_node.get(_key(event.get("toolCallId")))
            return found if found is not None else self.latest_before(i + 1)
        if self.is_for_coming_call(event):
            return self.next_llm[i]
        if kind in ("run.entry", "subflow.entry") and node is not None:
            self.open_subflow[_key(event.get("runtimeStageId"))] = node  # (a file may give a list)
        if kind in ("run.exit", "subflow.exit"):
            found = self.open_subflow.get(_key(event.get("runtimeStageId")))
            if found is not None:
                return found
        if node is not None:
            return node
        return self.latest_before(i + 1)

    @staticmethod
    def is_for_coming_call(event: dict) -> bool:
        """A slot's or an injection's event: what it holds is sent to the LLM call that comes next."""
        kind = event.get("type")
        return kind == "context.injected" or (kind in ("subflow.entry", "subflow.exit")
                                              and bool(event.get("slotKind")))

    def of_call(self, call_id: Any) -> int | None:
        return self.call_node.get(_key(call_id))


def _key(call_id: Any) -> Any:
    return jsonio.value_key(call_id)


# ── what is indexed ─────────────────────────────────────────────────────────────────────────────────────


def _as_text(value: Any) -> str | None:
    """A value as searchable text: a string itself, JSON for anything else (None for a missing value)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return jsonio.dumps(value).decode("utf-8")
    except Exception:  # noqa: BLE001 — a value that cannot be written is not worth failing a search over
        return str(value)


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, string) of every string in a JSON value, depth-first in document order, without recursion."""
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if item:
                yield where, item
        elif isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((f"{where}[{n}]", v) for n, v in reversed(list(enumerate(item))))


def _payload_docs(position: int, payload: Any, what: str, node: int | None) -> Iterator[tuple]:
    payload = resolve_quietly(payload)  # a large Trace's payload: parsed here, its strings kept, the rest dropped
    for path, text in _leaves(payload):
        yield position, text, f"{what} · {path}" if path else what, node


def _slot_name(slot: Any) -> str:
    return _SLOT_NAMES.get(slot, slot) if isinstance(slot, str) and slot else "context"


def _named(name: Any) -> str:
    return f"`{name}`" if isinstance(name, str) and name else "a tool"


def content_texts(run, nodes: NodeFinder) -> Iterator[tuple[int, str, str, int | None]]:
    """(position, text, where, node) of every text in the run except the status lines."""
    axis = run.axis
    domain = run.domain_events
    typed = run.typed_events or []
    fold = run.step_fold
    for index, node in enumerate(breathing_over(fold.nodes)):
        label = node.get("label")
        if isinstance(label, str) and label:
            yield axis.domain_after[fold.node_created_at[index]], label, "step label", index

    anchors = run.anchors
    if anchors is None:
        anchors = anchor_domain_to_typed(domain, typed) if typed else [None] * len(domain)
    node_of_typed: dict[int, tuple[int | None, int]] = {}
    tool_names: dict[Any, Any] = {}
    for i, event in enumerate(breathing_over(domain, 256)):  # (an event can make dozens of texts)
        if type(event) is not dict:
            continue
        node = nodes.of_domain(i, event)
        position = axis.domain_after[i]
        if node is not None and nodes.is_for_coming_call(event):
            # A prompt's text is shown on the call it is sent to, which starts a little later: a hit there, so
            # that the cursor moved to it shows the text (at the slot's own event the call has not started).
            position = max(position, axis.domain_after[fold.node_created_at[node]])
        if anchors[i] is not None:
            # indexed from the typed event it was mapped from, at the DomainEvent's position (right after it)
            node_of_typed[anchors[i]] = (node, position)
            if event.get("type") == "tool.start":
                tool_names[_key(event.get("toolCallId"))] = event.get("toolName")
            continue
        yield from _domain_fields(position, event, node, tool_names)

    for j, event in enumerate(breathing_over(typed, 256)):
        if type(event) is not dict:
            continue
        kind = event.get("type")
        if not isinstance(kind, str):
            continue
        name = kind[len(_PREFIX):] if kind.startswith(_PREFIX) else kind
        if name in _SKIPPED_TYPED:
            continue
        payload = event.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        position = axis.typed_after[j]
        if j in node_of_typed:
            node, position = node_of_typed[j]  # so that the node exists when the cursor is moved there
        elif "toolCallId" in payload and nodes.of_call(payload.get("toolCallId")) is not None:
            node = nodes.of_call(payload.get("toolCallId"))
        else:
            node = nodes.latest_before(axis.domain_before[position])
        yield from _typed_fields(position, name, payload, node, tool_names)


def _domain_fields(position: int, event: dict, node: int | None, tool_names: dict) -> Iterator[tuple]:
    kind = event.get("type")
    get = event.get
    if kind == "run.entry":
        payload = resolve_quietly(get("payload"))
        if isinstance(payload, dict) and isinstance(payload.get("message"), str):
            yield position, payload["message"], "user message", node
        else:
            yield from _payload_docs(position, payload, "run input", node)
    elif kind == "run.exit":
        payload = resolve_quietly(get("payload"))
        if isinstance(payload, str):
            yield position, payload, "final answer", node
        else:
            yield from _payload_docs(position, payload, "run output", node)
    elif kind in ("subflow.entry", "subflow.exit"):
        side = "input" if kind == "subflow.entry" else "output"
        slot = get("slotKind")
        what = f"{_slot_name(slot)} slot {side}" if isinstance(slot, str) and slot else \
            f"{side} of `{get('subflowName') or get('subflowId') or 'a subflow'}`"
        if "payload" in event and not get("isAgentInternal"):  # the engine's own bookkeeping: noise
            yield from _payload_docs(position, get("payload"), what, node)
    elif kind == "fork.branch":
        if isinstance(get("childName"), str):
            yield position, get("childName"), "fork branch", node
    elif kind == "decision.branch":
        for key in ("chosen", "rationale"):
            if isinstance(get(key), str):
                yield position, get(key), f"decision ({key})", node
    elif kind == "llm.start":
        if isinstance(get("model"), str):
            yield position, get("model"), "model of an LLM call", node
    elif kind == "llm.end":
        if isinstance(get("content"), str) and get("content"):
            yield position, get("content"), "assistant text", node
    elif kind == "tool.start":
        yield from _tool_start(position, get, node, tool_names)
    elif kind == "tool.end":
        yield from _tool_end(position, get, node, tool_names)
    elif kind == "context.injected":
        slot = get("slot")
        for key in ("contentSummary", "reason"):
            if isinstance(get(key), str) and get(key):
                yield position, get(key), f"{_slot_name(slot)} injection ({key})", node
    elif kind in ("composition.start", "composition.end"):
        if isinstance(get("name"), str) and get("name"):
            yield position, get("name"), "composition", node


def _tool_start(position: int, get, node: int | None, tool_names: dict) -> Iterator[tuple]:
    """A tool call's start, as a DomainEvent or a typed event's payload carries it (the same keys)."""
    name = get("toolName")
    tool_names[_key(get("toolCallId"))] = name
    if isinstance(name, str):
        yield position, name, "tool name", node
    text = _as_text(get("args"))
    if text:
        yield position, text, f"tool arguments of {_named(name)}", node


def _tool_end(position: int, get, node: int | None, tool_names: dict) -> Iterator[tuple]:
    name = tool_names.get(_key(get("toolCallId")))
    text = _as_text(get("result"))
    if text:
        yield position, text, f"tool {'error' if get('error') else 'result'} of {_named(name)}", node
    if get("error") and not isinstance(get("error"), bool):
        yield position, _as_text(get("error")), f"tool error of {_named(name)}", node


def _typed_fields(position: int, name: str, payload: dict, node: int | None, tool_names: dict) -> Iterator[tuple]:
    get = payload.get
    if name == "agent.turn_start" and isinstance(get("userPrompt"), str):
        yield position, get("userPrompt"), "user message", node
    elif name == "agent.turn_end" and isinstance(get("finalContent"), str):
        yield position, get("finalContent"), "final answer", node
    elif name == "stream.llm_start":
        if isinstance(get("model"), str):
            yield position, get("model"), "model of an LLM call", node
    elif name == "stream.llm_end":
        if isinstance(get("content"), str) and get("content"):
            yield position, get("content"), "assistant text", node
    elif name == "stream.tool_start":
        yield from _tool_start(position, get, node, tool_names)
    elif name == "stream.tool_end":
        yield from _tool_end(position, get, node, tool_names)
    elif name == "stream.tool_progress":
        report = get("payload")  # the tool author's own payload: {message, …} or a bare string
        message = report.get("message") if isinstance(report, dict) else report
        if isinstance(message, str) and message.strip():  # whole (the bubble cuts it at 120 characters)
            yield position, message, f"progress report of {_named(tool_names.get(_key(get('toolCallId'))))}", node
    elif name == "context.injected":
        slot = get("slot")
        text = get("rawContent") if isinstance(get("rawContent"), str) and get("rawContent") else get("contentSummary")
        if isinstance(text, str) and text:
            yield position, text, f"{_slot_name(slot)} injection", node
    elif name == "pause.request":
        yield from _payload_docs(position, payload, "question to the user", node)
    elif "error" in name:
        yield from _payload_docs(position, payload, f"error `{name}`", node)
    else:
        yield from _payload_docs(position, payload, f"`{name}`", node)


def status_texts(run, nodes: NodeFinder, templates: dict, app_name: str) -> Iterator[tuple]:
    """Each stretch of the chat bubble showing one status line, at the position where it starts. A streamed
    reply grows one token at a time; its lines are kept as one text, the longest, where it is complete (every
    shorter line is a prefix of it: indexing each would make the index quadratic in the reply's length)."""
    from afp_desktop.core.model.bubble import line_starts

    domain_before = run.axis.domain_before
    pending = None  # the last line seen, held back while the next one may extend it
    for position, state, line in line_starts(run, templates, app_name):
        doc = (position, line, "status line", nodes.latest_before(domain_before[position]))
        growing = pending is not None and state is not None and state.get("state") == "streaming" \
            and line.startswith(pending[1])
        if pending is not None and not growing:
            yield pending
        pending = doc
    if pending is not None:
        yield pending
