"""The chat-bubble panel and the template editor, driven through a Session as the app drives them.

Scrubbing: every axis position of every small corpus run, and every 7th position of the large run (13,237
positions; the pure model is checked at every position there in test_bubble.py), with the default map and
with custom-templates.json loaded through the editor. The bubble must show exactly ref.status.json's line for
the typed prefix that has happened at that position.
"""

from __future__ import annotations

import html
import json

import pytest

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.core.formats import open_run  # before the session: formats must initialise first
from afp_desktop.app.panels.chat_bubble import HIDDEN_NOTE, ChatBubblePanel
from afp_desktop.app.panels.template_editor import TemplateEditorPanel, TemplateTableModel
from afp_desktop.app.session import Session
from afp_desktop.core.library.status import DEFAULT_TEMPLATES
from tests.corpus_util import CUSTOM_TEMPLATES, SCENARIOS, corpus_path, load_json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from afp_desktop.app.look.fonts import load_bundled_fonts


@pytest.fixture(autouse=True)
def _bundled_fonts(qapp):
    """The fonts the app registers at start (an emoji drawn, not shown as its code point), as in the window."""
    load_bundled_fonts()

APP_NAME = "Ada"
LARGE = "15-large-run"


def open_panels(qtbot, scenario: str, name: str = "recording.json"):
    session = Session()
    session.set_run(open_run(str(corpus_path(scenario, name))), position=0)
    bubble = shown_alone(session, ChatBubblePanel(session))
    editor = shown_alone(session, TemplateEditorPanel(session))
    qtbot.addWidget(bubble)
    # (its pending edits applied before it closes, into this test's settings: an edit applied a moment later, by
    # its timer, would be remembered in the next test's)
    qtbot.addWidget(editor, before_close_func=lambda panel: panel.flush())
    editor.set_app_name(APP_NAME)
    return session, bubble, editor


def scrub(session, bubble, reference, column: str, step: int) -> int:
    positions = list(range(0, len(session.run.axis) + 1, step)) + [len(session.run.axis)]
    for position in positions:
        session.move_to(position)
        session.flush()
        k = session.view.n_typed
        assert bubble.status_text() == reference[k][column], f"position {position}, k={k}"
        assert bubble.hidden_note.isVisibleTo(bubble) == (reference[k][column] is None)
    return len(positions)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scrubbing_shows_reference_lines(qtbot, scenario):
    session, bubble, editor = open_panels(qtbot, scenario)
    reference = load_json(scenario, "ref.status.json")
    step = 7 if scenario == LARGE else 1
    assert session.templates == DEFAULT_TEMPLATES and session.app_name == APP_NAME
    scrub(session, bubble, reference, "line_default", step)

    assert editor.load_map(CUSTOM_TEMPLATES)
    assert session.templates == json.loads(CUSTOM_TEMPLATES.read_text(encoding="utf-8"))
    scrub(session, bubble, reference, "line_custom", step)


def test_hidden_bubble_says_so(qtbot):
    session, bubble, _ = open_panels(qtbot, "02-react-two-tools")
    assert bubble.status_text() is None
    assert bubble.hidden_note.text() == HIDDEN_NOTE and bubble.hidden_note.isVisibleTo(bubble)
    session.move_to(len(session.run.axis))
    session.flush()
    assert bubble.status_text() is None  # done: no stale line
    assert bubble.answer_row.bubble.label.text() == "It is 18°C (64°F) with light rain in Oslo."
    assert bubble.user_row.bubble.label.text() == "Weather in Oslo in Fahrenheit?"


def test_trace_says_what_is_missing(qtbot):
    session, bubble, _ = open_panels(qtbot, "02-react-two-tools", "trace.json")
    assert bubble.trace_note.isVisibleTo(bubble)
    assert "tokens, progress reports and pauses are not in the file" in bubble.trace_note.text()
    lines = set()
    for position in range(len(session.run.axis) + 1):
        session.move_to(position)
        session.flush()
        lines.add(bubble.status_text())
        if bubble.status_text() == "Working on `get_weather`…":
            assert "tool (derived from the Trace)" in bubble.status_row.caption.text()
    assert lines == {None, "Thinking…", "Working on `get_weather`…", "Working on `convert_units`…"}


