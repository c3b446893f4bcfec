"""The "Go to" box (Ctrl+G): what the user typed, and where on the run's axis it leads. Pure, no Qt.

    parse_go_to("stop 12")        → GoTo("stop", 12)         (also "s12", "#12" and a bare "12")
    parse_go_to("event 3000")     → GoTo("event", 3000)      ("e3000", "@3000")
    parse_go_to("iteration 5")    → GoTo("iteration", 5)     ("iter 5", "i5")
    parse_go_to("1m20s")          → GoTo("time", 80000.0)    ("t 12.5s", "850ms", "1:20", "+2.5s"), from the start
    parse_go_to("call-llm#3")     → GoTo("step", "call-llm#3")  anything else: a step id (or runtime stage id)

    resolve_go_to(goto, run, spans) → Target(position, stop, node, says) or raises GoToError (a sentence).
Numbers the user reads are 1-based (stop 1 is the first stop, event 1 the first event), as the window shows them.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

from afp_desktop.core.model.axis import typed_ts


class GoToError(ValueError):
    """What the user typed cannot be gone to; the message says why, in words."""


@dataclass(frozen=True)
class GoTo:
    kind: str       # "stop" | "event" | "iteration" | "time" | "step"
    value: Any      # int for stop/event/iteration, milliseconds for time, the id for step


@dataclass(frozen=True)
class Target:
    position: int            # axis position to move the cursor to
    stop: int | None         # the stop (of the spans given) chosen, if the target is one
    node: int | None         # the StepGraph node to select, if the target is a step
    says: str                # what the status bar says: "Stop 12 of 7,008 · Tool call 3"


_NUMBER = r"(\d[\d,_]*)"
_FORMS = (
    ("stop", re.compile(rf"^(?:stop|s|#)\s*{_NUMBER}$")),
    ("event", re.compile(rf"^(?:event|ev|e|@)\s*{_NUMBER}$")),
    ("iteration", re.compile(rf"^(?:iteration|iter|it|i)\s*{_NUMBER}$")),
    ("stop", re.compile(rf"^{_NUMBER}$")),
)
_UNIT_MS = {"ms": 1.0, "s": 1000.0, "sec": 1000.0, "m": 60_000.0, "min": 60_000.0, "h": 3_600_000.0}
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)\s*h)?\s*(?:(\d+(?:\.\d+)?)\s*(?:m|min)(?!s))?\s*"
                       r"(?:(\d+(?:\.\d+)?)\s*(?:s|sec))?\s*(?:(\d+(?:\.\d+)?)\s*ms)?$")
_CLOCK = re.compile(r"^(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$")
MAX_DIGITS = 18  # a stop, event or iteration number longer than this is in no run (10**18 events)


def _duration_ms(text: str) -> float | None:
    """"1m20s", "12.5s", "850ms", "1h2m", "1:20", "1:02:03.5" → milliseconds; None when it is not a duration;
    infinity for one too long to be held (hundreds of digits: float() gives infinity where int() would fail)."""
    clock = _CLOCK.match(text)
    if clock:
        hours, minutes, seconds = clock.groups()
        parts: tuple[float, ...] = (float(hours or 0), float(minutes), float(seconds), 0.0)
    else:
        if not text or text[-1].isdigit():  # a bare number is a stop number, never a time
            return None
        match = _DURATION.match(text)
        if not match or not any(match.groups()):
            return None
        parts = tuple(float(g) if g else 0.0 for g in match.groups())
    h, m, s, millis = parts
    ms = ((h * 60 + m) * 60 + s) * 1000.0 + millis
    return ms if math.isfinite(ms) else math.inf


def parse_go_to(text: str) -> GoTo:
    """What the user typed, understood; raises GoToError for an empty box."""
    raw = text.strip()
    if not raw:
        raise GoToError("type a stop number, “event 300”, “iteration 5”, a time such as “1m20s”, or a step id")
    lowered = raw.lower()
    for kind, pattern in _FORMS:
        match = pattern.match(lowered)
        if match:
            digits = match.group(1).replace(",", "").replace("_", "")
            if len(digits) > MAX_DIGITS:  # (and Python's int() stops at 4,300 digits)
                raise GoToError(f"there is no {kind} {digits[:6]}… ({len(digits):,} digits): no run has that many")
            return GoTo(kind, int(digits))
    time_text = lowered[1:].strip() if lowered[0] in "t+" and len(lowered) > 1 and not lowered[1].isalpha() \
        else lowered
    milliseconds = _duration_ms(time_text.replace(" ", ""))
    if milliseconds == math.inf:
        raise GoToError(f"“{raw[:40]}” is longer than any run could last")
    if milliseconds is not None:
        return GoTo("time", milliseconds)
    return GoTo("step", raw)


# ── where it leads ──────────────────────────────────────────────────────────────────────────────────────────


def _number(value: int) -> str:
    return f"{value:,}"


def _event_times(run) -> list[float | None]:
    """The time (ms) of each axis entry: a DomainEvent's "ts", a typed event's meta.wallClockMs."""
    times: list[float | None] = []
    domain, typed = run.domain_events, run.typed_events or []
    for kind, index in run.axis.entries:
        value = domain[index].get("ts") if kind == "d" and isinstance(domain[index], dict) \
            else (typed_ts(typed[index]) if kind == "t" else None)
        times.append(float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None)
    return times


def _position_at_time(run, offset_ms: float) -> tuple[int, float]:
    """The first position at or after `offset_ms` from the run's first timed event (the last one beyond its end);
    also the run's length in ms."""
    timed = [(p, t) for p, t in enumerate(_event_times(run)) if t is not None]
    if not timed:
        raise GoToError("this file records no event times, so a time cannot be gone to")
    start = min(t for _p, t in timed)
    # The axis is in time order except where events lack a time; keep the running maximum to bisect.
    running, highest = [], float("-inf")
    for _p, t in timed:
        highest = max(highest, t)
        running.append(highest)
    k = bisect_left(running, start + offset_ms)
    length = running[-1] - start
    if k >= len(timed):
        return len(run.axis), length
    return timed[k][0] + 1, length


