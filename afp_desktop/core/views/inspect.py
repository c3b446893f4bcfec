"""What one step saw, sent and received, as a person reads it — as known at one axis position. Pure, no Qt.

    inspect_node(run, facts, index, position) -> {"node", "index", "kind", "label", "state", "position",
                                                   "sections": [{"title", "text"} | {"title", "rows": [...]}]}

Every section also says how to draw it ("style"): facts (label/value rows; a row whose value is an id also has
"id", the exact id, and "idName", what it is: the window offers to copy it), text, note, conversation
(role/text rows), tools (name/description/schema rows), injections (source/summary/why rows), changes.
The GUI's Readable tab and `afp-desktop inspect` render this same model.

The time-travel rule holds: nothing that became known after `position` is shown (a tool's result, an LLM
call's response and tokens, a slot's content before the slot closed, a pause's answer before the resume).

Where things are (agentfootprint 9.62):
- A slot's content is the payload of its `subflow.exit` (slotKind system-prompt / messages / tools); the fold
  keeps it on the LLM node that follows as `slotBoundaries`. The composed system prompt is the slot's
  `systemPromptInjections[*].rawContent` joined by a blank line (the llm.start's `systemPromptChars` says so).
- A fork chip ("System Prompt", "step-work/Messages", …) belongs to the LLM call that follows it in the same
  agent: the chip's runtimeStageId and the call's share the part before their last "/".
- A pause is a typed event only: `pause.request` carries the question in `questionPayload`, `pause.resume`
  the answer in `resumeInput` and the wait in `pausedDurationMs`.
- A file with only the typed stream has no slot boundaries: the slots are read from its `context.injected`
  events (with `rawContent`) and the llm_start's `tools`.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.jsonx.lazyjson import resolve_quietly
from afp_desktop.core.library.events import indices_of
from afp_desktop.core.model.pause_question import question_in
from afp_desktop.core.model.replay import DONE, LLM_KINDS, NOT_STARTED, ReplayFacts
from afp_desktop.core.views.cost import PriceTable, cost_text
from afp_desktop.core.views.step_ids import subflow_path_text
from afp_desktop.core.breathing import breathing_over

SLOT_OF_CHIP = {"system prompt": "system-prompt", "messages": "messages", "tools": "tools"}
SLOT_PROPERTY = {"system-prompt": "systemPrompt", "messages": "messages", "tools": "tools"}
SLOT_INJECTIONS = {"system-prompt": "systemPromptInjections", "messages": "messagesInjections",
                   "tools": "toolsInjections"}
SLOT_TITLE = {"system-prompt": "System prompt", "messages": "Messages", "tools": "Tools"}
PROMPT_SEPARATOR = "\n\n"
STATE_WORDS = {NOT_STARTED: "not started yet", "active": "in progress", DONE: "done"}
_PREFIX = "agentfootprint."
_SCAN_LIMIT = 2000  # DomainEvents looked through for a chip's slot boundary (they are a few dozen apart)


# ── Small readers (trace content is untrusted: any type anywhere) ──────────────────────────────────────────


def as_text(value: Any) -> str:
    """A value as a person reads it: strings as they are, anything else as indented JSON."""
    value = resolve_quietly(value)
    if isinstance(value, str):
        return value
    try:
        return jsonio.dumps(value, indent=True).decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - a value that cannot be written is still shown
        return repr(value)


def _compact(value: Any, limit: int = 160) -> str:
    value = resolve_quietly(value)
    if isinstance(value, str):
        text = value
    else:
        try:
            text = jsonio.dumps(value).decode("utf-8", "replace")
        except Exception:  # noqa: BLE001
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dict(value: Any) -> dict:
    value = resolve_quietly(value)
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    value = resolve_quietly(value)
    return value if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def stage_prefix(stage_id: Any) -> str:
    """"step-work/context#21" → "step-work/"; "context#6" → "" (the agent a stage belongs to)."""
    if not isinstance(stage_id, str) or "/" not in stage_id:
        return ""
    return stage_id.rsplit("/", 1)[0] + "/"


def chip_slot(node: dict) -> str | None:
    """The slot a fork chip stands for ("system-prompt" | "messages" | "tools"), else None."""
    if node.get("kind") != "fork-branch":
        return None
    label = node.get("label")
    if not isinstance(label, str):
        return None
    return SLOT_OF_CHIP.get(label.rsplit("/", 1)[-1].strip().lower())


@dataclass(frozen=True)
class Id:
    """A fact that is an id: shown (shortened if long), copied exactly."""
    text: str
    name: str  # what it is, in words: "tool call id"


def _id(value: Any, name: str) -> Id | None:
    """An id from the trace (a string or an integer; anything else is no id)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return Id(value, name) if isinstance(value, str) and value else None