def progress_position(session, tool="scan_repo") -> int:
    run = session.run
    return next(p for p in range(len(run.axis) + 1) if (s := run.status_at(p)) and s.get("toolName") == tool
                and "progressMessage" in s["vars"])


def test_editing_a_template_updates_the_bubble(qtbot):
    session, bubble, editor = open_panels(qtbot, "04-tool-progress")
    session.move_to(progress_position(session), immediate=True)
    assert bubble.status_text() == "Cloning acme/api…"
    assert "template tool.progress" in bubble.status_row.caption.text()

    editor.set_template("tool.progress", "[{{toolName}}] {{progressMessage}}")
    editor.flush()
    assert bubble.status_text() == "[scan_repo] Cloning acme/api…"

    editor.add_key("tool.scan_repo.progress")  # starts as the template the ladder used: nothing changes
    assert bubble.status_text() == "[scan_repo] Cloning acme/api…"
    editor.set_template("tool.scan_repo.progress", "Scanning: {{progressMessage}}")
    editor.flush()
    assert bubble.status_text() == "Scanning: Cloning acme/api…"
    assert "template tool.scan_repo.progress" in bubble.status_row.caption.text()

    editor.delete_key("tool.scan_repo.progress")
    editor.delete_key("tool.progress")  # the ladder falls through to `tool`
    assert bubble.status_text() == "Working on `scan_repo`…"
    editor.reset_to_defaults()
    assert bubble.status_text() == "Cloning acme/api…" and session.templates == DEFAULT_TEMPLATES


def test_typing_in_the_table_previews_live(qtbot):
    session, bubble, editor = open_panels(qtbot, "04-tool-progress")
    editor.show()
    qtbot.waitExposed(editor)
    session.move_to(progress_position(session), immediate=True)
    row = editor.model.keys.index("tool.progress")
    index = editor.model.index(row, TemplateTableModel.TEMPLATE)
    editor.table.setCurrentIndex(index)
    editor.table.edit(index)
    line_edit = editor.table.viewport().findChild(QLineEdit)
    assert line_edit is not None and line_edit.text() == "{{progressMessage}}"
    line_edit.end(False)
    qtbot.keyClicks(line_edit, " (live)")
    # No commit, no Enter: the bubble follows the keystrokes after the short typing delay.
    qtbot.waitUntil(lambda: bubble.status_text() == "Cloning acme/api… (live)", timeout=3000)


def warnings_of(editor, key):
    return editor.model.data(editor.model.index(editor.model.keys.index(key), TemplateTableModel.WARNINGS))


def test_warnings_for_unknown_and_spaced_placeholders(qtbot):
    _, _, editor = open_panels(qtbot, "04-tool-progress")
    assert editor.load_map(CUSTOM_TEMPLATES)
    assert "{{mood}}" in warnings_of(editor, "tool")
    assert warnings_of(editor, "tool.scan_repo.progress") == ""
    editor.set_template("idle", "{{ appName }} ponders {{partial}}")
    assert "{{ appName }} has spaces" in warnings_of(editor, "idle")
    assert "unknown {{partial}}" in warnings_of(editor, "idle")  # idle only has appName
    editor.set_template("tool.walk_graph.progress.generic", "{{progressMessage}}")
    assert "unknown {{progressMessage}}" in warnings_of(editor, "tool.walk_graph.progress.generic")
    # keys the map leaves out are listed as falling through, greyed
    row = editor.model.keys.index("tool.progress")
    assert "not set" in editor.model.data(editor.model.index(row, TemplateTableModel.TEMPLATE))


def test_add_key_lists_the_runs_tools(qtbot):
    _, _, editor = open_panels(qtbot, "04-tool-progress")
    keys = [editor.add_combo.itemData(i) for i in range(editor.add_combo.count())]
    for name in ("scan_repo", "walk_graph", "fetch_status"):
        assert {f"tool.{name}", f"tool.{name}.progress", f"tool.{name}.progress.generic"} <= set(keys)
    assert "tool.get_weather" not in keys  # not in this run


