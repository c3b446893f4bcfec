"""The copy of a prepared run that the window holds: everything the window paints, nothing it only asks about.

The engine keeps the run it read whole and answers the questions that need its events and payloads (a step's
sections, a payload, find, the event list, the Context tab, the shared page, a drill's stops are made ahead). The
window shows a run from what was prepared for it (`run.views`, the axis, the step graph, the stops, the status
lines), so its copy is the run with these stand-ins, put in place of the originals wherever the run holds them
(`write_window_copy`: while pickling, so every holder of an original gets the same stand-in, at no cost per object):

- each list of events, and the parsed document: `EventsInTheEngine` (its length, and a few of its events by index;
  reading any other raises `EventsNotHere`);
- each step of the step graph that carries payloads: the same step with them left out (`IN_THE_ENGINE` in their
  place), and its answer's text too unless its card shows it (a card without a tool or model name shows the
  answer's first line: that line is kept, cut to CARD_TEXT_CHARS);
- the recording's snapshot: `PreparedDrills` (the stops inside each mount, made by the engine);
- the axis's stage ids as `StageIds` (each text once, a column of codes), its commit counts as an array of machine
  integers, and its columns of positions and counts as 32-bit integers where each fits.
(What a type holds in every pickle of it travels in that type's own pickled form: a tally's running extremes,
summary.py; a route's points, layout.py.)

A copy made `whole` also carries the run as the engine holds it, packed as one block of bytes (`Packed`), for what
no engine holds for the window — the tests' in-process loads, a screenshot's run — answered from `whole_run(copy)`,
which unpacks it again, off the window's thread.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from array import array
from typing import Any, BinaryIO, Callable, Iterable, NoReturn

from afp_desktop.core.framed_pickle import unpickled_in_frames
from afp_desktop.core.jsonx.jsonio import run_deep
from afp_desktop.core.model.timeline import prepared_drills

PICKLE_PROTOCOL = 5
# A step's fields the window never reads (the inspector, find and export ask the engine): left out of its copy.
PAYLOAD_FIELDS = frozenset(("entryPayload", "exitPayload", "slotBoundaries", "toolArgs", "toolResult", "injections"))
CARD_TEXT_CHARS = 160  # of a step's answer, the window keeps the first line, this long at most (a graph card's)
BIG_ARRAY_BYTES = 64 << 10  # an array this big or bigger is read back without leaving a copy of its bytes behind
_NONE = object()


class EventsNotHere(LookupError):
    """An event or a payload was read from the window's copy of a run: the engine holds them."""


class InTheEngine:
    """The value of a step's field left out of the window's copy (PAYLOAD_FIELDS): the engine holds it."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "IN_THE_ENGINE"

    def __repr__(self) -> str:
        return "IN_THE_ENGINE"


IN_THE_ENGINE = InTheEngine()


class Packed:
    """The run as the engine holds it, packed as one block of bytes (`data`), carried by a copy made `whole`."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def unpacked(self) -> Any:
        return unpickled_in_frames(self.data)  # (a frame at a time: a thread unpacking lets the window run)

    def __reduce__(self):
        return (Packed, (self.data,))


class EventsInTheEngine:
    """Stands for the run's list `name` of `count` events: it has their count, a few of its events by index (`kept`:
    the first, the last, and the last of each part of the run shown before it, so that a run can be told to extend
    another: extends), and the whole run packed when the copy was made `whole` (`packed`, else None)."""

    __slots__ = ("count", "name", "packed", "kept")

    def __init__(self, count: int, name: str, packed: Packed | None, kept: dict[int, Any] | None = None) -> None:
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
        raise EventsNotHere(f"the {self.name} of this run are held by its engine: ask it (engine_requests), or, for "
                            "a copy made whole, unpack them off the window's thread (window_copy.whole_run)")

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