def _row(label: str, value: Any) -> dict:
    if isinstance(value, Id):
        return {"label": label, "value": _compact(value.text, 80), "id": value.text, "idName": value.name}
    return {"label": label, "value": value if isinstance(value, str) else _compact(value)}


def _facts(title: str, pairs: list[tuple[str, Any]]) -> dict:
    rows = [_row(label, value) for label, value in pairs if value is not None]
    return {"title": title, "style": "facts", "rows": rows}


def _text(title: str, text: str, style: str = "text") -> dict:
    return {"title": title, "style": style, "text": text}


def _note(text: str, title: str = "Not known yet") -> dict:
    return _text(title, text, "note")


def _ms(value: Any) -> str | None:
    return f"{value:g} ms" if _number(value) else None


# ── Slot content ─────────────────────────────────────────────────────────────────────────────────────────


def message_text(content: Any) -> str:
    """A message's content: a string, or the text parts of a content list, else JSON."""
    content = resolve_quietly(content)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                parts.append(_compact(part, 400))
        return "\n".join(parts)
    return "" if content is None else as_text(content)


def message_rows(messages: list) -> list[dict]:
    """Role-labelled messages: user, assistant (with the tools it asked for), tool result (of which tool)."""
    rows: list[dict[str, Any]] = []
    for message in messages:
        message = resolve_quietly(message)
        if not isinstance(message, dict):
            rows.append({"role": "?", "label": "message", "text": _compact(message, 400)})
            continue
        role = message.get("role") if isinstance(message.get("role"), str) else "?"
        text = message_text(message.get("content"))
        label = role
        if role == "tool":
            name = _str(message.get("toolName"))
            label = f"tool result ({name})" if name else "tool result"
        calls = [c for c in _list(message.get("toolCalls")) if isinstance(c, dict)]
        if calls:
            asks = [f"→ calls {c.get('name', '?')}({_compact(c.get('args'), 200)})" for c in calls]
            text = "\n".join(([text] if text else []) + asks)
        rows.append({"role": role, "label": label, "text": text})
    return rows


def tool_rows(schemas: list) -> list[dict]:
    rows = []
    for schema in schemas:
        schema = resolve_quietly(schema)
        if not isinstance(schema, dict):
            continue
        row = {"name": _compact(schema.get("name"), 120), "description": message_text(schema.get("description"))}
        if "inputSchema" in schema or "parameters" in schema:
            row["schema"] = as_text(schema.get("inputSchema", schema.get("parameters")))
        rows.append(row)
    return rows


def injection_rows(injections: list) -> list[dict]:
    """source · summary · why, with the role, id and the full content where the file has them."""
    rows = []
    for injection in injections:
        injection = resolve_quietly(injection)
        if not isinstance(injection, dict):
            continue
        row = {"source": _compact(injection.get("source"), 80), "slot": _compact(injection.get("slot"), 40),
               "summary": message_text(injection.get("contentSummary")),
               "why": message_text(injection.get("reason"))}
        for key, as_key in (("asRole", "role"), ("sourceId", "sourceId"), ("rawContent", "content")):
            if injection.get(key) is not None:
                row[as_key] = message_text(injection[key])
        for key in ("retrievalScore", "rankPosition", "budgetTokens", "budgetFraction"):
            if _number(injection.get(key)):
                row[key] = f"{injection[key]:g}"
        rows.append(row)
    return rows


def system_prompt_text(injections: list) -> str | None:
    """The composed system prompt from a slot's injections (rawContent, else the summary), None if none."""
    parts = []
    for injection in injections:
        injection = resolve_quietly(injection)
        if isinstance(injection, dict):
            raw = injection.get("rawContent", injection.get("contentSummary"))
            if isinstance(raw, str):
                parts.append(raw)
    return PROMPT_SEPARATOR.join(parts) if parts else None


