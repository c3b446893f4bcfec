"""The first part of a big run, shown while the rest of the file is read (progressive display).

The NDJSON and large-Trace readers parse events in batches. After each batch they offer the events read so far
to a `Prefixes`; when enough new events have arrived it builds the Run of that prefix with the very constructors
the whole file goes through (`run_from_typed`, `run_from_document`), marks it as still being read and hands it
to `show`. The whole run is then built as before, so what is shown at the end does not depend on this module.

A prefix is a run cut at an event the file really has: its StepGraph, stops and status line are what the
library computes for those events. What only the whole file can tell is left out of a prefix's notices: that
the run never reached its end, that its last line was cut off.

Only files of MIN_BYTES or more (decompressed) get prefixes. Cost: prefixes grow by GROWTH times (the first
after FIRST_EVENTS events) and none is built once most of the file is read, so their total work is at most
~1/(GROWTH-1) of the whole run's. Each part is built anew rather than extended — its projections over all its
events again (the follow path's RunGrower extends, but shares its fold with what it shows: here the parts are built
on another thread) — and painted. So a part after the first is built only while the rest of the file is expected
to take MIN_REST_S or more to read, at the pace read so far: a part replaced moments later by the next costs the
load more than it shows, and a shorter threshold would build one whenever the machine reads slowly.
"""

from __future__ import annotations

import re
import time
from typing import Callable

from afp_desktop.core.formats.errors import LoadCancelled
from afp_desktop.core.jsonx import jsonio, jsonscan
from afp_desktop.core.model.run import Run
from afp_desktop.core.problems import Notice

MIN_BYTES = 4 << 20  # a smaller file is read whole in well under a second: no prefixes
FIRST_EVENTS = 2_000
GROWTH = 8
# Past a third of the file the whole run is at most about twice the time spent so far away: no more prefixes.
# (Each prefix is a whole Run with its projections, held while the rest is read: a late part adds to the load's
# peak memory to be shown only briefly.)
LAST_FRACTION = 1 / 3
MIN_REST_S = 2.0
NOT_FOR_A_PREFIX = frozenset({"incomplete", "truncated", "not-complete"})
READING = "reading"

ShowFn = Callable[[Run], None]


def reading_notice(count: int) -> Notice:
    return Notice(READING, f"Still reading this file: its first {count:,} events are shown, and the run grows "
                           "as the rest is read. You can already move through what is shown.", "info")


class Prefixes:
    """Decides when the events read so far are worth showing, and shows their Run."""

    def __init__(self, show: ShowFn, *, first: int | None = None, growth: int | None = None,
                 last_fraction: float | None = None, cancelled: Callable[[], bool] | None = None,
                 min_rest_s: float | None = None, clock: Callable[[], float] = time.monotonic):
        self.show = show
        self.cancelled = cancelled  # asked at every offer (each batch read): True stops the load
        self.next = max(1, FIRST_EVENTS if first is None else first)
        self.growth = max(2, GROWTH if growth is None else growth)
        self.last_fraction = LAST_FRACTION if last_fraction is None else last_fraction
        self.shown = 0  # prefixes shown so far
        self.min_rest_s = MIN_REST_S if min_rest_s is None else min_rest_s
        self.clock = clock
        self.started = clock()  # (reset by reading_begins)
        self.in_parts = 0.0  # seconds spent building and showing parts since: not the file's reading pace

    def reading_begins(self) -> None:
        """The file's bytes are in memory (read, decompressed): its events are parsed from now on."""
        self.started, self.in_parts = self.clock(), 0.0

    def offer(self, events: list, fraction: float, build: Callable[[list], Run],
              mark: Callable[[Run], None] | None = None) -> None:
        """`events`: every event read so far (a prefix of the file's); `fraction`: how much of the file that is;
        `build(events)`: the Run of those events; `mark(run)`: what it says of itself (`mark_as_prefix`)."""
        if self.cancelled is not None and self.cancelled():
            raise LoadCancelled()
        count = len(events)
        if count < self.next or fraction >= self.last_fraction or self._rest_is_short(fraction):
            return
        began = self.clock()
        self.next = count * self.growth
        run = build(list(events))
        (mark or mark_as_prefix)(run)
        self.shown += 1
        self.show(run)
        self.in_parts += self.clock() - began

    def _rest_is_short(self, fraction: float) -> bool:
        """After the first part: will the rest of the file be read in less than min_rest_s at the pace so far (the
        time spent on parts, and on the window showing them, left out)?
        (A fraction of 0 — a recording's parts, found from its end before the file is read — has no pace.)"""
        if not self.shown or fraction <= 0:
            return False
        reading = self.clock() - self.started - self.in_parts
        return reading / fraction * (1 - fraction) < self.min_rest_s