def test_invalid_maps_give_clear_messages(qtbot, tmp_path):
    session, _, editor = open_panels(qtbot, "01-llmcall-single")
    before = dict(session.templates)
    cases = {
        "broken.json": ('{"idle": "x",', "Not valid JSON at line 1"),
        "numbers.json": ('{"idle": 3, "tool": null}', "these keys are not: 'idle', 'tool'"),
        "list.json": ('["idle"]', "this file holds a list"),
    }
    for name, (text, expected) in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert not editor.load_map(path)
        assert expected in editor.message.text() and editor.message.isVisibleTo(editor)
        assert session.templates == before


def test_save_load_and_remember(qtbot, tmp_path):
    session, _, editor = open_panels(qtbot, "04-tool-progress")
    editor.set_template("idle", "{{appName}} mulls…")
    editor.flush()
    path = tmp_path / "map.json"
    assert editor.save_map(path)
    assert json.loads(path.read_text(encoding="utf-8")) == {**DEFAULT_TEMPLATES, "idle": "{{appName}} mulls…"}
    # a new editor (next start of the app) restores the remembered map and app name
    other = Session()
    restored = shown_alone(other, TemplateEditorPanel(other))
    qtbot.addWidget(restored)
    assert other.templates["idle"] == "{{appName}} mulls…" and other.app_name == APP_NAME


