"""How the run ended, as known at every moment: completed, failed, stopped by a budget, halted by a permission
policy, aborted, paused, or unknown (the file ends before the run does, or its start was rotated away).

Read from the typed events when the file has them, else from the DomainEvents' root run entries and exits:

| event (`agentfootprint.` prefix)              | the end becomes                                             |
|-----------------------------------------------|-------------------------------------------------------------|
| agent.budget_exhausted, cost.limit_hit (abort) | (remembered: the turn's end is then "budget")               |
| the run's end (root turn_end, root composition exit, a bare LLMCall's llm_end) | completed, or budget |
| agent.turn_end with stoppedEarly              | budget                                                      |
| permission.halt                               | halted (no turn end follows)                                |
| reliability.fail_fast, error.fatal            | failed (aborted when the error says the call was aborted)   |
| pause.request / pause.resume                  | paused (the question) / running again                       |
| a run's start (turn_start, pause.resume, …)   | running again (what a limit left is forgotten)              |

Pure: `RunEnds.at(position)` knows only the events up to `position`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.jsonx.lazyjson import resolve_quietly
from afp_desktop.core.library.events import event_meta, event_payload, indices_of
from afp_desktop.core.model.pause_question import question_in

PREFIX = "agentfootprint."
REASONS = ("completed", "failed", "budget", "halted", "aborted", "paused", "unknown")
FINISHED = frozenset(("completed", "failed", "budget", "halted", "aborted"))
_ABORTED = re.compile(r"\babort(ed|error)?\b|\bcancell?ed\b", re.IGNORECASE)
NOT_ENDED = "The run has not ended at this moment."
MID_WAY_TEXT = "This file starts mid-way through the run: its first event is not the run's start."


@dataclass(frozen=True)
class RunEnd:
    reason: str            # one of REASONS
    message: str
    position: int | None   # the axis position where it became known (None: nothing known yet)

    @property
    def finished(self) -> bool:
        return self.reason in FINISHED

    def as_json(self) -> dict:
        return {"reason": self.reason, "message": self.message}


def root_kind(meta: dict) -> str | None:
    """"Agent", "Sequence", "LLMCall"… of a root-level event (compositionPath of one entry), else None."""
    path = meta.get("compositionPath")
    if isinstance(path, list) and len(path) == 1 and isinstance(path[0], str):
        return path[0].split(":", 1)[0]
    return None


def is_run_start(event: Any) -> bool:
    """The first event a run writes: an Agent's `run_configured` / `turn_start`, a composition's root `enter`,
    a bare LLMCall's first system-prompt injection, or a resumed run's `pause.resume`."""
    etype = event.get("type") if isinstance(event, dict) else None
    if not isinstance(etype, str):
        return False
    meta = event_meta(event)
    if etype in (PREFIX + "agent.run_configured", PREFIX + "agent.turn_start", PREFIX + "pause.resume"):
        return True
    if etype == PREFIX + "composition.enter":
        return meta.get("subflowPath") in ([], None)
    rid = meta.get("runtimeStageId")
    return (etype == PREFIX + "context.injected" and root_kind(meta) == "LLMCall"
            and isinstance(rid, str) and rid.startswith("sf-llm-call/sf-system-prompt/"))


END_TYPES = frozenset(PREFIX + name for name in ("agent.turn_end", "composition.exit", "error.fatal",
                                                  "stream.llm_end"))


def is_run_end(event: Any) -> bool:
    """The event that ends a run (corpus, 9.62): the root Agent's `turn_end`, the root composition's `exit`,
    a run-scoped `error.fatal`, or the `llm_end` of a bare LLMCall. (A few trailing events, such as the
    integrity disposition, may still follow it.)"""
    etype = event.get("type") if isinstance(event, dict) else None
    if etype not in END_TYPES:  # (checked first: this runs for every event)
        return False
    meta = event_meta(event)
    root = root_kind(meta)
    if etype == PREFIX + "agent.turn_end":
        return root == "Agent"
    if etype == PREFIX + "composition.exit":
        return meta.get("subflowPath") in ([], None)
    if etype == PREFIX + "error.fatal":
        return event_payload(event).get("scope") == "run"
    if etype == PREFIX + "stream.llm_end":
        return root == "LLMCall"
    return False


def start_lost(run) -> bool:
    """True when the typed stream's beginning is not in the file (rotated away, or dropped by a recorder's cap):
    its first event is not a run's start."""
    envelope = run.envelope
    info = envelope.get("run") if isinstance(envelope, dict) else None
    dropped = info.get("droppedEvents") if isinstance(info, dict) else None
    if isinstance(dropped, int) and not isinstance(dropped, bool) and dropped > 0:
        return True
    typed = run.typed_events
    return bool(typed) and not is_run_start(typed[0])


