"""What the timeline's bars may show at the cursor. The bars of every stop are drawn once at their true heights
(they do not change as the cursor moves); the veil over the stops to come hides them whole (it is opaque over
the bars); and a stop the cursor is inside — or one whose call is still running — gets a column drawn over it:
the background, then only what is known there (a call's tokens and a tool's time once it has ended), and an
outlined stub for a call still running. Only those few columns change with a move: a step of one stop repaints a
strip, not the whole plot."""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from afp_desktop.app.panels.timeline.culled_bars import CulledBars
from afp_desktop.core.model.plot_scale import plotted

BAR_WIDTH = 0.6
COVER_WIDTH = 0.66   # a little wider than a bar: no edge of the true bar shows beside it
RUNNING_STUB = 0.25  # a running call's stub, this share of the view's height


@dataclass(frozen=True)
class Column:
    """One stop's bars as known: `segments` (y0, height, colour) from the bottom; `running` draws the stub."""

    x: float
    segments: tuple[tuple[float, float, str], ...]
    running: bool


class KnownColumns:
    """The columns drawn over one view's bars (the token view, or the tool-time view)."""

    def __init__(self, view) -> None:
        self.view = view
        self.bars = CulledBars(x=[], height=[], width=COVER_WIDTH)
        self.bars.setZValue(11)  # over the bars and the veil
        view.addItem(self.bars)
        self.columns: tuple[Column, ...] = ()
        self._drawn: tuple | None = None

    def show(self, columns: tuple[Column, ...], background: QColor, running_colour: QColor) -> None:
        key = (columns, background.rgba(), running_colour.rgba(), tuple(self.view.viewRange()[1]))
        if key == self._drawn:
            return
        self._drawn, self.columns = key, columns
        low, high = self.view.viewRange()[1]
        xs, y0s, heights, widths, brushes, pens = [], [], [], [], [], []
        none = pg.mkPen(None)
        for column in columns:
            xs.append(column.x)
            y0s.append(low)
            heights.append(high - low)
            widths.append(COVER_WIDTH)
            brushes.append(pg.mkBrush(background))
            pens.append(none)
            for y0, height, colour in column.segments:
                bottom = plotted(y0)  # (a run's numbers, drawable: core/model/plot_scale.py)
                height = plotted(y0 + height) - bottom
                if height > 0:
                    xs.append(column.x)
                    y0s.append(bottom)
                    heights.append(height)
                    widths.append(BAR_WIDTH)
                    brushes.append(pg.mkBrush(QColor(colour)))
                    pens.append(none)
            if column.running:
                xs.append(column.x)
                y0s.append(0.0)
                heights.append(RUNNING_STUB * (high - low))
                widths.append(BAR_WIDTH)
                brushes.append(pg.mkBrush(None))
                pens.append(pg.mkPen(running_colour, width=1.5, style=Qt.PenStyle.DashLine))
        if not xs:
            self.bars.setVisible(False)  # (hidden, not emptied: its bounds stay where it was, so hiding it
            return                       # repaints that column only, not a rectangle from the view's origin)
        self.bars.setOpts(x=xs, y0=y0s, height=heights, width=widths, brushes=brushes, pens=pens)
        self.bars.setVisible(True)

    def clear(self) -> None:
        self._drawn, self.columns = None, ()
        self.bars.setVisible(False)
