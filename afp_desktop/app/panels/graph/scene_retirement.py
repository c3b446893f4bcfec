"""A scene no longer shown is emptied a slice at a time, then deleted: deleting a big graph's items together
with their scene froze the window."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

REMOVAL_SLICE = 800  # items taken out of a scene no longer shown per event-loop turn (deleting all at once stalls)
REMOVAL_SLICE_S = 0.003  # …or fewer: a slice ends once it has taken this long (a busy machine deletes slower)
# ...a slice at most this often: freeing is not urgent, and a slice on every turn would pile onto the other work
# due just after a big run is shown (its first paint, the inspector, the timeline's stops) and lengthen that stall.
REMOVAL_GAP_MS = 20


class SceneRetirement(QObject):
    """The scenes a view no longer shows, each with the items still to take out of it."""

    def __init__(self, parent: QObject):
        super().__init__(parent)
        self.retired: list[tuple[QGraphicsScene, list[QGraphicsItem]]] = []  # scenes no longer shown, emptying
        self.timer = QTimer(self)
        self.timer.setInterval(REMOVAL_GAP_MS)
        self.timer.timeout.connect(self._remove_slice)

    def retire(self, scene: QGraphicsScene | None, items: list[QGraphicsItem]) -> None:
        """Delete a scene no longer shown: its items a slice per event-loop turn, then the scene (deleting a big
        graph's items together with their scene would freeze the window)."""
        if scene is None:
            return
        self.retired.append((scene, items))
        self.timer.start()

    def _remove_slice(self) -> None:
        scene, items = self.retired[0]
        deadline = time.perf_counter() + REMOVAL_SLICE_S
        for taken in range(1, min(REMOVAL_SLICE, len(items)) + 1):
            item = items.pop()
            if item.scene() is scene:
                scene.removeItem(item)  # (then ours alone: deleted as the reference goes)
            if not taken % 64 and time.perf_counter() > deadline:
                break
        if not items:
            self.retired.pop(0)
            scene.deleteLater()
        if not self.retired:
            self.timer.stop()
