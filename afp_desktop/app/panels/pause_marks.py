"""Pauses on the timeline (issue 15): a dashed line where the run asked a person, labelled "paused", with the
question, the answer and the wait in its tooltip (read from the pause events, not the generic reason)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

from afp_desktop.app.plain_text import plain_tooltip
from afp_desktop.core.inspect import message_text, pauses
from afp_desktop.core.timeline import x_of_position


def pause_text(pause: dict) -> str:
    text = f"Paused for a person: {message_text(pause['question'])}"
    if pause["resume"] is None:
        return text + "\nNever answered in this file."
    text += f"\nAnswered: {message_text(pause['answer'])}"
    waited = pause["waitedMs"]
    if isinstance(waited, (int, float)) and not isinstance(waited, bool):
        text += f" (after {waited:g} ms)"
    return text


class PauseMarks:
    """The pause lines of one timeline plot."""

    def __init__(self, plot) -> None:
        self.plot = plot
        self.lines: list[pg.InfiniteLine] = []
        self.colour = "#c07000"      # the line (non-text: the tool accent)
        self.text_colour = "#4a5263"  # the label: the palette's muted text, ≥ 4.5:1 on the plot

    def clear(self) -> None:
        for line in self.lines:
            self.plot.removeItem(line)
        self.lines = []

    def show(self, run, ends: list[int], clip: bool = False) -> None:
        """Mark each pause; with `clip` (a drilled-into mount) only those inside the stops shown."""
        self.clear()
        if run is None or not ends:
            return
        for pause in pauses(run):
            position = run.axis.typed_after[pause["request"]]
            if clip and not ends[0] <= position <= ends[-1]:
                continue
            line = pg.InfiniteLine(pos=x_of_position(ends, position, None), angle=90, movable=False,
                                   pen=pg.mkPen(self.colour, width=2, style=Qt.PenStyle.DashLine),
                                   label="paused", labelOpts={"position": 0.9, "color": self.text_colour})
            line.setZValue(15)
            line.setToolTip(plain_tooltip(pause_text(pause)))
            line.pause = pause
            self.plot.addItem(line)
            self.lines.append(line)

    def set_colour(self, colour: str, text_colour: str) -> None:
        self.colour, self.text_colour = colour, text_colour
        for line in self.lines:
            line.setPen(pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine))
            line.label.setColor(text_colour)