class SlotContent:
    """One slot as composed for one LLM call: its entry and exit payloads and the injections into it."""

    def __init__(self, slot: str, entry: Any = None, exit_payload: Any = None, injections: list | None = None,
                 tools: list | None = None, closed: bool = True) -> None:
        self.slot = slot
        self.entry = _dict(entry)
        self.exit = _dict(exit_payload)
        self.closed = closed
        payload = self.exit if closed else self.entry
        listed = _list(payload.get(SLOT_INJECTIONS[slot]))
        self.injections = listed or list(injections or [])
        self.tools = tools if tools is not None else _list(payload.get("toolSchemas"))

    @property
    def system_prompt(self) -> str | None:
        return system_prompt_text(self.injections) if self.slot == "system-prompt" else None

    @property
    def messages(self) -> list | None:
        if self.slot != "messages":
            return None
        payload = self.exit if self.closed else self.entry
        if "messages" in payload:
            return _list(payload["messages"])
        return [{"role": i.get("asRole") or i.get("source"), "content": i.get("rawContent", i.get("contentSummary"))}
                for i in self.injections if isinstance(i, dict)] or None

    def sections(self, heading: str = "", budget: bool = True, sent_chars: Any = None) -> list[dict]:
        """`sent_chars`: the system prompt's length the call said it was sent (its llm.start's
        `systemPromptChars`), once the call has started; the length said is that one, and the text shown is
        said to be partial when the file holds less of it (redacted, cut or left out)."""
        out: list[dict] = []
        title = SLOT_TITLE[self.slot]
        if self.slot == "system-prompt":
            prompt = self.system_prompt
            if prompt is not None:
                size = f"{len(prompt):,} characters"
                if _number(sent_chars) and sent_chars != len(prompt):
                    size = (f"{sent_chars:,} characters sent; this file holds {len(prompt):,} of them (the rest "
                            "was redacted, cut or left out)")
                out.append(_text(f"{heading}{title} · {size}", prompt))
            else:
                out.append(_note("No system prompt text in the file for this call.", f"{heading}{title}"))
        elif self.slot == "messages":
            messages = self.messages
            if messages is not None:
                out.append({"title": f"{heading}{title} · {len(messages)}", "style": "conversation",
                            "rows": message_rows(messages)})
                before = _list(self.entry.get("messages"))
                if self.closed and "messages" in self.entry and before != messages:
                    out.append({"title": f"{heading}{title} before composing · {len(before)}",
                                "style": "conversation", "rows": message_rows(before)})
            else:
                out.append(_note("No messages in the file for this call.", f"{heading}{title}"))
        else:
            rows = tool_rows(self.tools)
            if rows:
                out.append({"title": f"{heading}{title} · {len(rows)}", "style": "tools", "rows": rows})
            elif self.injections:
                out.append({"title": f"{heading}{title} · {len(self.injections)}", "style": "tools",
                            "rows": [{"name": _compact(i.get("sourceId") or i.get("contentSummary"), 120),
                                      "description": message_text(i.get("rawContent", i.get("contentSummary")))}
                                     for i in self.injections if isinstance(i, dict)]})
            else:
                out.append(_note("No tools were offered to this call.", f"{heading}{title}"))
        if self.injections:
            out.append({"title": f"{heading}Injections into the {title.lower()} · {len(self.injections)}",
                        "style": "injections", "rows": injection_rows(self.injections)})
        limits = _dict(_dict(self.exit.get("slotCompositions")).get("budget"))
        dropped = _dict(self.exit.get("slotCompositions")).get("droppedCount")
        if budget and (limits or _number(dropped)):
            used, cap = limits.get("used"), limits.get("cap")
            out.append(_facts(f"{heading}{title} budget", [
                ("used", f"{used:g} of {cap:g} characters" if _number(used) and _number(cap) else None),
                ("dropped", f"{dropped:g}" if _number(dropped) and dropped else None),
                ("dropped", "; ".join(_compact(s, 80) for s in _list(
                    _dict(self.exit.get("slotCompositions")).get("droppedSummaries"))) or None)]))
        return out


def llm_slots(run, index: int) -> dict[str, SlotContent]:
    """The slots of LLM node `index` (they are all composed before the call starts)."""
    node = run.step_fold.nodes[index]
    boundaries = _dict(node.get("slotBoundaries"))
    injections = [i for i in node.get("injections") or [] if isinstance(i, dict)]
    out: dict[str, SlotContent] = {}
    for slot, prop in SLOT_PROPERTY.items():
        boundary = _dict(boundaries.get(prop))
        if boundary:
            out[slot] = SlotContent(slot, boundary.get("entryPayload"), boundary.get("exitPayload"),
                                    [i for i in injections if i.get("slot") == slot])
    if not out:
        out = _typed_slots(run, index)
    if not out:  # a Trace without slot boundaries: at least the injections the call took
        for slot in SLOT_PROPERTY:
            mine = [i for i in injections if i.get("slot") == slot]
            if mine:
                out[slot] = SlotContent(slot, injections=mine)
    return out


