"""Status line — the chat-bubble "thinking" surface (PROJECTIONS.md §6). Pure, no Qt.

  DEFAULT_TEMPLATES, PROGRESS_MESSAGE_LIMIT   §6.6, §6.4
  progress_message_of(payload)               §6.4  progressMessageOf
  StatusSelector                             §6.2 + §6.3 as an incremental state machine (feed / current)
  select_status(events)                      §6.2 + §6.3 selectStatus (one forward walk)
  status_timeline(events)                    the state after every prefix k = 0..N, linear (scrubbing)
  render_status_line(state, app_name, ...)   §6.5  renderStatusLine (key ladder + {{name}} substitution)
  streaming_template(app_name, templates)    a streaming state's line from its partial alone
  template_variables, spaced_placeholders,   template-editor helpers built on §6.5 (which variables a
  VARS_BY_STATE, state_for_template_key,     template at a given key can use)
  variables_for_template_key, unknown_variables

States are plain dicts shaped exactly like the library's JSON: `{"state", "toolName"?, "vars"}`, where an
absent key and a JSON null are different things. A state handed out is never mutated afterwards, so
consecutive prefixes can share one object.
"""

from __future__ import annotations

import re
from array import array
from typing import Any, Iterable, Iterator

from afp_desktop.core.library.jsstring import UNDEFINED, js_length, js_slice_units, js_string, js_trim
from afp_desktop.core.library.template_render import PLACEHOLDER, compiled
from afp_desktop.core.breathing import breathing_over

DEFAULT_TEMPLATES: dict[str, str] = {
    "idle": "Thinking\u2026",
    "streaming": "{{partial}}",
    "tool": "Working on `{{toolName}}`\u2026",
    "paused": "Waiting on you: {{question}}",
    "tool.progress": "{{progressMessage}}",
    "tool.progress.generic": "`{{toolName}}` reported progress ({{progressCount}} so far)\u2026",
}

PROGRESS_MESSAGE_LIMIT = 120

_PREFIX = "agentfootprint."
_PAUSE_REQUEST = _PREFIX + "pause.request"
_PAUSE_RESUME = _PREFIX + "pause.resume"
_TOOL_START = _PREFIX + "stream.tool_start"
_TOOL_PROGRESS = _PREFIX + "stream.tool_progress"
_TOOL_END = _PREFIX + "stream.tool_end"
_LLM_START = _PREFIX + "stream.llm_start"
_LLM_END = _PREFIX + "stream.llm_end"
_TOKEN = _PREFIX + "stream.token"


# ── §6.4 ────────────────────────────────────────────────────────────────────────────────────────────────


def progress_message_of(payload) -> str | None:
    """The tool author's `message`, trimmed and cut to 120 UTF-16 units with the cut stated; else None."""
    if not isinstance(payload, dict):
        return None
    message = payload.get("message")
    if not isinstance(message, str):
        return None
    text = js_trim(message)
    length = js_length(text)
    if length == 0:
        return None
    if length <= PROGRESS_MESSAGE_LIMIT:
        return text
    return f"{js_slice_units(text, PROGRESS_MESSAGE_LIMIT)}\u2026 (+{length - PROGRESS_MESSAGE_LIMIT} more)"


# ── §6.2 / §6.3 ─────────────────────────────────────────────────────────────────────────────────────────


def _js_truthy(value) -> bool:
    """JavaScript truthiness of a JSON value: empty arrays and objects are truthy, unlike in Python."""
    if value is None or value is False:
        return False
    if isinstance(value, (str, int, float)):
        return bool(value) and value == value  # "" and 0 are falsy; so is NaN
    return True


def _map_key(call_id):
    """The in-flight map key for a non-null id, with JavaScript `Map` identity: "1", 1 and true are three
    keys, 1 and 1.0 one; an object id is a fresh object that nothing can ever match again."""
    if isinstance(call_id, str):
        return call_id
    if isinstance(call_id, bool):
        return ("bool", call_id)
    if isinstance(call_id, (int, float)):
        return ("number", float(call_id))
    return object()