def _node_position(run, node: int) -> int:
    return run.axis.position_of_domain(run.step_fold.node_created_at[node]) + 1


def resolve_go_to(goto: GoTo, run, spans: list) -> Target:
    """The target of `goto` on `run`; `spans` are the stops shown (replay.StopSpan: .end, .label)."""
    length = len(run.axis)
    if goto.kind == "stop":
        if not spans:
            raise GoToError("this run has no stops here; try “event 300”")
        if not 1 <= goto.value <= len(spans):
            raise GoToError(f"there is no stop {_number(goto.value)}: stops run from 1 to {_number(len(spans))}")
        span = spans[goto.value - 1]
        return Target(span.end, goto.value - 1, None,
                      f"Stop {_number(goto.value)} of {_number(len(spans))} · {span.label}")
    if goto.kind == "event":
        if not 0 <= goto.value <= length:
            raise GoToError(f"there is no event {_number(goto.value)}: the run has {_number(length)} events")
        return Target(goto.value, None, None, f"Event {_number(goto.value)} of {_number(length)}")
    nodes = run.step_fold.nodes
    if goto.kind == "iteration":
        for index, node in enumerate(nodes):
            if isinstance(node, dict) and node.get("iterationIndex") == goto.value:
                return Target(_node_position(run, index), None, index, f"Iteration {_number(goto.value)}")
        found: list[int] = sorted({n["iterationIndex"] for n in nodes if isinstance(n, dict)
                                   and isinstance(n.get("iterationIndex"), int)})
        if not found:
            raise GoToError("this run has no numbered iterations")
        raise GoToError(f"there is no iteration {_number(goto.value)}: iterations run from {_number(found[0])} to "
                        f"{_number(found[-1])}")
    if goto.kind == "time":
        position, total = _position_at_time(run, goto.value)
        if goto.value > total:
            raise GoToError(f"the run lasts {format_ms(total)}; {format_ms(goto.value)} is past its end")
        return Target(position, None, None, f"{format_ms(goto.value)} into the run · event {_number(position)}")
    wanted = str(goto.value)
    for key in ("id", "runtimeStageId"):
        for index, node in enumerate(nodes):
            if isinstance(node, dict) and node.get(key) == wanted:
                return Target(_node_position(run, index), None, index, f"Step {wanted}")
    lowered = wanted.lower()
    for index, node in enumerate(nodes):  # else the first step whose id begins with it (any case)
        node_id = node.get("id") if isinstance(node, dict) else None
        if isinstance(node_id, str) and node_id.lower().startswith(lowered):
            return Target(_node_position(run, index), None, index, f"Step {node_id}")
    raise GoToError(f"no stop, event, iteration, time or step id matches “{wanted}”")


def format_ms(ms: float) -> str:
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    return f"{int(ms // 60_000)}m {ms % 60_000 / 1000:04.1f}s"