def _typed_slots(run, index: int) -> dict[str, SlotContent]:
    """For a file with only the typed stream: the context.injected events since the previous llm_start, and
    the tools the llm_start lists."""
    typed = run.typed_events
    created = run.step_fold.node_created_at[index]
    anchors = run.axis.anchors or []
    if not typed or created >= len(anchors) or anchors[created] is None:
        return {}
    start_j = anchors[created]
    by_slot: dict[str, list] = {}
    for j in range(start_j - 1, -1, -1):
        event = typed[j]
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == _PREFIX + "stream.llm_start":
            break
        payload = _dict(event.get("payload")) if isinstance(event, dict) else {}
        slot = payload.get("slot")
        if kind == _PREFIX + "context.injected" and isinstance(slot, str) and slot in SLOT_PROPERTY:
            by_slot.setdefault(payload["slot"], []).insert(0, payload)
    begin = _dict(typed[start_j].get("payload")) if isinstance(typed[start_j], dict) else {}
    out = {slot: SlotContent(slot, injections=items) for slot, items in by_slot.items()}
    tools = _list(begin.get("tools"))
    if tools:
        out["tools"] = SlotContent("tools", injections=by_slot.get("tools"), tools=tools)
    return out


# ── Where a chip's slot is ──────────────────────────────────────────────────────────────────────────────


def _chip_stage(run, index: int) -> str:
    event = run.domain_events[run.step_fold.node_created_at[index]]
    return stage_prefix(event.get("runtimeStageId")) if isinstance(event, dict) else ""


def chip_boundary(run, index: int, slot: str) -> tuple[int | None, dict | None, int | None, dict | None]:
    """(entry index, entry event, exit index, exit event) of the chip's slot subflow in the DomainEvents."""
    events = run.domain_events
    prefix = _chip_stage(run, index)
    start = run.step_fold.node_created_at[index]
    entry_i = entry = None
    for i in range(start + 1, min(len(events), start + _SCAN_LIMIT)):
        event = events[i]
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        if kind == "llm.start" and stage_prefix(event.get("runtimeStageId")) == prefix:
            break
        if kind == "subflow.entry" and event.get("slotKind") == slot \
                and stage_prefix(event.get("runtimeStageId")) == prefix:
            entry_i, entry = i, event
            break
    if entry is None or entry_i is None:
        return None, None, None, None
    stage = entry.get("runtimeStageId")
    for i in range(entry_i + 1, min(len(events), entry_i + _SCAN_LIMIT)):
        event = events[i]
        if isinstance(event, dict) and event.get("type") == "subflow.exit" \
                and jsonio.same_id(event.get("runtimeStageId"), stage):
            return entry_i, entry, i, event
    return entry_i, entry, None, None


def chip_call(run, index: int) -> int | None:
    """The LLM node a slot chip belongs to: the next LLM call of the same agent."""
    prefix = _chip_stage(run, index)
    fold = run.step_fold
    for later in range(index + 1, min(len(fold.nodes), index + 200)):
        node = fold.nodes[later]
        if node.get("kind") in LLM_KINDS and stage_prefix(node.get("runtimeStageId")) == prefix:
            return later
    return None


# ── Pauses (typed events only) ──────────────────────────────────────────────────────────────────────────


def pauses(run) -> list[dict]:
    """The run's pauses (`find_pauses`): the prepared views' (the window's loader found them: a big run has
    100,000+ typed events), else found now. Treat the result as read-only."""
    return run.views.pauses if run.views is not None else find_pauses(run)


def find_pauses(run) -> list[dict]:
    """Every pause.request with the pause.resume that answered it: typed indices, question, answer, wait."""
    out: list[dict] = []
    open_pause: dict | None = None
    typed = run.typed_events or []
    for j in breathing_over(indices_of(run.typed_by_type, _PREFIX + "pause.request", _PREFIX + "pause.resume")):
        event = typed[j]
        kind = event.get("type")
        if kind == _PREFIX + "pause.request":
            payload = _dict(event.get("payload"))
            question = _dict(payload.get("questionPayload"))
            open_pause = {"request": j, "resume": None, "reason": payload.get("reason"),
                          "question": question_in(payload.get("questionPayload")),
                          "toolCallId": question.get("toolCallId", payload.get("toolCallId")),
                          "toolName": question.get("toolName"), "severity": question.get("severity"),
                          "answer": None, "waitedMs": None}
            out.append(open_pause)
        elif kind == _PREFIX + "pause.resume" and open_pause is not None:
            payload = _dict(event.get("payload"))
            answer = payload.get("resumeInput")
            if isinstance(answer, dict) and "input" in answer and len(answer) == 1:
                answer = answer["input"]
            open_pause.update(resume=j, answer=answer, waitedMs=payload.get("pausedDurationMs"))
            open_pause = None
    return out


