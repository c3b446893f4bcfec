"""The copy of a prepared run that the window holds: everything the window paints, its events packed away.

The engine keeps the run it read whole and answers the questions that need its events (a step's sections, a
payload, find, the event list, the Context tab, the shared page). The window shows a run from what was prepared for
it (`run.views`, the axis, the step graph, the stops, the status lines), so its copy holds the events and the parsed
document packed as one block of bytes (`Packed`) rather than as millions of objects: a window that held them as
objects would take as long to receive, and as long to free, as the engine took to build them. (A recording's
events are kept as they are: its snapshot and step graph hold their payloads anyway.)

Each list is stood for by `EventsInTheEngine`: it keeps the list's length (the window counts events) and a few of
its events by index; reading any other raises `EventsNotHere`, for a packed list and a kept one alike.
What no engine holds for the window — a part shown while the rest of its file is read, a run whose engine was
retired, the tests' in-process loads — is answered from `whole_run(copy)`, which unpacks them again, off the
window's thread.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any, Iterable, NoReturn

from afp_desktop.core.framed_pickle import unpickled_in_frames

_NONE = object()


class EventsNotHere(LookupError):
    """An event was read from the window's copy of a run: its events are packed (whole_run unpacks them)."""


class Packed:
    """The events, typed events and document of a run (they share objects: a Trace's events are parts of its
    document), held for the window's copy: packed together as one block of bytes (`data`), or, for a run whose
    projections share the events' payloads (a recording's snapshot and step graph hold them), kept as they are
    (`lists`): packing them there would hold each payload twice."""

    __slots__ = ("data", "lists")

    def __init__(self, data: bytes | None, lists: dict[str, Any] | None = None) -> None:
        self.data, self.lists = data, lists

    @classmethod
    def of(cls, lists: dict[str, Any], pack: bool) -> "Packed":
        return cls(pickle.dumps(lists, protocol=pickle.HIGHEST_PROTOCOL), None) if pack else cls(None, lists)

    def unpacked(self) -> dict[str, Any]:
        if self.lists is not None:
            return self.lists
        assert self.data is not None
        return unpickled_in_frames(self.data)  # (a frame at a time: a thread unpacking lets the window run)

    def __reduce__(self):
        return (Packed, (self.data, self.lists))


class EventsInTheEngine:
    """Stands for the run's list `name` of `count` events: it has their count, the run's packed lists, and a few of
    its events by index (`kept`: the first, the last, and the last of each part of the run shown before it, so that
    a run can be told to extend another: growth_delta.extends)."""

    __slots__ = ("count", "name", "packed", "kept")

    def __init__(self, count: int, name: str, packed: Packed, kept: dict[int, Any] | None = None) -> None:
        self.count, self.name, self.packed, self.kept = count, name, packed, kept or {}

    def __getitem__(self, index: int) -> Any:
        if isinstance(index, int) and -self.count <= index < self.count:
            event = self.kept.get(index % self.count, _NONE)
            if event is not _NONE:
                return event
        self._not_here()

    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0

    def _not_here(self, *_args: Any) -> NoReturn:
        raise EventsNotHere(f"the {self.name} of this run are packed in the window's copy: ask the engine, or "
                            "unpack them off the window's thread (window_copy.whole_run)")

    __iter__ = _not_here
    __contains__ = _not_here
    index = _not_here

    def __reduce__(self):
        return (EventsInTheEngine, (self.count, self.name, self.packed, self.kept))

    def __repr__(self) -> str:
        return f"EventsInTheEngine({self.count}, {self.name!r})"


def holds_events(run) -> bool:
    """Whether `run` holds its events as objects (not the window's copy of a prepared run)."""
    return not isinstance(run.domain_events, EventsInTheEngine)


def window_copy(run, parts_before: Iterable[tuple[int, int]] = ()):
    """The window's copy of prepared `run` (views made): its projections, its events and document packed. `run`
    itself is not changed. `parts_before`: the (typed, domain) event counts of the parts of the same file shown
    before it, whose last events the copy keeps. A run with no views prepared (a followed run, whose panels compute
    from its events) is returned as it is."""
    if run.views is None or not holds_events(run):
        return run
    # the run's own projections, made now from its events (the copy carries them made)
    run.axis, run.step_fold, run.status_states, run.replay_facts, run.summary_tally, run.run_ends, run.stops  # noqa: B018
    run.stage_ids_on_axis()
    parts = list(parts_before)
    lists = {"domain_events": run.domain_events, "typed_events": run.typed_events, "document": run.document}
    packed = Packed.of(lists, pack=run.snapshot is None)
    shown = copy.copy(run)
    shown.domain_events = EventsInTheEngine(len(run.domain_events), "DomainEvents", packed,
                                            _kept(run.domain_events, [domain for _typed, domain in parts]))
    if run.typed_events is not None:
        shown.typed_events = EventsInTheEngine(len(run.typed_events), "typed events", packed,
                                               _kept(run.typed_events, [typed for typed, _domain in parts]))
    if run.document is not None:
        shown.document = EventsInTheEngine(1, "parsed document", packed)
    return shown


def whole_run(shown):
    """The run `shown` (a window's copy) with its events and document unpacked: a run every projection and request
    can read. Slow for a big run (the unpacking builds its objects again): never on the window's thread."""
    if holds_events(shown):
        return shown
    lists = shown.domain_events.packed.unpacked()
    run = copy.copy(shown)
    run.domain_events, run.typed_events, run.document = lists["domain_events"], lists["typed_events"], lists["document"]
    return run


def _kept(events: list, counts: list[int]) -> dict[int, Any]:
    """The first and last of `events`, and the last of each of its first `counts`."""
    return {index: events[index] for index in {0, len(events) - 1, *(count - 1 for count in counts)}
            if 0 <= index < len(events)}


def part_counts(run) -> tuple[int, int]:
    """(typed, domain) event counts of `run`, a part about to be shown (what window_copy's `parts_before` takes)."""
    return len(run.typed_events or ()), len(run.domain_events)
