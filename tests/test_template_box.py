"""Issue 14, template editor: a roomy text box for the selected key, the live preview beside it with unknown
variables marked (drawn as plain text, never markup), and the warnings in view."""

from __future__ import annotations

from PySide6.QtCore import Qt

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.engine.service import load_run
from afp_desktop.app.panels.template_box import UNKNOWN_BACKGROUND
from afp_desktop.app.panels.template_editor import TemplateEditorPanel
from afp_desktop.app.session import Session
from afp_desktop.core.views.template_preview import Segment, preview_segments
from tests.corpus_util import corpus_path


def make_editor(qtbot) -> TemplateEditorPanel:
    session = Session()
    editor = shown_alone(session, TemplateEditorPanel(session, restore=False))
    qtbot.addWidget(editor)
    editor.resize(520, 640)
    session.set_run(load_run(corpus_path("04-tool-progress", "recording.json")))
    editor.show()
    qtbot.waitExposed(editor)
    return editor


def test_preview_segments_mark_what_the_key_cannot_fill():
    assert preview_segments("tool.progress", "{{toolName}}: {{progressMessage}} {{nope}} {{ appName }}!",
                            "Bot", {"toolName": "scan"}) == [
        Segment("value", "scan", "toolName"), Segment("text", ": "),
        Segment("value", "Read 3 of 10 pages", "progressMessage"), Segment("text", " "),
        Segment("unknown", "{{nope}}", "nope"), Segment("text", " "),
        Segment("spaced", "{{ appName }}", "appName"), Segment("text", "!")]
    # A generic-progress key never receives progressMessage.
    assert preview_segments("tool.progress.generic", "{{progressMessage}}")[0].kind == "unknown"
    assert preview_segments("idle", "{{appName}} thinks", "Zed")[0] == Segment("value", "Zed", "appName")


def test_selecting_a_key_fills_the_box_and_typing_edits_the_map(qtbot):
    editor = make_editor(qtbot)
    editor.select_key("tool")
    assert editor.box.key == "tool" and editor.box.text.toPlainText() == editor.templates["tool"]
    assert editor.box.text.height() >= 56 and editor.box.text.width() >= 200  # roomy, not a 60-px cell
    editor.box.text.setPlainText("Busy with {{toolName}} {{oops}}")
    assert editor.templates["tool"] == "Busy with {{toolName}} {{oops}}"
    editor.flush()
    assert editor.session.templates["tool"] == "Busy with {{toolName}} {{oops}}"
    # The preview fills the known variable with the run's first tool and marks the unknown one.
    assert editor.box.preview_text.startswith("Busy with scan_repo {{oops}}")
    assert [text for _s, _e, text in editor.box.unknown_ranges] == ["{{oops}}"]
    assert "⚠ unknown {{oops}}: renders empty" in editor.box.preview_text
    assert editor.box.preview.isVisible() and editor.box.preview.geometry().left() > editor.box.text.geometry().right()


def test_the_preview_never_interprets_the_template_as_markup(qtbot):
    editor = make_editor(qtbot)
    editor.select_key("idle")
    editor.box.text.setPlainText("<b>{{appName}}</b> <img src=x> {{who}}")
    assert editor.box.preview_text.splitlines()[0] == "<b>Agent</b> <img src=x> {{who}}"
    document = editor.box.preview.document()
    assert not document.toHtml().count("<b>Agent")  # the tag is text, escaped in the HTML export
    assert editor.box.unknown_ranges and editor.box.unknown_ranges[0][2] == "{{who}}"
    fmt = document.begin().begin().fragment().charFormat()
    assert fmt.background().color() != UNKNOWN_BACKGROUND


def test_editing_in_the_table_updates_the_box_and_a_fall_through_key_can_be_set(qtbot):
    editor = make_editor(qtbot)
    editor.delete_key("paused")
    editor.select_key("paused")  # listed as falling through
    assert editor.box.text.toPlainText() == "" and "paused" not in editor.templates
    editor.box.text.setPlainText("Over to you: {{question}}")
    assert editor.templates["paused"] == "Over to you: {{question}}"
    editor.set_template("paused", "Your turn: {{question}}")
    assert editor.box.text.toPlainText() == "Your turn: {{question}}"
    assert editor.box.key == "paused"


def test_warnings_are_not_in_an_off_screen_column(qtbot):
    editor = make_editor(qtbot)
    from afp_desktop.app.panels.template_editor import TemplateTableModel

    assert editor.table.isColumnHidden(TemplateTableModel.WARNINGS)
    editor.set_template("idle", "{{partial}}")
    row = editor.model.keys.index("idle")
    key_colour = editor.model.data(editor.model.index(row, TemplateTableModel.KEY), Qt.ItemDataRole.ForegroundRole)
    assert key_colour is not None  # the key itself turns red
    editor.select_key("idle")
    assert "unknown {{partial}}" in editor.box.preview_text


def test_the_save_dialog_opens_in_the_last_folder(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    editor = make_editor(qtbot)
    seen = []
    target = tmp_path / "maps" / "mine.json"
    target.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (seen.append(a[2]), (str(target), ""))[1])
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (seen.append(a[2]), ("", ""))[1])
    chosen = []
    editor.folder_chosen.connect(chosen.append)
    editor.save_button.click()
    assert target.exists() and chosen == [str(target.parent)]
    editor.load_button.click()
    editor.save_button.click()
    assert seen[1] == str(target.parent) and seen[2] == str(target.parent / "status-templates.json")


def test_a_preview_repeating_a_long_app_name_is_cut_as_the_line_is():
    from afp_desktop.core.library.template_render import LINE_ALLOWANCE

    segments = preview_segments("idle", "Hi {{appName}}" * 20_000, "A" * 1_000)
    budget = 1_000 + LINE_ALLOWANCE
    assert sum(len(s.text) for s in segments[:-1]) == budget
    assert segments[-1] == Segment("text", f"\u2026 (+{20_000 * 1_003 - budget} more)")
    assert segments[1] == Segment("value", "A" * 1_000, "appName")
    short = preview_segments("idle", "{{appName}} and {{appName}}", "A" * 1_000)
    assert "".join(s.text for s in short) == "A" * 1_000 + " and " + "A" * 1_000