def pause_sections(run, pause: dict, n_typed: int) -> list[dict]:
    if pause["request"] >= n_typed:
        return []
    question = pause["question"]
    rows: list[tuple[str, Any]] = [
        ("question", message_text(question) if question is not None else None),
        ("tool", _str(pause["toolName"])), ("severity", _str(pause["severity"])),
        ("library's reason", _str(pause["reason"]))]
    if pause["resume"] is not None and pause["resume"] < n_typed:
        rows += [("answer", message_text(pause["answer"]) if pause["answer"] is not None else "(none)"),
                 ("waited", _ms(pause["waitedMs"]))]
    else:
        rows.append(("answer", "not given yet at this moment: the run is waiting on a person"))
    return [_facts("Paused for a person", rows)]


# ── What changed since the previous call ────────────────────────────────────────────────────────────────


def previous_call(run, index: int) -> int | None:
    """The LLM call before `index` in the same agent."""
    fold = run.step_fold
    prefix = stage_prefix(fold.nodes[index].get("runtimeStageId"))
    for earlier in range(index - 1, -1, -1):
        node = fold.nodes[earlier]
        if node.get("kind") in LLM_KINDS and stage_prefix(node.get("runtimeStageId")) == prefix:
            return earlier
    return None


def word_diff(before: str, after: str, context: int = 5) -> str:
    """A word-level diff: removed words as [-…-], added ones as {+…+}, long unchanged runs shortened to their
    first and last `context` words around "…"."""
    a, b = before.split(), after.split()
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            words = a[i1:i2]
            if len(words) > 2 * context + 1:
                words = words[:context] + ["…"] + words[-context:]
            out.append(" ".join(words))
        else:
            if i2 > i1:
                out.append("[-" + " ".join(a[i1:i2]) + "-]")
            if j2 > j1:
                out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(out)


def _message_key(row: dict) -> tuple[str, str]:
    return row["label"], row["text"]


def changes_since(run, index: int) -> dict | None:
    """Messages added and evicted, tools that entered or left, and the system prompt's word diff, against the
    previous call of the same agent (None for the first call)."""
    before_index = previous_call(run, index)
    if before_index is None:
        return None
    now, before = llm_slots(run, index), llm_slots(run, before_index)
    rows: list[dict] = []

    def messages(slots):
        content = slots.get("messages")
        return [_message_key(r) for r in message_rows(content.messages or [])] if content else []

    old, new = Counter(messages(before)), Counter(messages(now))
    for (label, text), count in (old - new).items():
        rows += [{"change": "message evicted", "what": f"{label}: {text}"}] * count
    for (label, text), count in (new - old).items():
        rows += [{"change": "message added", "what": f"{label}: {text}"}] * count

    def tools(slots):
        content = slots.get("tools")
        return [r["name"] for r in tool_rows(content.tools)] if content else []

    old_tools, new_tools = tools(before), tools(now)
    rows += [{"change": "tool left", "what": name} for name in old_tools if name not in new_tools]
    rows += [{"change": "tool entered", "what": name} for name in new_tools if name not in old_tools]
    old_prompt = before["system-prompt"].system_prompt if "system-prompt" in before else None
    new_prompt = now["system-prompt"].system_prompt if "system-prompt" in now else None
    if (old_prompt or "") != (new_prompt or ""):
        rows.append({"change": "system prompt changed", "what": word_diff(old_prompt or "", new_prompt or "")})
    label = run.step_fold.nodes[before_index].get("iterationIndex")
    title = f"Changed since the previous call (#{label})" if label is not None else "Changed since the previous call"
    if not rows:
        rows.append({"change": "nothing", "what": "the same system prompt, messages and tools"})
    return {"title": title, "style": "changes", "rows": rows}


# ── The node ────────────────────────────────────────────────────────────────────────────────────────────


def _end_event(run, facts: ReplayFacts, index: int, n_domain: int) -> dict | None:
    ended = facts.ended[index]
    if ended is None or ended >= n_domain:
        return None
    event = run.domain_events[ended]
    return event if isinstance(event, dict) else None


def _timing(node: dict, done: bool) -> str | None:
    start: Any = node.get("startOffsetMs")
    stop: Any = node.get("endOffsetMs")
    if not _number(start):
        return None
    if done and _number(stop):
        return f"+{start:g} ms → +{stop:g} ms ({stop - start:g} ms)"
    return f"started at +{start:g} ms" + ("" if done else ", not ended at this moment")


