"""The status bar's progress bar while a file loads."""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar


class LoadProgressBar(QProgressBar):
    """A progress bar painted with the window's next paint. QProgressBar.setValue repaints at once, and a
    repaint paints every part of the window waiting to be painted: on a big run, a long paint each time, often on
    top of a move of the cursor being painted in the same turn of the event loop."""

    def setValue(self, value: int) -> None:  # noqa: N802 - Qt's name
        self.setUpdatesEnabled(False)  # (QProgressBar's own repaint() then does nothing;
        try:
            super().setValue(value)
        finally:
            self.setUpdatesEnabled(True)  # this schedules the update instead)
