"""A large recording `{snapshot, events, structure}` (plain or in an envelope v1) read without parsing what no projection looks into.

Why: a recording of a long run is mostly its snapshot's execution tree (nested thousands of levels deep through
`next`), then the subflows' own results and the event payloads. Parsed, the whole document is several times its
text in Python objects and slow to build. The projections need, of the tree, only which
stages are subflow mounts (`stops.mount_ids`); of the subflow results, one entry when the user drills into a
mount; of a DomainEvent, everything but its payload. Those stay slices of the file (`LazyJSON`), read when asked.

How: one vectorised pass finds every bracket outside strings and its partner (core/jsonx/jsonscan.py). A
container is then read "shallowly": its own text with every container directly inside it replaced by a salted
placeholder number, parsed by orjson; the placeholders say which member holds which container, so duplicate keys
resolve as the parser resolves them. Walking the tree this way, node by node, gives the mount ids exactly as
`stops.mount_ids` would on the parsed tree. The commit log, the typed events and everything small are parsed in
full; BoundaryEvents are parsed as a large Trace's events are (lazy_trace.py: payloads lazy).

Anything unexpected (not a plain recording, an element that is not an object where events are read in batches,
a part orjson refuses) returns None and the caller parses the file the ordinary way, which gives the same value
or the precise error. The bytes left lazy are checked when read (drilling, conversion): a broken one is then
reported with its file, line and column.
"""

from __future__ import annotations

from typing import Any

from afp_desktop.core.formats import documents, lazy_trace
from afp_desktop.core.formats.errors import LoadError
from afp_desktop.core.jsonx import jsonio, jsonscan
from afp_desktop.core.jsonx.lazyjson import LazyJSON
from afp_desktop.core.breathing import breathe, breathing_over, find_breathing, progress_span, report

MIN_BYTES = 4 << 20  # smaller recordings parse eagerly in well under a second
BATCHED_BYTES = 1 << 20  # a list this long is parsed a batch of elements at a time (a breath between batches)
_OPEN_CURLY = 0x7B


class Unexpected(Exception):
    """Something this reader does not follow: the caller parses the file the ordinary way."""


class LazyExecutionTree(LazyJSON):
    """A snapshot's execution tree left as bytes, with the one fact the stops read from it already known."""

    __slots__ = ("known_mount_ids",)

    def __init__(self, buffer: bytes, start: int, end: int, source: str, mount_ids: frozenset[str]) -> None:
        super().__init__(buffer, start, end, source)
        self.known_mount_ids = mount_ids  # (stops.mount_ids reads this instead of walking the tree)


def load_recording_lazily(data: bytes, name: str) -> Any:
    """The parsed recording with its execution tree, subflow results and BoundaryEvents payloads lazy, or None
    when this file should be parsed the ordinary way."""
    if len(data) < MIN_BYTES or data[:1] != b"{" or len(data) >= 2**31 or find_breathing(data, b'"snapshot"') == -1:
        return None
    if jsonscan.numpy() is None:
        return None
    with progress_span(0.0, 0.5):  # (the scan: about half of the read of a big recording)
        scan = jsonscan.brackets_outside_strings(data)
    if scan is None:
        return None
    positions, opens, depth = scan
    del scan
    try:
        reader = _Reader(data, name, positions, opens, depth)
        del positions, opens, depth  # (the reader holds them until its plan is made, then lets them go)
        return reader.read()
    except (Unexpected, jsonio.JSONSyntaxError):
        return None


