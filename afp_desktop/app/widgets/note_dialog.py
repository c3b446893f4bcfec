"""A short note asked of the user (a bookmark's): Enter confirms it, Shift+Enter starts a new line, Escape
cancels. A plain multi-line box takes Enter for a new line, so a keyboard user could never confirm it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

HINT = "Enter saves the note · Shift+Enter starts a new line · Esc cancels"


class NoteEdit(QPlainTextEdit):
    """The note's text box: Enter (without Shift) asks its dialog to accept."""

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
                event.modifiers() & Qt.KeyboardModifier.ShiftModifier):
            dialog = self.window()
            if isinstance(dialog, QDialog):
                dialog.accept()
                return
        super().keyPressEvent(event)


class NoteDialog(QDialog):
    def __init__(self, parent: QWidget | None, title: str, label: str, text: str = ""):
        super().__init__(parent)
        self.setWindowTitle(title)
        layout = QVBoxLayout(self)
        caption = QLabel(label)
        caption.setTextFormat(Qt.TextFormat.PlainText)
        self.edit = NoteEdit()
        self.edit.setPlainText(text)
        self.edit.setTabChangesFocus(True)
        caption.setBuddy(self.edit)
        hint = QLabel(HINT)
        hint.setEnabled(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        for widget in (caption, self.edit, hint, buttons):
            layout.addWidget(widget)
        self.edit.setFocus()
        self.edit.moveCursor(self.edit.textCursor().MoveOperation.End)

    @property
    def note(self) -> str:
        return self.edit.toPlainText()
