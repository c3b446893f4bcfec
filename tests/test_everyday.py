"""Issue 14, everyday friction: banners, export, recent files, remembered positions, the card menu and the
search counter — driven through the real window offscreen."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from afp_desktop.app.shell.action_table import MenuId
from afp_desktop.app.export.export_dialog import ExportDialog, format_of, with_format
from afp_desktop.app.storage.file_labels import recent_label, short_folder
from afp_desktop.app.shell.main_window import MainWindow
from afp_desktop.app.panels.notice_words import SENTENCES, message_for
from afp_desktop.app.storage.settings import MAX_POSITIONS, Settings
from afp_desktop.core.views.window_copy import whole_run
from tests.corpus_util import corpus_path, read_bytes
from tests.dialog_util import export_with_shortcut

ROOT = Path(__file__).resolve().parents[1]
RUN = corpus_path("04-tool-progress", "recording.json")
LOAD_TIMEOUT = 30_000


@pytest.fixture
def window(qtbot):
    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.loader.abandon()
    win.loader.wait()


def open_and_wait(qtbot, window: MainWindow, path) -> None:
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    window.session.flush()


# -- banners --------------------------------------------------------------------------------------------------
def test_every_notice_code_the_core_gives_has_a_plain_sentence():
    codes = set()
    for path in (ROOT / "afp_desktop" / "core").rglob("*.py"):
        codes |= set(re.findall(r'Notice\(\s*"([a-z-]+)"', path.read_text(encoding="utf-8")))
    assert codes and codes <= set(SENTENCES), codes - set(SENTENCES)


def test_banner_collapses_to_one_line_and_expands(qtbot, window):
    open_and_wait(qtbot, window, RUN)
    banner = window.banner
    lines = banner.lines
    assert len(lines) >= 2  # this recording: two recorders, unredacted
    assert lines[0].isVisible() and not any(line.isVisible() for line in lines[1:])
    assert banner.height() <= 2 * lines[0].label.fontMetrics().height() + 16  # one line, not 90-120 px
    more = lines[0].more_button
    assert more.isVisible() and more.text() == f"+{len(lines) - 1} more"
    qtbot.mouseClick(more, Qt.MouseButton.LeftButton)
    assert all(line.isVisible() for line in banner.lines) and more.text() == "Show less"
    qtbot.mouseClick(more, Qt.MouseButton.LeftButton)
    assert not banner.lines[1].isVisible()


def test_banner_speaks_plainly_and_keeps_the_detail_on_demand(qtbot, window):
    open_and_wait(qtbot, window, RUN)
    banner = window.banner
    banner.set_expanded(True)
    line = next(line for line in banner.lines if line.message.code == "several-recorders")
    assert line.label.full_text() == SENTENCES["several-recorders"]
    assert "BoundaryEvents" not in line.label.full_text()  # the jargon is in the detail
    assert "BoundaryEvents" in line.label.toolTip() and not line.detail.isVisible()
    qtbot.mouseClick(line.details_button, Qt.MouseButton.LeftButton)
    assert line.detail.isVisible() and "BoundaryEvents" in line.detail.text()
    assert line.detail.textFormat() == Qt.TextFormat.PlainText
    # The exact texts stay available in the order the run gives them.
    assert banner.texts[:2] == [n.text for n in whole_run(window.session.run).all_notices()][:2]


def test_errors_come_first_and_an_unknown_code_shows_its_text(qtbot, window):
    window.banner.set_messages([message_for("x-unknown", "Something odd", "info"),
                                message_for("failed", "The run failed: boom", "error")])
    assert [line.level for line in window.banner.lines] == ["error", "info"]
    # the run's failure is its own plain sentence, the error included (the why is what the user needs)
    assert SENTENCES["failed"] is None
    assert window.banner.lines[0].label.full_text() == "The run failed: boom"
    assert window.banner.lines[1].label.full_text() == "Something odd"
    assert not window.banner.lines[1].details_button.isVisibleTo(window.banner.lines[1])


def test_a_failed_open_replaces_the_previous_failed_open(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, RUN)
    before = len(window.banner.lines)
    for name in ("first.json", "second.json", "third.json"):
        bad = tmp_path / name
        bad.write_text("{ nope")
        with qtbot.waitSignal(window.loader.failed, timeout=LOAD_TIMEOUT):
            window.open_file(bad)
    lines = window.banner.lines
    assert len(lines) == before + 1  # one failed-open line, not three
    assert lines[0].level == "error" and "third.json" in lines[0].label.full_text()
    assert "third.json" in lines[0].message.detail and "line 1" in lines[0].message.detail
    assert lines[0].isVisible()


# -- export -----------------------------------------------------------------------------------------------------
def test_format_follows_the_extension():
    assert format_of("/a/x.svg") == "svg" and format_of("x.PNG") == "png" and format_of("x.pdf") is None
    assert with_format("/a/x.svg", "png") == "/a/x.png" and with_format("/a/x", "svg") == "/a/x.svg"
    assert with_format("/a/x.tar", "png") == "/a/x.tar.png"


def test_export_dialog_typed_svg_saves_svg(qtbot, tmp_path):
    dialog = ExportDialog(None, str(tmp_path / "run-graph.png"), "png")
    qtbot.addWidget(dialog)
    dialog.path_edit.clear()
    qtbot.keyClicks(dialog.path_edit, str(tmp_path / "x.svg"))
    assert dialog.format == "svg" and dialog.path() == str(tmp_path / "x.svg")
    dialog.format_combo.setCurrentIndex(0)  # choosing PNG renames
    assert dialog.path_edit.text() == str(tmp_path / "x.png")
    dialog.path_edit.setText("bare")
    dialog.path_edit.textEdited.emit("bare")  # (as typing it does)
    assert dialog.path() == str(tmp_path / "bare.png")  # a bare name: the dialog's folder, the chosen format


def _drive_export(qtbot, window, typed: str | None) -> list[str]:
    """Open the export dialog with Ctrl+Shift+E, type a name, press Export; returns the dialog's first name."""
    seen = []

    def type_name(dialog) -> None:
        seen.append(dialog.path_edit.text())
        if typed is not None:
            dialog.path_edit.setText(typed)
            dialog.path_edit.textEdited.emit(typed)  # (as typing it does)

    export_with_shortcut(qtbot, window, type_name)
    return seen


