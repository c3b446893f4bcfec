"""The replay: one position on a run's axis, and everything every panel shows at it (a `Moment`). Pure, no Qt.

    facts = ReplayFacts(run)            what the run tells about time, computed once: when each step started and
                                        ended, the errors and where they became known
    replay = Replay(run, templates, app_name)
    replay.move_to(p) / next_stop() / previous_stop() / step_events(±1) / drill_in(i) / tick()
    replay.moment()                     one frozen value: stop and its span, bubble, step states, errors

Stops own spans. Each stop of the level shown owns the events that led to it: stop i owns the positions p with
ends[i-1] < p ≤ ends[i] (ends[-1] = the level's first position), so consecutive spans tile the axis and a cursor
between two stops is *in* the later one's span. Several stops can end at one position (a Route right after its
LLM turn): the position belongs to the first of them unless the user chose another.

A typed event and the DomainEvent mapped from it (§2.5) are one happening seen twice; they sit next to each
other on the axis. At the position between them the DomainEvent counts as happened too (`effective domain
count`), so the graph never lags the bubble by one event.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import MutableSequence
from dataclasses import dataclass, field
from typing import Any

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.library.events import domain_indices_of, indices_of
from afp_desktop.core.model.axis import TYPED_TO_DOMAIN, entry_codes
from afp_desktop.core.model.bubble import BubbleModel, status_states_for
from afp_desktop.core.model.open_steps import OpenSteps
from afp_desktop.core.model.stop_lines import StopLines, stop_lines_walk
from afp_desktop.core.shapes import StopDict
from afp_desktop.core.library.status import DEFAULT_TEMPLATES
from afp_desktop.core.model.timeline import inner_stops, ordinal_labels, place_inner_stops
from afp_desktop.core.breathing import breathing_over

NOT_STARTED, ACTIVE, DONE = "not-started", "active", "done"
# Steps that last: they start with one event and end with another. Every other node (fork and decision chips,
# the llm → user reply) is done the moment it appears.
LASTING_KINDS = frozenset(("subflow", "user->llm", "tool->llm", "llm->tool"))
LLM_KINDS = ("user->llm", "tool->llm")
SLOT_CHIP = {"System prompt": "system prompt", "Messages": "messages", "Tools": "tools"}
_FATAL = "agentfootprint.error.fatal"
_TOOL_END = "agentfootprint.stream.tool_end"


# ── What the run tells about time (computed once per run) ────────────────────────────────────────────────


@dataclass(frozen=True)
class RunError:
    """One error the run records, at the axis position where it became known."""

    position: int
    message: str
    kind: str                 # "tool" (a tool threw; the run went on) | "fatal" | "run" (the run exited failed)
    node: int | None          # StepGraph node index where it happened
    node_id: str | None
    detail: str | None = None  # e.g. the run's exit error beside the library's fatal message

    def as_json(self) -> dict:
        out = {"position": self.position, "message": self.message, "node": self.node_id, "kind": self.kind}
        if self.detail is not None:
            out["detail"] = self.detail
        return out


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        return value["message"]
    try:
        return jsonio.dumps(value).decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - a value that cannot be written still gets a message
        return repr(value)


Cursor = tuple[int, int | None]  # a cursor: (position, the stop it was chosen as, if any)


class ReplayFacts:
    """When each StepGraph node started and ended, which nodes are open after n DomainEvents, where errors
    became known, and the effective DomainEvent count at every axis position."""

    def __init__(self, run) -> None:
        # (The run is not kept: the run caches its facts, and a cycle through it would outlive the window
        # showing it once the loader has frozen it out of the garbage collector's way, engine/collector.py.)
        axis = run.axis
        self.length = len(axis)
        fold = run.step_fold
        self.nodes = fold.nodes
        self.created = fold.node_created_at
        self.ended = self._ends(fold)
        close_unclosed_steps(run, self.nodes, self.created, self.ended)
        # The position from which the run is over for good: no step is in progress after it.
        self.finished_at: int | None = run.run_ends.finished_at
        self.effective_domain = self._effective_domain_counts(run)
        self._open = OpenSteps(self.created, self.ended, [node.get("kind") == "subflow" for node in self.nodes])
        self.tool_node_by_call = self._tool_nodes(run)
        self.errors = self._errors(run)
        self._error_positions = [error.position for error in self.errors]

    # -- steps ----------------------------------------------------------------------------------------------
    @staticmethod
    def _ends(fold) -> list[int | None]:
        """The DomainEvent index that ended each node; None while it never ended (a failed or cut-off run)."""
        ends: list[int | None] = []
        for node, created, changed in breathing_over(zip(fold.nodes, fold.node_created_at, fold.node_changed_at)):
            if node.get("kind") not in LASTING_KINDS:
                ends.append(created)
            else:
                ends.append(changed if changed > created else None)
        return ends

    @staticmethod
    def _effective_domain_counts(run) -> MutableSequence[int]:
        """domain_before, counting a DomainEvent as happened once the typed event it mirrors has happened."""
        axis = run.axis
        # (a copy as an array: a list of a big run's counts would be one long C call holding Python's lock)
        counts = array("q", axis.domain_before)
        anchors = getattr(axis, "anchors", None)
        typed = run.typed_events or []
        if not anchors or not typed:
            return counts
        codes = entry_codes(axis.entries)  # ("d", i) is i, ("t", j) is -1 - j
        domain, domain_after = run.domain_events, axis.domain_after
        # (a DomainEvent right after the typed event it mirrors; zip: never past either list)
        for i, (j, after) in enumerate(zip(breathing_over(anchors), domain_after)):
            p = after - 1
            if j is not None and p > 0 and codes[p - 1] == -1 - j \
                    and TYPED_TO_DOMAIN.get(typed[j].get("type")) == domain[i].get("type"):
                counts[p] += 1
        return counts

    def open_nodes(self, n_domain: int) -> tuple[int, ...]:
        return self._open.at(n_domain)

    def node_state(self, index: int, n_domain: int, position: int | None = None) -> str:
        """`position` (the axis position n_domain was taken at): at or after the run's finish every started step
        is done — a step the fold never closed is not still running at the end of a finished run."""
        if self.created[index] >= n_domain:
            return NOT_STARTED
        ended = self.ended[index]
        if ended is not None and ended < n_domain:
            return DONE
        return DONE if self.over_at(position) else ACTIVE

    def over_at(self, position: int | None) -> bool:
        """Whether the run has finished for good at axis `position`."""
        return position is not None and self.finished_at is not None and position >= self.finished_at

    def nodes_started(self, n_domain: int) -> int:
        """How many nodes exist after n DomainEvents (nodes are created in order)."""
        return bisect_left(self.created, n_domain)

    # -- errors ---------------------------------------------------------------------------------------------
    @staticmethod
    def _tool_nodes(run) -> dict[Any, int]:
        by_call: dict[Any, int] = {}
        fold = run.step_fold
        for index, (node, created) in enumerate(breathing_over(zip(fold.nodes, fold.node_created_at))):
            if node.get("kind") == "llm->tool":
                event = run.domain_events[created]
                call_id = event.get("toolCallId") if isinstance(event, dict) else None
                if isinstance(call_id, (str, int, float)) and call_id not in by_call:
                    by_call[call_id] = index
        return by_call

    def _node_id(self, index: int | None) -> str | None:
        if index is None:
            return None
        node_id = self.nodes[index].get("id")
        return node_id if isinstance(node_id, str) else None

    def step_in_flight(self, n_domain: int) -> int | None:
        """The LLM call or tool call in flight after n DomainEvents (the innermost open step that is not a
        subflow), if any."""
        return self._open.innermost_step(n_domain)

    def working_node(self, n_domain: int) -> int | None:
        """The LLM call or tool call in flight (the innermost open step), else the innermost open subflow."""
        step = self._open.innermost_step(n_domain)
        return step if step is not None else self._open.innermost(n_domain)

    def _errors(self, run) -> list[RunError]:
        axis = run.axis
        errors: list[RunError] = []
        seen_calls: set = set()
        typed = run.typed_events or []
        for j in breathing_over(indices_of(run.typed_by_type, _FATAL, _TOOL_END)):
            event = typed[j]
            kind = event.get("type")
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            position = axis.typed_after[j]
            if kind == _FATAL:
                node = self.working_node(self.effective_domain[position])
                errors.append(RunError(position, _text(payload.get("error", "the run failed")), "fatal", node,
                                       self._node_id(node)))
            elif payload.get("error") is True:
                call_id = payload.get("toolCallId")
                node = self.tool_node_by_call.get(call_id) if isinstance(call_id, (str, int, float)) else None
                seen_calls.add(call_id if isinstance(call_id, (str, int, float)) else None)
                errors.append(RunError(position, _text(payload.get("result", "the tool failed")), "tool", node,
                                       self._node_id(node)))
        for i in breathing_over(domain_indices_of(run, "tool.end", "run.exit", "subflow.exit")):
            event = run.domain_events[i]
            kind = event.get("type")
            position = axis.domain_after[i]
            if kind == "tool.end" and event.get("error") is True:
                call_id = event.get("toolCallId")
                key = call_id if isinstance(call_id, (str, int, float)) else None
                if key in seen_calls:
                    continue
                seen_calls.add(key)
                node = self.tool_node_by_call.get(key)
                errors.append(RunError(position, _text(event.get("result", "the tool failed")), "tool", node,
                                       self._node_id(node)))
            elif kind in ("run.exit", "subflow.exit"):
                payload = event.get("payload")
                if not (isinstance(payload, dict) and "error" in payload):
                    continue
                message = _text(payload["error"])
                fatal = next((e for e in reversed(errors) if e.kind == "fatal" and e.detail is None), None)
                if kind == "run.exit" and fatal is not None:  # one failure, told twice: keep the first telling
                    errors[errors.index(fatal)] = RunError(min(fatal.position, position), fatal.message, "fatal",
                                                           fatal.node, fatal.node_id, message)
                    continue
                stage = event.get("runtimeStageId")
                node = next((n for n, (nd, c) in enumerate(zip(self.nodes, self.created))
                             if nd.get("kind") == "subflow" and jsonio.same_id(nd.get("runtimeStageId"), stage)
                             and c < i), None)
                errors.append(RunError(position, message, "run" if kind == "run.exit" else "subflow", node,
                                       self._node_id(node)))
        errors.sort(key=lambda error: error.position)
        return errors

    def errors_known(self, position: int) -> tuple[RunError, ...]:
        return tuple(self.errors[:bisect_right(self._error_positions, position)])

    @property
    def failed(self) -> RunError | None:
        """The error that ended the run, if it ended in one."""
        return next((e for e in reversed(self.errors) if e.kind in ("fatal", "run")), None)


def close_unclosed_steps(run, nodes: list, created: list, ended: list) -> None:
    """Give each lasting step the fold never closed the event that did end it, in place: an LLM call its
    `llm.end` of the same stage id, a tool call its `tool.end` of the same call id, a subflow its exit of the same
    stage id — a step of an earlier leg (a run paused and resumed) at the latest where the next leg's run begins.
    (Concurrent branches interleave their events, and the fold pairs a start with the wrong end.)"""
    unclosed = [i for i, end in enumerate(ended) if end is None and nodes[i].get("kind") in LASTING_KINDS]
    if not unclosed:
        return
    domain = run.domain_events
    legs = list(domain_indices_of(run, "run.entry"))
    ends_by_key: dict[tuple[str, Any], list[int]] = {}
    for i in breathing_over(domain_indices_of(run, "llm.end", "tool.end", "subflow.exit", "run.exit")):
        key = _end_key(domain[i], domain[i].get("type"))
        if key is not None:
            ends_by_key.setdefault(key, []).append(i)
    for index in unclosed:
        start = created[index]
        kind = nodes[index].get("kind")
        event = domain[start] if 0 <= start < len(domain) else None
        closing = "tool.end" if kind == "llm->tool" else "llm.end" if kind in LLM_KINDS else "subflow.exit"
        key = _end_key(event, closing)
        candidates = ends_by_key.get(key, []) if key is not None else []
        k = bisect_right(candidates, start)
        match = candidates[k] if k < len(candidates) else None
        if kind == "llm->tool":  # (a paused tool's end comes in the resumed leg)
            ended[index] = match
            continue
        k = bisect_right(legs, start)
        next_leg = legs[k] if k < len(legs) else None
        ended[index] = match if match is not None and (next_leg is None or match < next_leg) else next_leg


def _end_key(event: Any, closing: Any) -> tuple[str, Any] | None:
    """What pairs a step's start with its end event: (the kind of end, the call id or the stage id)."""
    if not isinstance(event, dict):
        return None
    value = event.get("toolCallId") if closing == "tool.end" else event.get("runtimeStageId")
    if not isinstance(value, (str, int, float)):
        return None
    return ("subflow.exit" if closing == "run.exit" else closing, value)


