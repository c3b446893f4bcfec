"""Everything the inspector shows about one StepGraph node, as known at one axis position, as plain data: texts,
numbers, lists and dicts (payload trees with every LazyJSON read), StepIds. Pure, no Qt. The engine answers the
window's "inspect" request with it, so the window never reads the run's events to inspect a step.

    inspector_content(run, index, position, prices) -> {
        "index", "position", "kind", "label",
        "note":        why some of the step is not shown (not started, in progress, failed), or None,
        "ends_later":  the step ends after `position` ("Show when it ended"),
        "node":        the node as known at `position` (the Raw JSON tab),
        "header":      [(name, value)]: value a scalar, a StepId, or (StepId, caption, StepId), or None,
        "readable":    core/views/inspect.py's model,
        "tabs":        the tabs that apply beside Readable and Raw JSON, name -> what they show}

The time-travel rule holds: nothing that became known after `position` is in it.
"""

from __future__ import annotations

from typing import Any

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.jsonx.lazyjson import read_lazy
from afp_desktop.core.library.status import progress_message_of
from afp_desktop.core.model import tool_progress
from afp_desktop.core.model.bubble import rollups
from afp_desktop.core.model.replay import DONE, LASTING_KINDS, NOT_STARTED
from afp_desktop.core.views.cost import PriceTable, cost_text
from afp_desktop.core.views.inspect import inspect_node
from afp_desktop.core.views.step_ids import StepId, step_ids

LATE_FIELDS = ("tokens", "endOffsetMs", "exitPayload")  # known only once the step has ended
LLM_START_KINDS = ("user->llm", "tool->llm")


def plain(value: Any) -> Any:
    """`value` with every LazyJSON in it read (read_lazy): what crosses to the window holds no reference to the
    run's buffers. A value with nothing to read is returned as it is."""
    value = read_lazy(value)
    if isinstance(value, dict):
        items = {key: plain(item) for key, item in value.items()}
        return value if all(items[key] is value[key] for key in value) else items
    if isinstance(value, list):
        members = [plain(item) for item in value]
        return value if all(a is b for a, b in zip(members, value)) else members
    return value


# ── Facts about a node that live in the events, not in the node ─────────────────────────────────────────


def _domain_after(run, start: int, kind: str, match) -> tuple[int, dict] | None:
    for i in range(start + 1, len(run.domain_events)):
        event = run.domain_events[i]
        if isinstance(event, dict) and event.get("type") == kind and match(event):
            return i, event
    return None


def tool_call_id(run, index: int) -> Any:
    """The toolCallId of an llm->tool node (from the tool.start that created it)."""
    event = run.domain_events[run.step_fold.node_created_at[index]]
    return event.get("toolCallId") if isinstance(event, dict) else None


def tool_end_of(run, index: int) -> tuple[int, dict] | None:
    start = run.step_fold.node_created_at[index]
    call_id = tool_call_id(run, index)
    return _domain_after(run, start, "tool.end", lambda e: jsonio.same_id(e.get("toolCallId"), call_id))


def llm_events_of(run, index: int) -> tuple[dict | None, tuple[int, dict] | None]:
    """(llm.start, (index, llm.end)) of an LLM-call node: provider, prompt sizes, stop reason, response text."""
    start = run.step_fold.node_created_at[index]
    begin = run.domain_events[start]
    if not isinstance(begin, dict) or begin.get("type") != "llm.start":
        return None, None
    path = jsonio.path_key(begin.get("subflowPath"))  # (keys: comparing deeply nested lists recurses)
    return begin, _domain_after(run, start, "llm.end", lambda e: jsonio.path_key(e.get("subflowPath")) == path)


def progress_reports(run, index: int) -> list[tuple[int, dict]]:
    """(axis position, typed event) of every `stream.tool_progress` of this node's call, in order."""
    call_id = tool_call_id(run, index)
    if call_id is None or run.typed_events is None or not isinstance(call_id, (str, int, float)):
        return []
    by_call = run.views.progress_by_call if run.views is not None else tool_progress.progress_reports_by_call(run)
    typed_after = run.axis.typed_after
    return [(typed_after[j], run.typed_events[j]["payload"]) for j in by_call.get(call_id, [])]