def test_ctrl_shift_e_exports_svg_by_extension_and_remembers(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, RUN)
    out = tmp_path / "out" / "x.svg"
    out.parent.mkdir()
    _drive_export(qtbot, window, str(out))
    assert out.exists() and out.read_bytes().lstrip().startswith(b"<?xml")
    assert not (out.parent / "x.svg.png").exists()
    assert window.settings.get("export_format") == "svg" and window.settings.get("export_folder") == str(out.parent)
    assert Settings().get("export_folder") == str(out.parent)  # saved
    # Next time the dialog starts in that folder with that format.
    seen = _drive_export(qtbot, window, None)
    assert seen == [str(out.parent / "recording-graph.svg")]
    assert (out.parent / "recording-graph.svg").exists()
    png = out.parent / "y.png"
    _drive_export(qtbot, window, str(png))
    assert not QImage(str(png)).isNull()


# -- files ------------------------------------------------------------------------------------------------------
def test_recent_labels_show_the_folder():
    assert recent_label("/data/a/trace.json", home="/home/u") != recent_label("/data/b/trace.json", home="/home/u")
    assert recent_label("/home/u/runs/trace.json", home="/home/u") == "trace.json   —   ~/runs"
    assert recent_label("/x/R&D/t.json", home="/home/u") == "t.json   —   /x/R&&D"
    assert len(short_folder("/" + "a" * 200, home="/h")) <= 60


def test_open_recent_menu_tells_two_trace_json_apart(qtbot, window, tmp_path):
    paths = []
    for folder in ("alpha", "beta"):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "trace.json"
        path.write_bytes(read_bytes("02-react-two-tools", "trace.json"))
        paths.append(path)
        window.settings.add_recent(str(path))
    window.menu(MenuId.RECENT).aboutToShow.emit()  # the menu opens
    texts = [a.text() for a in window.menu(MenuId.RECENT).actions() if a.text().startswith("&")]
    assert len(texts) == 2 and texts[0] != texts[1]
    assert "beta" in texts[0] and "alpha" in texts[1] and all("trace.json" in t for t in texts)


def test_reopening_a_file_starts_where_the_user_was(qtbot, tmp_path):
    win = MainWindow(restore_layout=True)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    open_and_wait(qtbot, win, RUN)
    end = win.session.position
    win.session.move_to_stop(3)
    win.session.flush()
    where = win.session.position
    assert where != end
    win.close()
    assert Settings().position_for(str(RUN)) == where

    again = MainWindow(restore_layout=True)
    qtbot.addWidget(again)
    again.show()
    open_and_wait(qtbot, again, RUN)
    assert again.session.position == where
    assert "where you left it" in again.statusBar().currentMessage()
    # Another file, then back: each keeps its own place.
    other = corpus_path("02-react-two-tools", "recording.json")
    open_and_wait(qtbot, again, other)
    assert again.session.position == len(again.session.run.axis)  # never opened: the end, as before
    again.session.move_to_stop(1)
    again.session.flush()
    other_where = again.session.position
    open_and_wait(qtbot, again, RUN)
    assert again.session.position == where
    assert again.settings.position_for(str(other)) == other_where
    again.close()


