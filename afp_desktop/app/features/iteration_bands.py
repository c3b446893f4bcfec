"""Orientation on the timeline: a shaded band per iteration labelled "Iteration N" (a click on the label goes
to the iteration's first stop) and a readout in the timeline's top row, "Iteration 2 · stop 9 of 22". Bands
come from core/orientation.py; the timeline's canvas draws those in view, and the label of each that is wide
enough on screen to hold it, so a run of 1,000 iterations costs no more."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from afp_desktop.app.panels.timeline.timeline_canvas import Band
from afp_desktop.app.widgets.steady_label import SteadyLabel
from afp_desktop.core.views.orientation import (IterationBand, iteration_bands, readout, run_iteration_bands,
                                                step_iteration)

BAND_SHADES = {"light": ("#3d6fd6", 22), "dark": ("#8fb1ff", 30)}
HALF = 0.45  # a band reaches this far either side of its first and last stop


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
        self.theme = "light"
        self.readout = IterationReadout(self)
        top = self.timeline.layout().itemAt(0).layout()
        top.insertWidget(max(0, top.count() - 2), self.readout)  # before the Back out / Drill in buttons
        self.timeline.canvas.band_clicked.connect(self.session.move_to_stop)  # (a click on a band's label)
        self.timeline.stops_shown.connect(self.redraw)

    def clear(self) -> None:
        self.bands = []
        self.timeline.canvas.set_bands([])
        self.readout.setText("")
        self.readout.settle_size()  # (not as wide as the last run's widest readout)

    def redraw(self) -> None:
        run, stops = self.session.run, self.timeline.stops
        self.bands = run_iteration_bands(run) if run is not None and stops is run.stops else iteration_bands(stops)
        colour, alpha = BAND_SHADES.get(self.theme, BAND_SHADES["light"])
        strong, faint = QColor(colour), QColor(colour)
        strong.setAlpha(alpha)
        faint.setAlpha(alpha // 2)
        shades = (faint, strong)
        self.timeline.canvas.set_bands([
            Band(band.first - HALF, band.last + HALF, shades[band.number % 2], band.label,
                 f"{band.label}: stops {band.first + 1}–{band.last + 1}. Click to go to its start.", band.first)
            for band in self.bands])
        if self.session.moment is not None:
            self.moment(self.session.moment)

    def shown_labels(self) -> list[IterationBand]:
        """The bands whose label is drawn now (those in view with room for it)."""
        first = {band.first: band for band in self.bands}
        return [first[band.first] for band in self.timeline.canvas.labelled_bands() if band.first in first]

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
