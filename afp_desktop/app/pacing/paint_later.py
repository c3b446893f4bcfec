"""Putting the window's paint off to the turn of the event loop after a heavy change.

Qt paints a window in the same turn of its event loop as the change that made it dirty: showing a big run's whole
graph and its first paint would freeze the window in one piece, as long as both. `PaintLater.arm()` makes the
window's next paint request wait for the next turn, so input and timers are served between the two halves. The
screen keeps the previous frame meanwhile, whole and self-consistent: nothing is painted half-changed. A floating
panel is a window of its own: its paint is held with the main window's, so the two show the same moment.

A light change is not held: a step of the cursor to the next stop that the panels took less than a step's budget
for (`arm(light_until=…)`) is painted in the same turn, one short stall instead of two and no turn's wait. A jump's
paint scrolls the graph and the timeline: it is heavy, and is held.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
from PySide6.QtWidgets import QWidget

from afp_desktop.app.pacing import one_per_turn


class PaintLater(QObject):
    """Holds back the next UpdateRequest (the one that repaints a window's dirty widgets) of the windows it
    watches by one turn."""

    served = Signal()  # a held paint was painted

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._armed = False
        self._light_until: float | None = None  # (time.perf_counter()) a paint asked for before this is not held
        self._held: list[QWidget] = []  # windows whose paint request waits for the next turn
        self.held = 0  # paint requests put off so far (tests read it)
        self.watch(window)

    def watch(self, widget: QWidget) -> None:
        """Also hold `widget`'s paint when it is a window of its own (a floating dock). (The filter sees only the
        widgets it is installed on.)"""
        widget.installEventFilter(self)

    @property
    def holding(self) -> bool:
        """A paint request is held back and not served yet."""
        return bool(self._held)

    def arm(self, light_until: float | None = None) -> None:
        """The next paint of the window comes on a later turn than the change being made now — unless it is asked
        for before `light_until` (a time.perf_counter(): the change was light, and is painted at once)."""
        if self._armed and self._light_until is None:
            return  # a heavy change made in this turn already: its paint is held, and this one's with it
        self._armed, self._light_until = True, light_until

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QEvent.Type.UpdateRequest or not (self._armed or self._held):
            return False
        if any(watched is window for window in self._held):
            return False
        if not self._held and self._light_until is not None and time.perf_counter() < self._light_until:
            self._armed, self._light_until = False, None
            return False  # a light change: painted now
        if not self._held:  # (a turn of its own: not with a graph slice or a big run's stops, one_per_turn.py)
            one_per_turn.later(self, "paint", self._paint, first=True)
        self._armed, self._light_until = False, None
        self._held.append(watched)  # another window's request while one is held: painted with it
        self.held += 1
        # Qt keeps the dirty regions and sends no other request until this one is served: serve it later.
        return True

    def _paint(self) -> None:
        # The paint that comes now shows every change made meanwhile: a change armed since (the next move) is not
        # held again, or moves coming faster than a turn would put the paint off for as long as they came.
        held, self._held, self._armed, self._light_until = self._held, [], False, None
        for window in held:
            QCoreApplication.sendEvent(window, QEvent(QEvent.Type.UpdateRequest))
        self.served.emit()
