"""How a moment reaches the window: one scheduler, its phases in a fixed order, on an injectable clock.

Each move of the cursor goes through the same phases, in this order:

1. **move** — the latest move asked for is applied to the replay (moves asked for meanwhile are coalesced: the
   latest wins, so fast scrubbing never queues stale work). It comes on a turn of the event loop of its own,
   and after a turn of heavy work on the next one.
2. **moment** — every panel is given the new moment (`Panel.moment`: cheap work only).
3. **paint** — the window's paint of it is held for the next turn unless the change was light (`PaintPhase`), so a
   heavy publish and its paint never share one turn.
4. **settled** — once the cursor has been still for `SETTLE_MS`, the panels get `Panel.settled` (the place for
   expensive work), on a turn of its own in the window's queue.

The window's other heavy deferred pieces (a graph slice, a big run's timeline stops, a held paint, a growth job)
wait in one queue, `TurnQueue`, and each turn runs the first of them only: input and the window's other timers
are served between any two. A piece due in a turn whose work has already taken the window's thread `BUSY_PASS_S` of
processor time, or that follows such a turn, waits for the next turn, once — a light turn comes between two heavy
ones. `on_a_light_turn` lets work that comes on a timer or signal of its own wait the same way.

Time comes from a `Clock`: `QtClock` (QTimer, the thread's processor time per pass of the event loop) in the app,
`ManualClock` in tests, advanced by hand — the tests of this module never sleep.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections import OrderedDict
from typing import Callable, Hashable, Protocol

from PySide6.QtCore import QAbstractEventDispatcher, QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QWidget

TURN_MS = 1            # a turn of its own: a timer started now is not due before the next pass of the event loop
BUSY_PASS_S = 0.008    # the window's processor time already spent in this pass past which a piece waits a pass
SETTLE_MS = 80         # moves closer together than this are one scrub: the settled phase waits for a pause
GROWTH_SETTLE_MS = 250  # a run growing (File ▸ Follow) settles at most this often


# -- the clock ------------------------------------------------------------------------------------------------
class Pending(Protocol):
    """A call the clock will make: it can be cancelled, and says whether it is still to come."""

    def cancel(self) -> None: ...

    @property
    def active(self) -> bool: ...


class Clock(Protocol):
    """What the scheduler knows of time."""

    def now(self) -> float:
        """Seconds, from any fixed origin."""
        ...

    def call_later(self, delay_ms: int, call: Callable[[], None]) -> Pending:
        """Call `call` once, `delay_ms` from now (0: on the next turn of the event loop)."""
        ...

    def pass_busy(self, or_the_last: bool = False) -> bool:
        """This turn has already done heavy work (`or_the_last`: or the turn before it did)."""
        ...


class _QtPending:
    def __init__(self, timer: QTimer) -> None:
        self._timer: QTimer | None = timer

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer.deleteLater()
            self._timer = None

    @property
    def active(self) -> bool:
        return self._timer is not None and self._timer.isActive()

    def fired(self) -> None:
        if self._timer is not None:
            self._timer.deleteLater()
            self._timer = None


class QtClock(QObject):
    """The application's clock: `time.perf_counter`, QTimer, and the window thread's processor time per pass of
    its event loop (the dispatcher says when each pass begins)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pass_began = time.thread_time()  # the window thread's processor clock when this pass began
        self._previous_busy = False  # the pass before this one was busy
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

    def now(self) -> float:
        return time.perf_counter()

    def call_later(self, delay_ms: int, call: Callable[[], None]) -> Pending:
        # A timer of its own for each call, registered afresh: Qt never fires a timer from inside its own timeout,
        # so a call that runs an event loop of its own (a modal dialog) does not hold the next one back.
        timer = QTimer(self)
        timer.setSingleShot(True)
        pending = _QtPending(timer)

        def fire() -> None:
            pending.fired()
            call()
        timer.timeout.connect(fire)
        timer.start(max(0, int(delay_ms)))
        return pending

    def pass_busy(self, or_the_last: bool = False) -> bool:
        return (or_the_last and self._previous_busy) or time.thread_time() - self._pass_began > BUSY_PASS_S