def _took(node: dict, end: dict) -> str | None:
    """How long a returned tool call took: the time between its start and end, as its card says; the tool's own
    measure (`durationMs`, its clock's ms, rounded apart from the events') is added when it differs."""
    start: Any = node.get("startOffsetMs")
    stop: Any = node.get("endOffsetMs")
    measured = end.get("durationMs")
    if not (_number(start) and _number(stop)):
        return _ms(measured)
    took = f"{max(0, stop - start):g} ms"
    if _number(measured) and measured != stop - start:
        took += f" (the tool measured {measured:g} ms)"
    return took


def _step_facts(node: dict, state: str, extra: list[tuple[str, Any]]) -> dict:
    path = node.get("subflowPath")
    return _facts("Step", [("state", STATE_WORDS.get(state, state)), *extra,
                           ("timing", _timing(node, state == DONE)),
                           ("iteration", node.get("iterationIndex")),
                           ("path", _id(subflow_path_text(path), "subflow path"))])


def inspect_node(run, facts: ReplayFacts | None, index: int, position: int | None = None,
                 prices: PriceTable | None = None) -> dict:
    """The readable model of StepGraph node `index` as known at axis `position` (default: the end); with a price
    table (cost.py), an ended LLM call also says what it cost."""
    facts = facts or ReplayFacts(run)
    position = facts.length if position is None else max(0, min(int(position), facts.length))
    n_domain = facts.effective_domain[position]
    n_typed = run.axis.typed_before[position]
    node = facts.nodes[index]
    kind = node.get("kind")
    state = facts.node_state(index, n_domain, position)
    out = {"node": node.get("id"), "index": index, "kind": kind, "label": node.get("label"), "state": state,
           "position": position, "sections": []}
    sections: list[dict] = out["sections"]
    if state == NOT_STARTED:
        sections.append(_note("This step starts later: move the cursor on (or use “Show when it ended”) to see "
                              "what it saw, sent and received."))
        return out
    done = state == DONE
    if kind in LLM_KINDS:
        sections += _llm_sections(run, facts, index, node, n_domain, done, prices)
    elif kind == "llm->tool":
        sections += _tool_sections(run, facts, index, node, n_domain, n_typed, done)
    elif kind == "llm->user":
        sections.append(_step_facts(node, state, []))
        sections.append(_text("Answer to the user", message_text(node.get("assistantText"))
                              if node.get("assistantText") is not None else "(no text)"))
    elif kind == "subflow":
        sections += _subflow_sections(run, facts, index, node, position, n_domain, n_typed, done)
    elif chip_slot(node) is not None:
        sections += _chip_sections(run, facts, index, node, n_domain)
    else:
        sections += _branch_sections(run, index, node, state)
    sections += _event_sections(run, index, position)
    error = next((e for e in facts.errors if e.node == index and e.position <= position), None)
    if error is not None and not any(section["style"] == "error" for section in sections):
        text = error.message if error.detail is None else f"{error.message}\n\n{error.detail}"
        sections.append(_text("Error" if error.kind == "tool" else "The run failed here", text, "error"))
    never_ended = facts.ended[index] is None  # (a finished run's step the fold never closed is drawn done)
    if error is not None and error.kind in ("fatal", "run") and (state != DONE or never_ended):
        _say_state(sections, "failed (it never ended)")  # it is not "in progress": it failed and will never end
    elif state == DONE and never_ended:
        failed = any(e.kind in ("fatal", "run") for e in facts.errors_known(position))
        _say_state(sections, "cut short: it never ended (the run failed)" if failed
                   else "never ended (the run finished before it did)")
    return out


def _say_state(sections: list[dict], words: str) -> None:
    for section in sections:
        for row in section.get("rows", ()) if section.get("title") == "Step" else ():
            if row.get("label") == "state":
                row["value"] = words


