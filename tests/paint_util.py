"""Counting a widget's paints in tests (how many times Qt painted it, not how many times it was asked to), and
the layout requests it receives."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


class PaintCount(QObject):
    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, _watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


class LayoutRequests(QObject):
    """Counts the layout requests a widget receives (each one lays it and what holds it out again)."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, _watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False