class _ManualPending:
    def __init__(self) -> None:
        self.active = True

    def cancel(self) -> None:
        self.active = False


class ManualClock:
    """A clock advanced by hand (tests): `advance(ms)` makes the calls that come due, in order, each on a turn of
    its own; `busy` says the current turn did heavy work (it ends with the turn)."""

    def __init__(self) -> None:
        self.time_ms = 0.0
        self.busy = False
        self._last_busy = False
        self._calls: list[tuple[float, int, _ManualPending, Callable[[], None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self.time_ms / 1000

    def call_later(self, delay_ms: int, call: Callable[[], None]) -> Pending:
        pending = _ManualPending()
        # (a call made for now is still for a later turn than this one: TURN_MS at least, as a QTimer started now)
        heapq.heappush(self._calls, (self.time_ms + max(delay_ms, 0), next(self._order), pending, call))
        return pending

    def pass_busy(self, or_the_last: bool = False) -> bool:
        return self.busy or (or_the_last and self._last_busy)

    def pending(self) -> int:
        return sum(1 for _at, _n, pending, _call in self._calls if pending.active)

    def turn(self) -> bool:
        """Run the next call due now, on a turn of its own; False if none is due."""
        while self._calls and self._calls[0][0] <= self.time_ms:
            _at, _n, pending, call = heapq.heappop(self._calls)
            if pending.active:
                pending.active = False
                self._last_busy, self.busy = self.busy, False
                call()
                return True
        return False

    def advance(self, ms: float = 0) -> None:
        """Let `ms` pass, a turn for each call that comes due meanwhile (a call made in one turn for now runs on
        the next turn of the same instant)."""
        end = self.time_ms + ms
        while True:
            while self.turn():
                pass
            upcoming = [at for at, _n, pending, _call in self._calls if pending.active and at <= end]
            if not upcoming:
                break
            self.time_ms = min(upcoming)
        self.time_ms = end


# -- one piece of deferred work per turn -------------------------------------------------------------------------
class TurnQueue:
    """A queue of pieces of work, each run on a turn of its own, in the order asked for."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._queue: OrderedDict[Hashable, Callable[[], None]] = OrderedDict()
        self._next: Pending | None = None
        self._waited = False  # the piece due waited a turn already (it runs on this one, busy or not)

    def later(self, key: Hashable, piece: Callable[[], None], first: bool = False) -> None:
        """Run `piece` on a later turn, after the pieces asked for before it (`first`: before them). Asked again
        under the same `key` before it ran, it runs once, where it was first queued."""
        if key not in self._queue:
            self._queue[key] = piece
            if first:
                self._queue.move_to_end(key, last=False)
        self._want_turn()

    def cancel(self, key: Hashable) -> None:
        self._queue.pop(key, None)

    def waiting(self, key: Hashable) -> bool:
        return key in self._queue

    def waiting_names(self) -> list:
        return list(self._queue)

    def clear(self) -> None:
        self._queue.clear()

    def __len__(self) -> int:
        return len(self._queue)

    def _want_turn(self) -> None:
        if self._queue and (self._next is None or not self._next.active):
            self._next = self.clock.call_later(TURN_MS, self.run_one)

    def run_one(self) -> None:
        """The queue's turn: the first piece runs (or waits this turn, once, after a busy one)."""
        self._next = None
        if not self._queue:
            return
        if not self._waited and self.clock.pass_busy(or_the_last=True):
            self._waited = True
            self._want_turn()
            return
        self._waited = False
        _key, piece = self._queue.popitem(last=False)
        self._want_turn()  # (registered before the piece runs: a piece that runs an event loop does not stop it)
        try:
            piece()
        finally:
            self._want_turn()


_clock: QtClock | None = None
_turns: TurnQueue | None = None


def app_clock() -> QtClock:
    """The application's clock (made on first use, on the window's thread)."""
    global _clock
    if _clock is None:
        _clock = QtClock()
    return _clock


def turns() -> TurnQueue:
    """The application's queue of deferred pieces (made on first use, on the window's thread)."""
    global _turns
    if _turns is None:
        _turns = TurnQueue(app_clock())
    return _turns


def later(owner: QObject, name: str, piece: Callable[[], None], first: bool = False) -> None:
    """`piece` of `owner`'s work on a later turn, one piece per turn (not run if `owner` is deleted first);
    `first`: before the pieces waiting (a paint held back: what the user looks at comes before the rest)."""
    turns().later((owner, name), _while_alive(owner, piece), first)  # (the key holds the owner)


def cancel(owner: QObject, name: str) -> None:
    turns().cancel((owner, name))


def waiting(owner: QObject, name: str) -> bool:
    return turns().waiting((owner, name))


def pass_busy(or_the_last: bool = False) -> bool:
    """This turn of the window's event loop has done heavy work already, or (`or_the_last`) the one before did."""
    return app_clock().pass_busy(or_the_last)


def on_a_light_turn(context: QObject, work: Callable[[], None], clock: Clock | None = None) -> None:
    """Run `work` now, unless this turn of the window's event loop or the one before it has done heavy work: then on
    the next turn (not if `context` is deleted first). For heavy work that comes on a timer or a signal of its own
    rather than through the queue (a step's readable view laid out in pieces, the whole of a big file shown)."""
    clock = clock if clock is not None else app_clock()
    if clock.pass_busy(or_the_last=True):
        clock.call_later(TURN_MS, _while_alive(context, work))
    else:
        work()


def _while_alive(owner: QObject, piece: Callable[[], None]) -> Callable[[], None]:
    from shiboken6 import isValid

    def run() -> None:
        if isValid(owner):
            piece()
    return run


# -- the paint phase --------------------------------------------------------------------------------------------
class PaintPhase(QObject):
    """Holds back the next UpdateRequest (the one that repaints a window's dirty widgets) of the windows it watches
    by one turn: Qt paints a window in the turn of the change that made it dirty, and a big change and its paint
    in one turn would freeze the window as long as both. The screen keeps the previous frame meanwhile, whole.
    A floating panel is a window of its own: its paint is held with the main window's."""

    served = Signal()  # a held paint was painted

    def __init__(self, window: QWidget, queue: TurnQueue | None = None, clock: Clock | None = None) -> None:
        super().__init__(window)
        self._queue = queue
        self._clock = clock
        self._armed = False
        self._light_until: float | None = None  # (clock.now()) a paint asked for before this is not held
        self._held: list[QWidget] = []  # windows whose paint request waits for the next turn
        self.held = 0  # paint requests put off so far
        self.watch(window)

    @property
    def queue(self) -> TurnQueue:
        return self._queue if self._queue is not None else turns()

    @property
    def clock(self) -> Clock:
        return self._clock if self._clock is not None else app_clock()

    def watch(self, widget: QWidget) -> None:
        """Also hold `widget`'s paint when it is a window of its own (a floating dock)."""
        widget.installEventFilter(self)

    @property
    def holding(self) -> bool:
        """A paint request is held back and not served yet."""
        return bool(self._held)

    def arm(self, light_until: float | None = None) -> None:
        """The next paint of the window comes on a later turn than the change being made now — unless it is asked
        for before `light_until` (a clock.now(): the change was light, and is painted at once)."""
        if self._armed and self._light_until is None:
            return  # a heavy change made in this turn already: its paint is held, and this one's with it
        self._armed, self._light_until = True, light_until

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QEvent.Type.UpdateRequest or not (self._armed or self._held):
            return False
        if any(watched is window for window in self._held):
            return False
        if not self._held and self._light_until is not None and self.clock.now() < self._light_until:
            self._armed, self._light_until = False, None
            return False  # a light change: painted now
        if not self._held:  # (a turn of its own: not with a graph slice or a big run's stops)
            self.queue.later((self, "paint"), _while_alive(self, self._paint), first=True)
        self._armed, self._light_until = False, None
        self._held.append(watched)  # another window's request while one is held: painted with it
        self.held += 1
        # Qt keeps the dirty regions and sends no other request until this one is served: serve it later.
        return True

    def _paint(self) -> None:
        # The paint that comes now shows every change made meanwhile: a change armed since is not held again, or
        # moves coming faster than a turn would put the paint off for as long as they came.
        held, self._held, self._armed, self._light_until = self._held, [], False, None
        for window in held:
            QCoreApplication.sendEvent(window, QEvent(QEvent.Type.UpdateRequest))
        self.served.emit()


# -- the moment's phases ----------------------------------------------------------------------------------------
class MomentScheduler:
    """The phases of one window's moments: move → moment → paint, then settled once the cursor is still.

    `apply_move()` applies the latest move asked for and says whether it made a new moment; `show_moment()` gives
    it to the panels; the paint steps (added by the window) hold or let through its paint; `settle()` gives the
    panels the settled moment. Moves are coalesced: `move_wanted` asked many times before the move's turn comes
    applies one move, the latest."""

    def __init__(self, owner: QObject, *, apply_move: Callable[[], bool], show_moment: Callable[[], None],
                 settle: Callable[[], None], clock: Clock | None = None, queue: TurnQueue | None = None) -> None:
        self._owner = owner
        self._apply_move, self._show_moment, self._settle = apply_move, show_moment, settle
        self.clock: Clock = clock if clock is not None else app_clock()
        self.queue: TurnQueue = queue if queue is not None else turns() if clock is None else TurnQueue(clock)
        self.paint_steps: list[Callable[[], None]] = []  # the paint phase: run after the panels took a moment
        self._move_turn: Pending | None = None
        self._settle_timer: Pending | None = None
        self.moment_began = 0.0  # (clock.now()) when the latest moment began to be made: its paint's budget

    # move
    @property
    def move_pending(self) -> bool:
        return self._move_turn is not None and self._move_turn.active

    def move_wanted(self) -> None:
        """A move was asked for: it is applied on a turn of its own (one, however many moves come before it)."""
        if not self.move_pending:
            self._move_turn = self.clock.call_later(0, lambda: on_a_light_turn(self._owner, self._run_move,
                                                                                 self.clock))

    def cancel_move(self) -> None:
        if self._move_turn is not None:
            self._move_turn.cancel()
        self._move_turn = None

    def move_now(self) -> None:
        """Apply the move asked for now (a deliberate single move, a flush), with its phases."""
        self.cancel_move()
        self._run_move()

    def _run_move(self) -> None:
        self._move_turn = None
        self.moment_began = self.clock.now()
        if self._apply_move():
            self.moment_made()

    # moment and paint
    def moment_made(self, settled_now: bool = False, settle_ms: int = SETTLE_MS) -> None:
        """A new moment: the panels take it, its paint is held or let through, and the settled phase comes now
        (`settled_now`) or once the cursor has been still `settle_ms` (for a growth, GROWTH_SETTLE_MS, a settle
        already waiting is kept: growing often must not put the settle off for ever)."""
        self._show_moment()
        for step in self.paint_steps:
            step()
        if settled_now:
            self.settle_now()
        elif settle_ms == GROWTH_SETTLE_MS and self.settle_waiting:
            return
        else:
            self.queue.cancel((self._owner, "settle"))  # (moves keep coming: the settle waits until they pause)
            if self._settle_timer is not None:
                self._settle_timer.cancel()
            self._settle_timer = self.clock.call_later(settle_ms, self._settle_due_now)

    # settled
    def _settle_due_now(self) -> None:
        self._settle_timer = None
        # (due, it waits for its turn in the window's queue: not with a paint or a graph slice)
        self.queue.later((self._owner, "settle"), _while_alive(self._owner, self._settle))

    @property
    def settle_waiting(self) -> bool:
        """The settled phase is still to come (its timer runs, or it waits its turn in the queue)."""
        return (self._settle_timer is not None and self._settle_timer.active) \
            or self.queue.waiting((self._owner, "settle"))

    def take_settle(self) -> bool:
        """A settle waiting is taken off (to be run now by the caller, or dropped); whether one was."""
        due = self.settle_waiting
        if self._settle_timer is not None:
            self._settle_timer.cancel()
        self._settle_timer = None
        self.queue.cancel((self._owner, "settle"))
        return due

    def settle_now(self) -> None:
        self.take_settle()
        self._settle()
