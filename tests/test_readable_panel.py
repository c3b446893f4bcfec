"""The inspector's Readable tab (issue 15): slot chips show their content, a finished tool call its arguments
and result (one click away when its end lies after the cursor), a pause its question and answer — all plain
text."""

from __future__ import annotations

from afp_desktop.core.formats import open_run  # before the session: formats must initialise first
from afp_desktop.app.panels.inspector import InspectorPanel
from afp_desktop.app.panels.readable_view import Collapsible, InjectionTable, ReadableView
from afp_desktop.app.session import Session
from afp_desktop.core.views.inspect import chip_slot
from afp_desktop.core.model.run import Run
from tests.corpus_util import corpus_path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit


def shown_inspector(qtbot, run, position=None):
    session = Session()
    session.set_run(run, position=position)
    inspector = InspectorPanel(session)
    qtbot.addWidget(inspector)
    inspector.resize(520, 700)
    inspector.show()
    qtbot.waitExposed(inspector)
    return session, inspector


def texts(view: ReadableView) -> list[str]:
    """Every text the Readable tab draws (labels and text boxes)."""
    view.flush()
    body = view.widget()
    return [w.text() for w in body.findChildren(QLabel)] + [w.toPlainText() for w in body.findChildren(QPlainTextEdit)]


def node(run, predicate) -> int:
    return next(i for i, n in enumerate(run.step_fold.nodes) if predicate(n))


def test_a_slot_chip_shows_the_system_prompt_messages_and_tools(qtbot):
    run = open_run(str(corpus_path("14-context-injections", "recording.json")))
    session, inspector = shown_inspector(qtbot, run)
    assert inspector.tabs.currentWidget() is inspector.readable
    session.select_node(node(run, lambda n: chip_slot(n) == "system-prompt"))
    shown = texts(inspector.readable)
    assert any(t.startswith("You are a customer support assistant.\n\nAnswer in plain English") for t in shown)
    assert any(t.startswith("System prompt · 258 characters") for t in inspector.readable.titles)
    table = inspector.readable.widget().findChild(InjectionTable)
    assert table.table.rowCount() == 5 and table.table.item(1, 0).text() == "steering"
    table.table.setCurrentCell(4, 0)  # the detail pane holds all of the selected injection
    assert "Refund policy: refunds within 30 days" in table.detail.toPlainText()

    session.select_node(node(run, lambda n: chip_slot(n) == "messages"))
    assert "user" in texts(inspector.readable)
    session.select_node(node(run, lambda n: chip_slot(n) == "tools"))
    shown = texts(inspector.readable)
    assert "read_skill" in shown
    schema = inspector.readable.widget().findChild(Collapsible)
    assert not schema.body.isVisibleTo(inspector)  # the schema starts collapsed
    qtbot.mouseClick(schema.button, Qt.MouseButton.LeftButton)
    assert schema.body.isVisibleTo(inspector) and '"type": "object"' in schema.body.toPlainText()


def test_a_tool_card_offers_its_end_and_then_shows_arguments_and_result(qtbot):
    run = open_run(str(corpus_path("02-react-two-tools", "recording.json")))
    session, inspector = shown_inspector(qtbot, run)
    index = node(run, lambda n: n.get("toolName") == "get_weather")
    session.activate_node(index)  # a click on the card: the cursor goes to when the call started
    session.flush()
    assert inspector.show_end.isVisible()
    assert "Oslo: 18°C, light rain" not in texts(inspector.readable)
    assert "Result" not in inspector.readable.titles and "Arguments" in inspector.readable.titles

    qtbot.mouseClick(inspector.show_end, Qt.MouseButton.LeftButton)
    session.flush()
    assert session.moment.node_state(index) == "done" and session.selected == index
    assert not inspector.show_end.isVisible()
    shown = texts(inspector.readable)
    assert "Oslo: 18°C, light rain" in shown and '{\n  "city": "Oslo"\n}' in shown


def test_a_pause_shows_the_question_the_answer_and_the_wait(qtbot):
    run = open_run(str(corpus_path("06-pause-resume", "recording.json")))
    session, inspector = shown_inspector(qtbot, run)
    session.select_node(node(run, lambda n: n.get("toolName") == "ask_human"))
    shown = texts(inspector.readable)
    assert "Paused for a person" in inspector.readable.titles
    assert {"Refund $42.99 for order #123?", "Approved by Alice", "2 ms"} <= set(shown)


def test_trace_text_is_never_markup(qtbot):
    markup = "<b>bold</b><img src=x>"
    events = [
        {"type": "run.entry", "runtimeStageId": "__root__#0", "subflowPath": ["__root__"], "ts": 0,
         "payload": {"message": markup}},
        {"type": "tool.start", "runtimeStageId": "tool-calls#1", "subflowPath": ["__root__"], "ts": 1,
         "toolName": markup, "toolCallId": "c1", "args": {"q": markup}},
        {"type": "tool.end", "runtimeStageId": "tool-calls#1", "subflowPath": ["__root__"], "ts": 2,
         "toolCallId": "c1", "result": markup},
    ]
    run = Run(path="markup.json", format="trace", typed_events=None, domain_events=events, domain_source="trace")
    session, inspector = shown_inspector(qtbot, run)
    for index in range(len(run.step_fold.nodes)):
        session.select_node(index)
        inspector.readable.flush()
        labels = inspector.readable.widget().findChildren(QLabel)
        assert all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)
    assert markup in texts(inspector.readable)


def test_the_injections_tab_has_a_detail_pane_and_long_text_is_monospace(qtbot):
    from PySide6.QtGui import QFontInfo

    run = open_run(str(corpus_path("14-context-injections", "recording.json")))
    session, inspector = shown_inspector(qtbot, run)
    index = node(run, lambda n: n["kind"] == "tool->llm")
    session.select_node(index)
    injections = run.step_fold.nodes[index]["injections"]
    table = inspector.injections
    table.setCurrentCell(4, 0)
    detail = inspector.injection_detail.toPlainText()
    assert f"contentSummary: {injections[4]['contentSummary']}" in detail and "reason: " in detail
    assert QFontInfo(inspector.text_view.font()).fixedPitch()
    assert QFontInfo(inspector.raw_tree.detail.font()).fixedPitch()