def _compact(value: Any, limit: int = 200) -> str:
    text = jsonio.text_of(value)
    return text[:limit] + "…" if len(text) > limit else text


def _paired(ids: dict[str, StepId], first: str, second: str) -> tuple[str, Any]:
    """A header row holding two ids (the second with its own caption), or whichever of them the step has."""
    if first in ids and second in ids:
        return first, (ids[first], second, ids[second])
    return (first, ids[first]) if first in ids else (second, ids.get(second))


# ── The content ─────────────────────────────────────────────────────────────────────────────────────────


def node_as_known(run, index: int, position: int | None) -> tuple[dict, str | None, str]:
    """(the node as known at `position` — never a fact from later —, why some of it is not shown, its state)."""
    facts = run.replay_facts
    final = run.step_fold.nodes[index]
    if position is None:
        return final, None, DONE
    n_domain = facts.effective_domain[position]
    state = facts.node_state(index, n_domain, position)
    if state == NOT_STARTED:
        return ({key: final.get(key) for key in ("id", "kind", "label")},
                "Not known yet at this moment: this step starts later. Move the cursor on to see it.", state)
    if state == DONE:
        return final, None, state
    known = {key: value for key, value in final.items() if key not in LATE_FIELDS}
    failed = next((e for e in facts.errors_known(position) if e.node == index and e.kind in ("fatal", "run")), None)
    if failed is not None:
        return known, (f"This step failed: {failed.message} It never ended, so its end, tokens, stop reason "
                       "and result were never recorded."), state
    return known, ("In progress at the cursor: its end, tokens, stop reason and result are not known yet "
                   "at this moment."), state


def inspector_content(run, index: int, position: int | None = None, prices: PriceTable | None = None) -> dict:
    """What the inspector shows of StepGraph node `index` at axis `position` (None: the run's end); see the
    module's docstring. Raises IndexError for a node the run does not have."""
    nodes = run.step_fold.nodes
    if not 0 <= index < len(nodes):
        raise IndexError(f"the run has no step {index} (it has {len(nodes)})")
    if position is not None:
        position = max(0, min(int(position), len(run.axis)))
    facts = run.replay_facts
    upto = len(run.domain_events) if position is None else facts.effective_domain[position]
    node, note, state = node_as_known(run, index, position)
    kind = node.get("kind")
    tabs: dict[str, Any] = {}
    if kind in LLM_START_KINDS:
        tabs.update(_llm_tabs(run, index, node, upto))
    elif kind == "llm->tool":
        tabs.update(_tool_tabs(run, index, node, upto, len(run.axis) if position is None else position))
    elif kind == "llm->user":
        tabs["Text"] = _text("Answer to the user", node.get("assistantText"))
    elif kind == "subflow":
        tabs["Subflow"] = _subflow_tab(run, index, node, upto)
    return {
        "index": index, "position": position, "kind": kind, "label": node.get("label"), "note": note,
        "ends_later": position is not None and facts.ended[index] is not None and state != DONE,
        "node": plain(node),
        "header": _header(run, index, node, upto, prices),
        "readable": inspect_node(run, facts, index, position, prices=prices),
        "tabs": tabs,
    }


def _text(title: str, text: Any) -> dict:
    return {"title": title, "text": plain(text)}


