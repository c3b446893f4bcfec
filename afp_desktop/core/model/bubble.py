"""What the chat-bubble preview shows at a cursor position, every line a template map produces over a run, and
the per-boundary rollups of subflow nodes (PROJECTIONS.md §6, §2.9). Pure, no Qt.

  BubbleModel(run).at(position, templates, app_name) -> BubbleView
  derived_status_timeline(domain_events)   the status a Trace lets us derive (LLM and tool starts and ends only)
  status_states_for(run)                   (states per prefix, derived?) for the typed stream or the Trace
  template_key_used(state, templates)      the key of the ladder that rendered the line
  all_lines(run, templates, app_name)      every distinct line with how often and where it appears
  rollups(run, node_index, upto=None)      §2.9 counts inside a subflow node's boundary
  event_positions(run)                     the axis position right after each DomainEvent / typed event

Positions are axis positions (see axis.py): position p means the first p axis entries have happened.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Iterator

from afp_desktop.core.library.conventions import is_agent_internal
from afp_desktop.core.library.events import domain_indices_of
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.jsonx.lazyjson import resolve_quietly
from afp_desktop.core.library.status import template_ladder, render_status_line, streaming_template  # (§6.5's ladder)
from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.model.stop_lines import line_of, streaming_line

_TURN_START = "agentfootprint.agent.turn_start"
_TURN_END = "agentfootprint.agent.turn_end"


@dataclass(frozen=True)
class BubbleView:
    position: int
    prompt: str | None            # the user's message, once it has happened
    state: dict | None            # selectStatus (or the derived state for a Trace); None = bubble hidden
    line: str | None              # renderStatusLine of `state`
    template_key: str | None      # the key of the template that produced `line`
    derived: bool                 # True for a Trace: the state was derived from DomainEvents only
    answer: str | None            # the latest answer produced so far
    answer_source: str | None     # "run.exit" | "agent.turn_end" | "llm->user"

    @property
    def hidden(self) -> bool:
        return self.state is None


# ── Status states for files without the typed stream ────────────────────────────────────────────────────


class DomainStatusSelector:
    """The part of §6.2/§6.3 a DomainEvent log supports: in-flight tool calls, then an open LLM call. Tokens,
    progress reports and pauses are not in a Trace, so there is never a streaming, progress or paused state."""

    def __init__(self) -> None:
        self._calls: dict[Any, dict] = {}  # start order; the last one is the focus (no progress to refocus)
        self._llm_active = False
        self._index = 0
        self._state: dict | None = None

    def feed(self, event: Any) -> None:
        index, self._index = self._index, self._index + 1
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "llm.start":
            self._llm_active = True
        elif kind == "llm.end":
            self._llm_active = False
        elif kind == "tool.start":
            call_id = event.get("toolCallId")
            key = f"__anon#{index}" if call_id is None else _call_key(call_id)
            self._calls.pop(key, None)  # a restarted id moves to the end: it becomes the focus
            self._calls[key] = event
        elif kind == "tool.end":
            if "toolCallId" not in event:  # an older emitter: the end closes every call (§6.2)
                self._calls.clear()
            else:
                self._calls.pop(_call_key(event["toolCallId"]), None)
        else:
            return
        self._state = self._resolve()

    def current(self) -> dict | None:
        return self._state

    def _resolve(self) -> dict | None:
        if self._calls:
            start = self._calls[next(reversed(self._calls))]
            state: dict = {"state": "tool"}
            variables: dict = {}
            if "toolName" in start:
                state["toolName"] = variables["toolName"] = start["toolName"]
            if start.get("toolCallId"):
                variables["toolCallId"] = start["toolCallId"]
            state["vars"] = variables
            return state
        if self._llm_active:
            return {"state": "idle", "vars": {}}
        return None


def _call_key(call_id: Any) -> Any:
    return jsonio.value_key(call_id)  # any JSON id, hashable


def derived_status_timeline(domain_events: list) -> list[dict | None]:
    """The derived state after every DomainEvent prefix (N + 1 entries, unchanged states shared)."""
    selector = DomainStatusSelector()
    timeline: list[dict | None] = [None]
    for event in breathing_over(domain_events):
        selector.feed(event)
        timeline.append(selector.current())
    return timeline


def status_states_for(run) -> tuple[list[dict | None], bool, list[int]]:
    """(states per prefix, derived?, prefix length per axis position): the typed stream's states when the file
    has one, else the states derived from the DomainEvents."""
    if run.status_states is not None:
        return run.status_states, False, run.axis.typed_before
    return run.derived_status_states, True, run.axis.domain_before


def template_key_used(state: dict | None, templates: dict) -> str | None:
    """The first key on the state's ladder that the map defines (the template that rendered the line)."""
    if state is None:
        return None
    return next((key for key in template_ladder(state) if isinstance(templates.get(key), str)), None)


