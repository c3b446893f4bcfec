"""The keyboard-shortcut overview (F1 or ?): a dimmed layer over the whole window with the one shortcut table
(afp_desktop.app.shell.action_table) in a panel. Esc, F1, ? or a click anywhere closes it.

An overlay rather than a dialog so the window stays visible behind it and nothing modal traps the user.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from afp_desktop.app.shell.action_table import GESTURES, NOTE, SHORTCUTS, display_keys, markdown_table, plain_rows

__all__ = ["HelpOverlay", "markdown_table"]

_MARGIN = 24  # free space kept around the panel, so the window underneath stays recognisable
_CLOSE_KEYS = {Qt.Key.Key_Escape, Qt.Key.Key_F1, Qt.Key.Key_Question}


def _label(text: str, *, bold: bool = False, muted: bool = False, wrap: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)  # descriptions are data, never markup
    label.setWordWrap(wrap)
    if bold:
        font = QFont(label.font())
        font.setBold(True)
        label.setFont(font)
    if muted:
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # quieter but readable in both themes
    return label


class HelpOverlay(QWidget):
    """Covers its parent; `open()` shows it, `close_overlay()` (or Esc, F1, ?, a click) hides it."""

    closed = Signal()

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("helpOverlay")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.hide()

        self.panel = QFrame(self)
        self.panel.setObjectName("helpPanel")
        self.panel.setFrameShape(QFrame.Shape.StyledPanel)
        self.panel.setAutoFillBackground(True)  # opaque, in the theme's window colour
        title = _label("Keyboard shortcuts", bold=True)
        title_font = QFont(title.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.3)
        title.setFont(title_font)

        table = QWidget()
        grid = QGridLayout(table)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(4)
        keyboard = [(display_keys(s), s.description, s.where) for s in SHORTCUTS]
        row = 0
        for heading, rows in ((None, keyboard), ("Mouse", GESTURES)):
            if heading:
                grid.setRowMinimumHeight(row, 10)  # a gap before the section
                grid.addWidget(_label(heading, bold=True), row + 1, 0)
                row += 2
            for keys, what, where in rows:
                grid.addWidget(_label(keys, bold=True), row, 0)
                grid.addWidget(_label(what), row, 1)
                grid.addWidget(_label(where, muted=True), row, 2)
                row += 1
        grid.setColumnStretch(1, 1)
        self.scroll = QScrollArea()
        self.scroll.setWidget(table)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.viewport().setAutoFillBackground(False)
        table.setAutoFillBackground(False)
        self._table = table

        layout = QVBoxLayout(self.panel)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.setSpacing(10)
        layout.addWidget(title)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(_label(NOTE + " Press Esc, F1 or click anywhere to close.", muted=True, wrap=True))

    # ------------------------------------------------------------------------------------------ public
    def text(self) -> str:
        """The overview as plain text, one shortcut a line (tests, screen readers, copy-paste)."""
        return "\n".join(f"{keys}\t{what}\t{where}".rstrip() for keys, what, where in plain_rows()) + "\n" + NOTE

    def open(self) -> None:
        self._fit_to_parent()
        self.show()
        self.raise_()
        self.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def close_overlay(self) -> None:
        if self.isVisible():
            self.hide()
            self.closed.emit()

    def toggle(self) -> None:
        self.close_overlay() if self.isVisible() else self.open()

    # ------------------------------------------------------------------------------------------ layout
    def _fit_to_parent(self) -> None:
        self.setGeometry(self.parentWidget().rect())
        available = QSize(max(200, self.width() - 2 * _MARGIN), max(150, self.height() - 2 * _MARGIN))
        wanted = self.panel.sizeHint()
        # The scroll area hints a small default size; the table's own hint says how tall the panel wants to be.
        wanted.setHeight(wanted.height() - self.scroll.sizeHint().height() + self._table.sizeHint().height() + 4)
        wanted.setWidth(max(wanted.width(), self._table.sizeHint().width() + 40 +
                            self.scroll.verticalScrollBar().sizeHint().width()))
        size = wanted.boundedTo(available)
        self.panel.setGeometry((self.width() - size.width()) // 2, (self.height() - size.height()) // 2,
                               size.width(), size.height())

    # The window's resizes are watched only while the overview shows: a Python event filter on the window would
    # run for every event it gets, each a wait for the GIL while a big file loads in the background.
    def showEvent(self, event) -> None:
        self.parentWidget().installEventFilter(self)
        super().showEvent(event)

    def hideEvent(self, event) -> None:
        self.parentWidget().removeEventFilter(self)
        super().hideEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize and self.isVisible():
            self._fit_to_parent()
        return False

    # ------------------------------------------------------------------------------------------ events
    def paintEvent(self, _event) -> None:
        with QPainter(self) as painter:
            painter.fillRect(self.rect(), QColor(0, 0, 0, 120))  # dims the window in either theme

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _CLOSE_KEYS:
            self.close_overlay()
            event.accept()
            return
        super().keyPressEvent(event)

    def mousePressEvent(self, event) -> None:
        self.close_overlay()
        event.accept()
