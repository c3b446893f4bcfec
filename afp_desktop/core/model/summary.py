"""Figures about a run for a person: name, models, LLM and tool calls, tokens, duration, errors."""

from __future__ import annotations

import copy
import math
from array import array
from bisect import bisect_left
from dataclasses import asdict, dataclass, field
from itertools import accumulate, islice

from afp_desktop.core.jsonx.lazyjson import resolve_quietly
from afp_desktop.core.library.events import domain_indices_of
from afp_desktop.core.breathing import EVERY, breathing_over


@dataclass
class RunSummary:
    name: str | None = None
    models: list[str] = field(default_factory=list)
    llm_calls: int = 0
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    duration_ms: int | None = None
    errors: int = 0
    started_at_ms: int | None = None

    def as_json(self) -> dict:
        """The figures with camelCase keys, as the command line gives them."""
        return {_camel(key): value for key, value in asdict(self).items()}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _num(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def tool_names_called(run) -> list[str]:
    """Names of the tools the run actually called, in first-call order."""
    names: dict[str, None] = {}
    domain = run.domain_events
    for i in breathing_over(domain_indices_of(run, "tool.start")):
        if isinstance(domain[i].get("toolName"), str):
            names[domain[i]["toolName"]] = None
    typed = run.typed_events or []
    for j in breathing_over(run.typed_by_type.get("agentfootprint.stream.tool_start", ())):
        payload = typed[j].get("payload")
        if isinstance(payload, dict) and isinstance(payload.get("toolName"), str):
            names[payload["toolName"]] = None
    return list(names)


def _top_level(event: dict) -> bool:
    depth = event.get("depth", 0)  # (a depth of the wrong type: not known to be the top)
    return isinstance(depth, (int, float)) and not isinstance(depth, bool) and depth <= 1


def _clock(value) -> int | float | None:
    """A time stamp that can be used as one: a finite number. (Every parser refuses a number beyond a double:
    core/jsonx/jsonio.py; a difference of two stamps can still be infinite.)"""
    finite = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return value if finite else None


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


_TOLD_BY_TYPED = frozenset({"agentfootprint.agent.run_configured", "agentfootprint.error.fatal",
                            "agentfootprint.composition.enter"})


class SummaryTally:
    """The run's figures as known at every position: where each call, usage, error, model and time stamp was
    told, by DomainEvent index (`i`: the first i have happened) and typed-event index (`j`). Made in one pass over
    the events; `at(i, j)` is O(log n)."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.models: dict[str, int] = {}  # model -> the DomainEvent index where it was first named
        self.llm_starts = array("q")  # DomainEvent indices
        self.tool_starts = array("q")
        self.usage_at = array("q")  # DomainEvent indices of llm.end
        self.tokens_in: list[int] = []  # cumulative, per llm.end (a list: a file's numbers may not fit 64 bits)
        self.tokens_out: list[int] = []
        self.domain_errors = array("q")
        self.typed_errors = array("q")  # typed-event indices
        self.domain_times: list = []  # per DomainEvent: the last usable time stamp by it (None: none yet)
        self.typed_times: list = []
        self._extremes: tuple | None = None

    def copy(self) -> "SummaryTally":
        """A tally of its own with what this one holds (one that `tally_more` extends later leaves it as it is)."""
        other = SummaryTally()
        other.__dict__.update((name, copy.copy(value) if isinstance(value, (list, array, dict)) else value)
                              for name, value in vars(self).items())
        other._extremes = None
        return other

    def whole(self) -> RunSummary:
        d_min, _d_max, t_min, _t_max = self._running_extremes()  # (one per event: as long as the stamps)
        return self.at(len(d_min), len(t_min))

    def __getstate__(self) -> dict:
        """Pickled (the window's copy of a run, a run packed) with its running extremes made and held as arrays,
        without the stamps they are made of (a stamp per event: most of the objects a big run's tally has). A tally
        read back gives the same figures; it is not grown (a followed run's tally is made where it grows)."""
        state = self.__dict__.copy()
        state["_extremes"] = tuple(Stamps.of(extremes) for extremes in self._running_extremes())
        state.pop("domain_times", None)  # (a tally read back has none: pickled again, it is as it was)
        state.pop("typed_times", None)
        return state

    def at(self, domain_count: int, typed_count: int) -> RunSummary:
        """The figures over the first `domain_count` DomainEvents and `typed_count` typed events."""
        i, j = max(0, domain_count), max(0, typed_count)
        ended = bisect_left(self.usage_at, i)
        s = RunSummary(name=self.name, models=[m for m, at in self.models.items() if at < i],
                       llm_calls=bisect_left(self.llm_starts, i), tool_calls=bisect_left(self.tool_starts, i),
                       tokens_in=self.tokens_in[ended - 1] if ended else 0,
                       tokens_out=self.tokens_out[ended - 1] if ended else 0,
                       errors=bisect_left(self.domain_errors, i) + bisect_left(self.typed_errors, j))
        first, last = self._span(i, j)
        if first is not None and last is not None:
            span = last - first
            s.started_at_ms = int(first)
            s.duration_ms = int(span) if _clock(span) is not None else None  # (1e308 after -1e308: none to give)
        return s

    def _span(self, i: int, j: int) -> tuple[int | float | None, int | float | None]:
        """The earliest and the latest time stamp over the first i DomainEvents and j typed events."""
        d_min, d_max, t_min, t_max = self._running_extremes()
        i, j = min(i, len(d_min)), min(j, len(t_min))
        lows = [x for x in (d_min[i - 1] if i else None, t_min[j - 1] if j else None) if x is not None]
        highs = [x for x in (d_max[i - 1] if i else None, t_max[j - 1] if j else None) if x is not None]
        return (min(lows) if lows else None), (max(highs) if highs else None)

    def _running_extremes(self) -> tuple:
        """(least, greatest) stamp by each DomainEvent, then by each typed event: made once."""
        if self._extremes is None:
            self._extremes = tuple(_running(times, extreme) for times in (self.domain_times, self.typed_times)
                                   for extreme in (min, max))
        return self._extremes


class Stamps:
    """A list of time stamps, None for the first `lead` and integers after them, held as an array: read by index
    as the list was. `Stamps.of(stamps)` gives the list itself when its stamps are not all such integers (a float,
    one beyond 64 bits)."""

    __slots__ = ("lead", "values")

    def __init__(self, lead: int, values: array) -> None:
        self.lead, self.values = lead, values

    @classmethod
    def of(cls, stamps: list) -> "Stamps | list":
        lead = next((k for k, stamp in enumerate(stamps) if stamp is not None), len(stamps))
        try:
            return cls(lead, array("q", stamps[lead:]))  # (a float or None is refused, not converted)
        except (TypeError, OverflowError):
            return stamps

    def __len__(self) -> int:
        return self.lead + len(self.values)

    def __getitem__(self, index: int):
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("stamp index out of range")
        return None if index < self.lead else self.values[index - self.lead]

    def __reduce__(self):
        return (Stamps, (self.lead, self.values))


def _running(times: list, extreme) -> list:
    """Per index, the least (`min`) or greatest (`max`) time stamp up to it (None: none yet). `times` carries the
    last usable stamp forward over events without one (so they change no extreme), None before the first. Compared
    in C (accumulate), a piece at a time, breathing between pieces; the stamps themselves are kept (an int beyond
    2**53 stays exact)."""
    lead = next((k for k, t in enumerate(times) if t is not None), len(times))
    out: list = [None] * lead
    for start in breathing_over(range(lead, len(times), EVERY), every=1):
        piece = accumulate(times[start:start + EVERY], extreme, initial=out[-1]) if start > lead \
            else accumulate(times[start:start + EVERY], extreme)
        out.extend(islice(piece, 1, None) if start > lead else piece)
    return out


def _stamp(ts, last):
    """`ts` when it is a usable time stamp, else the last usable one (None: none yet)."""
    return ts if ts.__class__ is int or _clock(ts) is not None else last


def tally_run(run) -> SummaryTally:
    """One pass over the run's events: its figures, where each became known."""
    return tally_more(SummaryTally(), run.domain_events, run.typed_events or [])


def tally_more(s: SummaryTally, domain_events: list, typed_events: list) -> SummaryTally:
    """`s` (returned) extended with the events of `domain_events` and `typed_events` past those it has tallied: the
    lists begin with the events it was made of (a followed run grown, core/formats/live_run.py). What `s` gives is
    then what one pass over the whole lists gives."""
    s._extremes = None
    start = len(s.domain_times)
    last = s.domain_times[-1] if start else None
    for i, event in enumerate(breathing_over(islice(domain_events, start, None)), start):
        etype = event.get("type")
        last = _stamp(event.get("ts"), last)
        s.domain_times.append(last)
        if etype == "llm.start":
            s.llm_starts.append(i)
            if isinstance(event.get("model"), str):
                s.models.setdefault(event["model"], i)
        elif etype == "llm.end":
            usage = event.get("usage") if isinstance(event.get("usage"), dict) else {}
            before_in, before_out = (s.tokens_in[-1], s.tokens_out[-1]) if s.tokens_in else (0, 0)
            s.usage_at.append(i)
            s.tokens_in.append(before_in + _num(usage.get("input")))
            s.tokens_out.append(before_out + _num(usage.get("output")))
        elif etype == "tool.start" and not event.get("notDispatched"):
            s.tool_starts.append(i)
        elif etype == "tool.end" and event.get("error") is True:
            s.domain_errors.append(i)
        elif etype == "run.exit" and _has_error(event.get("payload")):
            s.domain_errors.append(i)
        elif etype in ("subflow.entry", "composition.start") and s.name is None and _top_level(event):
            if event.get("primitiveKind") in ("Agent", "LLMCall", "Sequence", "Parallel", "Conditional", "Loop"):
                s.name = _text(event.get("subflowName")) or _text(event.get("name"))
            elif etype == "composition.start":
                s.name = _text(event.get("name"))
    start = len(s.typed_times)
    last = s.typed_times[-1] if start else None
    for j, event in enumerate(breathing_over(islice(typed_events, start, None)), start):
        etype = event.get("type")
        meta = event.get("meta")
        last = _stamp(meta.get("wallClockMs"), last) if isinstance(meta, dict) else last
        s.typed_times.append(last)
        if etype.__class__ is not str or etype not in _TOLD_BY_TYPED:
            continue  # (most of a long run's events: tokens, progress reports, injections)
        if etype == "agentfootprint.agent.run_configured" and s.name is None:
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            s.name = payload.get("agentId") if isinstance(payload.get("agentId"), str) else None
        elif etype == "agentfootprint.error.fatal":
            s.typed_errors.append(j)
        elif etype == "agentfootprint.composition.enter" and s.name is None:
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            s.name = payload.get("name") if isinstance(payload.get("name"), str) else None
    return s


def summarize(run) -> RunSummary:
    return tally_run(run).whole()


def summary_at(run, position: int) -> RunSummary:
    """The figures as known at axis `position` (the first `position` entries have happened); the tally is made
    once per run (Run.summary_tally)."""
    return run.summary_tally.at(*run.axis.counts_at(position))


def _has_error(payload) -> bool:
    """A run.exit payload `{error: …}` (a large Trace's payloads are LazyJSON until read)."""
    payload = resolve_quietly(payload)
    return isinstance(payload, dict) and "error" in payload
