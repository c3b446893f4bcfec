"""A label whose text changes at every move of the cursor without laying the window out again.

QLabel.setText tells the layouts a new size may be needed, and Qt carries that up through each layout to the
main window's unless the label's size is fixed: a readout that changes at every step (the timeline's position
and iteration) would lay out the timeline, its dock and the main window at every step. A
`SteadyLabel` keeps a fixed size. It grows, once, when a text needs more room than it has (a layout then, as for
any label), and `settle_size()` lets it shrink back to its text (a new run). It is opaque, so a new text repaints
the label alone, not the panel, the dock and the main window beneath it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtWidgets import QLabel, QWidget


class SteadyLabel(QLabel):
    """Plain text. `width`: a fixed width (the caller elides to it); None: as wide as the widest text so far."""

    def __init__(self, width: int | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        # Opaque (it fills its background): Qt then repaints only the label when its text changes, not every
        # widget under it — the dock drawing its title, the main window its separators.
        self.setAutoFillBackground(True)
        self._width = width
        self.settle_size()

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        if text == self.text():
            return
        super().setText(text)  # (a fixed-size widget's geometry change stops here)
        width, height = self._needed()
        if height > self.height() or (self._width is None and width > self.width()):
            self._fix(width, height)  # a text that needs more room: laid out once

    def settle_size(self) -> None:
        """Fit the size to the text shown now (it may shrink): the window is laid out again."""
        self._fix(*self._needed())

    def _needed(self) -> tuple[int, int]:
        """The room the text needs on one line. (Not sizeHint: a QLabel's is never less than its minimum size,
        which is fixed here.)"""
        margins, extra = self.contentsMargins(), 2 * self.margin()
        box = self.fontMetrics().boundingRect(QRect(0, 0, 2000, 2000), int(self.alignment()), self.text())
        return (box.width() + margins.left() + margins.right() + extra,
                max(box.height(), self.fontMetrics().height()) + margins.top() + margins.bottom() + extra)

    def _fix(self, width: int, height: int) -> None:
        self.setFixedSize(self._width if self._width is not None else width, height)

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.settle_size()