def plain(value: Any, limit: int = 300) -> str:
    """A payload value as one line of plain text, cut (jsonio.one_line)."""
    return jsonio.one_line(value, limit)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def budget_words(payload: dict) -> str:
    """An `agent.budget_exhausted` payload (or a turn's `stoppedEarly`) in words."""
    reason = payload.get("reason")
    words = {"max-iterations": "the iteration limit", "cost-budget": "the cost budget"}
    which = words.get(reason, "") if isinstance(reason, str) else ""
    which = which or (f"a limit ({plain(reason, 60)})" if reason is not None else "a limit")
    parts = [f"Stopped by {which}"]
    if _number(payload.get("limit")):
        parts[0] += f" of {payload['limit']:g}"
    if _number(payload.get("iteration")):
        parts.append(f"at iteration {payload['iteration']:g}")
    text = " ".join(parts)
    pending = payload.get("pendingToolCalls")
    if _number(pending):
        text += f"; {pending:g} tool call(s) never ran"
    action = payload.get("action")
    if action == "wrapped-up":
        text += "; the agent wrapped up with one more answer"
    elif action == "cut-short":
        text += "; the turn was cut short"
    return text + "."


def limit_words(payload: dict) -> str:
    """A `cost.limit_hit` payload in words."""
    words = {"max_tokens": "token limit", "max_cost": "cost limit", "max_iterations": "iteration limit"}
    named = payload.get("kind")
    kind = (words.get(named, "") if isinstance(named, str) else "") or f"limit {plain(named, 60)}"
    text = f"The {kind} was reached"
    if _number(payload.get("limit")) or _number(payload.get("actual")):
        text += f" ({plain(payload.get('actual'), 40)} of {plain(payload.get('limit'), 40)})"
    action = payload.get("action")
    return text + (f"; action: {plain(action, 40)}." if action is not None else ".")


def question_of(payload: dict) -> str:
    """A pause request's question, as plain text."""
    asked = question_in(payload.get("questionPayload"))
    if asked is not None:
        return plain(asked)
    return plain(payload.get("reason", "the run asked a person"))


# The types that tell how a run ends (a bare LLMCall's next run starts with an injection: its end is its llm_end).
_TELLING = tuple(PREFIX + name for name in (
    "agent.run_configured", "agent.turn_start", "pause.resume", "composition.enter", "agent.turn_end",
    "composition.exit", "error.fatal", "stream.llm_end", "agent.budget_exhausted", "cost.limit_hit",
    "permission.halt", "pause.request", "reliability.fail_fast"))


