"""Counting a widget's paints in tests (how many times Qt painted it, not how many times it was asked to), and
the layout requests it receives; painting what a window has waiting, now, instead of waiting for Qt's frame
timer."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtWidgets import QWidget


class EventCount(QObject):
    """Counts the events of one type a widget receives."""

    TYPE = QEvent.Type.None_

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, _watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == self.TYPE:
            self.count += 1
        return False


class PaintCount(EventCount):
    TYPE = QEvent.Type.Paint


class LayoutRequests(EventCount):
    """Counts the layout requests a widget receives (each one lays it and what holds it out again)."""

    TYPE = QEvent.Type.LayoutRequest


def serve_waiting() -> None:
    """Serve the events waiting now: the window system's (a resize), then what they and earlier code posted (the
    layout requests a new size or text makes, queued calls)."""
    QCoreApplication.processEvents()
    QCoreApplication.sendPostedEvents()


def paint_waiting(widget: QWidget) -> None:
    """Paint now what `widget`'s window has waiting to be painted, as Qt's frame timer would a few ms later: the
    events waiting are served first (a resize from the window system, the layout requests it posts, a graphics
    scene telling its views what changed by a queued call), then the window is sent the UpdateRequest that timer
    sends, which paints its dirty widgets. Nothing dirty: no paint.
    (Not for a window whose paint PaintPhase holds back: this would paint it before the held paint's turn; see
    window_painted.)"""
    serve_waiting()
    QCoreApplication.sendEvent(widget.window(), QEvent(QEvent.Type.UpdateRequest))


def window_painted(qtbot, window) -> None:
    """Every paint of a main window asked for so far is done, the paint its PaintPhase holds back for a later turn
    included: what is waiting is served, a held paint has had its turn, then the window paints what is still dirty
    (the UpdateRequest of Qt's frame timer, sent now) — and if the change being painted holds that paint for a
    turn, it has had its turn too."""
    serve_waiting()
    qtbot.waitUntil(lambda: not window.paint_phase.holding)
    QCoreApplication.sendEvent(window, QEvent(QEvent.Type.UpdateRequest))
    qtbot.waitUntil(lambda: not window.paint_phase.holding)
