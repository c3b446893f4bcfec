"""The tool-duration bars share the token plot's box after the timeline panel is resized (issue 15: they
were drawn short and below the zero line)."""

from __future__ import annotations

from afp_desktop.core.formats import open_run  # before the session: formats must initialise first
from afp_desktop.app.panels.timeline import TimelinePanel
from afp_desktop.app.session import Session
from tests.corpus_util import corpus_path


def test_tool_bars_follow_the_token_plot_after_resizes(qtbot):
    session = Session()
    panel = TimelinePanel(session)
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    panel.show()
    qtbot.waitExposed(panel)
    session.set_run(open_run(str(corpus_path("02-react-two-tools", "recording.json"))))
    session.flush()
    for size in ((900, 420), (900, 260), (1000, 520), (1000, 240), (640, 240)):  # height alone moves the plot
        panel.resize(*size)
        qtbot.wait(60)
        token_box = panel.bar_plot.vb.sceneBoundingRect()
        tool_box = panel.tool_view.sceneBoundingRect()
        assert all(abs(a - b) <= 1 for a, b in zip(tool_box.getRect(), token_box.getRect())), (size, tool_box)
        # the zero line of both views is the same pixel row
        zero_tokens = panel.bar_plot.vb.mapViewToScene(panel.bar_plot.vb.viewRect().bottomLeft()).y()
        zero_tools = panel.tool_view.mapViewToScene(panel.tool_view.viewRect().bottomLeft()).y()
        assert abs(zero_tokens - zero_tools) < 0.5, size


def test_a_pause_is_marked_on_the_timeline_with_its_question_and_answer(qtbot):
    from afp_desktop.core.inspect import pauses
    from afp_desktop.core.timeline import x_of_position

    session = Session()
    panel = TimelinePanel(session)
    qtbot.addWidget(panel)
    panel.show()
    run = open_run(str(corpus_path("06-pause-resume", "recording.json")))
    session.set_run(run)
    session.flush()
    (pause,) = pauses(run)
    (line,) = panel.pause_marks.lines
    assert line.value() == x_of_position(panel.ends, run.axis.typed_after[pause["request"]], None)
    tip = line.toolTip()
    assert "Refund $42.99 for order #123?" in tip and "Approved by Alice (after 2 ms)" in tip
    session.set_run(open_run(str(corpus_path("02-react-two-tools", "recording.json"))))
    session.flush()
    assert panel.pause_marks.lines == []  # a run without pauses has no marks


def test_the_paused_tool_card_carries_a_badge_with_the_question(qtbot):
    from afp_desktop.app.panels.graph_canvas import GraphCanvas
    from afp_desktop.core.inspect import pauses

    run = open_run(str(corpus_path("06-pause-resume", "recording.json")))
    session = Session()
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.set_graph(run.stepgraph)
    session.moment_changed.connect(canvas.show_moment)
    session.set_run(run)
    (pause,) = pauses(run)
    asked = run.axis.typed_after[pause["request"]]
    tool = next(i for i, n in enumerate(run.step_fold.nodes) if n.get("toolName") == "ask_human")
    session.move_to(asked - 1, immediate=True)
    assert canvas.art.paused == {}
    session.move_to(asked, immediate=True)
    assert set(canvas.art.paused) == {tool}
    assert "Refund $42.99 for order #123?" in canvas.node_items[tool].toolTip()
    assert "Not answered yet" in canvas.node_items[tool].toolTip()
    session.move_to(len(run.axis), immediate=True)
    assert "Answered: Approved by Alice" in canvas.node_items[tool].toolTip()