# ── Stops and their spans ──────────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class StopSpan:
    index: int
    label: str                 # as the timeline shows it: "Tool call 2"
    kind: str                  # start | mount | commit | end
    start: int                 # positions start < p ≤ end belong to this stop
    end: int                   # = the position the cursor goes to for it
    typed: tuple[int, int]     # the same span in typed events: typed events typed[0]+1 .. typed[1] happened in it
    stop: StopDict = field(compare=False, repr=False)

    @property
    def position(self) -> int:
        return self.end


# Each field's slot setter, in the order of the fields (a span of a long run is made by spans_for in bulk).
_SPAN_SLOTS = tuple(vars(StopSpan)[name].__set__ for name in ("index", "label", "kind", "start", "end", "typed", "stop"))


def spans_for(stops: list[StopDict], axis, low: int = 0) -> list[StopSpan]:
    """Tile [low, last end] with one span per stop, in order."""
    labels = ordinal_labels(stops)
    spans = []
    previous = low
    typed_before, length = axis.typed_before, len(axis)
    new = object.__new__
    # (A frozen dataclass's __init__ sets each field through object.__setattr__, slow over thousands of stops. Its
    # fields are set here through their slots, as __init__ would set them.)
    set_index, set_label, set_kind, set_start, set_end, set_typed, set_stop = _SPAN_SLOTS
    for index, (stop, label) in enumerate(breathing_over(zip(stops, labels), every=256)):
        end = max(previous, min(int(stop.get("axisEnd", previous)), length))
        span = new(StopSpan)
        set_index(span, index)
        set_label(span, label)
        set_kind(span, stop.get("kind", ""))
        set_start(span, previous)
        set_end(span, end)
        set_typed(span, (typed_before[previous], typed_before[end]))
        set_stop(span, stop)
        spans.append(span)
        previous = end
    return spans


