"""The scheduler's phases and its queue, on a clock advanced by hand (app/pacing/scheduler.py): nothing here sleeps
or reads the wall clock. A move is applied on a turn of its own (the latest of those asked for), the panels take
the moment, its paint is held for a later turn, and the settled moment follows once the cursor has been still."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QObject

from afp_desktop.app.pacing.scheduler import (GROWTH_SETTLE_MS, SETTLE_MS, TURN_MS, ManualClock, MomentScheduler,
                                              TurnQueue, on_a_light_turn)
from afp_desktop.app.session import Session
from afp_desktop.core.formats import open_run
from tests.corpus_util import corpus_path


# -- the queue: one piece per turn ------------------------------------------------------------------------------
@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def test_pieces_run_one_a_turn_in_the_order_asked(clock):
    queue, ran = TurnQueue(clock), []
    for name in ("a", "b", "c"):
        queue.later(name, lambda n=name: ran.append((clock.now(), n)))
    assert ran == [] and len(queue) == 3, "nothing runs in the turn that asked"
    clock.advance(10 * TURN_MS)
    assert [name for _at, name in ran] == ["a", "b", "c"]
    assert len({at for at, _name in ran}) == 3, f"one piece per turn: {ran}"


def test_a_piece_asked_for_first_goes_before_those_waiting_and_a_key_runs_once(clock):
    queue, ran = TurnQueue(clock), []
    queue.later("slice", lambda: ran.append("slice"))
    queue.later("stops", lambda: ran.append("stops"))
    queue.later("slice", lambda: ran.append("slice again"))  # (waiting already: runs once)
    queue.later("paint", lambda: ran.append("paint"), first=True)
    assert queue.waiting("paint")
    clock.advance(10 * TURN_MS)
    assert ran == ["paint", "slice", "stops"] and not len(queue)


def test_a_piece_cancelled_does_not_run_and_a_failing_one_does_not_stop_the_others(clock):
    queue, ran = TurnQueue(clock), []

    def fails() -> None:
        raise RuntimeError("boom")
    queue.later("cancelled", lambda: ran.append("cancelled"))
    queue.later("fails", fails)
    queue.later("next", lambda: ran.append("next"))
    queue.cancel("cancelled")
    with pytest.raises(RuntimeError):
        clock.advance(TURN_MS)
    clock.advance(10 * TURN_MS)
    assert ran == ["next"]


def test_a_piece_due_after_a_busy_turn_waits_one_turn_and_no_more(clock):
    queue, ran = TurnQueue(clock), []
    queue.later("piece", lambda: ran.append("piece"))
    clock.busy = True  # (this turn did heavy work: a move published, a big file's part shown)
    clock.turn()
    clock.time_ms += TURN_MS
    assert clock.turn() and ran == [], "the piece ran in the turn right after a heavy one"
    clock.advance(TURN_MS)
    assert ran == ["piece"]
    queue.later("second", lambda: ran.append("second"))
    for _ in range(3):  # busy on every turn: the piece waits one turn, then runs all the same
        clock.busy = True
        clock.advance(TURN_MS)
    assert ran[-1] == "second", "a piece is put off one turn at most"


def test_work_of_its_own_waits_a_turn_after_a_busy_one_not_if_its_owner_is_gone(qapp, clock):
    import shiboken6

    owner, ran = QObject(), []
    on_a_light_turn(owner, lambda: ran.append("light"), clock)
    assert ran == ["light"]
    clock.busy = True
    on_a_light_turn(owner, lambda: ran.append("after heavy work"), clock)
    assert ran == ["light"], "it ran in the turn of the heavy work"
    clock.advance(TURN_MS)
    assert ran == ["light", "after heavy work"], "it waits one turn, not more"
    gone = QObject()
    clock.busy = True
    on_a_light_turn(gone, lambda: ran.append("of an owner deleted"), clock)
    shiboken6.delete(gone)
    clock.advance(10 * TURN_MS)
    assert ran == ["light", "after heavy work"]


# -- the moment's phases ------------------------------------------------------------------------------------------
class Phases:
    """A scheduler whose phases write down what ran, and on which turn."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock, self.ran, self.wanted, self.shown = clock, [], [], None
        self.owner = QObject()
        self.scheduler = MomentScheduler(self.owner, apply_move=self.apply, show_moment=self.show,
                                         settle=lambda: self.ran.append(("settled", self.shown)), clock=clock)
        self.scheduler.paint_steps.append(lambda: self.ran.append(("paint", self.shown)))

    def ask(self, where: int) -> None:
        self.wanted.append(where)
        self.scheduler.move_wanted()

    def apply(self) -> bool:
        if not self.wanted:
            return False
        self.shown, self.wanted = self.wanted[-1], []
        self.ran.append(("move", self.shown))
        return True

    def show(self) -> None:
        self.ran.append(("moment", self.shown))


def test_a_move_goes_through_its_phases_in_order_and_settles_once_still(qapp, clock):
    phases = Phases(clock)
    phases.ask(3)
    assert phases.ran == [], "a move is applied on a turn of its own, not in the one that asked"
    clock.advance(0)
    assert phases.ran == [("move", 3), ("moment", 3), ("paint", 3)]
    clock.advance(SETTLE_MS - 1)
    assert ("settled", 3) not in phases.ran, "the cursor has not been still long enough"
    clock.advance(1 + TURN_MS)
    assert phases.ran[-1] == ("settled", 3)