class _InFlightCall:
    """One started, not yet ended tool call with its progress tally (§6.2 `inFlight` entry)."""

    __slots__ = ("tool_name", "tool_call_id", "progress_count", "last_message")

    def __init__(self, tool_name, tool_call_id):
        self.tool_name = tool_name  # UNDEFINED when the start carried no toolName key
        self.tool_call_id = tool_call_id  # kept only if truthy, else None
        self.progress_count = 0
        self.last_message: str | None = None

    def recipe(self) -> "_ToolRecipe":
        return _ToolRecipe(self.tool_name, self.tool_call_id, self.progress_count, self.last_message)


class _ToolRecipe:
    """A tool state as its four facts (~100 bytes) rather than its two dicts (~450): a long run has one per
    progress report. StatusTimeline builds the state when it is read."""

    __slots__ = ("tool_name", "tool_call_id", "progress_count", "last_message")

    def __init__(self, tool_name, tool_call_id, progress_count: int, last_message: str | None) -> None:
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id
        self.progress_count = progress_count
        self.last_message = last_message

    def __reduce__(self):
        """Pickled as its four facts (the default form adds a dict of them to each, which an unpickler keeps until
        it has read the whole value: a long run has one per progress report)."""
        return _ToolRecipe, (self.tool_name, self.tool_call_id, self.progress_count, self.last_message)

    def state(self) -> dict:
        state: dict = {"state": "tool"}
        variables: dict = {}
        if self.tool_name is not UNDEFINED:
            state["toolName"] = variables["toolName"] = self.tool_name
        if self.tool_call_id is not None:
            variables["toolCallId"] = self.tool_call_id
        if self.progress_count > 0:
            variables["progressCount"] = str(self.progress_count)
        if self.last_message is not None:
            variables["progressMessage"] = self.last_message
        state["vars"] = variables
        return state