class _Reader:
    def __init__(self, data: bytes, name: str, positions, opens, depth) -> None:
        self.data, self.name = data, name
        self.view = memoryview(data)
        self.positions, self.opens, self.depth = positions, opens, depth
        breathe()
        self.partner = jsonscan.matching_brackets(opens, depth)
        breathe()
        self.salt = jsonscan.unguessable_number()
        self.later: list = []  # (container to put the value in, key, how to make the value), made after the plan

    # -- the plan: what each part of the document becomes ----------------------------------------------------
    def read(self) -> Any:
        if self.positions[0] != 0 or self.partner[0] != len(self.positions) - 1:
            raise Unexpected  # (more than one value at the top)
        if self.data[self.span(0)[1]:].strip(b" \t\r\n"):
            raise Unexpected  # something after the document: the ordinary parse says what
        root, members = self.shallow(0)
        try:
            kind = documents.classify(root, self.name)
        except LoadError:
            raise Unexpected from None
        if kind == "recording":
            self.read_recording(root, members)
        elif kind == "recording-envelope":  # {format, …, recording: {snapshot, events, structure}}
            for key, index in members:
                if key == "recording" and self.is_object(index):
                    recording, inner = self.shallow(index)
                    root[key] = recording
                    self.read_recording(recording, inner)
                else:
                    self.later.append((root, key, self.value_of(index)))
        else:
            raise Unexpected
        report(0.6)
        # The bracket arrays are no longer needed: let them go before the parsed objects are made.
        self.positions = self.opens = self.depth = self.partner = None
        count = len(self.later)
        for done, (holder, key, make) in enumerate(self.later):
            breathe()
            with progress_span(0.6 + 0.4 * done / count, 0.6 + 0.4 * (done + 1) / count):
                report(0.0)
                holder[key] = make()
        return root

    def read_recording(self, recording: dict, members: list[tuple[Any, int]]) -> None:
        for key, index in members:
            if key == "snapshot" and self.is_object(index):
                self.read_snapshot(recording, index)
            elif key == "events" and not self.is_object(index):
                self.later.append((recording, key, self.events_of(index, payloads=False)))
            else:
                self.later.append((recording, key, self.value_of(index)))

    def read_snapshot(self, root: dict, index: int) -> None:
        snapshot, members = self.shallow(index)
        root["snapshot"] = snapshot
        for key, inner in members:
            if key == "executionTree" and self.is_object(inner):
                start, end = self.span(inner)
                snapshot[key] = LazyExecutionTree(self.data, start, end, self.name, self.mount_ids(inner))
            elif key == "subflowResults" and self.is_object(inner):
                results, entries = self.shallow(inner)
                snapshot[key] = results
                for result_key, result in breathing_over(entries):
                    results[result_key] = LazyJSON(self.data, *self.span(result), self.name)
            elif key == "recorders" and not self.is_object(inner):
                self.read_recorders(snapshot, inner)
            else:
                self.later.append((snapshot, key, self.value_of(inner)))

    def read_recorders(self, snapshot: dict, index: int) -> None:
        recorders, elements = self.shallow(index)
        snapshot["recorders"] = recorders
        for position, element in elements:
            if not self.is_object(element):
                self.later.append((recorders, position, self.value_of(element)))
                continue
            recorder, members = self.shallow(element)
            recorders[position] = recorder
            boundary = recorder.get("name") == "BoundaryEvents"
            for key, inner in members:
                if boundary and key == "data" and not self.is_object(inner):
                    self.later.append((recorder, key, self.events_of(inner, payloads=True)))
                else:
                    self.later.append((recorder, key, self.value_of(inner)))

    def mount_ids(self, index: int) -> frozenset[str]:
        """`stops.mount_ids` of the tree at bracket `index`, node by node: a node is the tree's root, an object
        under a node's `next`, or an object in the list under a node's `children`."""
        ids: set[str] = set()
        work = [index]
        visited = 0
        while work:
            visited += 1
            if not visited % 256:
                breathe()
            node, members = self.shallow(work.pop())
            rid = node.get("runtimeStageId")
            if "subflowId" in node and rid and isinstance(rid, str):
                ids.add(rid)
            where = dict(members)
            following = where.get("next")
            if following is not None and self.is_object(following):
                work.append(following)
            children = where.get("children")
            if children is not None and not self.is_object(children):
                work.extend(child for child in self.inside(children) if self.is_object(child))
        return frozenset(ids)

    # -- reading a container ---------------------------------------------------------------------------------
    def inside(self, index: int) -> list[int]:
        """The brackets of the containers directly inside the container at bracket `index`."""
        partner = self.partner
        found, at, end = [], index + 1, int(partner[index])
        while at < end:
            found.append(at)
            at = int(partner[at]) + 1
        return found

    def span(self, index: int) -> tuple[int, int]:
        """(start, end) byte offsets of the container at bracket `index`."""
        return int(self.positions[index]), int(self.positions[self.partner[index]]) + 1

    def is_object(self, index: int) -> bool:
        return self.data[int(self.positions[index])] == _OPEN_CURLY

    def shallow(self, index: int) -> tuple[Any, list[tuple[Any, int]]]:
        """The container at bracket `index` parsed with each container directly inside it as a salted
        placeholder number, and (key or index, bracket) of each member holding one. A placeholder that a later
        duplicate key replaced is simply not there: the parser's choice stands."""
        start, end = self.span(index)
        children = self.inside(index)
        holes = ((*self.span(child), self.salt + number) for number, child in enumerate(children))
        value = jsonio.loads(b"".join(jsonscan.with_placeholders(self.view, start, end, holes)))
        members = value.items() if isinstance(value, dict) else enumerate(value)
        found = [(key, children[member - self.salt]) for key, member in members
                 if type(member) is int and 0 <= member - self.salt < len(children)]
        return value, found

    # -- what is made once the plan is complete ----------------------------------------------------------------
    def whole(self, index: int):
        """How to make the container at bracket `index`: parsed in full."""
        start, end = self.span(index)
        view = self.view
        return lambda: jsonio.loads(view[start:end])

    def value_of(self, index: int):
        """How to make the value at bracket `index`: a long list (the commit log of a long run: one orjson call
        would hold Python the whole time) a batch of elements at a time."""
        start, end = self.span(index)
        if end - start >= BATCHED_BYTES and not self.is_object(index):
            return self.events_of(index, payloads=False)
        return self.whole(index)

    def events_of(self, index: int, payloads: bool):
        """How to make a list of events: read in batches (lazy_trace.py), payloads lazy when asked; parsed in
        full when it is not a list of objects only (or its batches hold a surprise)."""
        whole = self.whole(index)
        if int(self.partner[index]) == index + 1:
            return whole  # empty, or only scalars
        regions = lazy_trace.event_regions(self.data, self.positions, self.opens, self.depth, index,
                                           int(self.partner[index]), int(self.depth[index]), payloads)
        if regions is None:
            return whole
        spans, payload_regions = regions
        data, name = self.data, self.name

        def make() -> Any:
            events = lazy_trace.parse_events(data, name, spans, payload_regions)
            return whole() if events is None else events

        return make
