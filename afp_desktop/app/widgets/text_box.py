"""A read-only box for trace text: shown as typed (app/widgets/visible_text.py: bidi controls as markers), and a very long
text shown in part until asked for whole.

A text box lays out all its text when it is given it, in time that grows with the text (a tool result may be
megabytes), and the inspector draws the step at the cursor on every move. So a text over SHOWN_CHARS characters
shows its first SHOWN_CHARS, with a note, "Show all" (the whole text, once asked for) and "Copy all" (the exact
text, controls included).
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from afp_desktop.app.widgets.plain_text import plain_label
from afp_desktop.app.widgets.visible_text import visible_text

SHOWN_CHARS = 100_000  # short enough to lay out without a pause a move of the cursor would feel


def shown_part(text: str) -> tuple[str, bool]:
    """What a box shows of `text` at first, and whether that is only its beginning."""
    if len(text) <= SHOWN_CHARS:
        return visible_text(text), False
    return visible_text(text[:SHOWN_CHARS]) + "\n…", True


class TraceTextBox(QWidget):
    """A read-only QPlainTextEdit (`box`) for trace text, with a bar under it when only part of the text is shown.
    `setPlainText` / `toPlainText` / `clear` as on the box; `text` is the whole text given."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.text = ""
        self.box = QPlainTextEdit()
        self.box.setReadOnly(True)
        self.box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.bar: QWidget | None = None  # made when a text is first shown in part (most never are)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(0)
        self._layout.addWidget(self.box, 1)

    def _make_bar(self) -> QWidget:
        self.note = plain_label("", muted=True)
        self.show_all_button = QPushButton("Show all")
        self.show_all_button.setToolTip("Lay out the whole text (a very long text takes a moment)")
        self.show_all_button.clicked.connect(self.show_all)
        self.copy_all_button = QPushButton("Copy all")
        self.copy_all_button.setToolTip("Copy the whole text, exactly as the file has it")
        self.copy_all_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.text))
        bar = QWidget()
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 2, 0, 0)
        row.addWidget(self.note, 1)
        row.addWidget(self.show_all_button)
        row.addWidget(self.copy_all_button)
        self._layout.addWidget(bar)
        return bar

    def setPlainText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self.text = text
        shown, part = shown_part(text)
        self.box.setPlainText(shown)
        if part:
            if self.bar is None:
                self.bar = self._make_bar()
            self.note.setText(f"Showing the first {SHOWN_CHARS:,} of {len(text):,} characters.")
            self.show_all_button.setEnabled(True)
        if self.bar is not None:
            self.bar.setVisible(part)

    def toPlainText(self) -> str:  # noqa: N802
        return self.box.toPlainText()

    def clear(self) -> None:
        self.setPlainText("")

    def setPlaceholderText(self, text: str) -> None:  # noqa: N802
        self.box.setPlaceholderText(text)

    def setFont(self, font) -> None:  # noqa: N802
        self.box.setFont(font)

    def font(self):
        return self.box.font()

    def fontMetrics(self):  # noqa: N802
        return self.box.fontMetrics()

    def show_all(self) -> None:
        self.box.setPlainText(visible_text(self.text))
        self.note.setText(f"Showing all {len(self.text):,} characters.")
        self.show_all_button.setEnabled(False)
