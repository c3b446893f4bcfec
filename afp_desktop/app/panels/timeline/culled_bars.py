"""pyqtgraph's bars, painting only the bars in the part of the view being repainted.

A long run has thousands of stops, each with its bars (tokens, tool time, iteration bands). pyqtgraph's
BarGraphItem records every bar in a QPicture and replays all of them on every paint of the timeline, so on a
long run most of each move of the cursor would go to bars scrolled out of view. (It reads BarGraphItem's
own arrays, `_rectarray`, `_pens`, `_brushes`: the same in every pyqtgraph pyproject.toml allows, 0.13.7–0.14.)
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt

from afp_desktop.app.panels.timeline.plot_cache import drop_cache

MANY = 400  # more bars in view than this (zoomed far out): pyqtgraph's own replay is as quick


class CulledBars(pg.BarGraphItem):
    def __init__(self, **opts) -> None:
        self._bounds: QRectF | None = None
        super().__init__(**opts)
        # Told which part is being repainted (option.exposedRect): a step of the cursor repaints a strip a few
        # pixels wide, and only the bars in it are drawn.
        self.setFlag(self.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    # pyqtgraph works the bounds out anew at each call (in Python, with the view's pixel size), and Qt asks for
    # them several times per paint: kept until the bars or the view change.
    def boundingRect(self) -> QRectF:
        if self._bounds is None:
            self._bounds = QRectF(super().boundingRect())
        return QRectF(self._bounds)

    def setOpts(self, **opts) -> None:
        self._bounds = None
        super().setOpts(**opts)
        self._bounds = None
        drop_cache(self)  # (its pixels may be cached: plot_cache.py)

    def viewTransformChanged(self) -> None:
        self._bounds = None
        self.prepareGeometryChange()
        super().viewTransformChanged()

    def paint(self, painter, option=None, *args) -> None:
        view = self.getViewBox()
        memory = self._rectarray.ndarray() if view is not None else None
        if memory is None or len(memory) <= MANY:
            super().paint(painter, option, *args)
            return
        (low, high), _ = view.viewRange()
        if option is not None and not option.exposedRect.isEmpty():
            exposed = option.exposedRect
            low, high = max(low, exposed.left()), min(high, exposed.right())
        left = memory[:, 0]
        shown = np.flatnonzero((left + memory[:, 2] >= low) & (left <= high))
        if len(shown) > MANY:
            super().paint(painter, option, *args)
            return
        pens, brushes = self._pens, self._brushes
        if pens is None:
            painter.setPen(self._sharedPen)
        if brushes is None:
            painter.setBrush(self._sharedBrush)
        fill_only = pens is None and brushes is not None and self._sharedPen.style() == Qt.PenStyle.NoPen
        for index in shown.tolist():
            rect = QRectF(*memory[index].tolist())
            if fill_only:
                painter.fillRect(rect, brushes[index])
                continue
            if pens is not None:
                painter.setPen(pens[index])
            if brushes is not None:
                painter.setBrush(brushes[index])
            painter.drawRect(rect)