def write_window_copy(run, out: BinaryIO, parts_before: Iterable[tuple[int, int]] = (), whole: bool = False) -> None:
    """Write the window's copy of prepared `run` (views made) to `out`, as `load_with_stand_ins` reads it. `run`
    itself is not changed. `parts_before`: the (typed, domain) event counts of the parts of the same file shown before it,
    whose last events the copy keeps (so that it can be told to extend them: `extends`). `whole`: the copy carries the
    run packed too (whole_run unpacks it). A run with no views prepared is written as it is."""
    prepared = run.views is not None and holds_events(run)
    pairs = _stand_ins(run, list(parts_before), whole) if prepared else []
    start = out.tell()

    def dump() -> None:
        out.seek(start)
        out.truncate()
        dump_with_stand_ins(run, out, pairs)

    _at_any_depth(dump)


def _at_any_depth(work: Callable[[], Any]) -> Any:
    """`work()`, again on a thread with a large stack if it went deeper than Python's recursion limit allows (the
    pickler recurses into nested values: an event nested thousands of levels deep is valid JSON)."""
    try:
        return work()
    except RecursionError:
        return run_deep(work)


def dump_with_stand_ins(value: Any, out: BinaryIO, pairs: list[tuple[Any, Any]]) -> None:
    """Pickle `value` to `out` with each original of `pairs` (original, stand-in) read back as its stand-in, wherever
    `value` holds it. The stand-ins are written first; each original is then entered in the pickler's memo under
    its stand-in's number, so the C pickler alone walks `value` (no Python call per object). An original must be
    an object the pickler memoizes: a container or an instance (_held_by_reference)."""
    pickler = pickle.Pickler(out, protocol=PICKLE_PROTOCOL)
    pickler.dispatch_table = _DISPATCH  # type: ignore[attr-defined]  # (big arrays: _reduce_array)
    stand_ins = [stand_in for _original, stand_in in pairs]
    pickler.dump(stand_ins)
    if pairs:
        memo = pickler.memo.copy()
        for original, _stand_in in pairs:
            if id(original) in memo:  # (its number would be taken twice, and every later one read wrong)
                raise ValueError("an original is reachable from the stand-ins that take its place")
        for original, stand_in in pairs:
            number, _ = memo.pop(id(stand_in))
            memo[id(original)] = (number, original)
        pickler.memo = memo
    pickler.dump(value)


def _reduce_array(values: array):
    """A big array pickled as a bytearray of its own (written from its buffer, no copy made), read back by
    `array_from`. An array's own pickled form holds its bytes as a bytes object, which the unpickler keeps in its
    memo until the whole value is read: a copy's arrays would all be held twice at its reading's peak."""
    if values.itemsize * len(values) < BIG_ARRAY_BYTES or type(values) is not array:
        return values.__reduce_ex__(PICKLE_PROTOCOL)
    return array_from, (values.typecode, pickle.PickleBuffer(values))


def array_from(typecode: str, data: bytearray) -> array:
    """The array `_reduce_array` pickled; `data` (read back as a bytearray of its own) is emptied once copied."""
    values = array(typecode)
    values.frombytes(data)
    if isinstance(data, bytearray):
        del data[:]  # (the unpickler's memo still refers to it: empty, it holds nothing)
    return values


_DISPATCH = dict(copyreg.dispatch_table)
_DISPATCH[array] = _reduce_array


def load_with_stand_ins(source: BinaryIO) -> Any:
    """The value `dump_with_stand_ins` wrote to `source` (a window's copy, a follow's growth; `source` may be a file
    whose reads pause: framed_pickle.FrameReader)."""
    unpickler = pickle.Unpickler(source)
    unpickler.load()  # (the stand-ins: the value refers to them)
    return unpickler.load()


def window_copy(run, parts_before: Iterable[tuple[int, int]] = (), whole: bool = True):
    """The window's copy of prepared `run`, made in this process (the tests' loads, a screenshot's): the copy the
    engine process sends, read back. A run with no views prepared is returned as it is."""
    if run.views is None or not holds_events(run):
        return run
    buffer = io.BytesIO()
    write_window_copy(run, buffer, parts_before, whole)
    buffer.seek(0)
    return load_with_stand_ins(buffer)


def whole_run(shown):
    """The run `shown` (a window's copy made whole) as the engine held it: a run every projection and request can
    read. Slow for a big run (the unpacking builds its objects again): never on the window's thread. Raises
    EventsNotHere for a copy whose run only its engine holds."""
    if holds_events(shown):
        return shown
    packed = shown.domain_events.packed
    if packed is None:
        raise EventsNotHere("this run's events are held by the engine process that read it, which no longer holds "
                            "it: Reload the file to ask about it again")
    return packed.unpacked()


