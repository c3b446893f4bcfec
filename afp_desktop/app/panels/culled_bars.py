"""pyqtgraph's bars, painting only the bars in view.

A long run has thousands of stops, each with its bars (tokens, tool time, iteration bands). pyqtgraph's
BarGraphItem records every bar in a QPicture and replays all of them on every paint of the timeline: on a
3,000-stop run, ~4 ms of each move of the cursor went to bars scrolled out of view. (It reads BarGraphItem's
own arrays, `_rectarray`, `_pens`, `_brushes`: the same in every pyqtgraph pyproject.toml allows, 0.13.7–0.14.)
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt

MANY = 400  # more bars in view than this (zoomed far out): pyqtgraph's own replay is as quick


class CulledBars(pg.BarGraphItem):
    def paint(self, painter, *args) -> None:
        view = self.getViewBox()
        memory = self._rectarray.ndarray() if view is not None else None
        if memory is None or len(memory) <= MANY:
            super().paint(painter, *args)
            return
        (low, high), _ = view.viewRange()
        left = memory[:, 0]
        shown = np.flatnonzero((left + memory[:, 2] >= low) & (left <= high))
        if len(shown) > MANY:
            super().paint(painter, *args)
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