def _llm_sections(run, facts, index, node, n_domain, done, prices: PriceTable | None = None) -> list[dict]:
    begin = run.domain_events[run.step_fold.node_created_at[index]]
    begin = begin if isinstance(begin, dict) else {}
    end = _end_event(run, facts, index, n_domain)
    model = node.get("llmModel", begin.get("model"))
    provider = _str(begin.get("provider"))
    tokens = node.get("tokens") if done else None
    sizes = [f"{label} {begin[key]}" for key, label in (("systemPromptChars", "system-prompt chars"),
             ("messagesCount", "messages"), ("toolsCount", "tools")) if _number(begin.get(key))]
    rows: list[tuple[str, Any]] = [
        ("model", None if model is None else f"{_compact(model, 80)}" + (f" ({provider})" if provider else "")),
        ("sent", "  ·  ".join(sizes) or None),
        ("tokens", f"{_compact(tokens.get('in'))} in · {_compact(tokens.get('out'))} out"
         if isinstance(tokens, dict) else None),
        ("cost", cost_text(prices, node) if prices is not None and isinstance(tokens, dict) else None),
        ("stop reason", _str(end.get("stopReason")) if end else None)]
    out = [_step_facts(node, DONE if done else "active", rows)]
    if "toolResult" in node:
        out.append(_text("Tool result it was given", as_text(node["toolResult"])))
    if end is not None:
        content = end.get("content")
        out.append(_text("Response", message_text(content) if content else "(no text: it asked for tools)"))
    else:
        out.append(_note("The response, tokens and stop reason are known once the call returns."))
    slots = llm_slots(run, index)
    changes = changes_since(run, index) if slots else None
    if changes is not None:
        out.append(changes)
    for slot in ("system-prompt", "messages", "tools"):
        if slot in slots:
            out += slots[slot].sections(budget=False, sent_chars=begin.get("systemPromptChars"))
    if not slots:
        out.append(_note("The file does not hold what was sent to this call (no slot boundaries, no injections).",
                         "Sent to the model"))
    return out


def _tool_sections(run, facts, index, node, n_domain, n_typed, done) -> list[dict]:
    begin = run.domain_events[run.step_fold.node_created_at[index]]
    call_id = begin.get("toolCallId") if isinstance(begin, dict) else None
    end = _end_event(run, facts, index, n_domain)
    shown_call = _id(call_id, "tool call id") or (None if call_id is None else _compact(call_id, 80))
    rows: list[tuple[str, Any]] = [("tool", _str(node.get("toolName"))), ("call id", shown_call),
                                   ("took", _took(node, end) if end else None)]
    out = [_step_facts(node, DONE if done else "active", rows)]
    for pause in pauses(run):  # first: while paused it is what matters
        if pause["toolCallId"] is not None and jsonio.same_id(pause["toolCallId"], call_id):
            out += pause_sections(run, pause, n_typed)
    if node.get("assistantText"):
        out.append(_text("The assistant said", message_text(node["assistantText"])))
    out.append(_text("Arguments", as_text(node["toolArgs"]) if "toolArgs" in node else "(none recorded)"))
    if end is not None:
        if end.get("error"):
            out.append(_text("Result (the tool failed)", as_text(end.get("result", end.get("error"))), "error"))
        else:
            out.append(_text("Result", as_text(end["result"]) if "result" in end else "(no result recorded)"))
    else:
        out.append(_note("The result is known once the call returns."))
    return out


def _subflow_sections(run, facts, index, node, position, n_domain, n_typed, done) -> list[dict]:
    from afp_desktop.core.model.bubble import rollups

    is_run = node.get("primitiveKind") == "Run"
    rows: list[tuple[str, Any]] = [("kind", _str(node.get("primitiveKind")))]
    rollup = rollups(run, index, n_domain)
    if rollup is not None:
        rows += [("inside it", f"{rollup.llm_calls} LLM call(s), {rollup.tool_calls} tool call(s), "
                               f"{rollup.iterations} loop iteration(s)"),
                 ("tokens", f"{rollup.tokens_in:g} in · {rollup.tokens_out:g} out")]
    out = [_step_facts(node, DONE if done else "active", rows)]
    entry = resolve_quietly(node.get("entryPayload"))
    if is_run:
        message = entry.get("message") if isinstance(entry, dict) and "message" in entry else entry
        out.append(_text("What the user sent", message_text(message) if message is not None
                         else "(nothing recorded: a resumed run carries no message)"))
    elif entry is not None:
        out.append(_text("Entry payload", as_text(entry)))
    failed = facts.failed
    if is_run and failed is not None and failed.position <= position:
        text = failed.message if failed.detail is None else f"{failed.message}\n\n{failed.detail}"
        out.append(_text("The run failed", text, "error"))
    elif done and "exitPayload" in node:
        exit_payload = resolve_quietly(node["exitPayload"])
        if is_run:
            answer = exit_payload.get("content", exit_payload) if isinstance(exit_payload, dict) else exit_payload
            out.append(_text("Final answer", message_text(answer)))
        else:
            out.append(_text("Exit payload", as_text(exit_payload)))
    elif not done and facts.ended[index] is None:
        out.append(_note("It never exits in this file" + (" (the run paused; the resumed leg is a new Run)"
                                                           if pauses(run) else "") + ".", "How it ended"))
    elif not done:
        out.append(_note("How it ended is known once it exits."))
    if is_run:
        for pause in pauses(run):
            out += pause_sections(run, pause, n_typed)
    return out