def mark_as_prefix(run: Run, reading: Notice | None = None, untrue: frozenset[str] = frozenset()) -> None:
    """Notices only the whole file can justify are dropped (and the `untrue` ones: true of the part only); one
    says the file is still being read (`reading`, else the usual one)."""
    run.still_reading = True
    dropped = NOT_FOR_A_PREFIX | untrue
    kept = [notice for notice in run.notices if notice.code not in dropped]
    run.notices[:] = [reading or reading_notice(len(run.axis)), *kept]  # (events as the timeline counts them)
    run.warnings[:] = [problem for problem in run.warnings if "cut off" not in problem.message]


RECORDING_PART_UNTRUE = frozenset({"typed-only", "no-commit-log"})  # true of the part, not of the recording


def mark_as_recording_part(total: int) -> Callable[[Run], None]:
    """How the first events of a recording's event list (recording_part.py) say what they are: the graph and
    stops of an event stream, until the engine's boundary log and commit log are read."""
    def mark(run: Run) -> None:
        run.positions_differ = True
        mark_as_prefix(run, Notice(READING, f"Still reading this recording: the first "
                                            f"{len(run.typed_events or ()):,} of its {total:,} typed events are shown "
                                            "as an event stream shows them. The steps the engine logged (the Run and "
                                            "subflow boxes, branches, loops, slot payloads) and the stops of its "
                                            "commit log come once the whole file is read. You can already move "
                                            "through what is shown.", "info"), RECORDING_PART_UNTRUE)
    return mark


def same_moment(part: Run, whole: Run, position: int) -> int:
    """The position on `whole` where as many typed events have happened as at `position` on `part`: where a
    recording's part (its typed events alone) leaves the cursor on the whole run, whose axis differs."""
    seen = part.axis.typed_before[max(0, min(position, len(part.axis)))]
    after = whole.axis.typed_after
    return int(after[min(seen, len(after)) - 1]) if seen and len(after) else 0


TRACE_HEAD = re.compile(rb'\s*\{\s*"version"\s*:\s*1\s*,\s*"events"\s*:\s*\[\s*')
_BETWEEN = re.compile(r"\s*,\s*")
HEAD_BYTES = 4 << 20


def trace_head(data: bytes, count: int, max_bytes: int = HEAD_BYTES) -> tuple[dict, float] | None:
    """The first `count` events of a Trace as the library writes it (`{"version":1,"events":[…`), read from the
    head of the file before the whole of it is scanned: ({"version", "events", "redaction": None}, fraction of
    the file read), or None when the head is not that shape. Its other keys come after the events: unknown yet
    (so no redaction notice is given early). Only a preview: the whole file is still parsed and checked."""
    found = TRACE_HEAD.match(data)
    if found is None:
        return None
    start = found.end()
    return head_by_brackets(data, start, count, max_bytes) or head_by_decoder(data, start, count, max_bytes)


def head_by_decoder(data: bytes, start: int, count: int, max_bytes: int) -> tuple[dict, float] | None:
    """trace_head one event at a time: stops before the first event it cannot read."""
    text = bytes(data[start:start + max_bytes]).decode("utf-8", "ignore")  # (a cut last character: dropped)
    decoder = jsonio.decoder()  # (numbers read as the whole file's are: an integer past 64 bits as a double)
    events: list = []
    at = 0
    while len(events) < count and at < len(text) and text[at] == "{":
        try:
            event, at = decoder.raw_decode(text, at)
        except ValueError:
            break  # the head ends inside this event (or it is damaged: the whole parse will say where)
        events.append(event)
        between = _BETWEEN.match(text, at)
        if between is None or between.end() == at:
            break
        at = between.end()
    if not events:
        return None
    read = len(text[:at].encode("utf-8", "surrogatepass"))
    return {"version": 1, "events": events, "redaction": None}, (start + read) / max(len(data), 1)


def head_by_brackets(data: bytes, start: int, count: int, max_bytes: int) -> tuple[dict, float] | None:
    """trace_head's quick way: where the first `count` events end, found by the bracket scan (in C where built),
    then one parse of them all (several times faster than the decoder's one at a time). None
    whenever that way cannot tell (the head holds the array's end, a damaged event, anything but objects, no
    scanner): the decoder's way then says where the head ends."""
    ends = jsonscan.closings_at_top(data, start, start + max_bytes, count)
    if ends is None or not len(ends):
        return None
    last = int(ends[-1]) + 1
    try:
        events = jsonio.loads(b"[" + bytes(data[start:last]) + b"]")
    except jsonio.JSONSyntaxError:
        return None
    if len(events) != len(ends) or not all(type(event) is dict for event in events):
        return None  # (what lay between two events was not just a comma: the decoder's way looks at it)
    return {"version": 1, "events": events, "redaction": None}, last / max(len(data), 1)