def test_fast_scrubbing_coalesces_to_the_latest_move_and_the_settle_follows_the_last(qapp, clock):
    phases = Phases(clock)
    for where in range(10):  # ten moves before the move's turn comes: one is applied, the latest
        phases.ask(where)
    clock.advance(0)
    assert [entry for entry in phases.ran if entry[0] == "move"] == [("move", 9)]
    for where in range(10, 20):  # a scrub: a move every 10 ms keeps the settle waiting
        phases.ask(where)
        clock.advance(10)
    assert not [entry for entry in phases.ran if entry[0] == "settled"]
    clock.advance(SETTLE_MS + TURN_MS)
    settled = [entry for entry in phases.ran if entry[0] == "settled"]
    assert settled == [("settled", 19)], "one settle, after the last move, of the last moment"


def test_the_settle_waits_for_its_turn_after_a_paint_held_in_the_queue(qapp, clock):
    """The settled phase is due in the window's queue: it never runs in the turn of a held paint."""
    phases = Phases(clock)
    phases.ask(1)
    clock.advance(SETTLE_MS)
    assert phases.scheduler.settle_waiting and phases.ran[-1] == ("paint", 1)
    phases.scheduler.queue.later("paint", lambda: phases.ran.append(("held paint", None)), first=True)
    clock.advance(TURN_MS)
    assert phases.ran[-1] == ("held paint", None), "the paint first, on a turn of its own"
    clock.advance(TURN_MS)
    assert phases.ran[-1] == ("settled", 1)


def test_a_growth_settles_at_most_every_growth_settle_ms(qapp, clock):
    phases = Phases(clock)
    for _ in range(30):  # a run growing every 50 ms
        phases.scheduler.moment_made(settle_ms=GROWTH_SETTLE_MS)
        clock.advance(50)
    settled = [entry for entry in phases.ran if entry[0] == "settled"]
    assert 4 <= len(settled) <= 30 * 50 // GROWTH_SETTLE_MS, settled


# -- the session on the clock ------------------------------------------------------------------------------------
@pytest.fixture
def session(qapp, clock) -> Session:
    session = Session(clock=clock, queue=TurnQueue(clock))
    session.set_run(open_run(corpus_path("02-react-two-tools", "recording.json")))
    return session


def test_the_sessions_moves_are_coalesced_and_published_on_the_next_turn(session, clock):
    moments, settled = [], []
    session.moment_changed.connect(moments.append)
    session.moment_settled.connect(settled.append)
    for index in (2, 5, 7, 9):
        session.move_to_stop(index)
    assert moments == [] and session.stop_index == 9
    clock.advance(0)
    assert [moment.stop.index for moment in moments] == [9]
    assert settled == []
    clock.advance(SETTLE_MS + TURN_MS)
    assert [moment.stop.index for moment in settled] == [9]


def test_a_session_move_after_a_busy_turn_is_published_a_turn_later(session, clock):
    moments = []
    session.moment_changed.connect(moments.append)
    clock.busy = True
    session.move_to_stop(4)
    clock.turn()
    assert moments == [], "a heavy publish does not share a turn with heavy work before it"
    clock.advance(TURN_MS)
    assert [moment.stop.index for moment in moments] == [4]


def test_an_immediate_move_publishes_and_settles_now(session, clock):
    settled = []
    session.moment_settled.connect(settled.append)
    session.move_to_stop(3)
    clock.advance(0)
    session.move_to(session.spans[6].end, immediate=True)
    assert session.moment.position == session.spans[6].end and len(settled) == 1
    clock.advance(10 * SETTLE_MS)
    assert len(settled) == 1, "the settle taken now is not run again"


def test_a_heavy_moment_and_its_paint_never_share_a_turn(qtbot, clock):
    """The paint phase holds the window's paint of a new moment for a later turn of the scheduler's queue: the
    turn that applied the move and gave the panels the moment paints nothing."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QWidget

    from afp_desktop.app.pacing.scheduler import PaintPhase
    from tests.paint_util import PaintCount

    widget = QWidget()
    qtbot.addWidget(widget)
    first = PaintCount(widget)
    widget.resize(200, 100)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.waitUntil(lambda: first.count > 0)  # (its first paint is over)
    phases = Phases(clock)
    paint_phase = PaintPhase(widget, queue=phases.scheduler.queue, clock=clock)
    phases.scheduler.paint_steps.append(paint_phase.arm)  # (a heavy change: no light budget)
    phases.scheduler.paint_steps.append(widget.update)
    painted = PaintCount(widget)
    phases.ask(7)
    clock.advance(0)  # the move's turn: move → moment → paint phase
    QCoreApplication.sendPostedEvents()  # (the turn's paint request)
    assert phases.ran[:2] == [("move", 7), ("moment", 7)]
    assert painted.count == 0 and paint_phase.holding, "the paint came in the turn of the moment"
    clock.advance(TURN_MS)  # the next turn of the queue: the held paint
    assert painted.count == 1 and not paint_phase.holding