def _event_sections(run, index: int, position: int) -> list[dict]:
    """The step's retries, circuit-breaker changes and fallbacks (each attempt's error, wait and reason), and its
    findings, as known at `position`."""
    from afp_desktop.core.views.run_facts import facts_of_run  # (run_facts reads the replay, as this does)

    known = facts_of_run(run)
    out = []
    ticks = known.of_step(known.costs, index, position)
    if ticks:
        spent = [usd for t in ticks if (usd := _usd_of(t.payload.get("estimatedUsd"))) is not None]
        cumulative = ticks[-1].payload.get("cumulative")
        so_far = _usd_of(cumulative.get("estimatedUsd")) if isinstance(cumulative, dict) else None
        out.append(_facts("Cost (the library's estimate)", [
            ("this call", f"${sum(spent):.6g}" if spent else None),
            ("the run so far", f"${so_far:.6g}" if so_far is not None else None)]))
    chunks = known.of_step(known.thinking, index, position)
    if chunks:  # (streamed: as much as had arrived by then)
        text = "".join(c.payload["content"] for c in chunks if isinstance(c.payload.get("content"), str))
        out.append(_text("What the model thought (streamed)", text))
    for summary in known.of_step(known.thinking_ends, index, position)[-1:]:
        p = summary.payload
        out.append(_facts("Reasoning", [("blocks", _compact(p.get("blockCount"))),
                                        ("characters", _compact(p.get("totalChars"))),
                                        ("tokens", _compact(p["tokens"]) if "tokens" in p else None)]))
    wrapped = known.resilience.of_step(index, position)
    if wrapped:
        out.append(_facts("Retries, breaker and fallbacks", [(e.label, e.text) for e in wrapped]))
    found = [f for f in known.findings.known(position) if f.node == index]
    if found:
        out.append(_facts("Findings", [(f.kind, f.message) for f in found]))
    return out


def _usd_of(value: Any) -> float | None:
    """A cost the library estimated: a finite number, else None."""
    return float(value) if _number(value) and value == value and abs(value) != float("inf") else None


def _chip_sections(run, facts, index, node, n_domain) -> list[dict]:
    slot = chip_slot(node)
    assert slot is not None  # (called for slot chips only)
    call = chip_call(run, index)
    entry_i, entry, exit_i, exit_event = chip_boundary(run, index, slot)
    rows: list[tuple[str, Any]] = [("slot", SLOT_TITLE[slot])]
    if call is not None:
        rows.append(("for the call", f"{facts.nodes[call].get('label')} #{facts.nodes[call].get('iterationIndex')}"))
    out = [_facts("Context slot", rows)]
    sent = None  # (the length the call says it was sent, once it has started: not before)
    if call is not None and facts.created[call] < n_domain:
        begin = run.domain_events[facts.created[call]]
        sent = begin.get("systemPromptChars") if isinstance(begin, dict) else None
    if exit_event is not None and entry is not None and exit_i is not None and exit_i < n_domain:
        stage = str(entry.get("runtimeStageId")).split("#", 1)[0] + "/"  # its compose stages live under it
        injections = [e for e in run.domain_events[entry_i:exit_i] if isinstance(e, dict)
                      and e.get("type") == "context.injected" and str(e.get("runtimeStageId")).startswith(stage)]
        out += SlotContent(slot, entry.get("payload"), exit_event.get("payload"), injections).sections(
            sent_chars=sent)
    elif entry is not None and entry_i < n_domain:
        out.append(_note("Being composed at this moment: its content is known when the slot closes."))
    elif call is not None and facts.created[call] < n_domain:
        slots = llm_slots(run, call)  # no slot boundary in the file: what the call shows for this slot
        if slot in slots:
            out += slots[slot].sections(sent_chars=sent)
        else:
            out.append(_note("The file does not hold this slot's content.", "Content"))
    else:
        out.append(_note("This slot is composed a moment later: its content is known when the slot closes."))
    return out


def _branch_sections(run, index, node, state) -> list[dict]:
    event = run.domain_events[run.step_fold.node_created_at[index]]
    event = event if isinstance(event, dict) else {}
    if node.get("kind") == "decision-branch":
        rows = [("chosen", _compact(event.get("chosen"), 200)), ("decided by", _str(event.get("decider"))),
                ("why", _str(event.get("rationale")))]
        return [_facts("Decision", rows)]
    return [_facts("Branch", [("branch", _compact(node.get("label"), 200)),
                              ("of", _id(event.get("parentSubflowId"), "parent subflow id"))])]