def span_index_at(ends: list[int], low: int, position: int, chosen: int | None = None) -> int | None:
    """The stop whose span holds `position` (the first of those ending there; `chosen` wins if it ends there).
    The level's very end is its last stop ("Run end", a drilled mount's "End") however many stops end there: a
    cursor put there by a position alone (the live end of a followed file, a reload, a drag) is where the run
    ended. None outside the level's range (a drilled mount's stops cover only the mount)."""
    if not ends:
        return None
    if chosen is not None and 0 <= chosen < len(ends) and ends[chosen] == position:
        return chosen
    if position < low or position > ends[-1]:
        return None
    if position == low:
        return 0
    if position == ends[-1]:
        return len(ends) - 1
    return bisect_left(ends, position)


# ── The bubble, and the moment ──────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Bubble:
    user: str | None             # the user's message, once sent
    line: str | None             # exactly renderStatusLine(selectStatus(events so far)) with the active map
    state: dict | None           # None: no bubble at this moment
    stop_lines: StopLines  # the distinct lines the chat user saw during the stop's span, in order
    error: str | None            # an error known at the cursor, said under the bubble
    answer: str | None
    answer_source: str | None
    template_key: str | None
    derived: bool                # a Trace: derived from LLM and tool starts and ends only

    @property
    def hidden(self) -> bool:
        return self.state is None

    def as_json(self) -> dict:
        return {"user": self.user, "line": self.line, "state": self.state, "stopLines": list(self.stop_lines),
                "error": self.error, "answer": self.answer, "derived": self.derived}


