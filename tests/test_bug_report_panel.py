"""Bug-report bundles in the window (offscreen): opened like any trace (open, drop, recent, command line),
the Bug report panel's texts, the picker for a bundle of several conversations, switching between them,
reload keeping the conversation, and trace text shown as typed."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication, QLabel, QTabBar

from afp_desktop.app.shell.action_table import MenuId
from afp_desktop.app.shell.conversation_picker import ConversationPicker
from afp_desktop.app.shell.gui import SCREENSHOT_SIZE, run_gui
from afp_desktop.app.shell.main_window import MainWindow
from afp_desktop.app.panels.bug_report import NOT_A_BUNDLE, BugReportPanel
from afp_desktop.core.formats import open_run
from afp_desktop.core.views.window_copy import whole_run
from tests.bundle_util import BUNDLES, CHOICE_SCENARIOS, make_zip, manifest, several_conversations_zip
from tests.corpus_util import corpus_path, read_bytes

EXCLUDED = BUNDLES / "two-conversations-one-excluded.zip"
LOAD_TIMEOUT = 30_000


@pytest.fixture
def several(tmp_path):
    path = tmp_path / "several.zip"
    path.write_bytes(several_conversations_zip())
    return path


def panel_of(window: MainWindow) -> BugReportPanel:
    panel = window.panels["bugreport"]
    assert isinstance(panel, BugReportPanel)
    return panel


def open_and_wait(qtbot, window, path, conversation=None) -> None:
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(path, conversation)
    window.session.flush()


def answer_picker(row: int | None) -> list:
    """Answer the conversation picker when it opens: choose `row`, or cancel (None). Returns what it listed."""
    seen: list = []

    def check():
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ConversationPicker):
            QTimer.singleShot(20, check)
            return
        seen.extend(dialog.list.item(i).text() for i in range(dialog.list.count()))
        if row is None:
            dialog.reject()
        else:
            dialog.list.setCurrentRow(row)
            dialog.accept()

    QTimer.singleShot(0, check)
    return seen


def test_a_bundle_shows_the_reporters_statement(qtbot, window):
    open_and_wait(qtbot, window, EXCLUDED)
    panel = panel_of(window)
    assert panel.stack.currentIndex() == 1
    assert panel.title.text() == "Weather agent called convert_units although the model could convert"
    assert panel.fields["steps"].text() == ("1. ask the weather agent for Oslo in °F\n2. (the support pipeline run "
                                            "in the same app is unrelated)")
    assert panel.fields["expected"].text() == "a single tool call"
    assert panel.fields["actual"].text() == "two tool calls"
    assert panel.fields["app_version"].text() == "4.2.0"
    assert "agentfootprint: 9.62.0" in panel.fields["environment"].text()
    assert "node: v20.20.2" in panel.fields["environment"].text()
    assert panel.withheld.text().startswith("1 of 2 conversations was withheld by the reporter, not lost")
    assert "• No key was redacted by name." in panel.manifest_lines.text()
    assert "SUBSET" in panel.manifest_lines.text()
    assert "conversations/conv-1.json (853,081 bytes)" in panel.contents.text()
    assert "Tool convert_units({\"celsius\":18}) → {\"fahrenheit\":64}" in panel.transcript.toPlainText()
    assert panel.narrative.toPlainText().startswith("── conv-1 ──\nStage 1: The process began")
    assert not panel.picker_row.isVisibleTo(panel)  # one conversation: nothing to pick
    assert window.banner.texts[0].startswith("Bug report “Weather agent called convert_units")
    assert "1 of 2 conversations was withheld by the reporter, not lost" in window.banner.texts[0]
    # brought forward: its tab is the current one of the right column's tabs
    tabs = [bar for bar in window.findChildren(QTabBar) if "Bug report" in
            [bar.tabText(i) for i in range(bar.count())]]
    qtbot.waitUntil(lambda: tabs[0].tabText(tabs[0].currentIndex()) == "Bug report", timeout=3000)
    assert "Inspector" in [tabs[0].tabText(i) for i in range(tabs[0].count())]
    assert window.canvas.art is not None and window.session.run.stepgraph["nodes"]
    assert window.windowTitle().startswith("two-conversations-one-excluded.zip")


def test_other_files_and_closing_leave_the_panel_empty(qtbot, window):
    open_and_wait(qtbot, window, EXCLUDED)
    window.close_run()
    assert panel_of(window).stack.currentWidget() is panel_of(window).empty
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "trace.json"))
    assert panel_of(window).empty.text() == NOT_A_BUNDLE
    assert panel_of(window).stack.currentWidget() is panel_of(window).empty


def test_the_picker_asks_and_the_panel_switches(qtbot, window, several):
    listed = answer_picker(2)
    open_and_wait(qtbot, window, several)
    assert len(listed) == 3 and listed[0].startswith("conv-1") and listed[2].startswith("conv-2.1")
    run = window.session.run
    assert run.bundle.chosen == "conv-2.1"
    assert whole_run(run).stepgraph == open_run(corpus_path(CHOICE_SCENARIOS["conv-2.1"], "recording.json")).stepgraph
    panel = panel_of(window)
    assert panel.picker_row.isVisibleTo(panel)
    assert [panel.picker.itemData(i) for i in range(panel.picker.count())] == ["conv-1", "conv-2.0", "conv-2.1"]
    assert panel.picker.currentData() == "conv-2.1"
    assert panel.withheld.text().startswith("1 of 3 conversations was withheld by the reporter, not lost")
    assert "Redacted by name (2 keys): apiKey, email." in panel.manifest_lines.text()

    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        panel.choose("conv-1")
    window.session.flush()
    assert window.session.run.bundle.chosen == "conv-1" and panel.picker.currentData() == "conv-1"
    assert window.canvas.art is not None
    nodes = open_run(corpus_path("02-react-two-tools", "recording.json")).stepgraph["nodes"]
    assert len(window.session.run.stepgraph["nodes"]) == len(nodes)

    panel.picker.setFocus()  # the keyboard on the combo box switches too
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        qtbot.keyClick(panel.picker, Qt.Key.Key_Down)
    assert window.session.run.bundle.chosen == "conv-2.0"

    window.session.move_to(5)
    window.session.flush()
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.reload()
    window.session.flush()
    assert window.session.run.bundle.chosen == "conv-2.0" and window.session.position == 5


def test_cancelling_the_picker_opens_nothing(qtbot, window, several):
    answer_picker(None)
    with qtbot.waitSignal(window.loader.conversation_needed, timeout=LOAD_TIMEOUT):
        window.open_file(several)
    qtbot.waitUntil(lambda: "no conversation was chosen" in window.statusBar().currentMessage(), timeout=5000)
    assert window.session.run is None and window.stack.currentWidget() is window.empty
    assert not window.progress.isVisible()


def test_drop_and_recent_open_a_bundle(qtbot, window, several):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(EXCLUDED))])
    point = QPointF(window.width() / 2, window.height() / 2)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        enter = QDragEnterEvent(point.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(window, enter)
        QApplication.sendEvent(window, QDropEvent(point, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                                  Qt.KeyboardModifier.NoModifier))
    assert window.session.run.bundle is not None
    answer_picker(1)
    open_and_wait(qtbot, window, several)
    assert window.settings.recent_files[:2] == [str(several), str(EXCLUDED)]
    window.menu(MenuId.RECENT).aboutToShow.emit()  # the menu opens
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.menu(MenuId.RECENT).actions()[1].trigger()
    assert window.session.run.path == str(EXCLUDED)


def test_the_open_dialog_offers_zips():
    from afp_desktop.app.storage.file_labels import TRACE_FILTER

    assert "*.zip" in TRACE_FILTER.split(";;")[0]


def test_bundle_text_is_shown_as_typed(qtbot, window, tmp_path):
    doc = manifest(units=[], files=[], report={"title": "<b>bold?</b>", "expected": "<a href='x'>link</a>",
                                               "actual": "<img src=x>", "stepsToReproduce": "&lt;"})
    path = tmp_path / "markup.zip"
    path.write_bytes(make_zip({"manifest.json": json.dumps(doc),
                               "recording.json": read_bytes("01-llmcall-single", "recording.json"),
                               "narrative.txt": "<h1>narrative</h1>"}))
    open_and_wait(qtbot, window, path)
    panel = panel_of(window)
    assert panel.title.text() == "<b>bold?</b>"
    assert panel.fields["expected"].text() == "<a href='x'>link</a>"
    assert panel.fields["steps"].text() == "&lt;"
    assert panel.narrative.toPlainText() == "<h1>narrative</h1>"
    labels = panel.findChildren(QLabel)
    assert labels and all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)


def test_screenshot_of_a_bundle_takes_a_conversation(qtbot, tmp_path, capsys, several):
    out = tmp_path / "shot.png"
    assert run_gui(str(several), screenshot=str(out)) == 2
    assert "choose one with --conversation ID" in capsys.readouterr().err and not out.exists()
    assert run_gui(str(several), screenshot=str(out), conversation="conv-2.0") == 0
    assert (QImage(str(out)).width(), QImage(str(out)).height()) == SCREENSHOT_SIZE
