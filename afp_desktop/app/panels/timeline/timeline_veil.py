"""The veil over the stops not yet happened: a translucent shade from just after the cursor to the run's end.

pyqtgraph's LinearRegionItem was the veil before: its bounds are the region itself, so each move of the cursor
changed them, and Qt repainted the old and the new region whole — most of the timeline, under the veil, at
every step (and it moves two draggable lines of its own with each change). A `Veil`'s bounds are its view's
visible rectangle, which changes only when the view scrolls or zooms (everything is repainted then anyway): a
move repaints the strip between the old and the new start, a few pixels for a step of one stop.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsObject


class Veil(QGraphicsObject):
    """A shade over `start` ≤ x ≤ `end` (data coordinates) of a pyqtgraph ViewBox, the whole height of the view.
    Add it with `view.addItem(veil, ignoreBounds=True)`: it follows the view, never sizes it."""

    def __init__(self, view) -> None:
        super().__init__()
        self._view = view
        self.start, self.end = math.inf, math.inf  # nothing veiled until set_region
        self._brush = QBrush(QColor(0, 0, 0, 0))
        self._bounds = QRectF()
        view.sigTransformChanged.connect(self._follow_view)
        view.sigResized.connect(self._follow_view)

    def set_brush(self, brush: QBrush) -> None:
        self._brush = QBrush(brush)
        self.update()

    @property
    def brush(self) -> QBrush:
        return self._brush

    def set_region(self, start: float, end: float) -> None:
        """Veil start..end; only the strips that change are repainted."""
        if (start, end) == (self.start, self.end):
            return
        (old_start, old_end), (self.start, self.end) = (self.start, self.end), (start, end)
        self._follow_view()
        bounds = self._bounds
        for low, high in ((old_start, start), (old_end, end)):
            if low != high:
                low, high = sorted((low, high))
                low, high = max(low, bounds.left()), min(high, bounds.right())
                if low < high:
                    self.update(QRectF(low, bounds.top(), high - low, bounds.height()))

    def veiled(self) -> QRectF:
        """What is shaded now, in data coordinates (empty when nothing is)."""
        bounds = self._bounds
        low, high = max(self.start, bounds.left()), min(self.end, bounds.right())
        if not low < high:
            return QRectF()
        return QRectF(low, bounds.top(), high - low, bounds.height())

    def _follow_view(self, *_args) -> None:
        # The view's whole box in data coordinates and a pixel more (the view clips it): a veil that stopped on
        # the box's edge left its last column of pixels unveiled.
        view = self._view
        box = view.boundingRect()
        rect = view.childGroup.mapRectFromParent(box).normalized()
        if box.width() > 0 and box.height() > 0:
            px, py = rect.width() / box.width(), rect.height() / box.height()
            rect = rect.adjusted(-px, -py, px, py)
        if rect != self._bounds:
            self.prepareGeometryChange()
            self._bounds = QRectF(rect)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        veiled = self.veiled()
        if not veiled.isEmpty():  # (drawn as the region item drew it: a rectangle without a pen, same pixels)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._brush)
            painter.drawRect(veiled)