class StatusSelector:
    """selectStatus as a state machine: `feed` one event at a time, `current()` for the prefix fed so far.

    `current()` returns the same object until an event that can change the state arrives, so a timeline of
    every prefix shares one state across the runs of events the status line ignores.
    """

    def __init__(self) -> None:
        self._index = 0  # position of the next event: `i` in §6.2 (used for anonymous call keys)
        self._pause_vars: dict | None = None
        # In start order: a restarted key moves to the end, so the last entry has the greatest startSeq.
        self._calls: dict = {}
        # Keys of calls that have reported, in report order: the last one has the greatest lastProgressSeq.
        self._reported: dict = {}
        self._llm_active = False
        self._partial = ""  # tokens since the active llm_start, already joined
        self._pending_tokens: list[str] = []  # tokens not yet joined into _partial (joined on demand)
        self._partial_length = 0  # of _partial and the pending tokens together
        self._generation = 0  # how many times the partial was reset
        self.finished_partials: list[str] | None = None  # when a list: each reset partial, in order (status_timeline)
        self._state: dict | None = None
        self._stale = False

    def feed(self, event) -> None:
        index = self._index
        self._index += 1
        if not isinstance(event, dict):
            return
        kind = event.get("type")
        handler = self._HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            payload = event.get("payload")
            handler(self, payload if isinstance(payload, dict) else {}, index)

    def current(self) -> dict | None:
        if self._stale:
            self._state = self._resolve()
            self._stale = False
        return self._state

    # Event handlers: each marks the state stale only when the event can change it.

    def _on_pause_request(self, payload: dict, index: int) -> None:
        reason = payload.get("reason")
        pause_vars = {"question": "input required" if reason is None else reason}
        if _js_truthy(payload.get("toolCallId")):
            pause_vars["toolCallId"] = payload["toolCallId"]
        self._pause_vars = pause_vars
        self._stale = True

    def _on_pause_resume(self, payload: dict, index: int) -> None:
        if self._pause_vars is not None:
            self._pause_vars = None
            self._stale = True

    def _on_tool_start(self, payload: dict, index: int) -> None:
        call_id = payload.get("toolCallId")
        key = f"__anon#{index}" if call_id is None else _map_key(call_id)
        # Replacing a call starts it afresh: a new startSeq and no reports.
        self._calls.pop(key, None)
        self._reported.pop(key, None)
        self._calls[key] = _InFlightCall(payload.get("toolName", UNDEFINED), call_id if _js_truthy(call_id) else None)
        self._stale = True

    def _on_tool_progress(self, payload: dict, index: int) -> None:
        if "toolCallId" in payload:
            call_id = payload["toolCallId"]
            key = None if call_id is None else _map_key(call_id)  # a null id never matches
            if key not in self._calls:
                return  # a report for a call that already ended (or never started)
        elif len(self._calls) == 1:
            key = next(iter(self._calls))
        else:
            return  # anonymous and ambiguous: a guess could put one call's words under another's name
        call = self._calls[key]
        call.progress_count += 1
        call.last_message = progress_message_of(payload.get("payload"))
        self._reported.pop(key, None)
        self._reported[key] = None
        self._stale = True

    def _on_tool_end(self, payload: dict, index: int) -> None:
        if "toolCallId" not in payload:  # an older emitter: the end closes every call
            if self._calls:
                self._calls.clear()
                self._reported.clear()
                self._stale = True
            return
        call_id = payload["toolCallId"]
        if call_id is None:
            return
        key = _map_key(call_id)
        if self._calls.pop(key, None) is not None:
            self._reported.pop(key, None)
            self._stale = True

    def _on_llm_start(self, payload: dict, index: int) -> None:
        self._llm_active = True
        self._reset_partial()
        self._stale = True

    def _on_llm_end(self, payload: dict, index: int) -> None:
        if self._llm_active:
            self._llm_active = False
            self._reset_partial()
            self._stale = True

    def _reset_partial(self) -> None:
        if self.finished_partials is not None:
            self.finished_partials.append(self._joined_partial())
        self._generation += 1
        self._partial = ""
        self._pending_tokens = []
        self._partial_length = 0

    def _joined_partial(self) -> str:
        if self._pending_tokens:
            self._partial += "".join(self._pending_tokens)
            self._pending_tokens = []
        return self._partial

    def _on_token(self, payload: dict, index: int) -> None:
        if not self._llm_active:
            return  # only tokens after the active llm_start count, and the next llm_start resets the buffer
        text = js_string(payload.get("content", UNDEFINED))  # JS `partial += undefined` appends "undefined"
        if text:
            self._pending_tokens.append(text)
            self._partial_length += len(text)
            self._stale = True

    _HANDLERS = {
        _PAUSE_REQUEST: _on_pause_request,
        _PAUSE_RESUME: _on_pause_resume,
        _TOOL_START: _on_tool_start,
        _TOOL_PROGRESS: _on_tool_progress,
        _TOOL_END: _on_tool_end,
        _LLM_START: _on_llm_start,
        _LLM_END: _on_llm_end,
        _TOKEN: _on_token,
    }

    def _resolve(self) -> dict | None:
        recipe = self._recipe()
        if isinstance(recipe, _ToolRecipe):
            return recipe.state()
        if isinstance(recipe, int):
            return {"state": "streaming", "vars": {"partial": self._joined_partial()}}
        return recipe

    def _recipe(self) -> "dict | None | _ToolRecipe | int":
        """§6.3: pause, then the focused in-flight call, then the active LLM call, else hidden. A tool state comes
        as its _ToolRecipe and a streaming one as its partial's length (an int), so that status_timeline can
        keep them small."""
        if self._pause_vars is not None:
            return {"state": "paused", "vars": self._pause_vars}  # never mutated: a new request makes a new dict
        if self._calls:
            focus_key = next(reversed(self._reported)) if self._reported else next(reversed(self._calls))
            return self._calls[focus_key].recipe()
        if self._llm_active:
            if self._partial_length:
                return self._partial_length
            return {"state": "idle", "vars": {}}
        return None


def select_status(events: Iterable) -> dict | None:
    """selectStatus(events): the status state after the whole list (None = bubble hidden)."""
    selector = StatusSelector()
    for event in events:
        selector.feed(event)
    return selector.current()