class RunEnds:
    """Each change of how the run ended, in axis order; `at(position)` is the end as known there."""

    def __init__(self, run) -> None:
        self.start_lost = start_lost(run)
        self._positions: list[int] = []
        self._ends: list[RunEnd] = []
        if run.typed_events:
            self._from_typed(run)
        else:
            self._from_domain(run)

    def _set(self, position: int, reason: str, message: str) -> None:
        self._positions.append(position)
        self._ends.append(RunEnd(reason, message, position))

    def _from_typed(self, run) -> None:
        typed = run.typed_events
        after = run.axis.typed_after
        limit: str | None = None   # what a limit said, until the turn ends
        halted = False
        for j in breathing_over(indices_of(run.typed_by_type, *_TELLING)):  # (not the tokens, the injections…)
            event = typed[j]
            name = event["type"][len(PREFIX):]
            payload = event_payload(event)
            position = after[j]
            if is_run_start(event):
                if self._ends and self._ends[-1].reason != "unknown":
                    self._set(position, "unknown", NOT_ENDED)  # (a new turn, or a resume: running again)
                limit, halted = None, False
            if name == "agent.budget_exhausted":
                limit = budget_words(payload)
            elif name == "cost.limit_hit" and payload.get("action") == "abort":
                limit = limit_words(payload)
            elif name == "permission.halt":
                halted = True
                self._set(position, "halted", halt_words(payload))
            elif name == "pause.request":
                self._set(position, "paused", f"Paused for a person: {question_of(payload)}")
            elif name in ("error.fatal", "reliability.fail_fast") and not halted:
                error = fail_fast_words(payload) if name == "reliability.fail_fast" else \
                    plain(payload.get("error", "the run failed"), 1000)
                if _ABORTED.search(error):
                    self._set(position, "aborted", f"Aborted: {error}")
                elif limit is not None:
                    self._set(position, "budget", limit)
                else:
                    self._set(position, "failed", error)
            elif is_run_end(event) and not halted:
                stopped = payload.get("stoppedEarly")
                if isinstance(stopped, dict):
                    limit = limit or budget_words(stopped)
                if name == "composition.exit" and payload.get("status") == "budget_exhausted":
                    limit = limit or "A composition's budget was exhausted."
                if limit is not None:
                    self._set(position, "budget", limit)
                elif name == "composition.exit" and payload.get("status") == "err":
                    self._set(position, "failed", "The run's composition exited with an error.")
                else:
                    self._set(position, "completed", "The run completed.")
                limit = None

    def _from_domain(self, run) -> None:
        after = run.axis.domain_after
        for i, event in enumerate(breathing_over(run.domain_events)):
            etype = event.get("type") if isinstance(event, dict) else None
            if etype == "run.entry":
                if self._ends and self._ends[-1].reason != "unknown":
                    self._set(after[i], "unknown", NOT_ENDED)
            elif etype == "run.exit":
                payload = resolve_quietly(event.get("payload"))
                if isinstance(payload, dict) and "error" in payload:
                    error = plain(payload["error"], 1000)
                    self._set(after[i], "aborted" if _ABORTED.search(error) else "failed",
                              f"Aborted: {error}" if _ABORTED.search(error) else error)
                else:
                    self._set(after[i], "completed", "The run completed.")

    def at(self, position: int) -> RunEnd:
        k = bisect_right(self._positions, position)
        if k == 0:
            return RunEnd("unknown", NOT_ENDED, None)
        return self._ends[k - 1]

    @property
    def final(self) -> RunEnd:
        """How the run ended, as the whole file tells it."""
        if self._ends and self._ends[-1].reason != "unknown":
            return self._ends[-1]
        if self.start_lost:
            return RunEnd("unknown", "The file's beginning was rotated away and it ends before the run does: "
                                     "how the run ended is not in it.", None)
        return RunEnd("unknown", "The file ends before the run does (cut off, or still running when it was "
                                 "written): how the run ended is not in it.", None)

    @property
    def finished_at(self) -> int | None:
        """The position from which the run is over for good (None: it never is, in this file)."""
        final = self.final
        return final.position if final.finished else None


def halt_words(payload: dict) -> str:
    target = payload.get("target")
    text = f"A permission policy halted the run at the tool {plain(target, 80)}" if target is not None else \
        "A permission policy halted the run"
    if payload.get("checkerId") is not None:
        text += f" (checker {plain(payload['checkerId'], 80)})"
    if payload.get("reason") is not None:
        text += f": {plain(payload['reason'])}"
    return text + "."


def fail_fast_words(payload: dict) -> str:
    rule = payload.get("label") or payload.get("kind")
    text = "A reliability rule stopped the run"
    if rule is not None:
        text += f" ({plain(rule, 80)}"
        text += f", {plain(payload['phase'], 40)})" if payload.get("phase") is not None else ")"
    why = payload.get("errorMessage") or payload.get("reason") or payload.get("errorKind")
    return text + (f": {plain(why)}" if why is not None else "") + "."