# ── The bubble at a position ────────────────────────────────────────────────────────────────────────────


def event_positions(run) -> tuple[list[int], list[int]]:
    """Axis position right after each DomainEvent and after each typed event (computed once, with the axis)."""
    return run.axis.domain_after, run.axis.typed_after


class _Timeline:
    """Texts that take effect at axis positions; `at(p)` is the latest one that has happened."""

    def __init__(self, items: list[tuple[int, str, str]]):
        items.sort(key=lambda item: item[0])  # stable: same-position items keep their order
        self._positions = [position for position, _, _ in items]
        self.items = items

    def at(self, position: int) -> tuple[str | None, str | None]:
        i = bisect_right(self._positions, position) - 1
        return (self.items[i][1], self.items[i][2]) if i >= 0 else (None, None)


def _is_root_level(event: dict) -> bool:
    """A typed event of the outermost agent: its path holds only the agent's own internal subflows (like
    `final`), not a Sequence step or a Conditional branch (whose inner turns are not the user's chat)."""
    meta = event.get("meta")
    path = meta.get("subflowPath") if isinstance(meta, dict) else None
    return all(isinstance(segment, str) and is_agent_internal(segment) for segment in path or ())


class BubbleModel:
    """Everything the chat preview needs, precomputed once per run so each cursor move is a few lookups."""

    def __init__(self, run):
        self.length = len(run.axis)  # (not the run: it caches this model, and a cycle would outlive it: engine/collector.py)
        self.states, self.derived, self._prefix_at = status_states_for(run)
        domain_pos, typed_pos = event_positions(run)
        prompts: list[tuple[int, str, str]] = []
        answers: list[tuple[int, str, str]] = []
        for i in breathing_over(domain_indices_of(run, "run.entry", "run.exit")):
            event = run.domain_events[i]
            if event.get("subflowPath") != ["__root__"]:
                continue
            payload = resolve_quietly(event.get("payload"))  # (a large Trace's payloads are LazyJSON)
            if event.get("type") == "run.entry" and isinstance(payload, dict) and isinstance(payload.get("message"), str):
                prompts.append((domain_pos[i], payload["message"], "run.entry"))
            elif event.get("type") == "run.exit" and isinstance(payload, str):
                answers.append((domain_pos[i], payload, "run.exit"))
        for j, event in enumerate(breathing_over(run.typed_events or ())):
            kind = event.get("type") if isinstance(event, dict) else None
            if kind not in (_TURN_START, _TURN_END) or not _is_root_level(event):
                continue
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            if kind == _TURN_START and isinstance(payload.get("userPrompt"), str):
                prompts.append((typed_pos[j], payload["userPrompt"], "agent.turn_start"))
            elif kind == _TURN_END and isinstance(payload.get("finalContent"), str):
                answers.append((typed_pos[j], payload["finalContent"], "agent.turn_end"))
        if not prompts and not answers and run.typed_events:
            self._composition_chat(run.typed_events, typed_pos, prompts, answers)
        if run.typed_events is None:  # a Trace: the LLM's reply to the user is the closest thing to an answer
            fold = run.step_fold
            for node, created in breathing_over(zip(fold.nodes, fold.node_created_at)):
                if node.get("kind") == "llm->user" and isinstance(node.get("assistantText"), str):
                    answers.append((domain_pos[created], node["assistantText"], "llm->user"))
        self._prompts = _Timeline(prompts)
        self._answers = _Timeline(answers)

    @staticmethod
    def _composition_chat(typed: list, typed_pos: list[int], prompts: list, answers: list) -> None:
        """A composition's typed stream (Sequence, Conditional, Loop…) has no run-level message: its first step was
        given the user's message (the first user message injected), and its answer is its last step's reply (the
        last LLM reply before the outermost composition ends well). Both are in the file, just not at run level."""
        depth = 0
        last_reply: tuple[int, str] | None = None
        for j, event in enumerate(typed):
            kind = event.get("type") if isinstance(event, dict) else None
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            if kind == "agentfootprint.composition.enter":
                depth += 1
            elif kind == "agentfootprint.context.injected" and not prompts and depth \
                    and payload.get("source") == "user" and payload.get("slot") == "messages":
                text = payload.get("rawContent", payload.get("contentSummary"))
                if isinstance(text, str):
                    prompts.append((typed_pos[j], text, "context.injected"))
            elif kind == "agentfootprint.stream.llm_end" and isinstance(payload.get("content"), str) \
                    and payload["content"]:
                last_reply = (j, payload["content"])
            elif kind == "agentfootprint.composition.exit":
                depth -= 1
                if depth == 0 and payload.get("status") == "ok" and last_reply is not None:
                    answers.append((typed_pos[j], last_reply[1], "composition.exit"))

    def chat_texts(self) -> tuple[list[tuple[int, str, str]], list[tuple[int, str, str]]]:
        """(position, text, source) of every prompt and every answer, in order of position: at a position the
        bubble shows the latest of each that has happened (`at`)."""
        return list(self._prompts.items), list(self._answers.items)

    def state_at(self, position: int) -> dict | None:
        position = max(0, min(position, self.length))
        return self.states[self._prefix_at[position]]

    def at(self, position: int, templates: dict, app_name: str) -> BubbleView:
        position = max(0, min(position, self.length))
        state = self.state_at(position)
        prompt, _ = self._prompts.at(position)
        answer, source = self._answers.at(position)
        return BubbleView(
            position=position,
            prompt=prompt,
            state=state,
            line=render_status_line(state, app_name, templates),
            template_key=template_key_used(state, templates),
            derived=self.derived,
            answer=answer,
            answer_source=source,
        )