def status_timeline(events: Iterable) -> "StatusTimeline":
    """The state after every prefix k = 0..N (N + 1 entries); unchanged states are the same object."""
    selector = StatusSelector()
    texts: list[str] = []
    selector.finished_partials = texts
    timeline = StatusTimeline(texts)
    slots, entries = timeline._slots, timeline._entries
    stream_generation, stream_length = timeline._stream_generation, timeline._stream_length
    slots.append(0)
    entries.append(None)
    for event in breathing_over(events):
        kind = event.get("type") if type(event) is dict else None
        # A token of the active call, no pause and no tool in flight (most of a run's events): the state is the
        # partial's new length, set here as feed and _recipe would (the walk of select_status is the reference).
        if kind == _TOKEN and selector._llm_active and not selector._calls and selector._pause_vars is None:
            payload = event.get("payload")
            text = payload.get("content") if type(payload) is dict else None
            if type(text) is str:
                selector._index += 1
                if text:
                    selector._pending_tokens.append(text)
                    selector._partial_length += len(text)
                    slots.append(-1 - len(stream_length))
                    stream_generation.append(selector._generation)
                    stream_length.append(selector._partial_length)
                else:
                    slots.append(slots[-1])
                continue
        # A progress report of a call in flight, named by a str id, no pause (the rest of a run's events): that call
        # reports and is the focus, as _on_tool_progress and _recipe would have it.
        elif kind == _TOOL_PROGRESS and selector._pause_vars is None and type(payload := event.get("payload")) is dict:
            call_id = payload.get("toolCallId")
            if type(call_id) is str and call_id in selector._calls:
                selector._index += 1
                call = selector._calls[call_id]
                call.progress_count += 1
                call.last_message = progress_message_of(payload.get("payload"))
                reported = selector._reported
                reported.pop(call_id, None)
                reported[call_id] = None
                slots.append(len(entries))
                entries.append(call.recipe())
                continue
        selector.feed(event)
        if not selector._stale:
            slots.append(slots[-1])
            continue
        selector._stale = False  # (this selector is never asked for current(): only its recipes are kept)
        recipe = selector._recipe()
        if type(recipe) is int:
            slots.append(-1 - len(stream_length))
            stream_generation.append(selector._generation)
            stream_length.append(recipe)
        else:
            slots.append(len(entries))
            entries.append(recipe)
    texts.append(selector._joined_partial())  # the last partial, never reset
    return timeline


