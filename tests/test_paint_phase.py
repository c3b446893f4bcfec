"""A heavy change is painted on the event loop's next turn (app/pacing/scheduler.py, pytest-qt, offscreen): input and
timers are served between the change and its paint, so neither adds to the other's stall; the paint still comes."""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QWidget

from afp_desktop.app.pacing.scheduler import PaintPhase
from tests.corpus_util import corpus_path
from tests.paint_util import PaintCount

LOAD_TIMEOUT = 30_000


class CountedWidget(QWidget):
    def __init__(self, order: list[str]) -> None:
        super().__init__()
        self.order = order

    def paintEvent(self, _event) -> None:  # noqa: N802 (Qt's name)
        self.order.append("paint")


def shown_widget(qtbot, order: list[str]) -> tuple[CountedWidget, PaintPhase]:
    widget = CountedWidget(order)
    qtbot.addWidget(widget)
    paint_phase = PaintPhase(widget)
    widget.resize(200, 100)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.waitUntil(lambda: "paint" in order)  # its first paint is over
    order.clear()
    return widget, paint_phase


def an_overdue_timer(order: list[str]) -> QTimer:
    timer = QTimer(singleShot=True, interval=0)  # due before the paint is asked for, as a stall meter's tick or a
    timer.timeout.connect(lambda: order.append("timer"))  # key repeat would be
    timer.start()
    return timer


def change_in_a_turn(widget: QWidget, paint_phase: PaintPhase | None = None) -> None:
    """A change (armed, if `paint_phase` is given) made, then the turn's posted events served: its paint request
    among them."""
    if paint_phase is not None:
        paint_phase.arm()
    widget.update()
    QCoreApplication.sendPostedEvents()


def test_without_arming_the_paint_comes_in_the_same_turn_before_any_timer(qtbot):
    order: list[str] = []
    widget, paint_phase = shown_widget(qtbot, order)
    timer = an_overdue_timer(order)
    change_in_a_turn(widget)
    assert order == ["paint"] and paint_phase.held == 0
    qtbot.waitUntil(lambda: "timer" in order)
    assert timer is not None


def test_armed_the_paint_waits_for_the_next_turn_and_timers_come_first(qtbot):
    order: list[str] = []
    widget, paint_phase = shown_widget(qtbot, order)
    timer = an_overdue_timer(order)
    change_in_a_turn(widget, paint_phase)
    assert order == [] and paint_phase.holding and paint_phase.held == 1
    qtbot.waitUntil(lambda: "paint" in order)
    assert order == ["timer", "paint"], "the overdue timer ran between the change and its paint"
    assert not paint_phase.holding
    # disarmed once used: the next paint is not held
    change_in_a_turn(widget)
    assert order[-1] == "paint" and order.count("paint") == 2 and paint_phase.held == 1
    assert timer is not None


def test_updates_made_while_held_are_painted_by_the_one_held_request(qtbot):
    order: list[str] = []
    widget, paint_phase = shown_widget(qtbot, order)
    change_in_a_turn(widget, paint_phase)
    widget.update()  # Qt asks no second time while one request is out: the held one must serve this too
    qtbot.waitUntil(lambda: "paint" in order)
    qtbot.waitUntil(lambda: not len(paint_phase.queue))  # (nothing more is to come: the queue is empty)
    QCoreApplication.sendPostedEvents()
    assert order == ["paint"] and not paint_phase.holding


def test_changes_coming_faster_than_a_turn_do_not_put_the_paint_off_for_ever(qtbot):
    """Each move arms it again; the held paint still comes, showing the latest change (not held again)."""
    order: list[str] = []
    widget, paint_phase = shown_widget(qtbot, order)
    change_in_a_turn(widget, paint_phase)
    assert paint_phase.holding
    for _ in range(5):  # the next moves, each before the held paint is served
        change_in_a_turn(widget, paint_phase)
    qtbot.waitUntil(lambda: "paint" in order, timeout=1000)
    assert paint_phase.held == 1 and not paint_phase.holding


# -- in the window --------------------------------------------------------------------------------------------

def open_sample(qtbot, window) -> None:
    """The small sample run, opened and shown, with no paint held."""
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(corpus_path("02-react-two-tools", "trace.json"))
    qtbot.waitUntil(lambda: window_at_rest(window))


def window_at_rest(window) -> bool:
    """Nothing held, queued or still to settle: what comes next is the test's doing."""
    scheduler = window.session.scheduler
    return not window.canvas.building and not window.paint_phase.holding and not len(scheduler.queue) \
        and not scheduler.settle_waiting


