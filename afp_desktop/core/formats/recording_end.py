"""A big recording's events array found while the end of its file is read: the read and the scan overlap.

recording_part reads a file's end backward as far as the events array's `"events"` key, then scans the array
forward: for the 894 MB recording ~0.15 s of reading (~110 MB, mostly the first touch of the memory it goes into)
and then ~0.1 s of scanning. Here a reader thread reads the pieces backward while this thread scans each piece
already read from its end down (brackets_c.scan_back) and looks for the key in it; both let go of the GIL, so
the scan costs little more than the read. Used when the C loop is built (recording_part's way otherwise).

It tries the same `"events"` keys as recording_part, in the same order and within the same limits, and takes the
one recording_part takes: a candidate's `[` must be the partner of the array's `]`. Scanned from the `]` down, that
is: no string open there, and the count of brackets closed (closings minus openings, going down) first comes back
to zero at that `[`. Once it comes back to zero anywhere else, no `[` further down can be the partner.
"""

from __future__ import annotations

import threading
from typing import Any

from afp_desktop.core.breathing import breathe
from afp_desktop.core.formats import lazy_trace
from afp_desktop.core.formats.source import FileEnd
from afp_desktop.core.jsonx import jsonscan

np: Any = None
_KEY = b'"events"'


class BackwardReader:
    """Reads a FileEnd's buffer backward, a piece at a time, on its own thread, at most AHEAD pieces below what
    was last asked for (so it reads little past the array), until it is read down to 0 or stopped.
    `wait_for(index)` returns once buffer[index:] is read (raises the read's OSError)."""

    AHEAD = 2

    def __init__(self, end: FileEnd) -> None:
        self._end = end
        self._changed = threading.Condition()
        self._stopped = False
        self._error: OSError | None = None
        self.floor = end.floor
        self._wanted = end.floor  # the lowest index asked for
        self._thread = threading.Thread(target=self._read, name="recording end reader", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            while True:
                with self._changed:
                    while not self._stopped and self.floor <= self._wanted - self.AHEAD * FileEnd.PIECE:
                        self._changed.wait()
                    if self._stopped or self.floor == 0:
                        return
                self._end.need(self._end.floor - FileEnd.PIECE)
                with self._changed:
                    self.floor = self._end.floor
                    self._changed.notify_all()
        except OSError as error:
            with self._changed:
                self._error = error
                self._changed.notify_all()
        finally:
            with self._changed:
                self._stopped = True
                self._changed.notify_all()

    def wait_for(self, index: int) -> None:
        while True:
            with self._changed:
                if index < self._wanted:
                    self._wanted = index
                    self._changed.notify_all()
                if self.floor <= max(index, 0):
                    return
                if self._error is not None:
                    raise self._error
                if self._stopped:
                    raise OSError("the reader stopped")  # (never: it stops only when asked, or read down to 0)
                self._changed.wait(0.05)
            breathe()  # (not holding the lock: the window may keep this thread waiting a while)

    def stop(self) -> None:
        with self._changed:
            self._stopped = True
            self._changed.notify_all()
        self._thread.join()  # (before the file is closed: a read of a closed descriptor could read another file)


def events_array(data, close: int, reader: BackwardReader, candidates: int, scans: int, key_to_array, escaped):
    """(starts, ends) of the elements of the root's events array, which ends at `close`, or None: the answer of
    recording_part's `_events_array` (its limits and its tests for a key passed in)."""
    global np
    np = jsonscan.numpy()
    scan = _BackwardScan(data, close)
    search_end, tried, scanned = close, 0, 0
    while tried < candidates:
        floor = reader.floor
        key = jsonscan.native.find_last(data, _KEY, floor, search_end)
        if key < 0:
            if floor == 0:
                return None
            search_end = min(search_end, floor + len(_KEY) - 1)  # (a key across `floor`: in the next piece)
            scan.down_to(floor, reader)  # what is read, while the next piece is read
            reader.wait_for(floor - 1)
            breathe()
            continue
        tried += 1
        search_end = key
        found = key_to_array.match(data, key)
        if found is None or escaped(data, key, reader.wait_for):
            continue  # the string "events" as a value, or inside a string
        if scanned == scans:
            return None
        scanned += 1
        opening = found.end() - 1
        scan.down_to(opening, reader)
        if scan.met_zero_at == opening:
            positions, opens, depth = scan.brackets(opening)
            regions = lazy_trace.event_regions(data, positions, opens, depth, 0, len(positions) - 1, 1,
                                               payloads=False)
            return None if regions is None else regions[0]
        if scan.met_zero_at is not None:
            return None  # the `]` met its partner above this `[`: no `[` further down can be it
    return None


class _BackwardScan:
    """The brackets outside strings from the array's `]` down to `low`, and where the count of brackets still
    open (closings minus openings, going down) first came back to zero: the `]`'s partner (brackets_c.scan_back
    keeps the count and stops there)."""

    def __init__(self, data, close: int) -> None:
        self.data, self.low = data, close + 1
        self.state = 0  # twice the count, plus 1 inside a string
        self.met_zero_at: int | None = None
        self._positions: list = []
        self._opens: list = []

    def down_to(self, index: int, reader: BackwardReader) -> None:
        """Scan data[index:low] (all of it read), unless the partner is already found."""
        while self.low > index and self.met_zero_at is None:
            room = self.low - index
            positions, opens = np.empty(room, np.int64), np.empty(room, np.uint8)
            floor = reader.floor
            count, self.state, low, zero_at = jsonscan.native.scan_back(
                self.data, floor, index, self.low, self.state, positions, opens)
            self._positions.append(positions[:count])  # (views: only what was written is in memory)
            self._opens.append(opens[:count])
            if zero_at >= 0:
                self.met_zero_at = zero_at
            elif low > index:  # a quote whose run of backslashes goes on below what is read
                reader.wait_for(floor - 1)
            self.low = low

    def brackets(self, opening: int):
        """(positions, is-open flags, depth after each) from `opening` to the `]`, in the order of the text, as
        jsonscan gives them."""
        positions = np.concatenate(self._positions)[::-1].copy()
        opens = np.concatenate(self._opens)[::-1].view(bool).copy()
        if positions[0] != opening:
            raise AssertionError("the scan stops at the partner it found")
        depth = np.cumsum(opens.astype(np.int32) * 2 - 1, dtype=np.int32)
        return positions, opens, depth
