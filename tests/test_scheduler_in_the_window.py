"""The scheduler's queue on the application's Qt clock (app/pacing/scheduler.py), in the window: a graph slice, a big
run's timeline stops, the paint held back for the next turn and the settled moment each run on a turn of their own.
Its rules on a clock advanced by hand are in tests/test_scheduler.py; these check the Qt clock keeps them in a real
event loop (they wait on conditions, never on time)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from afp_desktop.app.pacing import scheduler
from afp_desktop.app.shell.main_window import MainWindow
from afp_desktop.core.formats import open_run
from afp_desktop.core.views.prepared_views import prepare_views
from tests.corpus_util import corpus_path


@pytest.fixture(autouse=True)
def empty_queue():
    """Each test starts and ends with nothing queued (the queue is the application's)."""
    scheduler.turns().clear()
    yield
    scheduler.turns().clear()


def test_the_queue_turns_inside_a_nested_event_loop_that_a_piece_runs(qapp):
    """A piece that runs an event loop of its own (a modal dialog, a script's or a test's wait) must not stop the
    queue: Qt does not fire a timer from inside its own timeout, so the queue's timer stood "active" and overdue,
    and every piece behind it waited until that piece returned (seen as the queue and the settle standing still
    for 5 s while timers started later fired; a timer started afresh fired at once)."""
    from PySide6.QtCore import QEventLoop, QTimer

    owner = QObject()
    ran: list[str] = []
    inner = QEventLoop()

    def waits_for_the_next_piece() -> None:
        ran.append("waiting")
        scheduler.later(owner, "next", lambda: (ran.append("next"), inner.quit()))
        scheduler.later(owner, "after", lambda: ran.append("after"))
        QTimer.singleShot(30_000, lambda: (ran.append("gave up"), inner.quit()))  # (a guard against a hang only)
        inner.exec()
        ran.append("returned")

    scheduler.later(owner, "outer", waits_for_the_next_piece)
    outer = QEventLoop()
    check = QTimer()
    check.setInterval(5)
    check.timeout.connect(lambda: outer.quit() if "returned" in ran and not len(scheduler.turns()) else None)
    check.start()
    QTimer.singleShot(60_000, outer.quit)  # (a guard against a hang only)
    outer.exec()
    check.stop()
    assert ran[:3] == ["waiting", "next", "returned"], f"the queue stood still inside the piece's own loop: {ran}"
    assert "after" in ran and "gave up" not in ran and not len(scheduler.turns())


@pytest.fixture
def big_window(qtbot):
    window = MainWindow(restore_layout=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    window.timeline.build()
    qtbot.waitUntil(lambda: window.timeline.built and not len(scheduler.turns()))  # (its paint too)
    return window


def test_a_big_runs_graph_slices_stops_paint_and_settle_come_on_turns_of_their_own(qtbot, big_window, monkeypatch):
    """A run read in part (its stops follow a turn later, its graph in slices, its paint a turn later, its
    heavy panels once it settles): each of those pieces runs in a pass of the event loop of its own, the paint
    first; none is lost (the whole graph is made, the stops shown, the inspector follows)."""
    from afp_desktop.app.panels.graph import scene_builder
    from afp_desktop.app.panels.timeline import timeline
    from afp_desktop.app import session as session_module

    pass_number = [0]
    ran: list[tuple[int, str]] = []

    def spy(cls, name: str, label: str) -> None:
        original = getattr(cls, name)

        def recorded(self, *args, **kwargs):
            ran.append((pass_number[0], label))
            return original(self, *args, **kwargs)
        monkeypatch.setattr(cls, name, recorded)

    # (private pieces spied on: each is the one place its kind of work runs, and the pass it runs in is the point)
    spy(scene_builder.SceneBuilder, "_make_next", "slice")
    spy(timeline.TimelinePanel, "_show_pending_stops", "stops")
    spy(scheduler.PaintPhase, "_paint", "paint")
    spy(session_module.Session, "_settle", "settle")

    class Painted(QObject):  # the graph painted, held for a turn (the "paint" piece) or at once (a light change)
        def eventFilter(self, _watched, event):  # noqa: N802 (Qt's name)
            if event.type() == QEvent.Type.Paint:
                ran.append((pass_number[0], "graph painted"))
            return False
    monkeypatch.setattr(scene_builder, "BUILD_SLICE_S", 0.0)  # (several slices, however fast the machine)
    monkeypatch.setattr(scene_builder, "IN_VIEW_BUDGET_S", 0.0)
    run = open_run(str(corpus_path("15-large-run", "trace.json")))
    run.views = prepare_views(run)
    run.still_reading = True  # (as a big file's first part: its stops come a turn later)
    window = big_window
    painted = Painted()
    window.canvas.viewport().installEventFilter(painted)
    window.session.set_run(run, settle_now=False)
    from PySide6.QtCore import QEventLoop, QTimer

    tick = QTimer(interval=1)  # (wakes the loop each millisecond: one pass at a time until the settle, 80 ms on)
    tick.start()
    for pass_number[0] in range(1, 100_000):  # (a guard only: the loop ends once every piece has run)
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
        if not len(scheduler.turns()) and not window.session.settle_pending \
                and not window.canvas.building and window.timeline.panel.stops:
            break
    tick.stop()
    kinds = [label for _at, label in ran if label != "graph painted"]
    assert {"slice", "stops", "paint", "settle"} <= set(kinds), kinds
    passes = [at for at, label in ran if label != "graph painted"]
    assert len(passes) == len(set(passes)), f"two pieces in one pass: {ran}"
    labels = [label for _at, label in ran]
    assert labels.index("graph painted") < labels.index("stops"), \
        f"the moment shown is painted before the stops follow: {ran}"
    assert len(window.canvas.node_items) == len(window.canvas.graph_layout.nodes)
    assert window.timeline.panel.stops, "the stops are shown"



def test_the_queue_empties_after_a_big_file_is_shown_part_by_part(qtbot, big_window, monkeypatch):
    """A file shown while it is read, then whole: every piece queued meanwhile runs, and the growth jobs catch the
    panels up, in a running event loop as the app's. (With a 0 ms timer for the queue's turn, the 1,000-iteration
    corpus Trace left that timer "active" and overdue once the whole run was shown, its growth job waiting 20 s and
    more; this smaller run does not show that, and bench_open_stalls.py checks the big files, but any piece left
    waiting fails here.) The wait ends once nothing is queued nor about to be: this test failed about one run in
    four when it ended on an empty queue alone (quit() lets the pass go on, and the session's settle timer, due in
    the same pass, queued its piece 0.2 ms before the assertion: seen with a trace of the queue)."""
    from afp_desktop.app.loading import loader as loader_module
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

    session, queue = window.session, scheduler.turns()

    def caught_up() -> bool:  # (nothing queued, and nothing about to be: quit() lets the pass go on, and the
        return not len(queue) and growth.idle and not session.scheduler.settle_waiting  # settle timer fired in it)

    loop, check = QEventLoop(), QTimer()
    check.setInterval(5)
    check.timeout.connect(lambda: loop.quit() if caught_up() else None)
    check.start()
    QTimer.singleShot(5_000, loop.quit)
    loop.exec()
    check.stop()
    assert caught_up(), (queue.waiting_names(), growth.idle, session.scheduler.settle_waiting)
    assert all(job.costs for job in growth.jobs if job.name in ("summary", "lists", "inspector"))