class StatusTimeline:
    """status_timeline's states, kept small: a long run has a state per token (each holding the whole partial
    text so far: ~600 bytes) and per tool progress report (~450 bytes). A streaming state is kept as its call's
    final text and a length, a tool state as a _ToolRecipe; both are built when read.

    Reading it like a list gives what the list of states gave: `timeline[k]`, iteration, `len`, `==` (with a
    list too). Consecutive prefixes whose state did not change give the same object; a streaming or tool state
    read again after another one is an equal new object.
    """

    __slots__ = ("_slots", "_entries", "_stream_generation", "_stream_length", "_texts", "_memo")

    def __init__(self, texts: list[str]) -> None:
        self._slots = array("q")  # per prefix: an index in _entries, or -1 - an index in the _stream_ arrays
        self._entries: list[Any] = []  # distinct states: a dict, None or a _ToolRecipe
        self._stream_generation = array("q")  # per streaming state: its partial's text in _texts
        self._stream_length = array("q")  # and how much of that text it has
        self._texts = texts
        self._memo: tuple[int, Any] = (0, None)  # (slot, state) of the last state built (slot 0 is None)

    def __len__(self) -> int:
        return len(self._slots)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self._slots)))]
        slot = self._slots[k]
        memo = self._memo
        if memo[0] == slot:
            return memo[1]
        if slot >= 0:
            entry = self._entries[slot]
            if type(entry) is not _ToolRecipe:
                return entry
            state = entry.state()
        else:
            stream = -1 - slot
            text = self._texts[self._stream_generation[stream]]
            state = {"state": "streaming", "vars": {"partial": text[:self._stream_length[stream]]}}
        self._memo = (slot, state)
        return state

    def __iter__(self) -> Iterator[dict | None]:
        for k in range(len(self._slots)):
            yield self[k]

    def slot(self, k: int) -> int:
        """Which state prefix k has: consecutive prefixes with the same slot have the same state."""
        return self._slots[k]

    def stream_of(self, k: int) -> tuple[str, int] | None:
        """For a streaming state: its call's final text and the length of it the partial has (the partial
        itself is not copied: a long answer has one per token, their text growing with the square of its
        length). Else None."""
        slot = self._slots[k]
        if slot >= 0:
            return None
        stream = -1 - slot
        return self._texts[self._stream_generation[stream]], self._stream_length[stream]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (StatusTimeline, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # like the list it stands for

    def __repr__(self) -> str:
        return f"StatusTimeline({len(self)} states)"


# ── §6.5 ────────────────────────────────────────────────────────────────────────────────────────────────

_SPACED_PLACEHOLDER = re.compile(r"\{\{(\s*)[A-Za-z0-9_]+(\s*)\}\}")


def template_ladder(state: dict) -> list[str]:
    """Candidate template keys for a state, most specific first."""
    kind = state.get("state")
    if kind != "tool":
        return [kind] if isinstance(kind, str) else []
    has_name = "toolName" in state
    per_tool = f"tool.{js_string(state['toolName'])}" if has_name else ""
    plain = [per_tool, "tool"] if has_name else ["tool"]
    variables = state.get("vars") or {}
    if "progressMessage" in variables:
        return ([per_tool + ".progress"] if has_name else []) + ["tool.progress"] + plain
    if "progressCount" in variables:
        return ([per_tool + ".progress.generic"] if has_name else []) + ["tool.progress.generic"] + plain
    return plain


def render_status_line(state: dict | None, app_name="Agent", templates: dict | None = None) -> str | None:
    """renderStatusLine: the first template on the state's key ladder, with `{{name}}` substituted once.

    A defined empty template renders ""; no template on the ladder renders None. (A non-string template
    value, which would make the library throw, is passed over like a missing key.) A line longer than its
    template and values allow is cut, and says so (template_render: a template repeating a long value).
    """
    if state is None:
        return None
    if templates is None:
        templates = DEFAULT_TEMPLATES
    template = next(
        (templates[key] for key in template_ladder(state) if isinstance(templates.get(key), str)), None
    )
    if template is None:
        return None
    return compiled(template).render({"appName": app_name, **(state.get("vars") or {})})


class StreamingTemplate:
    """The streaming template with its app name: `line(partial)` is what render_status_line gives the streaming
    state of that partial, without building the state; `fixed` is the one line of every partial when the
    template does not use it (else None)."""

    __slots__ = ("template", "app_name", "fixed", "blank")

    def __init__(self, template: str, app_name) -> None:
        self.template = compiled(template)
        self.app_name = app_name
        self.fixed = None if self.template.uses("partial") else self.line("")
        self.blank = self.line("") == ""  # (the line of an empty partial)

    def line(self, partial: str) -> str:
        return self.template.render({"appName": self.app_name, "partial": partial})


def streaming_template(app_name="Agent", templates: dict | None = None) -> StreamingTemplate | None:
    """The map's streaming template with the app name; None when no streaming template is defined."""
    template = (templates if templates is not None else DEFAULT_TEMPLATES).get("streaming")
    if not isinstance(template, str):
        return None
    return StreamingTemplate(template, app_name)


# ── Template-editor helpers (built on §6.5) ─────────────────────────────────────────────────────────────

VARS_BY_STATE: dict[str, list[str]] = {
    "idle": ["appName"],
    "streaming": ["appName", "partial"],
    "tool": ["appName", "toolName", "toolCallId", "progressCount", "progressMessage"],
    "paused": ["appName", "question", "toolCallId"],
}


def template_variables(template: str) -> list[str]:
    """Names the template uses as `{{name}}` (substituted), in order of first use."""
    return list(dict.fromkeys(PLACEHOLDER.findall(template)))


def spaced_placeholders(template: str) -> list[str]:
    """Placeholders written with spaces, like `{{ name }}`: the renderer leaves them in the line as-is."""
    found = (m.group(0) for m in _SPACED_PLACEHOLDER.finditer(template) if m.group(1) or m.group(2))
    return list(dict.fromkeys(found))


def state_for_template_key(key: str) -> str | None:
    """The state a template key renders: "idle"/"streaming"/"paused", "tool" for "tool" and every
    "tool.…" key (per-tool, progress and generic-progress keys); None for a key no ladder ever reaches."""
    if key in ("idle", "streaming", "paused", "tool"):
        return key
    if key.startswith("tool."):
        return "tool"
    return None


def variables_for_template_key(key: str) -> list[str]:
    """Variables a template at this key can receive. A generic-progress key is chosen only when the report
    had no message, so it never gets `progressMessage`; a progress key always has it (and progressCount)."""
    state = state_for_template_key(key)
    if state is None:
        return []
    if state == "tool" and key.endswith(".progress.generic"):
        return [name for name in VARS_BY_STATE["tool"] if name != "progressMessage"]
    return list(VARS_BY_STATE[state])


def unknown_variables(key: str, template: str) -> list[str]:
    """`{{name}}` placeholders a template at this key can never fill (they render as "")."""
    available = variables_for_template_key(key)
    return [name for name in template_variables(template) if name not in available]