def test_remembered_positions_are_bounded_and_validated(tmp_path):
    settings = Settings(tmp_path / "s.json")
    for i in range(MAX_POSITIONS + 5):
        settings.remember_position(f"/f/{i}.json", i)
    assert len(settings.get("positions")) == MAX_POSITIONS
    assert settings.position_for("/f/0.json") is None and settings.position_for(f"/f/{MAX_POSITIONS + 4}.json")
    settings.save()
    raw = json.loads((tmp_path / "s.json").read_text())
    raw["positions"] = [["/f/a.json", -3]]
    (tmp_path / "s.json").write_text(json.dumps(raw))
    reread = Settings(tmp_path / "s.json")
    assert reread.get("positions") == [] and "positions" in reread.warning


def test_template_dialogs_follow_the_remembered_folder(qtbot, tmp_path):
    settings = Settings()
    settings.set("template_folder", str(tmp_path))
    settings.save()
    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    editor = win.panels["templates"]
    assert editor.folder == str(tmp_path)
    editor.folder_chosen.emit(str(tmp_path / "elsewhere"))
    assert win.settings.get("template_folder") == str(tmp_path / "elsewhere")


# -- small things ------------------------------------------------------------------------------------------------
def test_right_click_on_a_card_offers_copy_and_export(qtbot, window):
    """The step's JSON is copied whole, payloads and all: asked of the engine (the window's copy has none)."""
    open_and_wait(qtbot, window, RUN)
    canvas = window.canvas
    canvas.fit_to_window()
    whole = whole_run(window.session.run).stepgraph["nodes"]
    item = next(i for i in canvas.node_items if i.isVisible() and i.index > 0 and "toolArgs" in whole[i.index])
    centre = canvas.mapFromScene(item.sceneBoundingRect().center())
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, centre, canvas.viewport().mapToGlobal(centre))
    QApplication.sendEvent(canvas.viewport(), event)
    menu = window.card_menu
    texts = [a.text() for a in menu.actions() if a.text()]
    assert texts == ["Copy the step's JSON", "Copy the step's id", "Export the graph…"]
    node = window.session.run.stepgraph["nodes"][item.index]
    menu.actions()[1].trigger()
    assert QGuiApplication.clipboard().text() == node["id"]
    menu.actions()[0].trigger()
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text().startswith("{"), timeout=10_000)
    assert json.loads(QGuiApplication.clipboard().text()) == json.loads(json.dumps(whole[item.index]))
    assert window.statusBar().currentMessage() == "Copied the step's JSON"
    menu.close()


def test_right_click_off_the_cards_offers_nothing(qtbot, window):
    open_and_wait(qtbot, window, RUN)
    window.card_menu = None
    corner = QPoint(2, 2)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, corner, window.canvas.viewport().mapToGlobal(corner))
    QApplication.sendEvent(window.canvas.viewport(), event)
    assert window.card_menu is None


def test_the_search_counter_is_not_clipped_in_a_narrow_inspector(qtbot):
    from afp_desktop.app.panels.json_tree import JsonTreeView

    view = JsonTreeView({f"key{i}": "match" for i in range(8)})
    qtbot.addWidget(view)
    view.resize(260, 300)
    view.show()
    qtbot.waitExposed(view)
    view.search_box.setText("match")  # selects the first match
    view.next_match()
    label = view.match_label
    assert label.text() == "2 / 8"
    assert label.fontMetrics().horizontalAdvance(label.text()) <= label.width()
    assert label.geometry().right() <= view.width()


def test_export_asks_before_replacing_a_typed_file(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    existing = tmp_path / "g.png"
    existing.write_bytes(b"old")
    dialog = ExportDialog(None, str(existing), "png")
    qtbot.addWidget(dialog)
    answers = [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: answers.pop(0))
    dialog.accept()
    assert dialog.result() != ExportDialog.DialogCode.Accepted and answers  # "No": stays open
    dialog.accept()
    assert dialog.result() == ExportDialog.DialogCode.Accepted and not answers
