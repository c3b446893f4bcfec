"""The window's heavy deferred pieces of work, run one per turn of the event loop.

Qt fires every timer that is due in one pass: a graph slice (6 ms), a big run's timeline stops (14 ms) and the
paint held back for the next turn (15 ms), each put off "to a later turn" by a timer of its own, came due
together and ran back to back, one ~50 ms freeze. Put off through `later`, they wait in one queue and each
turn runs the first of them only: input and the window's other timers are served between any two. A paint held
back goes first: the moment the user looks at is shown before the slices of work that follow it.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Hashable

from PySide6.QtCore import QObject, QTimer

# A repeating timer, stopped when the queue is empty (at most one firing per pass: one piece per turn), of 1 ms.
# A single-shot one (0 or 1 ms) was seen to stand still: "active" and overdue for 20 s and more after the big
# Trace's whole run was shown, while the event loop's other, repeating timers fired; its pieces never ran (the
# growth job, then in a test the settle). (A timer started while Qt fires the due ones is not due until the next
# pass.)
TURN_MS = 1


class OnePerTurn(QObject):
    """A queue of pieces of work, each run on a turn of its own, in the order asked for."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._queue: OrderedDict[Hashable, Callable[[], None]] = OrderedDict()
        self._timer = QTimer(self)
        self._timer.setSingleShot(False)  # (repeating, stopped when the queue is empty)
        self._timer.setInterval(TURN_MS)
        self._timer.timeout.connect(self._run_one)

    def later(self, key: Hashable, piece: Callable[[], None], first: bool = False) -> None:
        """Run `piece` on a later turn, after the pieces asked for before it (`first`: before them). Asked again
        under the same `key` before it ran, it runs once, where it was first queued."""
        if key not in self._queue:
            self._queue[key] = piece
            if first:
                self._queue.move_to_end(key, last=False)
        if not self._timer.isActive():
            self._timer.start()

    def cancel(self, key: Hashable) -> None:
        self._queue.pop(key, None)

    def waiting(self, key: Hashable) -> bool:
        return key in self._queue

    def __len__(self) -> int:
        return len(self._queue)

    def _run_one(self) -> None:
        if not self._queue:
            self._timer.stop()
            return
        _key, piece = self._queue.popitem(last=False)
        try:
            piece()
        finally:
            if not self._queue:
                self._timer.stop()
            elif not self._timer.isActive():
                self._timer.start()


_queue: OnePerTurn | None = None


def one_per_turn() -> OnePerTurn:
    """The application's queue (made on first use, on the window's thread)."""
    global _queue
    if _queue is None:
        _queue = OnePerTurn()
    return _queue


def later(owner: QObject, name: str, piece: Callable[[], None], first: bool = False) -> None:
    """`piece` of `owner`'s work on a later turn, one piece per turn (not run if `owner` is deleted first);
    `first`: before the pieces waiting (a paint held back: what the user looks at comes before the rest)."""
    one_per_turn().later((owner, name), _while_alive(owner, piece), first)  # (the key holds the owner)


def cancel(owner: QObject, name: str) -> None:
    one_per_turn().cancel((owner, name))


def waiting(owner: QObject, name: str) -> bool:
    return one_per_turn().waiting((owner, name))


def _while_alive(owner: QObject, piece: Callable[[], None]) -> Callable[[], None]:
    from shiboken6 import isValid

    def run() -> None:
        if isValid(owner):
            piece()
    return run
