"""The window comes first while a run loads: the loader waits at its breathing points when it has had to share
Python with another thread, until the window's event loop goes to sleep (app/window_activity.py); the progress
bar and a step's readable view are painted with the window's next paint and in pieces, not all at once."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
from PySide6.QtWidgets import QProgressBar

from afp_desktop.app import window_activity as activity_module
from afp_desktop.app.load_progress import LoadProgressBar
from afp_desktop.app.panels import readable_view
from afp_desktop.app.panels.readable_view import ReadableView
from afp_desktop.app.window_activity import YIELD_S, Contention, window_activity


@pytest.fixture
def contention(qapp, monkeypatch):
    """A Contention whose thread never gets the processor (its CPU clock stands still): it always shared it."""
    monkeypatch.setattr(activity_module.time, "thread_time", lambda: 0.0)
    made = Contention(threading.Event())
    made._wall -= 0.01  # (some time has passed since the last breathing point)
    return made


def set_later(event: threading.Event, seconds: float) -> None:
    threading.Timer(seconds, event.set).start()


def test_a_loader_that_shared_the_processor_waits_until_the_window_sleeps(contention):
    set_later(contention.activity.asleep, 0.02)
    started = time.monotonic()
    contention.yield_if_shared()
    waited = time.monotonic() - started
    assert 0.015 <= waited < YIELD_S, "it waited for the window's sleep, not for its whole allowance"


def test_it_waits_no_longer_than_its_allowance_and_then_works(contention):
    started = time.monotonic()
    contention.yield_if_shared()  # nobody says the window sleeps
    assert YIELD_S * 0.9 <= time.monotonic() - started < YIELD_S * 4
    contention._wall -= 0.01
    started = time.monotonic()
    contention.yield_if_shared()  # right after a wait, it works before it waits again (never starved)
    assert time.monotonic() - started < YIELD_S / 2


@pytest.mark.parametrize("why", ["stopping", "the window waits for the load"])
def test_it_never_waits_when_stopping_or_when_the_window_itself_waits_for_it(contention, why):
    if why == "stopping":
        contention.stop.set()
    else:
        contention.activity.waiting_for_load += 1
    try:
        started = time.monotonic()
        contention.yield_if_shared()
        assert time.monotonic() - started < YIELD_S / 2
    finally:
        if why != "stopping":
            contention.activity.waiting_for_load -= 1


def test_a_real_competing_thread_makes_the_loader_wait(qapp):
    """No clock stood still: a second thread running Python takes turns with this one, which notices."""
    made = Contention(threading.Event())
    done = threading.Event()

    def compete() -> None:
        while not done.is_set():
            sum(range(200))

    rival = threading.Thread(target=compete)
    rival.start()
    try:
        waited = 0.0
        for _ in range(5):
            end = time.monotonic() + 0.03
            while time.monotonic() < end:
                sum(range(200))
            started = time.monotonic()
            made._resumed = 0.0
            made.yield_if_shared()
            waited = max(waited, time.monotonic() - started)
    finally:
        done.set()
        rival.join()
    assert waited >= YIELD_S * 0.9


def test_the_window_says_when_its_event_loop_goes_to_sleep(qapp):
    activity = window_activity()
    activity.asleep.clear()
    loop = QEventLoop()
    QTimer.singleShot(30, loop.quit)
    loop.exec()  # (a real event loop: it sleeps while it waits for the timer)
    assert activity.asleep.is_set()


class PaintCounter(QObject):
    def __init__(self, widget) -> None:
        super().__init__()
        self.paints = 0
        widget.installEventFilter(self)

    def eventFilter(self, _watched, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


@pytest.mark.parametrize("kind", [QProgressBar, LoadProgressBar])
def test_the_progress_bar_is_painted_with_the_next_paint_not_at_once(qtbot, kind):
    bar = kind()
    bar.setRange(0, 100)
    qtbot.addWidget(bar)
    bar.show()
    qtbot.waitExposed(bar)
    qtbot.wait(20)
    counter = PaintCounter(bar)
    bar.setValue(40)
    at_once = counter.paints
    qtbot.waitUntil(lambda: counter.paints >= 1, timeout=2_000)
    assert bar.value() == 40
    if kind is QProgressBar:
        assert at_once == 1, "(Qt's own bar repaints at once: the reason for LoadProgressBar)"
    else:
        assert at_once == 0


def test_a_readable_view_shown_with_a_long_step_draws_it_in_pieces(qtbot):
    view = ReadableView()
    qtbot.addWidget(view)
    sections = [{"title": f"Section {k}", "text": f"text {k}"} for k in range(8)]
    view.show_model({"node": 1, "sections": sections})  # (hidden: nothing is drawn yet)
    view.show()
    drawn_at_show = len(view.widget().findChildren(type(readable_view._title("x"))))
    assert view.drawn is None or drawn_at_show < 2 * len(sections), "showing it did not draw the whole step at once"
    qtbot.waitUntil(lambda: view.drawn is not None and not view._pending, timeout=3_000)
    assert list(view.section_texts()) == [s["title"] for s in sections]
