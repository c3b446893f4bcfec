"""The event list: every event of the run in axis order (typed and domain), one plain line each. Pure, no Qt.

Row r of the unfiltered list is axis entry r: the event that happens between positions r and r + 1, so moving
the cursor "right after" it is `move_to(r + 1)`. A filter keeps a sorted list of entry indices.

`EventListAnswers` answers the engine's requests about one run's list (its rows' cells, its types, a filter's
entries) in plain values that pickle small: the window holds the axis, never the events.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter
from typing import Any, Iterable

from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.model.axis import runtime_stage_id_of

SUMMARY_CHARS = 200
# Bookkeeping every event carries: it says nothing about this event (the stage has its own column).
_SKIP_KEYS = frozenset(("type", "ts", "runtimeStageId", "meta", "subflowPath", "depth", "commitIdxBefore",
                        "commitIdxAfter", "compositionPath"))
# Fields a person looks for first, in this order; the rest follow.
_FIRST_KEYS = ("toolName", "name", "question", "questionPayload", "content", "text", "message", "error", "result",
               "reason", "label", "stage")


def entry_event(run, entry: tuple[str, int]) -> Any:
    kind, index = entry
    return run.domain_events[index] if kind == "d" else (run.typed_events or [])[index]


def event_type(run, entry: tuple[str, int]) -> str:
    event = entry_event(run, entry)
    kind = event.get("type") if isinstance(event, dict) else None
    return kind if isinstance(kind, str) else "(no type)"


def _one_line(value: Any) -> str:
    from afp_desktop.core.jsonx import jsonio
    from afp_desktop.core.jsonx.lazyjson import LazyJSON

    if isinstance(value, LazyJSON):  # a large Trace's payload: its first bytes, unparsed (a row is one line)
        return " ".join(bytes(value.raw()[:4 * SUMMARY_CHARS]).decode("utf-8", "replace").split())
    if isinstance(value, str):
        text = value[:4 * SUMMARY_CHARS]  # a row shows one line: never split a megabyte
    else:
        try:
            text = jsonio.dumps(value)[:4 * SUMMARY_CHARS].decode("utf-8", "replace")
        except Exception:  # noqa: BLE001 - a value that cannot be written still gets a row
            text = repr(value)[:4 * SUMMARY_CHARS]
    return " ".join(text.split())


def event_summary(run, entry: tuple[str, int], limit: int = SUMMARY_CHARS) -> str:
    """One plain line: the event's fields (payload first for a typed event), known names first."""
    event = entry_event(run, entry)
    if not isinstance(event, dict):
        return _one_line(event)[:limit]
    body = event.get("payload") if entry[0] == "t" else event
    if entry[0] == "d" and isinstance(event.get("payload"), dict) and len(event) <= 5:
        body = {**{k: v for k, v in event.items() if k != "payload"}, **event["payload"]}
    if not isinstance(body, dict):
        return _one_line(body)[:limit]
    keys = [k for k in _FIRST_KEYS if k in body] + [k for k in body if k not in _FIRST_KEYS]
    parts = []
    used = 0
    for key in keys:
        if key in _SKIP_KEYS:
            continue
        part = f"{key}: {_one_line(body[key])}"
        parts.append(part)
        used += len(part) + 3
        if used > limit:
            break
    text = " · ".join(parts)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def event_stage(run, entry: tuple[str, int]) -> str:
    return runtime_stage_id_of(entry, run.domain_events, run.typed_events or [])


def event_types(run) -> list[str]:
    """The type of every axis entry, in order (computed once by a caller that filters repeatedly)."""
    return [event_type(run, entry) for entry in run.axis.entries]


def type_counts(run, types: list[str] | None = None) -> list[tuple[str, int]]:
    """Each event type with how many events have it, most frequent first (ties by name)."""
    # (breathing: one Counter over all of a big run's types would hold Python's lock, the window waiting)
    counts = Counter(breathing_over(event_types(run) if types is None else types))
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def filter_entries(run, text: str = "", exact_type: str | None = None,
                   types: list[str] | None = None) -> list[int] | None:
    """Entry indices whose type is `exact_type` and contains `text` (case-insensitive); None: no filter.
    The text is matched against the run's few distinct types, then entries are kept by type."""
    needle = text.strip().lower()
    if not needle and not exact_type:
        return None
    types = event_types(run) if types is None else types
    wanted = {kind for kind in set(types)
              if (not exact_type or kind == exact_type) and (not needle or needle in kind.lower())}
    if not wanted:
        return []
    return [index for index, kind in enumerate(types) if kind in wanted]


def row_of_moment(rows: list[int] | None, position: int, length: int) -> int | None:
    """The row of the last event that has happened at `position` (None before the first shown)."""
    if rows is None:
        return min(position, length) - 1 if position > 0 else None
    row = bisect_left(rows, position) - 1
    return row if row >= 0 else None


def event_cells(run, entry_index: int) -> tuple[str, str, str]:
    """(type, stage, summary) of axis entry `entry_index`, each one plain line."""
    entry = run.axis.entries[entry_index]
    return event_type(run, entry), event_stage(run, entry), event_summary(run, entry)


class EventListAnswers:
    """The event list's requests about one run: the type of every entry is worked out once, at the first filter or
    type count, and kept for the next."""

    def __init__(self, run) -> None:
        self.run = run
        self._types: list[str] | None = None

    def types(self) -> list[str]:
        if self._types is None:
            self._types = event_types(self.run)
        return self._types

    def rows(self, entries: Iterable[int]) -> dict[int, tuple[str, str, str]]:
        """Entry index → its cells (type, stage, summary), for the entries asked for that the run has."""
        count = len(self.run.axis.entries)
        return {index: event_cells(self.run, index) for index in breathing_over(entries, every=32) if 0 <= index < count}

    def type_counts(self) -> list[tuple[str, int]]:
        return type_counts(self.run, self.types())

    def filtered(self, text: str = "", exact_type: str | None = None) -> array | None:
        """filter_entries as a compact array of entry indices (None: no filter)."""
        rows = filter_entries(self.run, text, exact_type, self.types())
        return None if rows is None else array("q", rows)
