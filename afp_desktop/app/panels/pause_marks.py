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


def paused_nodes(moment) -> dict[int, str]:
    """StepGraph node → what its pause says, for every pause asked by the moment (its tool call's card)."""
    facts = moment.facts
    out: dict[int, str] = {}
    for pause in pauses(facts.run):
        if pause["request"] >= moment.n_typed:
            break
        node = facts.tool_node_by_call.get(pause["toolCallId"]) \
            if isinstance(pause["toolCallId"], (str, int, float)) else None
        if node is not None:
            answered = pause["resume"] is not None and pause["resume"] < moment.n_typed
            shown = dict(pause, resume=pause["resume"] if answered else None)
            out[node] = pause_text(shown).replace("Never answered in this file.", "Not answered yet at this moment.")
    return out


def paint_pause_badge(painter, rect, colour: str) -> None:
    """Two white bars on a disc at the card's top-left corner: the run waited on a person in this step."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QColor, QPen

    size = 16.0
    badge = QRectF(rect.left() - 4, rect.top() - 4, size, size)  # within the card item's outline margin (5 px)
    painter.setPen(QPen(QColor("#ffffff"), 1.5))
    painter.setBrush(QColor(colour))
    painter.drawEllipse(badge)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("#ffffff"))
    for dx in (-3.0, 1.0):
        painter.drawRect(QRectF(badge.center().x() + dx, badge.top() + 4, 2.0, size - 8))
