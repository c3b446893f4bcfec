"""Driving the (modal) export dialog from a test: its answer is scheduled before it opens, and waits for it."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from afp_desktop.app.export.export_dialog import ExportDialog

OK = QDialogButtonBox.StandardButton.Ok


def answer_export_dialog(window, act, button=OK) -> None:
    """Once the window's export dialog is open: `act(dialog)`, then press `button`."""

    def answer():
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ExportDialog):
            QTimer.singleShot(20, answer)
            return
        act(dialog)
        dialog.buttons.button(button).click()

    QTimer.singleShot(20, answer)


def export_with_shortcut(qtbot, window, act) -> None:
    """Ctrl+Shift+E on the window; `act(dialog)` looks and changes things, then Export is pressed."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
    answer_export_dialog(window, act)
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