@dataclass(frozen=True, eq=False)
class Moment:
    """Everything every panel shows at one position. Built by `Replay.moment`; never changed."""

    position: int
    length: int
    n_typed: int
    n_domain: int                # effective: a DomainEvent mirroring a typed event that happened counts
    stop: StopSpan | None
    stop_count: int
    at_stop: bool                # the cursor sits exactly at the stop (not inside its span)
    breadcrumb: tuple[str, ...]
    bubble: Bubble
    current_node: int | None     # the step the moment is about (ringed in the graph)
    errors: tuple[RunError, ...]
    facts: ReplayFacts = field(repr=False)

    def node_state(self, index: int) -> str:
        return self.facts.node_state(index, self.n_domain, self.position)

    @property
    def nodes_started(self) -> int:
        return self.facts.nodes_started(self.n_domain)

    @property
    def active_nodes(self) -> tuple[int, ...]:
        if self.facts.over_at(self.position):
            return ()
        return tuple(i for i in self.facts.open_nodes(self.n_domain) if self.facts.created[i] < self.n_domain)

    def done_nodes(self) -> list[int]:
        n = self.n_domain
        if self.facts.over_at(self.position):
            return list(range(self.nodes_started))
        ended = self.facts.ended
        return [i for i in range(self.nodes_started) if (end := ended[i]) is not None and end < n]

    def error_nodes(self) -> dict[int, list[RunError]]:
        out: dict[int, list[RunError]] = {}
        for error in self.errors:
            if error.node is not None:
                out.setdefault(error.node, []).append(error)
        return out

    def describe(self) -> str:
        """"Stop 8 of 22 · Tool call 1 · event 60/175", or "in Tool call 1 · event 52/175" between stops."""
        event = f"event {self.position:,}/{self.length:,}"
        if self.stop is None:
            return event
        if self.at_stop:
            return f"Stop {self.stop.index + 1} of {self.stop_count} · {self.stop.label} · {event}"
        return f"in {self.stop.label} · {event}"

    def as_json(self, inspector: dict | None = None) -> dict:
        ids = [node.get("id") for node in self.facts.nodes]
        return {
            "position": self.position,
            "typed": self.n_typed,
            "stop": None if self.stop is None else {"index": self.stop.index, "label": self.stop.label,
                                                    "atStop": self.at_stop},
            "bubble": self.bubble.as_json(),
            "graph": {"current": None if self.current_node is None else ids[self.current_node],
                      "done": [ids[i] for i in self.done_nodes()],
                      "active": [ids[i] for i in self.active_nodes]},
            "inspector": inspector if inspector is not None else {},
            "errors": [error.as_json() for error in self.errors],
        }