def test_a_light_step_of_one_stop_is_painted_in_the_same_turn_and_a_jump_on_the_next(qtbot, window, monkeypatch):
    """A step to the next stop that the panels took in less than a step's budget: one short stall, and no turn's
    wait for its pixels. A jump scrolls the graph and the timeline (a heavy paint): held, as before."""
    from afp_desktop.app.shell import main_window

    monkeypatch.setattr(main_window, "LIGHT_MOVE_MS", 1000)  # (light on any machine: the test's is not timed)
    open_sample(qtbot, window)
    session = window.session
    session.move_to_stop(1)
    session.flush()
    qtbot.waitUntil(lambda: window.timeline.built)
    drawn = PaintCount(window.timeline.panel.canvas)
    qtbot.waitUntil(lambda: drawn.count > 0 and window.timeline.panel.stops and window_at_rest(window))  # (settled, drawn)
    paints = PaintCount(window.timeline.panel.canvas)  # (its cursor moves at every stop)
    held = window.paint_phase.held
    session.move_to_stop(2)
    session.flush()  # the panels take the new moment now
    QCoreApplication.sendPostedEvents()
    assert paints.count > 0 and not window.paint_phase.holding and window.paint_phase.held == held
    session.move_to_stop(len(session.stops) - 1)
    session.flush()
    QCoreApplication.sendPostedEvents()
    assert window.paint_phase.holding and window.paint_phase.held == held + 1
    qtbot.waitUntil(lambda: not window.paint_phase.holding)


def test_a_heavy_move_of_the_cursor_is_painted_on_the_turn_after_the_panels_took_it(qtbot, window, monkeypatch):
    from afp_desktop.app.shell.main_window import LIGHT_MOVE_MS

    open_sample(qtbot, window)
    window.session.move_to_stop(0)
    window.session.flush()
    qtbot.waitUntil(lambda: not window.paint_phase.holding)
    # a panel slower than a step's budget (the inspector drawing a big step, a long run's graph scrolled): the
    # scheduler's clock (the one the paint's budget is read on) moves on while the panels take the moment
    clock, taken = window.session.scheduler.clock, [0.0]
    real_now = clock.now
    monkeypatch.setattr(clock, "now", lambda: real_now() + taken[0])
    window.session.moment_changed.connect(lambda _moment: taken.__setitem__(0, taken[0] + LIGHT_MOVE_MS / 1000 + 0.004))
    paints = PaintCount(window.canvas.viewport())
    held = window.paint_phase.held
    window.session.move_to_stop(1)
    window.session.flush()
    QCoreApplication.sendPostedEvents()
    assert paints.count == 0 and window.paint_phase.holding and window.paint_phase.held == held + 1
    qtbot.waitUntil(lambda: paints.count > 0)
    assert not window.paint_phase.holding


def test_a_light_arm_holds_the_paint_once_its_time_is_past(qtbot):
    order: list[str] = []
    widget, paint_phase = shown_widget(qtbot, order)
    paint_phase.arm(light_until=time.perf_counter() + 5.0)
    widget.update()
    QCoreApplication.sendPostedEvents()
    assert order == ["paint"] and paint_phase.held == 0
    paint_phase.arm(light_until=time.perf_counter() - 0.001)
    widget.update()
    QCoreApplication.sendPostedEvents()
    assert order == ["paint"] and paint_phase.holding
    qtbot.waitUntil(lambda: order == ["paint", "paint"])
    paint_phase.arm()  # a heavy change, then a light one in the same turn: the paint is held
    paint_phase.arm(light_until=time.perf_counter() + 5.0)
    widget.update()
    QCoreApplication.sendPostedEvents()
    assert order == ["paint", "paint"] and paint_phase.holding
    qtbot.waitUntil(lambda: len(order) == 3)


def test_a_theme_switch_is_painted_on_the_next_turn(qtbot, window, restore_app_look):
    open_sample(qtbot, window)
    paints = PaintCount(window.canvas.viewport())
    window.apply_theme("dark" if window.theme == "light" else "light")
    QCoreApplication.sendPostedEvents()
    assert paints.count == 0 and window.paint_phase.holding
    qtbot.waitUntil(lambda: paints.count > 0)
    assert not window.paint_phase.holding


def test_the_window_keeps_painting_while_the_cursor_is_scrubbed_back_to_back(qtbot, window):
    open_sample(qtbot, window)
    paints = PaintCount(window.canvas.viewport())
    session = window.session
    for k in range(40):  # a held key or a dragged slider: each move handled as soon as it comes
        session.move_to_stop(k % len(session.stops))
        QCoreApplication.processEvents()
        time.sleep(0.002)
    assert paints.count >= 20, "the moves are painted as they come, not once they stop"


def test_a_floating_panel_is_painted_with_the_window_on_the_next_turn(qtbot, window):
    dock = window.docks["timeline"]
    dock.setFloating(True)
    qtbot.waitExposed(dock)
    open_sample(qtbot, window)
    graph = PaintCount(window.canvas.viewport())
    timeline = PaintCount(window.timeline.panel.canvas)
    window.session.move_to_stop(2)
    window.session.flush()
    QCoreApplication.sendPostedEvents()
    assert (graph.count, timeline.count) == (0, 0), "neither window paints the new moment in the same turn"
    assert window.paint_phase.holding
    qtbot.waitUntil(lambda: graph.count > 0 and timeline.count > 0)
    assert not window.paint_phase.holding
