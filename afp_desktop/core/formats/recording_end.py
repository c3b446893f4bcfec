"""A big recording's events array found while the end of its file is read: the read and the scan overlap.

recording_part reads a file's end backward as far as the events array's `"events"` key, then scans the array
forward: a read (mostly the first touch of the memory it goes into) and then a scan, one after the other. Here a
reader thread reads the pieces backward while this thread scans each piece already read from its end down
(brackets_c.scan_back) and looks for the key in it; both let go of the GIL, so the scan costs little more than
the read. Used when the C loop is built (the forward search otherwise).

recording_part's candidate loop drives it as it drives the forward search, so it tries the same `"events"` keys
and takes the same one: a candidate's `[` must be the partner of the array's `]`. Scanned from the `]` down, that
is: no string open there, and the count of brackets closed (closings minus openings, going down) first comes back
to zero at that `[`. Once it comes back to zero anywhere else, no `[` further down can be the partner.
"""

from __future__ import annotations

import threading
from typing import Any

from afp_desktop.core.breathing import breathe
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


class BackwardSearch:
    """recording_part's search for the events array's `[`, from its `]` down while the reader reads below: the
    `"events"` keys in what is read (brackets_c.find_last), and the brackets outside strings scanned down to
    `low` (brackets_c.scan_back, which keeps the count of brackets still open, closings minus openings, and stops
    where it first comes back to zero: the `]`'s partner)."""

    def __init__(self, data, close: int, reader: BackwardReader) -> None:
        global np
        np = jsonscan.numpy()
        self.data, self.close, self.reader = data, close, reader
        self.need = reader.wait_for
        self.low = close + 1
        self.state = 0  # twice the count, plus 1 inside a string
        self.met_zero_at: int | None = None
        self._positions: list = []
        self._opens: list = []

    @property
    def partner_elsewhere(self) -> bool:
        """The `]` met its partner above the last `[` tried: no `[` further down can be it."""
        return self.met_zero_at is not None

    def find(self, end: int) -> int:
        """data.rfind of the last key ending by `end`, searching what is read and scanning it while the next piece
        is read."""
        while True:
            floor = self.reader.floor
            key = jsonscan.native.find_last(self.data, _KEY, floor, end)
            if key >= 0 or floor == 0:
                return key
            end = min(end, floor + len(_KEY) - 1)  # (a key across `floor`: in the next piece)
            self._down_to(floor)
            self.reader.wait_for(floor - 1)
            breathe()

    def partner_brackets(self, opening: int):
        """(positions, is-open flags, depth after each) from `opening` to the `]`, in the order of the text, as
        jsonscan gives them, if the `[` there is the `]`'s partner; else None."""
        self._down_to(opening)
        if self.met_zero_at != opening:
            return None
        positions = np.concatenate(self._positions)[::-1].copy()
        opens = np.concatenate(self._opens)[::-1].view(bool).copy()
        depth = np.cumsum(opens.astype(np.int32) * 2 - 1, dtype=np.int32)
        return positions, opens, depth

    def _down_to(self, index: int) -> None:
        """Scan data[index:low] (all of it read), unless the partner is already found."""
        while self.low > index and self.met_zero_at is None:
            room = self.low - index
            positions, opens = np.empty(room, np.int64), np.empty(room, np.uint8)
            floor = self.reader.floor
            count, self.state, low, zero_at = jsonscan.native.scan_back(
                self.data, floor, index, self.low, self.state, positions, opens)
            self._positions.append(positions[:count])  # (views: only what was written is in memory)
            self._opens.append(opens[:count])
            if zero_at >= 0:
                self.met_zero_at = zero_at
            elif low > index:  # a quote whose run of backslashes goes on below what is read
                self.reader.wait_for(floor - 1)
            self.low = low