DEFAULT_APP_NAME = "Agent"
LONG_SPAN_STATES = 20_000  # a span of more status states than this has its lines walked by the loader, not the window


def span_states(run, span: StopSpan) -> int:
    """How many status states a span's walk looks at."""
    _states, _derived, prefix_at = status_states_for(run)
    return prefix_at[span.end] - prefix_at[span.start]


def span_lines_walk(run, span: StopSpan, templates: dict, app_name: str) -> tuple[StopLines, list[int]]:
    """The lines seen during `span` and where each was first seen (stop_lines_walk)."""
    states, _derived, prefix_at = status_states_for(run)
    return stop_lines_walk(states, (prefix_at[span.start], prefix_at[span.end]), templates, app_name)


def long_span_lines(run, spans: list[StopSpan]) -> dict[tuple[int, int], tuple[StopLines, list[int]]]:
    """The walks of the long ones of `spans` (the run's own) with the default templates (made by the loader:
    PreparedViews.long_span_lines): the
    chat bubble lists a stop's lines on the window's thread, and a run that goes on long after its last stop
    (several runs appended to one stream) has a last span of 100,000 states or more, too long to walk there."""
    states, _derived, prefix_at = status_states_for(run)
    if states is None:
        return {}
    walks = {}
    for span in spans:
        if prefix_at[span.end] - prefix_at[span.start] > LONG_SPAN_STATES:
            walks[(span.start, span.end)] = span_lines_walk(run, span, DEFAULT_TEMPLATES, DEFAULT_APP_NAME)
    return walks


def opens_inward(run, stop: StopDict) -> bool:
    """Whether the run's stop `stop` opens onto stops of its own (a mount whose subflow's commits the snapshot
    holds): Replay.can_drill for the stops shown."""
    return (stop.get("kind") == "mount" and not stop.get("derived") and run.snapshot is not None
            and inner_stops(run.snapshot, stop) is not None)