def _header(run, index: int, node: dict, upto: int, prices: PriceTable | None) -> list[tuple[str, Any]]:
    """Kind-specific facts between the step's ids (the values as the node holds them; None: not shown)."""
    ids = {step_id.label: step_id for step_id in step_ids(run, index)}
    # Ids that say where the step is sit in pairs, so the header leaves the tabs their room.
    rows: list[tuple[str, Any]] = [("id", ids.get("id")), _paired(ids, "stage id", "event")]
    begin, end = llm_events_of(run, index) if node.get("kind") in LLM_START_KINDS else (None, None)
    if node.get("llmModel") is not None or begin:
        provider = f" ({begin.get('provider')})" if begin and begin.get("provider") else ""
        rows.append(("model", f"{node.get('llmModel', begin.get('model') if begin else '')}{provider}"))
    if node.get("toolName") is not None:
        rows.append(("tool", node["toolName"]))
        rows.append(("call id", ids.get("call id")))
    tokens = node.get("tokens")
    if isinstance(tokens, dict):
        rows.append(("tokens", f"{tokens.get('in')} in  ·  {tokens.get('out')} out"))
        if prices is not None and node.get("kind") in LLM_START_KINDS:
            rows.append(("cost", cost_text(prices, node)))
    start, stop = node.get("startOffsetMs"), node.get("endOffsetMs")
    if not isinstance(start, (int, float)):  # (a step not started at the cursor: nothing of it is known)
        timing = "not started at this moment"
    else:
        timing = f"starts at +{start} ms"
        if isinstance(stop, (int, float)):
            timing += f", ends at +{stop} ms ({stop - start} ms)"
        elif stop is None and node.get("kind") in LASTING_KINDS:  # (a chip has no end)
            timing += ", not ended"
    rows.append(("timing", timing))
    if begin:
        sizes = [f"{label} {begin[k]}" for k, label in (("systemPromptChars", "system-prompt chars"),
                 ("messagesCount", "messages"), ("toolsCount", "tools")) if k in begin]
        if sizes:
            rows.append(("prompt", "  ·  ".join(sizes)))
    if end and end[0] < upto and end[1].get("stopReason"):
        rows.append(("stop reason", end[1]["stopReason"]))
    if node.get("iterationIndex") is not None:
        rows.append(("iteration", node["iterationIndex"]))
    if node.get("primitiveKind") is not None:
        rows.append(("primitive", node["primitiveKind"]))
    rows.append(_paired(ids, "path", "run id"))
    return [(name, value if isinstance(value, (tuple, StepId)) else plain(value)) for name, value in rows]


def _llm_tabs(run, index: int, node: dict, upto: int) -> dict[str, Any]:
    tabs: dict[str, Any] = {"Injections": plain(list(node.get("injections") or []))}
    slots = node.get("slotBoundaries")
    if isinstance(slots, dict):
        tabs["Slots"] = plain(slots)
    _begin, end = llm_events_of(run, index)
    if end is not None and end[0] < upto and isinstance(end[1].get("content"), str):
        tabs["Text"] = _text("Response of this call (llm.end content)", end[1]["content"])
    if "toolResult" in node:
        tabs["Tool"] = {"given": True, "has_args": False, "args": None, "result": plain(node["toolResult"])}
    return tabs


def _tool_tabs(run, index: int, node: dict, upto: int, position: int) -> dict[str, Any]:
    end = tool_end_of(run, index)
    tool: dict[str, Any] = {"given": False, "has_args": True, "args": plain(node.get("toolArgs"))}
    if end is None or end[0] >= upto:
        tool.update(returned=False, result={})  # (no row: a result not known is not a null result)
    else:
        event = end[1]
        tool.update(returned=True, duration_ms=plain(event.get("durationMs")), has_duration="durationMs" in event,
                    error=plain(event.get("error")), result=plain(event.get("result")))
    tabs: dict[str, Any] = {"Tool": tool}
    if node.get("assistantText"):
        tabs["Text"] = _text("What the assistant said before calling the tool", node["assistantText"])
    reports = [(at, payload) for at, payload in progress_reports(run, index) if at <= position]
    if reports:
        rows = []
        for at, payload in reports:
            message = progress_message_of(payload.get("payload"))
            rows.append({"at": at, "message": message if message is not None else "(no message)",
                         "summary": _compact(payload.get("payload")), "payload": plain(payload)})
        tabs["Progress"] = {"note": f"{len(rows)} progress report(s) of call "
                                    f"{_compact(tool_call_id(run, index), 80)} by this moment.", "rows": rows}
    return tabs


def _subflow_tab(run, index: int, node: dict, upto: int) -> dict[str, Any]:
    rollup = rollups(run, index, upto)
    rows = None
    if rollup is not None:
        duration = "still open at the cursor" if rollup.duration_ms is None else f"{rollup.duration_ms} ms"
        rows = [("inside it", f"{rollup.llm_calls} LLM call(s), {rollup.tool_calls} tool call(s), "
                              f"{rollup.iterations} loop iteration(s)"),
                ("tokens", f"{rollup.tokens_in} in  ·  {rollup.tokens_out} out"),
                ("duration", duration)]
    return {"entry": plain(node.get("entryPayload")), "exit": plain(node.get("exitPayload")), "rollup": rows}