# ── Every line of a run ─────────────────────────────────────────────────────────────────────────────────


@dataclass
class LineUse:
    """One distinct status line: how often the bubble switched to it and the axis position of each switch."""

    line: str
    positions: list[int] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.positions)

    @property
    def first_position(self) -> int:
        return self.positions[0]


def all_lines(run, templates: dict, app_name: str) -> list[LineUse]:
    """Every distinct line the map renders over the whole run, in order of first appearance.

    An occurrence is a stretch of positions showing the line, counted where it starts (what a live viewer
    would emit, §6.7: a hidden bubble ends the stretch). Linear: consecutive prefixes share one state object,
    so each distinct state is rendered once. A reply streamed token by token into a template with `{{partial}}`
    is one line, the whole reply, counted where its stream starts: each of its shorter lines apart would be a line
    per token, their text growing with the square of the reply's length.
    """
    uses: dict[str, LineUse] = {}
    for position, line in line_uses(run, templates, app_name):
        uses.setdefault(line, LineUse(line)).positions.append(position)
    return list(uses.values())


def line_uses(run, templates: dict, app_name: str) -> Iterator[tuple[int, str]]:
    """(position, line) where each stretch of one status line starts, as line_starts gives them, but the lines
    of one call's streamed reply folded into the last (rendered once, where the stream starts)."""
    states: Any
    states, _derived, prefix_at = status_states_for(run)
    if not hasattr(states, "stream_of"):  # (a Trace's derived states never stream)
        for position, _state, line in line_starts(run, templates, app_name):
            yield position, line
        return
    streaming = streaming_template(app_name, templates)
    previous_slot: Any = object()
    previous_line: str | None = None
    stream: Any = None  # the streamed reply's latest line, and where it started, while a reply streams
    started = 0
    for position in breathing_over(range(len(run.axis) + 1)):
        k = prefix_at[position]
        slot = states.slot(k)
        if slot == previous_slot:
            continue
        previous_slot = slot
        item = line_of(states, k, streaming, app_name, templates)
        streamed = streaming_line(item)
        if streamed and stream is not None and stream.text is item.text:
            stream = item
            continue
        if stream is not None:
            line = stream.render()
            if line != previous_line:
                yield started, line
            previous_line, stream = line, None
        if streamed:
            stream, started = item, position
            continue
        if item is not None and item != previous_line:
            yield position, item
        previous_line = item
    if stream is not None and stream.render() != previous_line:
        yield started, stream.render()


