"""The stop markers of the timeline: one item that paints only the stops in view.

pyqtgraph's scatter item builds (and re-sizes, on every zoom) one spot per stop, on the UI thread: too slow for
a run of thousands of stops. Here x is the stop number, so the stops in view are a contiguous range: painting them
is a loop over what is on screen, and setting a run's stops is a few list assignments. Far zoomed out (under
two pixels per stop) each stop is a one-pixel tick in its colour: the level of detail of a minimap.
"""

from __future__ import annotations

import math
from typing import Callable

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsObject

from afp_desktop.app.panels.timeline.plot_cache import drop_cache

FULL_SIZE_PX = 11.0     # a round marker's diameter at full size; drillable squares are a little larger
SHRINK_BELOW_PX = 16.0  # under this many pixels per stop markers shrink, so neighbours stay apart
TICK_BELOW_PX = 2.0     # under this, one tick per stop


class StopMarkers(QGraphicsObject):
    """Markers at x = 0..n-1, y = 0 of a pyqtgraph ViewBox. `tooltip(i)` gives a stop's hover text."""

    def __init__(self, tooltip: Callable[[int], str] | None = None):
        super().__init__()
        self.count = 0
        self._style: Callable[[int], tuple[QColor, str]] | None = None
        self._styles: list[tuple[QColor, str] | None] = []  # (colour, symbol) per stop, made when first painted
        self.outline = QColor("#ffffff")
        self.tooltip = tooltip
        self._hovered: int | None = None
        self.setAcceptHoverEvents(True)
        # Without this flag Qt reports the whole item as exposed, and every stop would be painted.
        self.setFlag(QGraphicsObject.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    def set_stops(self, count: int, style: Callable[[int], tuple[QColor, str]], outline: QColor) -> None:
        """`count` stops; `style(i)` is stop i's (colour, symbol): "o" circle, "s" square (drillable),
        "d" diamond (start and end)."""
        self.prepareGeometryChange()
        self.count, self._style, self.outline = count, style, outline
        self._styles = [None] * count
        drop_cache(self)  # (its pixels are cached: plot_cache.py)

    def style(self, i: int) -> tuple[QColor, str]:
        style = self._styles[i]
        if style is None:
            style = self._styles[i] = self._style(i)
        return style

    def __len__(self) -> int:
        return self.count

    def boundingRect(self) -> QRectF:
        return QRectF(-1.0, -1.0, max(self.count, 1) + 1.0, 2.0)

    def px_per_stop(self, transform) -> float:
        return abs(transform.m11())

    def marker_size(self, px_per_stop: float) -> float:
        """The diameter of a round marker, in pixels, at this zoom (the scale the old scatter used)."""
        return FULL_SIZE_PX * min(1.0, max(0.3, round(px_per_stop / SHRINK_BELOW_PX, 1)))

    def paint(self, painter, option, widget=None) -> None:
        n = self.count
        if not n:
            return
        transform = painter.transform()
        exposed = option.exposedRect if option is not None else self.boundingRect()
        # Only what lands on the device: drawn into its cache (plot_cache.py), the item is told it is exposed
        # whole, and painting all of a long run's stops would cost the whole run for the few dozen in view.
        inverse, invertible = transform.inverted()
        if invertible:
            exposed = exposed & inverse.mapRect(QRectF(painter.viewport()))
        first = max(0, math.floor(exposed.left()) - 1)
        last = min(n - 1, math.ceil(exposed.right()) + 1)
        if last < first:
            return
        px = self.px_per_stop(transform)
        painter.save()
        painter.resetTransform()  # draw in device pixels: markers keep their size whatever the zoom
        y = transform.map(QPointF(0.0, 0.0)).y()
        if px < TICK_BELOW_PX:
            self._paint_ticks(painter, transform, first, last, y)
        else:
            self._paint_markers(painter, transform, first, last, y, self.marker_size(px))
        painter.restore()

    def _paint_ticks(self, painter, transform, first: int, last: int, y: float) -> None:
        """One pixel column per stop (several stops share a column: the later one wins)."""
        painter.setRenderHint(painter.RenderHint.Antialiasing, False)
        columns: dict[int, QColor] = {}
        for i in range(first, last + 1):
            columns[int(transform.map(QPointF(i, 0.0)).x())] = self.style(i)[0]
        by_colour: dict[int, list] = {}
        for x, colour in columns.items():
            by_colour.setdefault(colour.rgba(), [colour, []])[1].append(x)
        for colour, xs in by_colour.values():
            painter.setPen(QPen(colour, 1))
            for x in xs:
                painter.drawLine(x, int(y - 6), x, int(y + 6))

    def _paint_markers(self, painter, transform, first: int, last: int, y: float, size: float) -> None:
        painter.setRenderHint(painter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(self.outline, 1))
        brush_of: dict[int, QBrush] = {}
        for i in range(first, last + 1):
            colour, symbol = self.style(i)
            brush = brush_of.get(colour.rgba())
            if brush is None:
                brush = brush_of[colour.rgba()] = QBrush(colour)
            painter.setBrush(brush)
            x = transform.map(QPointF(i, 0.0)).x()
            if symbol == "s":
                half = size * 13 / 22
                painter.drawRect(QRectF(x - half, y - half, 2 * half, 2 * half))
            elif symbol == "d":
                half = size / 2 + 1
                painter.drawPolygon(QPolygonF([QPointF(x, y - half), QPointF(x + half, y), QPointF(x, y + half),
                                               QPointF(x - half, y)]))
            else:
                painter.drawEllipse(QPointF(x, y), size / 2, size / 2)

    # -- hover: the stop under the pointer says what it is ---------------------------------------------------
    def stop_at(self, x: float) -> int | None:
        i = int(round(x))
        return i if 0 <= i < self.count else None

    def hoverMoveEvent(self, event) -> None:
        i = self.stop_at(event.pos().x())
        if i != self._hovered:
            self._hovered = i
            self.setToolTip(self.tooltip(i) if i is not None and self.tooltip is not None else "")
        super().hoverMoveEvent(event)

    def hoverLeaveEvent(self, event) -> None:
        self._hovered = None
        self.setToolTip("")
        super().hoverLeaveEvent(event)

