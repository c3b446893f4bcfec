"""The inspector's Readable tab (issue 15): slot chips show their content, a finished tool call its arguments
and result (one click away when its end lies after the cursor), a pause its question and answer — all plain
text."""

from __future__ import annotations

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.core.formats import open_run  # before the session: formats must initialise first
from afp_desktop.app.panels.inspector import InspectorPanel
from afp_desktop.app.panels.readable_view import Collapsible, InjectionTable, ReadableView
from afp_desktop.app.session import Session
from afp_desktop.core.views.inspect import chip_slot
from afp_desktop.core.model.run import Run
from tests.corpus_util import corpus_path
from tests.inspector_reading import read

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit


def shown_inspector(qtbot, run, position=None):
    session = Session()
    session.set_run(run, position=position)
    inspector = shown_alone(session, InspectorPanel(session))
    qtbot.addWidget(inspector)
    inspector.resize(520, 700)
    inspector.show()
    qtbot.waitExposed(inspector)
    read(qtbot, inspector)
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
    read(qtbot, inspector)
    shown = texts(inspector.readable)
    assert any(t.startswith("You are a customer support assistant.\n\nAnswer in plain English") for t in shown)
    assert any(t.startswith("System prompt · 258 characters") for t in inspector.readable.titles)
    table = inspector.readable.widget().findChild(InjectionTable)
    assert table.table.rowCount() == 5 and table.table.item(1, 0).text() == "steering"
    table.table.setCurrentCell(4, 0)  # the detail pane holds all of the selected injection
    assert "Refund policy: refunds within 30 days" in table.detail.toPlainText()

    session.select_node(node(run, lambda n: chip_slot(n) == "messages"))
    read(qtbot, inspector)
    assert "user" in texts(inspector.readable)
    session.select_node(node(run, lambda n: chip_slot(n) == "tools"))
    read(qtbot, inspector)
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
    read(qtbot, inspector)
    assert inspector.show_end.isVisible()
    assert "Oslo: 18°C, light rain" not in texts(inspector.readable)
    assert "Result" not in inspector.readable.titles and "Arguments" in inspector.readable.titles

    qtbot.mouseClick(inspector.show_end, Qt.MouseButton.LeftButton)
    session.flush()
    read(qtbot, inspector)
    assert session.moment.node_state(index) == "done" and session.selected == index
    assert not inspector.show_end.isVisible()
    shown = texts(inspector.readable)
    assert "Oslo: 18°C, light rain" in shown and '{\n  "city": "Oslo"\n}' in shown


def test_a_pause_shows_the_question_the_answer_and_the_wait(qtbot):
    run = open_run(str(corpus_path("06-pause-resume", "recording.json")))
    session, inspector = shown_inspector(qtbot, run)
    session.select_node(node(run, lambda n: n.get("toolName") == "ask_human"))
    read(qtbot, inspector)
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
        read(qtbot, inspector)
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
    read(qtbot, inspector)
    injections = run.step_fold.nodes[index]["injections"]
    table = inspector.injections
    table.setCurrentCell(4, 0)
    detail = inspector.injection_detail.toPlainText()
    assert f"contentSummary: {injections[4]['contentSummary']}" in detail and "reason: " in detail
    assert QFontInfo(inspector.text_view.font()).fixedPitch()
    assert QFontInfo(inspector.raw_tree.detail.font()).fixedPitch()









def _model(step: int, messages: int, error: str | None = None) -> dict:
    """A Readable model like an LLM call's: its facts, a system prompt every call repeats, a conversation that
    grows by a message a call."""
    sections = [{"title": "Step", "style": "facts", "rows": [{"label": "call", "value": f"#{step}"}]},
                {"title": "System prompt · 16 characters", "text": "You are helpful."},
                {"title": f"Messages · {messages}", "style": "conversation",
                 "rows": [{"role": "user", "label": "user", "text": f"message {i}"} for i in range(messages)]}]
    if error is not None:
        sections.append({"title": "Error", "style": "error", "text": error})
    return {"node": step, "sections": sections}


def drawn(view: ReadableView) -> list[str]:
    """What the view shows, in reading order: each label's and text box's text, walking the layouts."""
    from PySide6.QtWidgets import QLayout, QWidget

    out: list[str] = []

    def walk(item) -> None:
        widget = item.widget() if not isinstance(item, QWidget) else item
        if isinstance(widget, QLabel):
            out.append(widget.text())
        elif isinstance(widget, QPlainTextEdit):
            out.append(widget.toPlainText())
        layout = widget.layout() if widget is not None else item.layout() if not isinstance(item, QLayout) else item
        if layout is not None:
            for i in range(layout.count()):
                child = layout.itemAt(i)
                walk(child.widget() or child.layout() or child)

    view.flush()
    walk(view.widget())
    return out


