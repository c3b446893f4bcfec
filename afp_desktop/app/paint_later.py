"""Putting the window's paint off to the turn of the event loop after a heavy change.

Qt paints a window in the same turn of its event loop as the change that made it dirty: showing a big run's whole
graph (~20 ms) and its first paint (~30 ms) froze the window ~60 ms in one piece. `PaintLater.arm()` makes the
window's next paint request wait for the next turn, so input and timers are served between the two halves. The
screen keeps the previous frame meanwhile, whole and self-consistent: nothing is painted half-changed.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


NEXT_TURN_MS = 1


class PaintLater(QObject):
    """Holds back a window's next UpdateRequest (the one that repaints its dirty widgets) by one turn."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self._armed = False
        self._holding = False
        self.held = 0  # paints put off so far (tests read it)
        window.installEventFilter(self)

    @property
    def holding(self) -> bool:
        """A paint request is held back and not served yet."""
        return self._holding

    def arm(self) -> None:
        """The next paint of the window comes on a later turn than the change being made now."""
        self._armed = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if self._armed and watched is self._window and event.type() == QEvent.Type.UpdateRequest:
            self._armed, self._holding = False, True
            self.held += 1
            # Qt keeps the dirty regions and sends no other request until this one is served: serve it later.
            # (A real timer: a 0 ms single shot is a queued call, served before any timer or input is.)
            QTimer.singleShot(NEXT_TURN_MS, self, self._paint)
            return True
        return False

    def _paint(self) -> None:
        # The paint that comes now shows every change made meanwhile: a change armed since (the next move) is not
        # held again, or moves coming faster than a turn would put the paint off for as long as they came.
        self._holding = self._armed = False
        QCoreApplication.sendEvent(self._window, QEvent(QEvent.Type.UpdateRequest))
