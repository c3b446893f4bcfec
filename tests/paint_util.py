"""Counting a widget's paints in tests (how many times Qt painted it, not how many times it was asked to), and
the layout requests it receives."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
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