def extends(grown, shown) -> bool:
    """`grown` holds `shown`'s events first (the same file read further: checked at both ends of both event lists,
    by the events their copies kept), so showing it is a growth, not a new run."""
    for old, new in ((shown.typed_events, grown.typed_events), (shown.domain_events, grown.domain_events)):
        if old is None and new is None:
            continue
        if old is None or new is None or len(new) < len(old):
            return False
        try:
            if old and (old[0] != new[0] or old[-1] != new[len(old) - 1]):
                return False
        except EventsNotHere:  # (a copy that did not keep the event compared: cannot be told a growth)
            return False
    # (A part with no commit log has stops derived from its events: a whole run with one is not a growth of it.)
    return shown.format == grown.format and shown.has_commit_log == grown.has_commit_log


def part_counts(run) -> tuple[int, int]:
    """(typed, domain) event counts of `run`, a part about to be shown (what window_copy's `parts_before` takes)."""
    return len(run.typed_events or ()), len(run.domain_events)


def _stand_ins(run, parts: list[tuple[int, int]], whole: bool) -> list[tuple[Any, Any]]:
    """(original, stand-in) for each object of `run` its window's copy leaves in the engine (the module's list)."""
    # the run's own projections, made now from its events (the copy carries them made)
    run.axis, run.step_fold, run.status_states, run.replay_facts, run.summary_tally, run.run_ends, run.stops  # noqa: B018
    run.stage_ids_on_axis()
    packed = Packed(_at_any_depth(lambda: pickle.dumps(run, protocol=PICKLE_PROTOCOL))) if whole else None
    pairs: list[tuple[Any, Any]] = [
        (run.domain_events, EventsInTheEngine(len(run.domain_events), "DomainEvents", packed,
                                              _kept(run.domain_events, [domain for _typed, domain in parts])))]
    if run.typed_events is not None:
        pairs.append((run.typed_events, EventsInTheEngine(len(run.typed_events), "typed events", packed,
                                                          _kept(run.typed_events, [typed for typed, _ in parts]))))
    if _held_by_reference(run.document) and all(run.document is not original for original, _ in pairs):
        pairs.append((run.document, EventsInTheEngine(1, "parsed document", packed)))  # (a stream's is its events)
    if _held_by_reference(run.snapshot):
        made = run.views.drills if run.views is not None else None  # (made with the views: not again)
        pairs.append((run.snapshot, made if made is not None else
                      prepared_drills(run.snapshot, run.stops, run.has_commit_log)))
    for node in run.step_fold.nodes:
        if isinstance(node, dict) and (not PAYLOAD_FIELDS.isdisjoint(node) or "assistantText" in node):
            pairs.append((node, _step_in_the_window(node)))
    pairs.append((run.stage_ids_on_axis(), StageIds.of(run.stage_ids_on_axis())))
    axis = run.axis
    commits = _as_machine_integers(axis.commit_before)
    if commits is not None:
        pairs.append((axis.commit_before, commits))
    entries = getattr(axis.entries, "codes", None)
    for counts in (axis.domain_before, axis.typed_before, axis.domain_after, axis.typed_after, entries):
        small = narrowed(counts) if isinstance(counts, array) else counts
        if small is not counts:
            pairs.append((counts, small))
    return pairs


def narrowed(values: array) -> array:
    """`values` (positions and counts along the axis) as 32-bit integers when each fits: read by index and bisected
    alike, in half the room. `values` itself when one does not fit, or when it is empty."""
    if values.typecode != "q" or not values or min(values) < -(2 ** 31) or max(values) >= 2 ** 31:
        return values
    return array("i", values)