def test_a_step_like_the_last_keeps_the_sections_and_messages_it_shares_with_it(qtbot):
    """Stepping from one LLM call to the next, the sections they share (the system prompt) and the messages of the
    conversation they share are shown in the widgets already made for them (drawing the big run's next call went
    from ~30 to ~10 ms); what is shown is what a new view draws for that step, every part of it visible."""
    view = ReadableView()
    qtbot.addWidget(view)
    view.resize(500, 700)
    view.show()
    qtbot.waitExposed(view)
    view.show_model(_model(1, 3))
    view.flush()
    prompt = next(w for w in view.widget().findChildren(QLabel) if w.text() == "You are helpful.")
    messages = {w.text(): w for w in view.widget().findChildren(QLabel) if w.text().startswith("message ")}
    for step, count in ((2, 4), (3, 5)):
        view.show_model(_model(step, count))
        fresh = ReadableView()
        qtbot.addWidget(fresh)
        fresh.show_model(_model(step, count))
        assert drawn(view) == drawn(fresh)
        shown = {w.text(): w for w in view.widget().findChildren(QLabel)}
        assert shown["You are helpful."] is prompt  # kept, not made anew
        assert all(shown[text] is label for text, label in messages.items())
        messages = {text: w for text, w in shown.items() if text.startswith("message ")}
        assert len(messages) == count
        qtbot.waitUntil(lambda: all(w.isVisibleTo(view) for w in view.widget().findChildren(QLabel)), timeout=2000)
    view.show_model(_model(1, 3))  # and back: the first call's widgets were let go of or kept, never shown twice
    fresh = ReadableView()
    qtbot.addWidget(fresh)
    fresh.show_model(_model(1, 3))
    assert drawn(view) == drawn(fresh)


def test_the_sections_kept_are_bounded_and_let_go_of_with_the_theme(qtbot, restore_app_look):
    """At most SPARE_SECTIONS sections and SPARE_MESSAGES messages are kept for later steps; a theme change lets go
    of them all (an error's colour is per theme), so a step shown again has its error in the new theme's colour."""
    from PySide6.QtGui import QPalette

    from afp_desktop.app.panels import readable_view

    view = ReadableView()
    qtbot.addWidget(view)
    view.show()
    for step in range(readable_view.SPARE_SECTIONS * 2):
        view.show_model(_model(step, 3 + step % 5, error=f"failed #{step}"))
        view.flush()
        view.show_model({"node": -step, "sections": [
            {"title": "Conversation", "style": "conversation",
             "rows": [{"role": "user", "text": f"other {step}.{i}"} for i in range(9)]}]})
        view.flush()
    # private: the spare sections and messages kept for reuse: a bound on memory, not shown
    assert len(view._spare) <= readable_view.SPARE_SECTIONS
    assert len(view._spare_messages) <= readable_view.SPARE_MESSAGES  # private: as above
    # private: as above
    qtbot.waitUntil(lambda: len(view._spare_holder.children()) == len(view._spare) * 2 + len(view._spare_messages))
    last = readable_view.SPARE_SECTIONS * 2 - 1
    view.show_model(_model(last, 3, error=f"failed #{last}"))  # (its error section is kept: it was just shown)
    view.flush()
    view.show_model({"node": -1, "sections": []})
    view.flush()
    from PySide6.QtWidgets import QApplication

    from afp_desktop.app.look import theme

    theme.apply_theme(QApplication.instance(), "dark" if not readable_view.is_dark(view) else "light")
    view.set_theme("dark")
    # private: a theme change drops the spares (they hold the old colours)
    assert not view._spare and not view._spare_messages
    view.show_model(_model(last, 3, error=f"failed #{last}"))
    view.flush()
    error = next(w for w in view.widget().findChildren(QLabel) if w.text() == f"failed #{last}")
    assert error.palette().color(QPalette.ColorRole.WindowText).name().lower() == \
        readable_view.ERROR_COLOURS[readable_view.is_dark(view)].lower()


def test_a_theme_switch_redraws_the_step_shown_in_the_new_theme_s_colours(qtbot, restore_app_look):
    """The sections on screen when the theme changes are drawn anew, not kept: an error kept from before the switch
    would keep the old theme's colour."""
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from afp_desktop.app.look import theme
    from afp_desktop.app.panels import readable_view

    view = ReadableView()
    qtbot.addWidget(view)
    view.show()
    view.show_model(_model(1, 2, error="failed #1"))
    view.flush()
    before = next(w for w in view.widget().findChildren(QLabel) if w.text() == "failed #1")
    theme.apply_theme(QApplication.instance(), "dark" if not readable_view.is_dark(view) else "light")
    view.set_theme("dark")
    view.flush()
    error = next(w for w in view.widget().findChildren(QLabel) if w.text() == "failed #1")
    assert error is not before
    assert error.palette().color(QPalette.ColorRole.WindowText).name().lower() == \
        readable_view.ERROR_COLOURS[readable_view.is_dark(view)].lower()
