"""Orientation on the timeline: a shaded band per iteration labelled "Iteration N" (a click on the label goes
to the iteration's first stop) and a readout in the timeline's top row, "Iteration 2 · stop 9 of 22". Bands
come from core/orientation.py. All bands are one bar item; labels are a small pool of text items placed on the
bands in view that are wide enough on screen to hold them, so a run of 1,000 iterations costs no more."""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from afp_desktop.app.panels.timeline.culled_bars import CulledBars
from afp_desktop.app.panels.timeline.plot_cache import cache_pixels
from afp_desktop.app.widgets.steady_label import SteadyLabel
from afp_desktop.core.views.orientation import (IterationBand, iteration_bands, readout, run_iteration_bands,
                                                step_iteration)

BAND_SHADES = {"light": ("#3d6fd6", 22), "dark": ("#8fb1ff", 30)}
LABEL_Y = 0.98
HALF = 0.45  # a band reaches this far either side of its first and last stop


MIN_LABELLED_HEIGHT = 56  # px of the stop strip below which band labels would overlap the markers


class BandLabel(pg.TextItem):
    def __init__(self, colour: str):
        super().__init__("", color=colour, anchor=(0, 0))
        self.band: IterationBand | None = None
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def show_band(self, band: IterationBand) -> None:
        if band is not self.band:
            self.band = band
            self.setText(band.label)
            self.setToolTip(f"{band.label}: stops {band.first + 1}–{band.last + 1}. Click to go to its start.")
        self.setPos(band.first - HALF, LABEL_Y)
        self.setVisible(True)

    def mouseClickEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            event.accept()


class IterationReadout(SteadyLabel):
    """The readout in the timeline's top row (it changes at every move: a SteadyLabel); re-themed with the
    window's panels, it redraws the bands too."""

    def __init__(self, bands: "IterationBands"):
        super().__init__()
        self.bands = bands
        self.setObjectName("iterationReadout")
        # (right-aligned: when it keeps the room of a longer text, the text still ends by the buttons after it)
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def set_theme(self, theme: str) -> None:
        self.bands.set_theme(theme)


class IterationBands:
    def __init__(self, window, timeline) -> None:
        self.window = window
        self.session = window.session
        self.timeline = timeline  # the TimelinePanel (not the host that builds it after the first frame)
        self.bands: list[IterationBand] = []
        self.labels: list[BandLabel] = []
        self.theme = "light"
        self.readout = IterationReadout(self)
        top = self.timeline.layout().itemAt(0).layout()
        top.insertWidget(max(0, top.count() - 2), self.readout)  # before the Back out / Drill in buttons
        plot = self.timeline.stop_plot
        self.shading = CulledBars(x0=[], x1=[], y0=[], y1=[], pen=pg.mkPen(None))
        self.shading.setZValue(-10)
        plot.addItem(self.shading)
        cache_pixels(self.shading, plot.vb)
        # after the timeline's own click handler, so a click on a label wins over "the nearest stop"
        plot.scene().sigMouseClicked.connect(self._on_click)
        plot.vb.sigXRangeChanged.connect(lambda *_: self.place_labels())
        plot.vb.sigResized.connect(lambda *_: self.place_labels())
        self.timeline.stops_shown.connect(self.redraw)

    def clear(self) -> None:
        self.bands = []
        self.shading.setOpts(x0=[], x1=[], y0=[], y1=[], brushes=None)
        for label in self.labels:
            label.setVisible(False)
        self.readout.setText("")
        self.readout.settle_size()  # (not as wide as the last run's widest readout)

    def redraw(self) -> None:
        run, stops = self.session.run, self.timeline.stops
        self.bands = run_iteration_bands(run) if run is not None and stops is run.stops else iteration_bands(stops)
        colour, alpha = BAND_SHADES.get(self.theme, BAND_SHADES["light"])
        strong, faint = QColor(colour), QColor(colour)
        strong.setAlpha(alpha)
        faint.setAlpha(alpha // 2)
        brushes = (pg.mkBrush(faint), pg.mkBrush(strong))
        bands = self.bands
        self.shading.setOpts(x0=[b.first - HALF for b in bands], x1=[b.last + HALF for b in bands],
                             y0=[-1.0] * len(bands), y1=[1.0] * len(bands),
                             brushes=[brushes[b.number % 2] for b in bands], pen=pg.mkPen(None))
        text = self.timeline.theme_palette.text_muted
        for label in self.labels:
            label.setColor(text)
        self.place_labels()
        if self.session.moment is not None:
            self.moment(self.session.moment)

    def place_labels(self) -> None:
        """Label the bands in view that are wide enough on screen; hide the rest of the pool."""
        bands = self.bands
        vb = self.timeline.stop_plot.vb
        low, high = vb.viewRange()[0]
        px_per_stop = vb.width() / max(high - low, 1e-9)
        firsts = [b.first for b in bands]
        in_view = bands[max(0, bisect_left(firsts, low) - 1):bisect_right(firsts, high + 1)]
        wanted = [b for b in in_view if (b.last - b.first + 2 * HALF) * px_per_stop >= 80]
        if vb.height() < MIN_LABELLED_HEIGHT:  # a short strip: a label would sit on the markers; the shading and
            wanted = []                          # the readout ("Iteration 2 · …") still say where iterations are
        plot = self.timeline.stop_plot
        while len(self.labels) < len(wanted):
            label = BandLabel(self.timeline.theme_palette.text_muted)
            label.setZValue(-5)
            plot.addItem(label)
            self.labels.append(label)
        for label, band in zip(self.labels, wanted):
            label.show_band(band)
        for label in self.labels[len(wanted):]:
            label.setVisible(False)

    def shown_labels(self) -> list[BandLabel]:
        return [label for label in self.labels if label.isVisible()]

    def _on_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self.bands:
            return
        item = getattr(event, "currentItem", None)
        if isinstance(item, BandLabel) and item.band is not None:
            self.session.move_to_stop(item.band.first)  # after the timeline's move to the nearest stop: wins

    def moment(self, moment) -> None:
        span = moment.stop
        run = self.session.run
        iteration = step_iteration(run, moment.current_node) if run is not None else None
        text = readout(self.bands, span.index if span is not None else None, moment.stop_count, moment.at_stop,
                       iteration)
        self.readout.setText(text)

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        self.redraw()
