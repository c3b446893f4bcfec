"""The tool-duration bars share the token plot's box after the timeline panel is resized (issue 15: they
were drawn short and below the zero line)."""

from __future__ import annotations

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.core.formats import open_run  # before the session: formats must initialise first
from afp_desktop.app.panels.timeline.timeline import TimelinePanel
from afp_desktop.app.session import Session
from tests.corpus_util import corpus_path
from tests.paint_util import paint_waiting


def test_tool_bars_follow_the_token_plot_after_resizes(qtbot):
    session = Session()
    panel = shown_alone(session, TimelinePanel(session))
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    panel.show()
    qtbot.waitExposed(panel)
    session.set_run(open_run(str(corpus_path("02-react-two-tools", "recording.json"))))
    session.flush()
    for size in ((900, 420), (900, 260), (1000, 520), (1000, 240), (640, 240)):  # height alone moves the plot
        panel.resize(*size)
        paint_waiting(panel)  # the resize, its layout, and its paint (pyqtgraph applies a new range in it)
        token_box = panel.bar_plot.vb.sceneBoundingRect()
        tool_box = panel.tool_view.sceneBoundingRect()
        assert all(abs(a - b) <= 1 for a, b in zip(tool_box.getRect(), token_box.getRect())), (size, tool_box)
        # the zero line of both views is the same pixel row
        zero_tokens = panel.bar_plot.vb.mapViewToScene(panel.bar_plot.vb.viewRect().bottomLeft()).y()
        zero_tools = panel.tool_view.mapViewToScene(panel.tool_view.viewRect().bottomLeft()).y()
        assert abs(zero_tokens - zero_tools) < 0.5, size