class Replay:
    """Position, chosen stop, drill stack and play state over one Run; `moment()` describes the position."""

    def __init__(self, run, templates: dict | None = None, app_name: str = DEFAULT_APP_NAME,
                 facts: ReplayFacts | None = None, defer_long_walks: bool = False) -> None:
        self.run = run
        # (The run's own, computed once; the bubble model is the loader's when it prepared the window's views.)
        self.facts = facts or run.replay_facts
        self.bubbles = run.views.bubble_model if run.views is not None else BubbleModel(run)
        self.templates = dict(DEFAULT_TEMPLATES if templates is None else templates)
        self.app_name = app_name
        self.position = len(run.axis)
        self.chosen_stop: int | None = None
        self.playing = False
        self._drill: list[tuple[str, list[StopDict]]] = []
        self._levels: dict[int, list[StopSpan]] = {}
        self._ends: tuple[list[StopSpan], list[int]] | None = None
        self._lines: dict[tuple[int, int], tuple[StopLines, list[int]]] = {}  # (span start, end): its walk
        # True (the window): a long span's lines not walked yet are given as pending, and the span is put in
        # `walks_wanted` for a thread to walk (store_walk); False (the command line, tests): walked when asked.
        self.defer_long_walks = defer_long_walks
        self.walks_wanted: dict[tuple[int, int], StopSpan] = {}
        self._inherited: dict[int, tuple[int, tuple[StopLines, list[int]]]] = {}  # span start: (end, walk)

    # -- templates ---------------------------------------------------------------------------------------------
    def set_templates(self, templates: dict, app_name: str | None = None) -> None:
        self.templates = dict(templates)
        if app_name is not None:
            self.app_name = app_name
        self._lines.clear()
        self.walks_wanted.clear()
        self._inherited.clear()

    # -- the stops shown -------------------------------------------------------------------------------------
    @property
    def length(self) -> int:
        return len(self.run.axis)

    @property
    def stops(self) -> list[StopDict]:
        return self._drill[-1][1] if self._drill else self.run.stops

    @property
    def spans(self) -> list[StopSpan]:
        level = len(self._drill)
        if level not in self._levels:
            if level == 0 and self.run.views is not None:
                self._levels[0] = self.run.views.stop_spans
                return self._levels[0]
            low = int(self.stops[0].get("axisStart", 0)) if level and self.stops else 0
            self._levels[level] = spans_for(self.stops, self.run.axis, low)
        return self._levels[level]

    @property
    def breadcrumb(self) -> tuple[str, ...]:
        return ("Run", *(label for label, _stops in self._drill))

    def span_index(self, position: int | None = None) -> int | None:
        """The span holding `position` (the cursor's when None; its chosen stop counts only there)."""
        if position is None or position == self.position:
            return self.span_index_at(self.position, self.chosen_stop)
        return self.span_index_at(position, None)

    def span_index_at(self, position: int, chosen: int | None = None) -> int | None:
        """The span holding a cursor at `position` chosen as stop `chosen` (several spans can end at one
        position: the chosen one is meant). A query: the replay's own cursor does not move."""
        spans = self.spans
        if not spans:
            return None
        return span_index_at(self._ends_of(spans), spans[0].start, position, chosen)

    def _ends_of(self, spans: list[StopSpan]) -> list[int]:
        """The spans' ends, kept for the spans last asked about (asked several times per cursor move)."""
        kept = self._ends
        if kept is None or kept[0] is not spans or len(kept[1]) != len(spans):
            kept = self._ends = (spans, [span.end for span in spans])
        return kept[1]

    def lines_of(self, span: StopSpan) -> StopLines:
        """The lines the chat user saw during `span` with the active templates."""
        return self._walk(span)[0]

    def lines_until(self, span: StopSpan, position: int) -> StopLines:
        """The lines the chat user had seen by `position`, inside `span`: the first of the span's own (its walk is
        kept: a long span walked anew on each move inside it would stall every move)."""
        lines, seen_at = self._walk(span)
        if lines.pending:
            return lines
        _states, _derived, prefix_at = status_states_for(self.run)
        return lines.first(bisect_right(seen_at, prefix_at[position]))

    def _walk(self, span: StopSpan) -> tuple[StopLines, list[int]]:
        key = (span.start, span.end)
        walk = self._lines.get(key)
        if walk is None:
            views = self.run.views
            if views is not None and self.templates == DEFAULT_TEMPLATES and self.app_name == DEFAULT_APP_NAME:
                walk = views.long_span_lines.get(key)  # (the loader's)
            if walk is None:
                walk = self._resumed(span)
            if walk is None and self.defer_long_walks and span_states(self.run, span) > LONG_SPAN_STATES:
                self.walks_wanted[key] = span
                return StopLines([], pending=True), []
            if walk is None:
                walk = span_lines_walk(self.run, span, self.templates, self.app_name)
            self._lines[key] = walk
        return walk

    def continue_from(self, grown_from: "Replay") -> None:
        """This replay's run extends `grown_from`'s: it takes on its walks (inherit_walks), its drilled levels
        (a drilled level keeps the stops it was cut to when drilled in) and whether it was playing."""
        self.inherit_walks(grown_from)
        self._drill = list(grown_from._drill)
        self._levels.clear()
        self._ends = None
        self.playing = grown_from.playing

    def inherit_walks(self, grown_from: "Replay") -> None:
        """This replay's run extends `grown_from`'s (File ▸ Follow, a big file's parts): its walks are taken on,
        a span that grew (same start, a later end) is walked from where the other's walk ended. (Each growth made
        a new replay that walked the growing last span anew: with a long one, a freeze or a "listing…" at every
        growth.)"""
        if grown_from.templates != self.templates or grown_from.app_name != self.app_name:
            return
        inherited = dict(grown_from._inherited)
        for (start, end), walk in grown_from._lines.items():
            if not walk[0].pending and (start not in inherited or inherited[start][0] < end):
                inherited[start] = (end, walk)
        self._inherited = inherited

    def _resumed(self, span: StopSpan) -> tuple[StopLines, list[int]] | None:
        earlier = self._inherited.get(span.start)
        if earlier is None or earlier[0] > span.end:
            return None
        end, (lines, seen_at) = earlier
        if end == span.end:
            return lines, seen_at
        states, _derived, prefix_at = status_states_for(self.run)
        if self.defer_long_walks and prefix_at[span.end] - prefix_at[end] > LONG_SPAN_STATES:
            return None  # (what was added is itself long: walked beside the window, whole)
        return stop_lines_walk(states, (prefix_at[span.start], prefix_at[span.end]), self.templates, self.app_name,
                               resume=(lines, seen_at, prefix_at[end]))

    def store_walk(self, span: StopSpan, templates: dict, app_name: str,
                   walk: tuple[StopLines, list[int]]) -> bool:
        """Keep a walk of `span` made elsewhere (span_lines_walk) with `templates` and `app_name`; False (and not
        kept) when those are no longer the active ones."""
        key = (span.start, span.end)
        if templates != self.templates or app_name != self.app_name or self.walks_wanted.get(key) != span:
            return False
        del self.walks_wanted[key]
        self._lines[key] = walk
        return True

    # -- moving -------------------------------------------------------------------------------------------------
    # -- where a move goes (queries: the replay's own cursor does not move) -------------------------------------
    def cursor_at(self, position: int, stop: int | None = None) -> Cursor:
        """A cursor at `position` (kept inside the run), chosen as stop `stop` if that stop ends there."""
        position = max(0, min(int(position), self.length))
        spans = self.spans
        chosen = stop if stop is not None and 0 <= stop < len(spans) and spans[stop].end == position else None
        return position, chosen

    def stop_target(self, index: int) -> Cursor | None:
        """Where stop `index` is (its span's end, chosen as that stop); None without stops."""
        spans = self.spans
        if not spans:
            return None
        index = max(0, min(index, len(spans) - 1))
        return self.cursor_at(spans[index].end, index)

    def next_stop_from(self, position: int, chosen: int | None = None) -> Cursor | None:
        """From a cursor: the end of the span it is in, or, at a stop, the following stop (None: no further)."""
        index = self.span_index_at(position, chosen)
        spans = self.spans
        if index is None:
            target = 0 if spans and position < spans[0].start else None
        elif spans[index].end == position:
            target = index + 1
        else:
            target = index
        if target is None or target >= len(spans):
            return None
        return self.stop_target(target)

    def previous_stop_from(self, position: int, chosen: int | None = None) -> Cursor | None:
        """From a cursor: the stop before (the start of the first span from inside it; None: no earlier)."""
        index = self.span_index_at(position, chosen)
        spans = self.spans
        if index is None:
            return self.stop_target(len(spans) - 1) if spans and position > spans[-1].end else None
        if index - 1 < 0:
            start = spans[0].start if spans else 0
            return self.cursor_at(start) if position > start else None
        return self.stop_target(index - 1)

    def end_target(self) -> Cursor:
        """The run's end, at its last stop (several stops can end there; "Run end" is the one meant)."""
        spans = self.spans
        last = len(spans) - 1 if spans and spans[-1].end == self.length else None
        return self.cursor_at(self.length, last)

    def replay_start(self) -> Cursor:
        """Where playing starts again once the run has been played to its end: its first span's start."""
        spans = self.spans
        return self.cursor_at(spans[0].start if spans else 0)

    # -- moves ---------------------------------------------------------------------------------------------------
    def move_to(self, position: int, stop: int | None = None) -> None:
        self.position, self.chosen_stop = self.cursor_at(position, stop)

    def _go(self, target: Cursor | None) -> bool:
        if target is None:
            return False
        self.position, self.chosen_stop = target
        return True

    def move_to_stop(self, index: int) -> None:
        self._go(self.stop_target(index))

    def next_stop(self) -> bool:
        """To the end of the span the cursor is in, or, at a stop, to the following stop."""
        return self._go(self.next_stop_from(self.position, self.chosen_stop))

    def previous_stop(self) -> bool:
        return self._go(self.previous_stop_from(self.position, self.chosen_stop))

    def step_events(self, delta: int) -> None:
        self.move_to(self.position + delta)

    def home(self) -> None:
        self.move_to(0)

    def end(self) -> None:
        """The run's end, at its last stop (several stops can end there; "Run end" is the one meant)."""
        self._go(self.end_target())

    # -- play ---------------------------------------------------------------------------------------------------
    def play(self) -> None:
        """Play from the cursor; from the start of the first span once the last has been played."""
        spans = self.spans
        if self.position >= (spans[-1].end if spans else self.length):
            self._go(self.replay_start())
        self.playing = True

    def pause(self) -> None:
        self.playing = False

    def tick(self, by_events: bool = False) -> bool:
        """One step of the replay while playing (the next stop, or the next event); stops at the end."""
        if not self.playing:
            return False
        moved = (self.position < self.length) if by_events else self.next_stop()
        if by_events and moved:
            self.step_events(1)
        if not moved or self.position >= self.length:
            self.playing = False
        return moved

    # -- drill ---------------------------------------------------------------------------------------------------
    def can_drill(self, index: int) -> bool:
        spans = self.spans
        if not 0 <= index < len(spans):
            return False
        return opens_inward(self.run, spans[index].stop)

    def drill_in(self, index: int) -> bool:
        """Show the stops inside mount stop `index`, placed on the run's axis. False (nothing changes) when the
        mount cannot be drilled into (can_drill)."""
        if not self.can_drill(index):
            return False
        span = self.spans[index]
        mount = dict(span.stop)
        mount["axisStart"], mount["axisEnd"] = span.start, span.end
        inner = inner_stops(self.run.snapshot, span.stop)
        if inner is None:
            return False
        placed = place_inner_stops(self.run.stage_ids_on_axis(), mount, inner)
        self._drill.append((span.label, placed))
        self._levels.pop(len(self._drill), None)
        self.chosen_stop = None
        return True

    def drill_out(self, depth: int = 0) -> bool:
        depth = max(0, depth)
        if depth >= len(self._drill):
            return False
        del self._drill[depth:]
        for level in [lvl for lvl in self._levels if lvl > depth]:
            del self._levels[level]
        self.chosen_stop = None
        return True

    # -- the moment ------------------------------------------------------------------------------------------
    def moment(self, position: int | None = None) -> Moment:
        position = self.position if position is None else max(0, min(int(position), self.length))
        run, facts = self.run, self.facts
        n_domain = facts.effective_domain[position]
        n_typed = run.axis.typed_before[position]
        index = self.span_index(position)
        span = self.spans[index] if index is not None else None
        errors = facts.errors_known(position)
        view = self.bubbles.at(position, self.templates, self.app_name)
        if span is None:
            lines: StopLines = StopLines([])
        elif position == span.end:
            lines = self.lines_of(span)
        else:  # inside the span: only what the user had seen by now
            lines = self.lines_until(span, position)
        bubble = Bubble(view.prompt, view.line, view.state, lines, self._bubble_error(errors, span),
                        view.answer, view.answer_source, view.template_key, view.derived)
        return Moment(position, self.length, n_typed, n_domain, span, len(self.spans),
                      span is not None and span.end == position, self.breadcrumb, bubble,
                      self._current_node(n_domain, span), errors, facts)

    @staticmethod
    def _bubble_error(errors: tuple[RunError, ...], span: StopSpan | None) -> str | None:
        """The run's failure once known; else a tool error that happened during this stop."""
        for error in reversed(errors):
            if error.kind in ("fatal", "run"):
                return error.message
        if span is not None:
            for error in reversed(errors):
                if span.start < error.position <= span.end:
                    return f"A tool failed: {error.message}"
        return None

    def _current_node(self, n_domain: int, span: StopSpan | None) -> int | None:
        """The step the moment is about: at a slot stop its chip; else the step in flight; else the latest."""
        facts = self.facts
        started = facts.nodes_started(n_domain)
        if started == 0:
            return None
        slot = SLOT_CHIP.get(span.stop.get("label", "")) if span is not None else None
        if slot is not None:
            for index in range(started - 1, max(-1, started - 40), -1):
                node = facts.nodes[index]
                if node.get("kind") == "fork-branch" and str(node.get("label", "")).lower() == slot:
                    return index
        working = facts.step_in_flight(n_domain)
        return working if working is not None else started - 1