def line_starts(run, templates: dict, app_name: str) -> Iterator[tuple[int, dict | None, str]]:
    """(position, state, line) where each stretch of one status line starts, in order (a hidden bubble ends a
    stretch). Consecutive prefixes share one state object, so each distinct state is rendered once."""
    states, _derived, prefix_at = status_states_for(run)
    previous_state: Any = object()
    previous_line: str | None = None
    for position in breathing_over(range(len(run.axis) + 1)):
        state = states[prefix_at[position]]
        if state is previous_state:
            continue
        previous_state = state
        line = render_status_line(state, app_name, templates)
        if line is not None and line != previous_line:
            yield position, state, line
        previous_line = line


# ── §2.9 per-boundary rollups ───────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Rollup:
    label: Any
    llm_calls: int
    tool_calls: int
    tokens_in: float
    tokens_out: float
    iterations: int
    started_at_ms: Any
    ended_at_ms: Any = None        # None while the boundary is open
    duration_ms: Any = None


def _path_of(event: dict) -> list:
    """An event's subflowPath; [] when a file gives none or something else (`true`, a string)."""
    path = event.get("subflowPath")
    return path if isinstance(path, list) else []


def rollups(run, node_index: int, upto: int | None = None) -> Rollup | None:
    """§2.9 for a subflow node (None for other kinds): counts over the events inside its boundary — from its
    entry to the exit with the same runtimeStageId (or to `upto` DomainEvents while it is open) whose
    subflowPath starts with the entry's path. Nested boundaries count in both."""
    fold = run.step_fold
    if not 0 <= node_index < len(fold.nodes) or fold.nodes[node_index].get("kind") != "subflow":
        return None
    events = run.domain_events
    end = len(events) if upto is None else min(upto, len(events))
    start = fold.node_created_at[node_index]
    if start >= end:
        return None
    entry = events[start]
    path: Any = _path_of(entry)
    keyed = not all(type(segment) is str for segment in path)  # a segment that is not a string: compare JSON
    if keyed:  # texts (comparing two lists nested 1,100 levels deep went past Python's recursion limit)
        path = jsonio.path_key(path)
    stage = entry.get("runtimeStageId")
    exit_types = ("run.exit",) if entry.get("type") == "run.entry" else ("subflow.exit",)
    llm = tools = iterations = 0
    tokens_in: float = 0
    tokens_out: float = 0
    exit_event = None
    for event in events[start:end]:
        if not isinstance(event, dict):
            continue
        segments = jsonio.path_key(event.get("subflowPath")) if keyed else _path_of(event)
        if segments[: len(path)] != path:  # (strings against anything: no deep comparison)
            continue
        kind = event.get("type")
        if kind == "llm.start":
            llm += 1
        elif kind == "tool.start":
            tools += 1
        elif kind == "loop.iteration":
            iterations += 1
        elif kind == "llm.end":
            usage: Any = event.get("usage") if isinstance(event.get("usage"), dict) else {}
            tokens_in += _number(usage.get("input"))
            tokens_out += _number(usage.get("output"))
        elif kind in exit_types and jsonio.same_id(event.get("runtimeStageId"), stage) and event is not entry:
            exit_event = event
            break
    started = entry.get("ts")
    ended = exit_event.get("ts") if exit_event is not None else None
    duration = ended - started if isinstance(ended, (int, float)) and isinstance(started, (int, float)) else None
    label = entry.get("subflowName", fold.nodes[node_index].get("label"))
    return Rollup(label, llm, tools, tokens_in, tokens_out, iterations, started, ended, duration)


def _number(value: Any) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
