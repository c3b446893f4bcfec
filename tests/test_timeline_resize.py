"""The tool-time bars stand on the same zero line as the token bars, whatever the timeline's size (they were once
drawn short and below the zero line after a resize)."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QColor, QImage

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.core.formats import open_run  # before the session: formats must initialise first
from afp_desktop.app.panels.timeline.timeline import TimelinePanel
from afp_desktop.app.session import Session
from tests.corpus_util import corpus_path
from tests.paint_util import paint_waiting


def _lowest_row_of(image: np.ndarray, column: int, colour: QColor) -> int | None:
    """The lowest pixel row of `column` painted in `colour` (None: none is)."""
    want = np.array([colour.blue(), colour.green(), colour.red()])
    rows = np.flatnonzero((np.abs(image[:, column, :3].astype(int) - want) <= 2).all(axis=1))
    return int(rows[-1]) if len(rows) else None


def test_tool_bars_and_token_bars_share_the_zero_line_after_resizes(qtbot):
    session = Session()
    panel = shown_alone(session, TimelinePanel(session))
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    panel.show()
    qtbot.waitExposed(panel)
    run = open_run(str(corpus_path("02-react-two-tools", "recording.json")))
    session.set_run(run)
    session.move_to(len(run.axis))  # (every bar known)
    session.flush()
    figures = panel.series.figures
    tool = next(i for i in range(len(panel.stops)) if figures.tool_ms[i] > 0 and not figures.tokens_in[i])
    llm = next(i for i in range(len(panel.stops)) if figures.tokens_in[i] > 0 and not figures.tool_ms[i])
    canvas = panel.canvas
    for size in ((900, 420), (900, 260), (1000, 520), (1000, 240), (640, 240)):  # height alone moves the bars
        panel.resize(*size)
        paint_waiting(panel)
        panel.show_range(-1, len(panel.stops))
        grabbed = canvas.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)
        image = np.frombuffer(grabbed.constBits(), np.uint8).reshape(grabbed.height(), grabbed.bytesPerLine())[
            :, :grabbed.width() * 4].reshape(grabbed.height(), grabbed.width(), 4)
        tool_row = _lowest_row_of(image, int(canvas.px_of(tool)), canvas.colours.tool)
        token_row = _lowest_row_of(image, int(canvas.px_of(llm)), canvas.colours.tokens)
        assert tool_row is not None and token_row is not None, size
        assert tool_row == token_row and abs(tool_row - canvas.bar_rect().bottom()) <= 1, (size, tool_row, token_row)