# ── What the inspector may show about a step at a moment ─────────────────────────────────────────────────────

_LATE_FIELDS = ("tokens", "endOffsetMs", "exitPayload")


def node_facts(run, facts: ReplayFacts, index: int, position: int) -> dict:
    """The StepGraph node as known at axis `position`: fields that became known later (tokens, end, exit
    payload, stop reason, the tool's result) are left out and listed under "notKnownYet"."""
    position = max(0, min(position, facts.length))
    n_domain = facts.effective_domain[position]
    node = facts.nodes[index]
    state = facts.node_state(index, n_domain, position)
    out: dict[str, Any] = {"node": node.get("id"), "index": index, "kind": node.get("kind"),
                           "label": node.get("label"), "state": state}
    if state == NOT_STARTED:
        out["notKnownYet"] = ["everything: this step has not started at this moment"]
        return out
    ended = state == DONE
    later: list[str] = []
    for key, value in node.items():
        if key in ("id", "kind", "label"):
            continue
        if key in _LATE_FIELDS and not ended:
            later.append(key)
            continue
        out[key] = value
    kind = node.get("kind")
    end_index = facts.ended[index]
    if kind in LLM_KINDS:
        if ended and end_index is not None:
            event = run.domain_events[end_index]
            if isinstance(event, dict) and "stopReason" in event:
                out["stopReason"] = event["stopReason"]
        else:
            later += ["tokens", "stopReason"] if "tokens" not in later else ["stopReason"]
    elif kind == "llm->tool":
        if ended and end_index is not None:
            event = run.domain_events[end_index]
            if isinstance(event, dict):
                for key, as_key in (("result", "toolResult"), ("error", "error"), ("durationMs", "durationMs")):
                    if key in event:
                        out[as_key] = event[key]
        else:
            later.append("toolResult")
    error = next((e for e in facts.errors if e.node == index and e.position <= position), None)
    if error is not None:
        out["errorMessage"] = error.message
    if later:
        out["notKnownYet"] = sorted(set(later))
    return out
