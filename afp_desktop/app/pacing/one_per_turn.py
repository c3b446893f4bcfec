"""The window's heavy deferred pieces of work, run one per turn of the event loop.

Qt fires every timer that is due in one pass: heavy pieces each put off "to a later turn" by a timer of their own
(a graph slice, a big run's timeline stops, the paint held back for the next turn) come due together and run back
to back, one freeze as long as all of them. Put off through `later`, they wait in one queue and each turn runs the
first of them only: input and the window's other timers are served between any two. A paint held back goes first:
the moment the user looks at is shown before the slices of work that follow it.

Other heavy work shares a pass with them too: a move published (a 0 ms timer), a part or the whole of a big file
shown (a queued signal from the loader). A piece due in a pass whose work has already taken the window's thread
`BUSY_PASS_S` of processor time, or that follows such a pass, waits for the next pass, once — so a light pass comes
between two heavy ones, in which the loop reads input and fires its other timers (without the wait, a piece due
right after a heavy pass would come first in the next one: its short timer is due before the others). Pieces that
are each short still add up to a long stall when they share a pass; the wait keeps them apart. `pass_busy` lets the
session's publish wait the same way, and `after_a_busy_pass` heavy work that comes on a timer or signal of its own.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Callable, Hashable

from PySide6.QtCore import QAbstractEventDispatcher, QCoreApplication, QObject, Qt, QTimer

# A repeating timer, stopped when the queue is empty (at most one firing per pass: one piece per turn), of 1 ms,
# not a single-shot one: a single-shot timer can stay "active" and overdue while the event loop's repeating timers
# fire, and its pieces then never run. (A timer started while Qt fires the due ones is not due until the next
# pass.) It is registered afresh at each turn, before the piece runs: see _run_one.
TURN_MS = 1
BUSY_PASS_S = 0.008  # the window's processor time already spent in this pass past which a piece waits a pass


class OnePerTurn(QObject):
    """A queue of pieces of work, each run on a turn of its own, in the order asked for."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._queue: OrderedDict[Hashable, Callable[[], None]] = OrderedDict()
        self._timer = QTimer(self)
        self._timer.setSingleShot(False)  # (repeating, stopped when the queue is empty)
        self._timer.setInterval(TURN_MS)
        self._timer.timeout.connect(self._run_one)
        self._pass_began = time.thread_time()  # the window thread's processor clock when this pass began
        self._previous_busy = False  # the pass before this one was busy (pass_busy when it ended)
        self._waited = False  # the piece due waited a pass already (it runs on this one, busy or not)
        app = QCoreApplication.instance()
        dispatcher = QAbstractEventDispatcher.instance(app.thread()) if app is not None else None
        if dispatcher is not None:  # (each pass of an event loop begins with one of them, or both)
            dispatcher.awake.connect(self._awake, Qt.ConnectionType.DirectConnection)
            dispatcher.aboutToBlock.connect(self._pass_begins, Qt.ConnectionType.DirectConnection)

    def _awake(self) -> None:
        """Once a pass (as it begins, or after the last one's work), unlike aboutToBlock: not in processEvents."""
        self._previous_busy = self.pass_busy()
        self._pass_began = time.thread_time()

    def _pass_begins(self) -> None:
        self._pass_began = time.thread_time()

    def pass_busy(self, or_the_last: bool = False) -> bool:
        """This pass of the event loop has already kept the window's thread at work `BUSY_PASS_S` (`or_the_last`:
        or the pass before it did)."""
        return (or_the_last and self._previous_busy) or time.thread_time() - self._pass_began > BUSY_PASS_S

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
        if self._queue and not self._waited and self.pass_busy(or_the_last=True):
            self._waited = True  # (the timer, still active, fires again on the next pass)
            return
        self._waited = False
        # The timer is registered afresh before the piece runs: Qt never fires a timer from inside its own
        # timeout, so a piece that runs an event loop of its own (a modal dialog, a script's wait) would leave this
        # one "active" and overdue, and every piece behind it waiting, until it returned. (Started now, it is not
        # due before the next pass: still one piece per turn.)
        self._timer.stop()
        if not self._queue:
            return
        _key, piece = self._queue.popitem(last=False)
        if self._queue:
            self._timer.start()
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


def pass_busy(or_the_last: bool = False) -> bool:
    """This pass of the window's event loop has done heavy work already, or (`or_the_last`) the one before it did
    (OnePerTurn.pass_busy)."""
    return one_per_turn().pass_busy(or_the_last)


def after_a_busy_pass(context: QObject, work: Callable[[], None]) -> None:
    """Run `work` now, unless this pass of the window's event loop or the one before it has done heavy work: then on
    the next pass (not if `context` is deleted first), whatever that pass holds. For heavy work that comes on a
    timer or a signal of its own rather than through the queue (a step's readable view laid out in pieces, the
    whole of a big file shown), as the queue's pieces and a move's publish wait."""
    if pass_busy(or_the_last=True):
        QTimer.singleShot(TURN_MS, context, work)  # (started in this pass: not due before the next one)
    else:
        work()


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
