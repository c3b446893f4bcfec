"""The window's heavy deferred pieces run one per turn of the event loop (app/one_per_turn.py): a graph slice, a big
run's timeline stops and the paint held back for the next turn came due together and ran back to back, one
~50 ms freeze, when each had a timer of its own."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication

from afp_desktop.app import one_per_turn
from afp_desktop.app.main_window import MainWindow
from afp_desktop.core.formats import open_run
from tests.corpus_util import corpus_path


@pytest.fixture(autouse=True)
def empty_queue():
    """Each test starts and ends with nothing queued (the queue is the application's)."""
    one_per_turn.one_per_turn()._queue.clear()
    yield
    one_per_turn.one_per_turn()._queue.clear()


def one_turn() -> None:
    """One pass of the event loop, once the queue's 1 ms timer is due."""
    time.sleep(0.002)
    QApplication.processEvents()


def turns_until_idle(limit: int = 500) -> int:
    """Turn the event loop (one pass each) until the queue is empty; how many passes it took."""
    for turn in range(1, limit + 1):
        one_turn()
        if not len(one_per_turn.one_per_turn()):
            return turn
    raise AssertionError("the queue never emptied")


def test_pieces_run_one_per_turn_in_the_order_asked(qapp):
    owner = QObject()
    ran: list[tuple[int, str]] = []
    turn = [0]
    for name in ("a", "b", "c"):
        one_per_turn.later(owner, name, lambda n=name: ran.append((turn[0], n)))
    for turn[0] in range(1, 50):
        one_turn()
        if len(ran) == 3:
            break
    assert [name for _turn, name in ran] == ["a", "b", "c"]
    assert len({at for at, _name in ran}) == 3, f"one piece per turn: {ran}"


def test_a_piece_asked_for_first_goes_before_those_waiting_and_a_key_runs_once(qapp):
    owner = QObject()
    ran: list[str] = []
    one_per_turn.later(owner, "slice", lambda: ran.append("slice"))
    one_per_turn.later(owner, "stops", lambda: ran.append("stops"))
    one_per_turn.later(owner, "slice", lambda: ran.append("slice again"))  # (waiting already: runs once)
    one_per_turn.later(owner, "paint", lambda: ran.append("paint"), first=True)
    assert one_per_turn.waiting(owner, "paint")
    turns_until_idle()
    assert ran == ["paint", "slice", "stops"]


def test_a_piece_cancelled_or_of_a_deleted_owner_does_not_run(qapp):
    kept, gone = QObject(), QObject()
    ran: list[str] = []
    one_per_turn.later(kept, "cancelled", lambda: ran.append("cancelled"))
    one_per_turn.later(gone, "piece", lambda: ran.append("deleted owner"))
    one_per_turn.later(kept, "piece", lambda: ran.append("kept"))
    one_per_turn.cancel(kept, "cancelled")
    from shiboken6 import delete
    delete(gone)
    turns_until_idle()
    assert ran == ["kept"]


def test_a_piece_that_fails_does_not_stop_the_others(qapp, monkeypatch):
    owner = QObject()
    ran: list[str] = []

    def fails() -> None:
        raise RuntimeError("boom")

    one_per_turn.later(owner, "fails", fails)
    one_per_turn.later(owner, "next", lambda: ran.append("next"))
    with pytest.raises(RuntimeError):
        one_per_turn.one_per_turn()._run_one()
    turns_until_idle()
    assert ran == ["next"]


@pytest.fixture
def big_window(qtbot):
    window = MainWindow(restore_layout=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    window.timeline.build()
    qtbot.waitUntil(lambda: window.timeline.built)
    return window


def test_a_big_runs_graph_slices_stops_paint_and_settle_come_on_turns_of_their_own(qtbot, big_window, monkeypatch):
    """A run read in part (its stops follow a turn later, its graph in slices, its paint a turn later, its
    heavy panels once it settles): each of those pieces runs in a pass of the event loop of its own, the paint
    first; none is lost (the whole graph is made, the stops shown, the inspector follows)."""
    from afp_desktop.app.panels import graph_canvas, timeline
    from afp_desktop.app import paint_later, session as session_module

    pass_number = [0]
    ran: list[tuple[int, str]] = []

    def spy(cls, name: str, label: str) -> None:
        original = getattr(cls, name)

        def recorded(self, *args, **kwargs):
            ran.append((pass_number[0], label))
            return original(self, *args, **kwargs)
        monkeypatch.setattr(cls, name, recorded)

    spy(graph_canvas.GraphCanvas, "_build_next", "slice")
    spy(timeline.TimelinePanel, "_show_pending_stops", "stops")
    spy(paint_later.PaintLater, "_paint", "paint")
    spy(session_module.Session, "_settle", "settle")
    monkeypatch.setattr(graph_canvas, "BUILD_SLICE_S", 0.0)  # (several slices, however fast the machine)
    monkeypatch.setattr(graph_canvas, "IN_VIEW_BUDGET_S", 0.0)
    run = open_run(str(corpus_path("15-large-run", "trace.json")))
    run.prepare(window=True)
    run.still_reading = True  # (as a big file's first part: its stops come a turn later)
    window = big_window
    window.session.set_run(run, settle_now=False)
    for pass_number[0] in range(1, 5000):  # (one pass at a time, a millisecond apart: the settle waits 80 ms)
        QApplication.processEvents()
        time.sleep(0.001)
        if not len(one_per_turn.one_per_turn()) and not window.session.settle_pending \
                and not window.canvas.building and window.timeline.stops:
            break
    kinds = [label for _at, label in ran]
    assert {"slice", "stops", "paint", "settle"} <= set(kinds), kinds
    passes = [at for at, _label in ran]
    assert len(passes) == len(set(passes)), f"two pieces in one pass: {ran}"
    assert kinds.index("paint") < kinds.index("stops"), "the moment shown is painted before the stops follow"
    assert len(window.canvas.node_items) == len(window.canvas.graph_layout.nodes)
    assert window.timeline.stops, "the stops are shown"



def test_the_queue_empties_after_a_big_file_is_shown_part_by_part(qtbot, big_window, monkeypatch):
    """A file shown while it is read, then whole: every piece queued meanwhile runs, and the growth jobs catch the
    panels up, in a running event loop as the app's. (With a 0 ms timer for the queue's turn, the 1,000-iteration
    corpus Trace left that timer "active" and overdue once the whole run was shown, its growth job waiting 20 s and
    more; this smaller run does not show that, and bench_open_stalls.py checks the big files, but any piece left
    waiting fails here.)"""
    from afp_desktop.app import loader as loader_module
    from afp_desktop.core.formats import prefixes

    monkeypatch.setattr(prefixes, "MIN_BYTES", 0)
    monkeypatch.setattr(prefixes, "FIRST_EVENTS", 300)
    monkeypatch.setattr(prefixes, "MIN_REST_S", 0.0)
    monkeypatch.setattr(loader_module, "PREFIX_HOLD_MS", 100)
    window = big_window
    with qtbot.waitSignal(window.loader.loaded, timeout=60_000):
        window.open_file(corpus_path("15-large-run", "trace.json"))
    growth = window.follow.growth
    # A running event loop, as the app's (qtbot.waitUntil turns it by processEvents, where Qt serves timers
    # at their normal priority: it hid the queue standing still).
    from PySide6.QtCore import QEventLoop, QTimer

    loop, check = QEventLoop(), QTimer()
    check.setInterval(5)
    check.timeout.connect(lambda: loop.quit() if not len(one_per_turn.one_per_turn()) and growth.idle else None)
    check.start()
    QTimer.singleShot(5_000, loop.quit)
    loop.exec()
    check.stop()
    assert not len(one_per_turn.one_per_turn()) and growth.idle, [name for _owner, name in one_per_turn.one_per_turn()._queue]
    assert all(job.costs for job in growth.jobs if job.name in ("summary", "lists", "inspector"))
