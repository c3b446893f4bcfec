"""Pauses shown where people look: a "⏸ question" chip under the paused tool's card and a marker on the timeline
(each once the pause has happened at the cursor) whose tooltip gives the question, the answer given on
resume and how long the run waited. The facts are core/views/pause_marks.py's; a feature of the window's list."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QPainterPath

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.model.timeline import x_of_position

if TYPE_CHECKING:  # (a run's pauses are found with the first run, not with the window)
    from afp_desktop.core.views.pause_marks import PauseMark

PAUSE_COLOUR = "#b07800"
MARKER_Y = -0.55  # under the stop markers (errors and search marks sit above)


def _pause_symbol() -> QPainterPath:
    """Two upright bars (⏸), in pyqtgraph's unit square."""
    path = QPainterPath()
    path.addRect(-0.4, -0.5, 0.28, 1.0)
    path.addRect(0.12, -0.5, 0.28, 1.0)
    return path


class PauseView(PanelDefaults):
    key = "pauses"

    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        self.marks: list[PauseMark] = []
        self.markers = None  # made with the timeline's plots (pyqtgraph stays off the start-up path)
        self._timeline = None
        window.timeline.when_built(self._attach)

    def _attach(self, panel) -> None:
        import pyqtgraph as pg

        self._timeline = panel
        panel.stops_shown.connect(self._draw_timeline)  # (a big run's stops come a turn after run_loaded)
        self.markers = pg.ScatterPlotItem(hoverable=True, tip=lambda x, y, data: plain_tooltip(data), pxMode=True)
        self.markers.setZValue(6)
        panel.stop_plot.addItem(self.markers)
        self._draw_timeline()

    def run_grown(self, run) -> None:
        """The run shown has grown (a followed file, a big file read in parts): show the latest of it."""
        self.run_loaded(run)

    def run_loaded(self, run) -> None:
        from afp_desktop.core.views.pause_marks import pause_marks

        replay = self.session.replay
        self.marks = pause_marks(run, replay.facts.tool_node_by_call if replay is not None else None)
        self._draw_timeline()
        if self.session.moment is not None:
            self.moment(self.session.moment)

    def run_closed(self) -> None:
        self.marks = []
        if self.markers is not None:
            self.markers.setData([])

    def _draw_timeline(self) -> None:
        if self._timeline is None:  # the plots are built after the window's first frame
            return
        import pyqtgraph as pg

        ends = self._timeline.ends
        position = self.session.position
        known = [mark for mark in self.marks if mark.position <= position]  # (a pause still to come: not drawn)
        if not known or not ends:
            self.markers.setData([])
            return
        self.markers.setData(x=[x_of_position(ends, mark.position) for mark in known],
                             y=[MARKER_Y] * len(known), size=14, symbol=_pause_symbol(),
                             brush=pg.mkBrush(PAUSE_COLOUR), pen=pg.mkPen(PAUSE_COLOUR, width=1),
                             data=[mark.tooltip(position) for mark in known])

    def moment(self, moment) -> None:
        if not self.marks:
            return
        canvas = self.window.canvas
        # (node indices of the run → the cards drawn: folds and framework steps move them; graph_folding.py)
        to_shown = getattr(getattr(self.window, "folding", None), "to_shown", lambda i: i)
        shown = {to_shown(mark.node): mark for mark in self.marks
                 if mark.node is not None and mark.position <= moment.position}
        canvas.set_pause_marks({node: mark.question for node, mark in shown.items()})
        errors = canvas.art.errors if canvas.art is not None else {}
        for node, mark in shown.items():
            if node < len(canvas.node_items) and node not in errors:
                canvas.node_items[node].setToolTip(plain_tooltip(mark.tooltip(moment.position)))
        self._draw_timeline()  # the tooltips say the answer only once it is known at the cursor
