"""A box that keeps a widget's changing texts from laying the window out again.

A label's or button's new text tells the layouts a new size may be needed, and Qt carries that up through every
layout to the main window's (a few milliseconds of a step) unless a widget on the way has a fixed size. A widget
whose texts change at every move of the cursor but whose height does not (the header's figures) is held in a
`LayoutStop`: the box has no layout of its own; it lays its one child out to its own width itself, and passes a
layout request on only when the height its child wishes for has changed.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QSizePolicy, QWidget


class LayoutStop(QWidget):
    def __init__(self, child: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.child = child
        child.setParent(self)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._wish = self._child_wish()
        self.setFixedHeight(self._wish.height())

    def _child_wish(self) -> QSize:
        hint = self.child.sizeHint()
        return QSize(hint.width(), max(hint.height(), self.child.minimumSizeHint().height()))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self._wish.width(), self._wish.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, self._wish.height())

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:  # (posted by the child: this box has no layout)
            wish = self._child_wish()
            if wish.height() != self._wish.height():
                self._wish = wish
                self.setFixedHeight(wish.height())  # (a new height: the layouts above are asked, once)
            self.child.setGeometry(0, 0, self.width(), self.height())
            return True
        return super().event(event)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.child.setGeometry(0, 0, self.width(), self.height())
