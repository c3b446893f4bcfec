"""Orientation on the timeline: a shaded band per iteration labelled "Iteration N" (a click on the label goes
to the iteration's first stop) and a readout in the timeline's top row, "Iteration 2 · stop 9 of 22". Bands
come from core/orientation.py; labels hide when zoomed out too far to read them."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from afp_desktop.core.orientation import IterationBand, iteration_bands, readout

BAND_SHADES = {"light": ("#3d6fd6", 22), "dark": ("#8fb1ff", 30)}
LABEL_Y = 0.98
MAX_DRAWN = 400  # beyond this many bands (a 1,000-iteration run) only the readout says where the cursor is


class BandLabel(pg.TextItem):
    def __init__(self, band: IterationBand, colour: str):
        super().__init__(band.label, color=colour, anchor=(0, 0))
        self.band = band
        self.setToolTip(f"{band.label}: stops {band.first + 1}–{band.last + 1}. Click to go to its start.")
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def mouseClickEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            event.accept()


class IterationReadout(QLabel):
    """The readout in the timeline's top row; re-themed with the window's panels, it redraws the bands too."""

    def __init__(self, bands: "IterationBands"):
        super().__init__()
        self.bands = bands
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setObjectName("iterationReadout")

    def set_theme(self, theme: str) -> None:
        self.bands.set_theme(theme)


class IterationBands:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        self.timeline = window.timeline
        self.bands: list[IterationBand] = []
        self.regions: list[pg.LinearRegionItem] = []
        self.labels: list[BandLabel] = []
        self.theme = "light"
        self.readout = IterationReadout(self)
        top = self.timeline.layout().itemAt(0).layout()
        top.insertWidget(max(0, top.count() - 2), self.readout)  # before the Back out / Drill in buttons
        plot = self.timeline.stop_plot
        # after the timeline's own click handler, so a click on a label wins over "the nearest stop"
        plot.scene().sigMouseClicked.connect(self._on_click)
        plot.vb.sigXRangeChanged.connect(lambda *_: self._fit_labels())
        self.session.run_loaded.connect(lambda _run: self.redraw())
        self.session.stops_changed.connect(self.redraw)
        self.session.run_closed.connect(self.clear)
        self.session.moment_changed.connect(self._on_moment)

    def clear(self) -> None:
        plot = self.timeline.stop_plot
        for item in (*self.regions, *self.labels):
            plot.removeItem(item)
        self.regions, self.labels, self.bands = [], [], []
        self.readout.setText("")

    def redraw(self) -> None:
        self.clear()
        stops = self.timeline.stops
        self.bands = iteration_bands(stops)
        if len(self.bands) > MAX_DRAWN:
            return
        colour, alpha = BAND_SHADES.get(self.theme, BAND_SHADES["light"])
        text = self.timeline.theme_palette.text_muted
        plot = self.timeline.stop_plot
        for band in self.bands:
            shade = QColor(colour)
            shade.setAlpha(alpha if band.number % 2 else alpha // 2)
            region = pg.LinearRegionItem(values=(band.first - 0.45, band.last + 0.45), movable=False,
                                         brush=pg.mkBrush(shade), pen=pg.mkPen(None))
            region.setZValue(-10)
            plot.addItem(region)
            label = BandLabel(band, text)
            label.setPos(band.first - 0.45, LABEL_Y)
            label.setZValue(-5)
            plot.addItem(label)
            self.regions.append(region)
            self.labels.append(label)
        self._fit_labels()
        if self.session.moment is not None:
            self._on_moment(self.session.moment)

    def _fit_labels(self) -> None:
        """Show a band's label only where the band is wide enough on screen to hold it."""
        if not self.labels:
            return
        vb = self.timeline.stop_plot.vb
        low, high = vb.viewRange()[0]
        px_per_stop = vb.width() / max(high - low, 1e-9)
        for label in self.labels:
            width = label.boundingRect().width()
            label.setVisible((label.band.last - label.band.first + 0.9) * px_per_stop >= width)

    def _on_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self.labels:
            return
        item = getattr(event, "currentItem", None)
        if isinstance(item, BandLabel):
            self.session.move_to_stop(item.band.first)

    def _on_moment(self, moment) -> None:
        span = moment.stop
        text = readout(self.bands, span.index if span is not None else None, moment.stop_count, moment.at_stop)
        self.readout.setText(text)

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        self.redraw()


def install(window) -> IterationBands:
    window.iteration_bands = IterationBands(window)
    return window.iteration_bands