class StageIds:
    """The stage id of each axis entry (Run.stage_ids_on_axis), read as the list of texts it stands for: each
    distinct text once, and a column of small integers saying which each entry has (a run's stage ids are a few
    thousand texts repeated over every entry of its axis)."""

    __slots__ = ("texts", "codes", "_code_of")

    def __init__(self, texts: list[str], codes: array) -> None:
        self.texts, self.codes = texts, codes
        self._code_of: dict[str, int] | None = None  # (made by the first lookup of a text: a link followed)

    def _codes_by_text(self) -> dict[str, int]:
        if self._code_of is None:
            self._code_of = {text: code for code, text in enumerate(self.texts)}
        return self._code_of

    @classmethod
    def of(cls, ids: list[str]) -> "StageIds":
        code_of: dict[str, int] = {}
        codes = [code_of.setdefault(text, len(code_of)) for text in ids]
        return cls(list(code_of), array("H" if len(code_of) <= 0xFFFF else "I", codes))

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self.texts[code] for code in self.codes[index]]
        return self.texts[self.codes[index]]

    def __iter__(self):
        texts = self.texts
        return (texts[code] for code in self.codes)

    def __contains__(self, text: object) -> bool:
        return text in self._codes_by_text()

    def index(self, text: str) -> int:
        """The first entry with `text` (ValueError when none has it), as list.index."""
        code = self._codes_by_text().get(text)
        if code is None:
            raise ValueError(f"{text!r} is not a stage id of this run")
        return self.codes.index(code)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (StageIds, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # (like the list it stands for)

    def __reduce__(self):
        return StageIds, (self.texts, self.codes)


def _as_machine_integers(values: list) -> array | None:
    """`values` as an array of machine integers, 32-bit where each fits (read by index and bisected as the list
    was), or None when one is not such an integer (the counts come from the file)."""
    for typecode in ("i", "q"):
        try:
            return array(typecode, values)
        except OverflowError:
            continue
        except TypeError:
            return None
    return None


def _detached(value: Any) -> Any:
    """`value` (a kept event) with each of its values that reads from the file's buffer (a recording's payloads:
    lazyjson.LazyJSON) copied with bytes of its own: the window's copy holds a few events, not the file's bytes.
    `value` itself when it has none. Walked without recursion (an event may be nested at any depth)."""
    stack, found = [value], False
    while stack and not found:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            found = callable(getattr(item, "detached", None))
    if not found:
        return value
    holder: list[Any] = [None]
    work: list[tuple[Any, Any, Any]] = [(value, holder, 0)]  # (a value, the container it goes in, its key there)
    while work:
        item, parent, key = work.pop()
        if isinstance(item, dict):
            copied: Any = dict.fromkeys(item)
            parent[key] = copied
            work.extend((inner, copied, inner_key) for inner_key, inner in item.items())
        elif isinstance(item, list):
            copied = [None] * len(item)
            parent[key] = copied
            work.extend((inner, copied, index) for index, inner in enumerate(item))
        else:
            detach = getattr(item, "detached", None)
            parent[key] = detach() if callable(detach) else item
    return holder[0]


def _step_in_the_window(node: dict) -> dict:
    slim = {key: IN_THE_ENGINE if key in PAYLOAD_FIELDS else value for key, value in node.items()}
    if "assistantText" in node:
        text = node["assistantText"]
        on_its_card = not (node.get("toolName") or node.get("llmModel"))  # (app/panels/graph/card_text.py)
        slim["assistantText"] = text.strip().split("\n", 1)[0][:CARD_TEXT_CHARS] \
            if on_its_card and isinstance(text, str) else IN_THE_ENGINE
    return slim


def _held_by_reference(value: Any) -> bool:
    """Whether `value` is a container the pickler memoizes (so a stand-in can take its place): not None, a number
    or a string (one string object may stand for equal strings elsewhere in the run)."""
    return value is not None and not isinstance(value, (bool, int, float, str))


def _kept(events: list, counts: list[int]) -> dict[int, Any]:
    """The first and last of `events`, and the last of each of its first `counts`."""
    return {index: _detached(events[index]) for index in {0, len(events) - 1, *(count - 1 for count in counts)}
            if 0 <= index < len(events)}


__all__ = ["EventsInTheEngine", "EventsNotHere", "IN_THE_ENGINE", "Packed", "StageIds", "dump_with_stand_ins", "extends",
           "holds_events", "narrowed", "part_counts", "load_with_stand_ins", "whole_run", "window_copy",
           "write_window_copy"]
