"""Pauses shown where people look: a "⏸ question" chip under the paused tool's card and a marker on the timeline
(each once the pause has happened at the cursor) whose tooltip gives the question, the answer given on
resume and how long the run waited. The facts are core/views/pause_marks.py's; a feature of the window's list."""

from __future__ import annotations

from typing import TYPE_CHECKING

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.panels.timeline.timeline_canvas import Mark
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.model.timeline import x_of_position

if TYPE_CHECKING:  # (a run's pauses are found with the first run, not with the window)
    from afp_desktop.core.views.pause_marks import PauseMark

PAUSE_COLOUR = "#b07800"
MARKER_Y = -0.55  # under the stop markers (errors and search marks sit above)


class PauseView(PanelDefaults):
    key = "pauses"

    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        self.marks: list[PauseMark] = []
        self._timeline = None
        window.timeline.when_built(self._attach)

    def _attach(self, panel) -> None:
        self._timeline = panel
        panel.stops_shown.connect(self._draw_timeline)  # (a big run's stops come a turn after run_loaded)
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
        self._draw_timeline()

    def _draw_timeline(self) -> None:
        if self._timeline is None:  # the timeline is built after the window's first frame
            return
        ends = self._timeline.ends
        position = self.session.position
        known = [mark for mark in self.marks if mark.position <= position]  # (a pause still to come: not drawn)
        self._timeline.canvas.set_marks("pauses", [
            Mark(x_of_position(ends, mark.position), MARKER_Y, "pause", PAUSE_COLOUR, 14,
                 mark.tooltip(position)) for mark in known] if ends else [])

    @property
    def shown(self) -> list[tuple[float, str]]:
        """(x, tooltip) of each pause mark on the timeline: for tests."""
        return [(mark.x, mark.tip) for mark in self._timeline.canvas.marks("pauses")] if self._timeline else []

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
