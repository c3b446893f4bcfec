"""The run's event axis: one ordered sequence of every typed event and every DomainEvent, so that a cursor
position (an integer p: "the first p entries have happened") says exactly which events of BOTH lists have
happened. Each list keeps its own order inside the axis, so a position is also a pair of prefix lengths.

Alignment: a DomainEvent mapped from a typed event (§2.5) is "anchored" to it and sits right after it. Between
two anchors, the remaining events of both lists are merged by time (traversal first on equal time, §2.8).
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from itertools import accumulate, compress, islice, repeat
from operator import ge, not_, sub
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator
from afp_desktop.core.breathing import breathe, breathing_over
from afp_desktop.core.jsonx.fields import pick_by_code, texts_of

TYPED_TO_DOMAIN = {
    "agentfootprint.stream.llm_start": "llm.start",
    "agentfootprint.stream.llm_end": "llm.end",
    "agentfootprint.stream.tool_start": "tool.start",
    "agentfootprint.stream.tool_end": "tool.end",
    "agentfootprint.context.injected": "context.injected",
    "agentfootprint.composition.enter": "composition.start",
    "agentfootprint.composition.exit": "composition.end",
}
TYPED_DOMAIN_TYPES = frozenset(TYPED_TO_DOMAIN.values())
ANCHORED_AT_ONCE = 4_096  # DomainEvents (entries) from which build_axis merges and counts by numpy (fewer: the loops)
PIECE = 8_192  # entries per C-iterator call between breaths (short enough that the window's thread is served between)


def typed_ts(event: Any) -> Any:
    meta = event.get("meta") if isinstance(event, dict) else None
    return meta.get("wallClockMs") if isinstance(meta, dict) else None


def anchor_domain_to_typed(domain: list, typed: list) -> list[int | None]:
    """For each DomainEvent of the typed half, the index of the typed event it was mapped from (in order)."""
    anchors: list[int | None] = [None] * len(domain)
    j = 0
    for i, event in enumerate(domain):
        dtype = event.get("type") if isinstance(event, dict) else None
        if dtype not in TYPED_DOMAIN_TYPES:
            continue
        k = j
        while k < len(typed) and TYPED_TO_DOMAIN.get(typed[k].get("type")) != dtype:
            k += 1
        if k == len(typed):
            continue  # the typed stream lacks it (e.g. the recorder's tail cap dropped it); merge it by time
        anchors[i] = k
        j = k + 1
    return anchors


def _sort_key(ts: Any) -> float:
    return ts if isinstance(ts, (int, float)) and not isinstance(ts, bool) else float("-inf")


class AxisEntries:
    """The axis's entries, read as ("d", i) and ("t", j) but kept as one machine integer each (i, or -1 - j):
    ~8 bytes an entry instead of ~90 for a tuple and its integer (a long run has 150,000 entries)."""

    __slots__ = ("codes",)

    def __init__(self, entries: Iterable[tuple[str, int]] = ()) -> None:
        self.codes = array("q")
        self.extend(entries)

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, position):
        if isinstance(position, slice):
            return [_entry(code) for code in self.codes[position]]
        return _entry(self.codes[position])

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return map(_entry, self.codes)

    def append(self, entry: tuple[str, int]) -> None:
        kind, index = entry
        self.codes.append(index if kind == "d" else -1 - index)

    def copy(self) -> "AxisEntries":
        copied = AxisEntries()
        copied.codes = self.codes[:]
        return copied

    def extend(self, entries: Iterable[tuple[str, int]]) -> None:
        for entry in entries:
            self.append(entry)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, AxisEntries):
            return self.codes == other.codes
        if isinstance(other, list):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # like the list it stands for

    def __repr__(self) -> str:
        return f"AxisEntries({len(self)} entries)"


def entry_codes(entries) -> array:
    """The entries as AxisEntries keeps them (i for ("d", i), -1 - j for ("t", j)), for loops over all of them."""
    return entries.codes if isinstance(entries, AxisEntries) else AxisEntries(entries).codes


def _entry(code: int) -> tuple[str, int]:
    return ("d", code) if code >= 0 else ("t", -1 - code)


def _counts(*values: int) -> array:
    return array("q", values)


@dataclass
class Axis:
    """`entries[p]` is ("d", i) or ("t", j); `domain_before[p]`/`typed_before[p]` are prefix counts (p = 0..N).
    The per-entry and per-event counts are arrays of machine integers (a list holds a pointer and an int object for
    each, several times their size)."""

    entries: Any = field(default_factory=AxisEntries)
    domain_before: Any = field(default_factory=lambda: _counts(0))
    typed_before: Any = field(default_factory=lambda: _counts(0))
    commit_before: list[int] = field(default_factory=list)  # per entry: commits done when it fired (carried;
    # a list: the counts come from the file and may not fit a machine integer)
    domain_after: Any = field(default_factory=_counts)  # per DomainEvent: the position right after it
    typed_after: Any = field(default_factory=_counts)  # per typed event: the position right after it
    anchors: list[int | None] = field(default_factory=list)  # per DomainEvent: the typed event it mirrors
    legs: int = 1  # commit histories on the axis: a resumed run starts a new one (its snapshot covers the last)

    def __len__(self) -> int:
        return len(self.entries)

    def counts_at(self, position: int) -> tuple[int, int]:
        position = max(0, min(position, len(self.entries)))
        return self.domain_before[position], self.typed_before[position]

    def position_after_commit(self, last_commit_idx: int) -> int:
        """The axis position once commits 0..last_commit_idx are applied: every event that fired before a
        later commit has happened, nothing that fired after it."""
        return bisect_right(self.commit_before, last_commit_idx)

    def position_of_domain(self, index: int) -> int:
        """Axis position just before DomainEvent `index` happens."""
        return self.domain_after[index] - 1 if 0 <= index < len(self.domain_after) else len(self)


def build_axis(domain: list, typed: list | None, anchors: list[int | None] | None = None) -> Axis:
    typed = typed or []
    if anchors is None:
        anchors = anchor_domain_to_typed(domain, typed) if typed else [None] * len(domain)
    axis = Axis(anchors=anchors)
    entries = axis.entries.codes  # ("d", i) is i, ("t", j) is -1 - j (AxisEntries)
    next_typed = 0
    loose_domain: list[int] = []

    def flush(until_typed: int) -> None:
        """Merge loose DomainEvents with typed events [next_typed, until_typed) by time, traversal first."""
        nonlocal next_typed, loose_domain
        if not loose_domain:  # nothing to merge (a stream's DomainEvents are all anchored): in order, in C
            entries.extend(range(-1 - next_typed, -1 - until_typed, -1))
            next_typed = max(next_typed, until_typed)
            return
        d = 0
        for j in range(next_typed, until_typed):
            tts = _sort_key(typed_ts(typed[j]))
            while d < len(loose_domain) and _sort_key(domain[loose_domain[d]].get("ts")) <= tts:
                entries.append(loose_domain[d])
                d += 1
            entries.append(-1 - j)
        entries.extend(loose_domain[d:])
        loose_domain = []
        next_typed = max(next_typed, until_typed)

    merged = _anchored_entries(anchors, len(typed)) if len(domain) >= ANCHORED_AT_ONCE else None
    if merged is not None:
        entries.extend(merged)
    else:
        for i in breathing_over(range(len(domain))):
            anchor = anchors[i]
            if anchor is None:
                loose_domain.append(i)
                continue
            flush(anchor + 1)
            entries.append(i)
        flush(len(typed))

    # Each list keeps its order on the axis: the positions of its entries, in order, are where each event is.
    # (Counted by C iterators a piece at a time: over a whole long run one such call would hold Python throughout.)
    domain_after, typed_after = axis.domain_after, axis.typed_after
    domain_before, typed_before = axis.domain_before, axis.typed_before
    if len(entries) >= ANCHORED_AT_ONCE and _count_by_numpy(axis):
        axis.commit_before, axis.legs = _commits_before(entries, domain, anchors)
        return axis
    for start in range(0, len(entries), PIECE):
        breathe()
        stop = min(start + PIECE, len(entries))
        is_domain = list(map(ge, entries[start:stop], repeat(0)))
        positions = range(start + 1, stop + 1)
        domain_after.extend(compress(positions, is_domain))
        typed_after.extend(compress(positions, map(not_, is_domain)))
        before = array("q", islice(accumulate(is_domain, initial=domain_before[-1]), 1, None))
        domain_before.extend(before)
        typed_before.extend(map(sub, positions, before))
    axis.commit_before, axis.legs = _commits_before(entries, domain, anchors)
    return axis


def _anchored_entries(anchors: list, typed_count: int) -> array | None:
    """The entries the loop of build_axis makes when every DomainEvent is anchored (an event stream's are): the
    typed events in order, each DomainEvent right after the furthest typed event anchored so far, made by numpy
    at once (the loop's one small extend per DomainEvent is slow over a long stream). None when numpy is not
    imported (a short command-line run does without it) or an anchor is missing or not a typed index."""
    np = sys.modules.get("numpy")
    if np is None or None in anchors:
        return None
    try:
        at = np.array(anchors, dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        return None
    if len(at) and (int(at.min()) < -1 or int(at.max()) >= typed_count):
        return None
    before = np.maximum.accumulate(at + 1) if len(at) else at  # (the loop's next_typed, which never goes back)
    codes = np.insert(-1 - np.arange(typed_count, dtype=np.int64), before, np.arange(len(at), dtype=np.int64))
    merged = array("q")
    merged.frombytes(codes.tobytes())
    return merged


def _count_by_numpy(axis: Axis) -> bool:
    """build_axis's counts (where each event is, how many of each kind came before each position) made by numpy
    at once, when it is imported: much faster than C iterators over a long stream's entries."""
    np = sys.modules.get("numpy")
    if np is None:
        return False
    codes = np.frombuffer(axis.entries.codes, dtype=np.int64)
    is_domain = codes >= 0
    domain_before = np.cumsum(is_domain, dtype=np.int64)
    for target, values in ((axis.domain_after, np.flatnonzero(is_domain) + 1),
                           (axis.typed_after, np.flatnonzero(~is_domain) + 1),
                           (axis.domain_before, domain_before),
                           (axis.typed_before, np.arange(1, len(codes) + 1, dtype=np.int64) - domain_before)):
        target.frombytes(values.astype(np.int64, copy=False).tobytes())
    return True


def _commits_before(entries: array, domain: list, anchors: list[int | None]) -> tuple[list[int], int]:
    """Per entry, the commits done when it fired (carried from the last event that says), and the legs."""
    try:
        said: set | None = {event.get("commitIdxBefore") for event in breathing_over(domain)}
    except TypeError:  # (a count that is a list or an object: the walk below tells what it means)
        said = None
    if said is not None and said <= {0, None}:  # no commit counted, as in any event stream: nothing to carry
        return [0] * len(entries), 1
    # A typed event mapped to a DomainEvent fired at the same moment: it takes that event's commit count.
    anchored_commit = {anchor: domain[i].get("commitIdxBefore") for i, anchor in enumerate(breathing_over(anchors))
                       if anchor is not None}
    commit_before: list[int] = []
    carried, legs = 0, 1
    for code in breathing_over(entries):
        c = domain[code].get("commitIdxBefore") if code >= 0 else anchored_commit.get(-1 - code)
        if isinstance(c, int) and not isinstance(c, bool):
            if c < carried:
                # The commit count went back: a new leg (a resume) with its own commit log. A snapshot
                # covers only the last leg, so everything before it counts as "before the first commit".
                commit_before[:] = [-1] * len(commit_before)
                legs += 1
            carried = c
        commit_before.append(carried)
    return commit_before, legs


def per_entry(entries, domain_values: Iterable, typed_values: Iterable) -> list:
    """Per axis entry, the next of `domain_values` for a DomainEvent and of `typed_values` for a typed event:
    each list keeps its own order on the axis, so the two are merged in C, with no tuple or call per entry."""
    sources = (iter(typed_values), iter(domain_values))
    codes = entry_codes(entries)
    merged: list = []
    for start in range(0, len(codes), PIECE):
        breathe()
        merged += map(next, map(sources.__getitem__, map(ge, codes[start:start + PIECE], repeat(0))))
    return merged


def stage_ids_on_axis(axis: Axis, domain: list, typed: list) -> list[str]:
    """Each entry's runtimeStageId ("" when it has none)."""
    domain_ids, typed_ids = texts_of(domain, "runtimeStageId"), texts_of(typed, "meta", "runtimeStageId")
    picked = pick_by_code(entry_codes(axis.entries), domain_ids, typed_ids)  # (in C, when it was built)
    return picked if picked is not None else per_entry(axis.entries, domain_ids, typed_ids)


def runtime_stage_id_of(entry: tuple[str, int], domain: list, typed: list) -> str:
    """One entry's runtimeStageId ("" when it has none)."""
    kind, index = entry
    if kind == "d":
        event = domain[index]
        rid = event.get("runtimeStageId") if isinstance(event, dict) else None
    else:
        meta = typed[index].get("meta")
        rid = meta.get("runtimeStageId") if isinstance(meta, dict) else None
    return rid if isinstance(rid, str) else ""