def test_corrupted_store_falls_back_to_defaults(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("AFP_DESKTOP_CONFIG_DIR", str(tmp_path))
    (tmp_path / "status-templates.json").write_text("{nope", encoding="utf-8")
    session = Session()
    editor = shown_alone(session, TemplateEditorPanel(session))
    qtbot.addWidget(editor)
    assert session.templates == DEFAULT_TEMPLATES
    assert "could not be read" in editor.message.text()


def test_all_lines_click_moves_the_cursor(qtbot):
    session, _, editor = open_panels(qtbot, "04-tool-progress")
    editor.show()
    qtbot.waitExposed(editor)
    qtbot.waitUntil(lambda: not editor.listing_lines(), timeout=20_000)  # listed a piece per turn
    items = [editor.lines.topLevelItem(i) for i in range(editor.lines.topLevelItemCount())]
    item = next(i for i in items if i.text(0) == "Indexing 1,204 files")
    assert item.text(1) == "1"
    target = int(item.text(2))
    editor.lines.scrollToItem(item)
    rect = editor.lines.visualItemRect(item)
    qtbot.mouseClick(editor.lines.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    session.flush()
    assert session.view.position == target
    assert session.run.status_at(target)["vars"]["progressMessage"] == "Indexing 1,204 files"
    # the line list follows the map
    editor.set_template("tool.progress", "» {{progressMessage}}")
    editor.flush()
    texts = [editor.lines.topLevelItem(i).text(0) for i in range(editor.lines.topLevelItemCount())]
    assert "» Indexing 1,204 files" in texts and "Indexing 1,204 files" not in texts


def test_markup_in_the_chat_is_shown_literally(qtbot, tmp_path):
    markup = "<b>bold</b><script>x</script>"
    lines = corpus_path("02-react-two-tools", "events.ndjson").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines if line.strip()]
    for event in events:
        if event["type"] == "agentfootprint.agent.turn_start":
            event["payload"]["userPrompt"] = markup
    path = tmp_path / "markup.ndjson"
    path.write_text("\n".join(json.dumps(e) for e in events), encoding="utf-8")
    session = Session()
    session.set_run(open_run(str(path)))
    bubble = shown_alone(session, ChatBubblePanel(session))
    qtbot.addWidget(bubble)
    label = bubble.user_row.bubble.label
    assert label.text() == markup and label.textFormat() == Qt.TextFormat.PlainText


def test_long_seen_lines_are_cut_in_the_middle_and_whole_in_the_tooltip(qtbot):
    """A streaming line is the whole answer so far: the stop's list shows its start and its newest words, says
    so, and the tooltip has every line whole (laying out dozens of long wrapped lines made scrubbing slow)."""
    from afp_desktop.app.panels.chat_bubble import SEEN_LINE_CHARS

    session, bubble, _editor = open_panels(qtbot, "05-streaming-tokens", "events.ndjson")
    prefix = "".join(f"word{i:03d} " for i in range(60))  # 480 characters before each streaming line
    session.set_templates({**session.templates, "streaming": prefix + "{{partial}}"})
    turn = next(span for span in session.spans if span.label.startswith("LLM turn"))
    session.move_to_stop(turn.index)
    session.flush()
    lines = session.moment.bubble.stop_lines
    longest = max(lines, key=len)
    assert len(longest) > SEEN_LINE_CHARS
    shown = bubble.seen_lines.text().split("\n")
    assert all(len(line) <= SEEN_LINE_CHARS + 5 for line in shown)  # "• " and " … "
    assert any(" … " in line and line.endswith(longest[-40:]) for line in shown)
    assert "long ones cut in the middle" in bubble.seen_lines.title()
    assert html.escape(longest) in bubble.seen_lines.toolTip()


def at_the_first_tool_call_shown_wide(qtbot):
    """The 04-tool-progress run's chat, 900 px wide, at its first tool call: (session, bubble, lines of the stop)."""
    session, bubble, _editor = open_panels(qtbot, "04-tool-progress")
    bubble.resize(900, 600)
    bubble.show()
    qtbot.waitExposed(bubble)
    tool_call = next(span for span in session.spans if span.label.startswith("Tool call"))
    session.move_to_stop(tool_call.index)
    session.flush()
    return session, bubble, session.moment.bubble.stop_lines


def test_short_seen_lines_are_listed_whole_without_a_tooltip(qtbot):
    _session, bubble, lines = at_the_first_tool_call_shown_wide(qtbot)
    assert lines and bubble.seen_lines.text().split("\n") == [f"• {line}" for line in lines]
    assert bubble.seen_lines.elided_rows() == [f"• {line}" for line in lines]  # (each drawn whole)
    assert "cut" not in bubble.seen_lines.title() and bubble.seen_lines.toolTip() == ""


def test_seen_lines_are_one_row_each_cut_to_a_narrow_panel_and_whole_in_the_tooltip_and_the_copy(qtbot):
    """The stop's lines are one row each (a wrapped, selectable label was half of a cursor move's work on a big
    run): a row wider than the panel is cut in the middle, and then the tooltip has it whole; Copy (the context
    menu) puts the rows on the clipboard with no line cut. The widget's height is its title's and its rows', and
    it keeps the tallest it has needed: a move that changes the lines and the title asks for no new layout."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QGuiApplication

    from afp_desktop.app.panels.stop_lines import TITLE_FLAGS, TITLE_GAP
    from tests.paint_util import LayoutRequests, serve_waiting

    _session, bubble, lines = at_the_first_tool_call_shown_wide(qtbot)
    view = bubble.seen_lines
    row_height = view.fontMetrics().lineSpacing()
    title = view.fontMetrics().boundingRect(QRect(0, 0, view.width(), 10_000), int(TITLE_FLAGS), view.title())
    assert view.height() == title.height() + TITLE_GAP + len(lines) * row_height + 12
    bubble.resize(160, 600)
    qtbot.waitUntil(lambda: view.width() < 160)
    drawn = view.elided_rows()
    assert len(drawn) == len(lines) and any("…" in row for row in drawn)
    assert all(view.fontMetrics().horizontalAdvance(row) <= view.width() - 12 for row in drawn)
    assert all(html.escape(line) in view.toolTip() for line in lines)
    view.copy()
    assert QGuiApplication.clipboard().text() == "\n".join(f"• {line}" for line in lines)

    serve_waiting()
    requests = LayoutRequests(view.parentWidget())  # (after the resize's own requests)
    height = view.height()
    view.set_rows([f"• other {k}" for k in range(len(lines))])  # the same number of rows, other text
    view.set_rows([f"• fewer {k}" for k in range(len(lines) - 1)], title="During another stop, …:")
    serve_waiting()  # (a layout request the new rows made is delivered here)
    assert requests.count == 0 and view.text().startswith("• fewer 0") and view.height() == height


def test_lines_after_an_edit_are_listed_a_piece_per_turn_and_opened_on_demand(qtbot, monkeypatch):
    """On a long run the walk over every position is cut into pieces across event-loop turns (an edit froze the
    window ~0.3 s on the 1,000-iteration run); a line's places become rows only when it is opened."""
    import afp_desktop.app.panels.template_editor as editor_module

    session, _bubble, editor = open_panels(qtbot, "15-large-run")

    def rows():
        return [tuple(editor.lines.topLevelItem(i).text(c) for c in range(3))
                for i in range(editor.lines.topLevelItemCount())]

    monkeypatch.setattr(editor_module, "LINES_PIECE_S", 0.0)  # one line per turn
    editor.set_template("idle", "Hmm… {{appName}}")
    # private: the typing delay's slot run now: the first piece's title is seen before the next turn
    editor._apply_edits()
    assert editor.lines_title.text() == "Listing the lines of this run…"
    qtbot.waitUntil(lambda: not editor.listing_lines(), timeout=20_000)
    in_pieces, title = rows(), editor.lines_title.text()
    editor.refresh_lines()  # the same, at once
    assert in_pieces == rows() and title == editor.lines_title.text()
    assert ("Hmm… " + APP_NAME) in [row[0] for row in in_pieces]
    item = next(editor.lines.topLevelItem(i) for i in range(editor.lines.topLevelItemCount())
                if int(editor.lines.topLevelItem(i).text(1)) > 1)
    assert item.childCount() == 0
    item.setExpanded(True)
    assert item.childCount() == min(int(item.text(1)), editor_module.MAX_OCCURRENCES_SHOWN)


def test_a_screen_reader_reads_the_lines_of_the_stop(qtbot):
    _session, bubble, lines = at_the_first_tool_call_shown_wide(qtbot)
    view = bubble.seen_lines
    assert view.accessibleName()
    assert view.accessibleDescription() == "\n".join([view.title(), *(f"• {line}" for line in lines)])
    assert view.title().startswith("During Tool call")


def test_the_chat_keeps_its_height_while_one_scrubs_and_settles_for_a_new_run(qtbot):
    """A cursor move changes the lines of the stop: a column that grew and shrank brought the scroll bar in and
    out, rewrapping every row (~4 ms of a step on the big stream). The column only grows within a run, so
    nothing jumps; every row stays inside it; a new run lets it shrink again."""
    from tests.paint_util import serve_waiting

    session, bubble, _editor = open_panels(qtbot, "04-tool-progress")
    bubble.resize(420, 260)
    bubble.show()
    qtbot.waitExposed(bubble)
    column = bubble.seen_lines.parentWidget()  # the chat's column
    bar = column.parentWidget().parentWidget().verticalScrollBar()
    heights, bar_seen = [], []
    for stop in range(len(session.stops)):
        session.move_to_stop(stop)
        session.flush()
        serve_waiting()  # (the column laid out for the stop's rows)
        heights.append(column.height())
        bar_seen.append(bar.isVisible())
        for row in (bubble.user_row, bubble.status_row, bubble.seen_lines):
            if row.isVisible():
                assert row.geometry().bottom() < column.height(), (stop, row)
    assert heights == sorted(heights) and heights[-1] > heights[0]  # it grew, and never shrank
    assert bar_seen == sorted(bar_seen) and bar_seen[-1]  # the scroll bar came once and stayed
    bubble.resize(900, 260)  # a wider panel: the rows wrap less, and the column settles to what they need
    qtbot.waitUntil(lambda: column.height() < heights[-1])

    session.set_run(open_run(str(corpus_path("02-react-two-tools", "recording.json"))), position=0)
    session.flush()
    serve_waiting()
    assert column.height() < heights[-1]
