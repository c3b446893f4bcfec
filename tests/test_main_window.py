"""The replay window end to end (offscreen): opening every corpus format, keyboard and mouse scrubbing with the
graph, timeline and slider agreeing with the cursor, keys left to text fields, drag and drop, recent files,
broken files, cancelling, drilling, settings trouble, export and --screenshot."""

from __future__ import annotations

import os
import sys

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication, QLineEdit

from afp_desktop.app.shell.action_table import MenuId
from afp_desktop.app.shell.gui import SCREENSHOT_SIZE, run_gui
from afp_desktop.app.shell.main_window import MainWindow
from afp_desktop.core.model.timeline import x_of_position
from afp_desktop.app.storage.settings import Settings
from afp_desktop.app.look.style import palette_for
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.views.window_copy import whole_run
from tests.corpus_util import corpus_path, read_bytes

SCENARIO = "02-react-two-tools"
FORMATS = ("events.ndjson", "trace.json", "trace.redacted.json", "recording.json")
LOAD_TIMEOUT = 30_000


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=3000)
    yield win
    win.loader.abandon()
    win.loader.wait()


def open_and_wait(qtbot, window: MainWindow, path) -> None:
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    window.session.flush()


def press(qtbot, window: MainWindow, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A key typed wherever the focus is, as a user would."""
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, key, modifier)
    window.session.flush()


def assert_all_agree(window: MainWindow) -> None:
    """Graph, timeline, slider and bubble all show the session's one moment, as the core's Replay describes it."""
    session, run = window.session, window.session.run
    session.flush()
    reference = Replay(run, session.templates, session.app_name)
    reference.move_to(session.position, session.chosen_stop)
    moment = reference.moment()
    assert session.moment.position == moment.position
    assert window.canvas.current == moment.current_node
    assert window.canvas.happened == [i < moment.nodes_started for i in range(len(run.step_fold.nodes))]
    assert window.canvas.art.active == frozenset(moment.active_nodes)
    timeline = window.timeline.panel
    assert timeline.slider.value() == moment.position
    ends = [span.end for span in session.spans]
    at = moment.stop.index if moment.stop is not None and moment.at_stop else None
    assert timeline.cursor_x == pytest.approx(x_of_position(ends, moment.position, at))
    assert timeline.current_stop == (moment.stop.index if moment.stop is not None else None)
    assert window.panels["chat"].view.line == moment.bubble.line
    assert window.panels["chat"].view.stop_lines == moment.bubble.stop_lines


def test_empty_window_invites_a_file(window):
    assert window.stack.currentWidget() is window.empty
    assert window.empty.open_button.text() == "Open a trace file…"
    assert not window.summary.isVisible()
    assert not window.action("export").isEnabled()
    for key in ("chat", "templates", "inspector"):
        assert window.docks[key].widget() is not None  # a panel or a sentence saying what goes there


@pytest.mark.parametrize("name", FORMATS)
def test_opens_every_format(qtbot, window, name):
    path = corpus_path(SCENARIO, name)
    open_and_wait(qtbot, window, path)
    run = window.session.run
    assert run.path == str(path)
    assert window.stack.currentWidget() is window.canvas
    assert len(window.canvas.node_items) == len(run.stepgraph["nodes"]) > 0
    assert window.summary.isVisible() and run.format_name in window.summary.text
    assert "3 LLM calls" in window.summary.text and "2 tool calls" in window.summary.text
    notices = whole_run(run).all_notices()
    assert [n.text for n in notices] == window.banner.texts[:len(notices)]
    assert window.windowTitle().startswith(os.path.basename(path))
    assert_all_agree(window)


def test_opens_the_large_run(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("15-large-run", "recording.json"))
    run = window.session.run
    assert len(run.stops) == 1058
    assert "151 LLM calls" in window.summary.text
    press(qtbot, window, Qt.Key.Key_Home)
    assert window.session.position == 0
    for _ in range(5):
        press(qtbot, window, Qt.Key.Key_Right)
    assert window.session.stop_index == 4
    assert_all_agree(window)


def test_keyboard_scrubbing(qtbot, window):
    open_and_wait(qtbot, window, corpus_path(SCENARIO, "recording.json"))
    session, run = window.session, window.session.run
    ends = [s["axisEnd"] for s in run.stops]
    press(qtbot, window, Qt.Key.Key_Home)
    assert session.position == 0
    assert_all_agree(window)
    press(qtbot, window, Qt.Key.Key_Right)
    assert session.position == ends[0] and session.stop_index == 0
    assert_all_agree(window)
    for expected in range(1, 8):
        press(qtbot, window, Qt.Key.Key_Right)
        assert session.stop_index == expected and session.position == ends[expected]
        assert window.timeline.panel.cursor_x == expected
        assert_all_agree(window)
    here = session.position
    press(qtbot, window, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert session.position == here + 1
    assert_all_agree(window)
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
    press(qtbot, window, Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
    assert session.position == here - 1
    press(qtbot, window, Qt.Key.Key_Left)
    assert session.position == ends[6] and session.stop_index == 6
    assert_all_agree(window)
    press(qtbot, window, Qt.Key.Key_End)
    assert session.position == len(run.axis)
    assert window.timeline.panel.current_stop == len(run.stops) - 1
    assert_all_agree(window)


def test_keys_work_with_focus_on_another_panel(qtbot, window):
    open_and_wait(qtbot, window, corpus_path(SCENARIO, "recording.json"))
    window.canvas.setFocus()
    press(qtbot, window, Qt.Key.Key_Home)
    press(qtbot, window, Qt.Key.Key_Right)
    assert window.session.stop_index == 0


def test_space_plays_and_pauses(qtbot, window):
    open_and_wait(qtbot, window, corpus_path(SCENARIO, "recording.json"))
    window.session.set_speed(4.0)
    press(qtbot, window, Qt.Key.Key_Home)
    press(qtbot, window, Qt.Key.Key_Space)
    assert window.session.playing
    qtbot.waitUntil(lambda: (window.session.stop_index or 0) >= 2, timeout=3000)
    press(qtbot, window, Qt.Key.Key_Space)
    assert not window.session.playing
    assert_all_agree(window)


def test_text_fields_keep_their_keys(qtbot, window):
    open_and_wait(qtbot, window, corpus_path(SCENARIO, "recording.json"))
    edit = QLineEdit("hello")
    window.statusBar().addWidget(edit)
    edit.show()
    edit.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is edit, timeout=2000)
    before = window.session.position
    edit.setCursorPosition(5)
    for key in (Qt.Key.Key_Left, Qt.Key.Key_Left, Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_Left):
        press(qtbot, window, key)
    press(qtbot, window, Qt.Key.Key_Space)
    assert edit.text() == "hell o"  # End, Left, then Space typed into the field
    assert window.session.position == before
    assert not window.session.playing
    window.canvas.setFocus()
    press(qtbot, window, Qt.Key.Key_Home)
    assert window.session.position == 0  # and the keys work again outside it


def test_clicking_a_graph_card_moves_the_cursor(qtbot, window):
    open_and_wait(qtbot, window, corpus_path(SCENARIO, "recording.json"))
    run = window.session.run
    index = next(i for i, n in enumerate(run.stepgraph["nodes"]) if n["kind"] == "llm->tool")
    window.canvas.node_activated.emit(index)
    window.session.flush()
    assert window.session.selected == index
    assert window.canvas.selected == index
    assert window.canvas.current == index
    assert_all_agree(window)


def test_mouse_on_the_slider_moves_everything(qtbot, window):
    from PySide6.QtTest import QTest

    open_and_wait(qtbot, window, corpus_path(SCENARIO, "recording.json"))
    slider = window.timeline.panel.slider
    QTest.mouseClick(slider, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(slider.width() // 3, slider.height() // 2))
    window.session.flush()
    assert 0 < window.session.position < len(window.session.run.axis)
    assert_all_agree(window)


def _drop(window: MainWindow, path) -> tuple[bool, bool]:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    point = QPointF(window.width() / 2, window.height() / 2)
    enter = QDragEnterEvent(point.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    drop = QDropEvent(point, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    return enter.isAccepted(), drop.isAccepted()


def test_drag_and_drop_opens_the_file(qtbot, window):
    path = corpus_path(SCENARIO, "trace.json")
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        assert _drop(window, path) == (True, True)
    assert window.session.run.path == str(path)


def test_drop_of_something_else_is_refused(window):
    mime = QMimeData()
    mime.setText("just text")
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert not enter.isAccepted()


def test_recent_files(qtbot, window, tmp_path):
    first = corpus_path(SCENARIO, "trace.redacted.json")
    second = corpus_path(SCENARIO, "events.ndjson")
    open_and_wait(qtbot, window, first)
    open_and_wait(qtbot, window, second)
    assert window.settings.recent_files[:2] == [str(second), str(first)]
    assert Settings().recent_files[:2] == [str(second), str(first)]  # saved on disk too
    # private: the recent-files menu filled as its aboutToShow would
    window._fill_recent_menu()
    titles = [a.text() for a in window.menu(MenuId.RECENT).actions() if a.text()]
    assert "events.ndjson   —   " in titles[0] and "trace.redacted.json   —   " in titles[1]  # name, folder
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.menu(MenuId.RECENT).actions()[1].trigger()
    assert window.settings.recent_files[0] == str(first)


def test_recent_files_missing_on_load_are_dropped_and_capped(qtbot, tmp_path):
    gone = tmp_path / "gone.ndjson"
    keep = [str(corpus_path(SCENARIO, name)) for name in FORMATS]
    extra = []
    for i in range(10):
        path = tmp_path / f"extra-{i}.ndjson"
        path.write_text("{}\n")
        extra.append(str(path))
    settings = Settings()
    settings.values["recent_files"] = [str(gone), *keep, *keep, *extra]  # as a hand-edited file might be
    settings.save()
    win = MainWindow()
    qtbot.addWidget(win)
    expected = [*keep, *extra][:10]  # missing file gone, duplicates once, capped at 10
    assert win.settings.recent_files == expected
    shown = [win.empty.recent.item(i).data(Qt.ItemDataRole.UserRole) for i in range(win.empty.recent.count())]
    assert shown == expected


def test_broken_file_shows_the_loaders_message(qtbot, window, tmp_path):
    bad = tmp_path / "broken.ndjson"
    bad.write_text('{"type": "agentfootprint.stream.llm_start", "payload": {}, "meta": {}}\n{"type": oops}\n'
                   '{"type": "x", "meta": {}}\n')
    with qtbot.waitSignal(window.loader.failed, timeout=LOAD_TIMEOUT):
        window.open_file(bad)
    assert window.session.run is None
    assert window.stack.currentWidget() is window.empty
    message = window.empty.error.text()
    assert window.empty.error.isVisible()
    assert str(bad) in message and "line 2" in message and "not valid JSON" in message
    assert window.empty.error.textFormat() == Qt.TextFormat.PlainText
    assert "line 2" in window.statusBar().currentMessage()


def test_broken_file_with_a_run_open_goes_to_the_banner(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, corpus_path(SCENARIO, "recording.json"))
    bad = tmp_path / "empty.json"
    bad.write_text("   \n")
    with qtbot.waitSignal(window.loader.failed, timeout=LOAD_TIMEOUT):
        window.open_file(bad)
    assert window.session.run is not None  # the open run stays
    assert any("empty.json" in t and "empty" in t for t in window.banner.texts)
    assert window.banner.lines[0].level == "error"


def test_cancel_a_load(qtbot, window):
    with qtbot.waitSignal(window.loader.cancelled, timeout=LOAD_TIMEOUT):
        window.open_file(corpus_path("15-large-run", "events.ndjson"))
        assert window.cancel_button.isVisible() and window.progress.isVisible()
        window.cancel_button.click()
    assert window.session.run is None
    assert not window.cancel_button.isVisible()
    assert "cancelled" in window.statusBar().currentMessage()


def test_cancel_stops_a_load_at_its_next_breathing_point(qtbot, window, monkeypatch):
    """A long stretch of a load between two of its checkpoints (a bracket scan of a 900 MB recording took
    seconds) stops at its next breathing point: closing the window waited for the whole stretch."""
    import threading

    from afp_desktop.engine import service
    from tests.long_job import breathe_until_released

    started = threading.Event()
    monkeypatch.setattr(service, "open_run", lambda *_args, **_kwargs: breathe_until_released(started))
    with qtbot.waitSignal(window.loader.cancelled, timeout=5_000):
        window.open_file(corpus_path(SCENARIO, "recording.json"))
        qtbot.waitUntil(started.is_set, timeout=5_000)
        window.cancel_button.click()
    assert window.loader.wait(5_000)
    assert "cancelled" in window.statusBar().currentMessage()
    assert not window.banner.texts  # (stopping is no failure)


def test_window_stays_responsive_while_loading(qtbot, window):
    ticks = []
    from PySide6.QtCore import QTimer

    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(corpus_path("15-large-run", "recording.json"))
    timer.stop()
    assert len(ticks) >= 5  # the event loop kept running during the load


def test_drill_into_a_mount_and_back_out(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("01-llmcall-single", "recording.json"))
    session = window.session
    session.move_to_stop(1)
    session.flush()
    assert window.timeline.panel.drill_button.isEnabled()
    window.timeline.panel.drill_button.click()
    session.flush()
    assert session.breadcrumb == ["Run", "Iteration"]
    assert [s["label"] for s in session.stops] == ["Start", "System prompt", "Messages", "LLM turn", "End"]
    press(qtbot, window, Qt.Key.Key_Home)
    press(qtbot, window, Qt.Key.Key_Right)
    press(qtbot, window, Qt.Key.Key_Right)
    assert session.stop_index == 1 and session.position == session.stops[1]["axisEnd"]
    assert_all_agree(window)
    press(qtbot, window, Qt.Key.Key_Backspace)
    assert session.breadcrumb == ["Run"]
    assert session.stops is session.run.stops
    assert_all_agree(window)


def test_corrupted_settings_fall_back_with_a_warning(qtbot):
    Settings().path.parent.mkdir(parents=True, exist_ok=True)
    Settings().path.write_text("{ this is not json")
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.settings.get("theme") == "system"
    assert any("damaged" in text for text in win.banner.texts)


def test_theme_and_future_mode_are_applied_and_remembered(qtbot, window):
    window.theme_actions["dark"].trigger()
    assert window.canvas.palette == palette_for("dark")
    assert window.theme == "dark"
    window.future_actions["hide"].trigger()
    assert window.canvas.future_mode == "hide"
    window.theme_actions["light"].trigger()
    saved = Settings()
    assert saved.get("theme") == "light" and saved.get("future_mode") == "hide"


def test_layout_is_remembered(qtbot, tmp_path):
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    # The offscreen screen is 800 px wide and restoreGeometry keeps a window on its screen, so the height
    # is what can be checked here.
    win.resize(1000, 555)
    qtbot.waitUntil(lambda: win.height() == 555)
    win.docks["templates"].hide()
    win.close()
    assert Settings().layout_bytes("geometry") and Settings().layout_bytes("dock_state")
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    assert again.height() == 555
    assert not again.docks["templates"].isVisible()
    again.reset_layout()
    assert again.docks["templates"].isVisibleTo(again)


def test_export_png_and_svg(qtbot, window, tmp_path):
    from afp_desktop.app.export.export_dialog import ExportChoice

    open_and_wait(qtbot, window, corpus_path(SCENARIO, "recording.json"))
    png, svg = tmp_path / "graph.png", tmp_path / "graph.svg"
    assert window.export_graph_to(str(png), ExportChoice(whole_graph=True, scale=2.0))
    assert window.export_graph_to(str(svg), ExportChoice(whole_graph=False, include_cursor=False))
    image = QImage(str(png))
    assert image.width() == round(window.canvas.graph_layout.width * 2) or image.width() > 0
    assert svg.read_text().lstrip().startswith("<?xml")


def test_screenshot_writes_the_whole_window(qtbot, tmp_path, capsys):
    out = tmp_path / "shot.png"
    assert run_gui(str(corpus_path(SCENARIO, "recording.json")), screenshot=str(out), stop=5) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == SCREENSHOT_SIZE
    assert capsys.readouterr().out.strip() == str(out)


def test_screenshot_reports_errors(qtbot, tmp_path, capsys):
    out = tmp_path / "shot.png"
    assert run_gui(str(corpus_path(SCENARIO, "recording.json")), screenshot=str(out), stop=99) == 2
    assert "out of range" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{ nope")
    assert run_gui(str(bad), screenshot=str(out)) == 2
    assert "bad.json" in capsys.readouterr().err
    assert not out.exists()


def test_banner_lines_are_plain_text_and_dismissable(qtbot, window):
    window.banner.set_messages([("<b>not bold</b>", "warning"), ("second", "info")])
    line = window.banner.lines[0]
    assert line.label.textFormat() == Qt.TextFormat.PlainText
    assert line.label.text() == "<b>not bold</b>"
    line.dismiss()
    assert window.banner.texts == ["second"]


def _line_as_shown(line) -> tuple:
    return (line.level, line.message, line.label.full_text(), line.label.toolTip(), line.detail.text(),
            line.details_button.isHidden(), line.detail.isHidden() or not line.details_button.isChecked(),
            line.isHidden(), None if line.more_button.isHidden() else line.more_button.text())


def test_a_collapsed_banner_makes_only_the_line_it_shows(qtbot, window):
    """Collapsed, the banner shows one line and says how many more: the hidden lines are made only when they
    are shown (or asked for). A big file's first part brought three lines: 8-11 ms of the window's turn."""
    from afp_desktop.app.panels.notice_words import BannerMessage
    from afp_desktop.app.panels.banner import BannerLine

    def messages(count: int):
        return [BannerMessage(f"Message {i}", f"detail {i}", "warning", f"code-{i}") for i in range(count)]

    banner = window.banner
    banner.set_expanded(False)
    banner.set_messages(messages(3))
    made = banner.findChildren(BannerLine)
    assert len(made) == 1 and made[0].label.full_text() == "Message 0"
    assert made[0].more_button.isVisibleTo(banner) and made[0].more_button.text() == "+2 more"
    banner.set_messages(messages(4))  # (the line shown is kept; only the count of the others changed)
    assert banner.findChildren(BannerLine) == made and made[0].more_button.text() == "+3 more"
    qtbot.mouseClick(made[0].more_button, Qt.MouseButton.LeftButton)
    assert [line.label.full_text() for line in banner.lines] == [f"Message {i}" for i in range(4)]
    assert all(line.isVisibleTo(banner) for line in banner.lines) and made[0].more_button.text() == "Show less"
    assert banner.sentences == [f"Message {i}" for i in range(4)]


def test_banner_words_that_change_are_shown_in_place_as_if_made_anew(qtbot, window):
    """A run read further changes a line's words ("its first 16,000 events are shown"): the lines are kept
    and say the new words, as lines made anew would (made anew, they relaid the window out, and the graph
    was drawn whole again); Details left open stay open; ✕ dismisses what the line says now; when lines come
    and go, the others are kept."""
    from afp_desktop.app.panels.notice_words import BannerMessage
    from afp_desktop.app.panels.banner import BannerRow

    def messages(count: str, detail: bool = True):
        return [BannerMessage("This run did not finish", "no run end event", "warning", "incomplete"),
                BannerMessage(f"Still reading: its first {count} events are shown",
                              f"read {count} events of the file" if detail else
                              f"Still reading: its first {count} events are shown", "info", "reading")]

    banner = window.banner
    banner.set_messages(messages("2,000"))
    lines = banner.lines
    banner.set_expanded(True)
    lines[1].details_button.setChecked(True)
    for count, detail in (("16,000", True), ("20,000", False), ("30,000", True)):
        banner.set_messages(messages(count, detail))
        assert banner.lines == lines, count  # the same widgets
        fresh = BannerRow()
        fresh.set_messages(messages(count, detail))
        fresh.set_expanded(True)
        if detail:
            fresh.lines[1].details_button.setChecked(count == "16,000")  # (open until the line had no details)
        assert [_line_as_shown(line) for line in banner.lines] == [_line_as_shown(line) for line in fresh.lines]
        fresh.deleteLater()
    lines[1].dismiss()
    assert banner.texts == ["no run end event"] and banner.lines == lines[:1]  # (the other line is kept)
    for shown, expanded in (([*messages("40,000"), BannerMessage("Failed", "boom", "error")], True),
                            (messages("50,000")[:1], False), (messages("60,000"), True)):
        # Lines come and go: a line of a level and code shown before is kept (it says the new words), the others
        # are made; what shows is what lines made anew show, "+N more" on the first line only.
        banner.set_expanded(expanded)
        banner.set_messages(shown)
        assert lines[0] in banner.lines
        fresh = BannerRow()
        fresh.set_messages(shown)
        fresh.set_expanded(expanded)
        assert [_line_as_shown(line) for line in banner.lines] == [_line_as_shown(line) for line in fresh.lines]
        fresh.deleteLater()


def test_f1_shows_the_shortcut_overview(qtbot, window):
    press(qtbot, window, Qt.Key.Key_F1)
    assert window.help_overlay.isVisible()
    assert "Next stop" in window.help_overlay.text()
    press(qtbot, window, Qt.Key.Key_Escape)
    assert not window.help_overlay.isVisible()


def test_every_action_of_the_table_is_in_its_menu_with_its_keys(window):
    """The menus are the action table: each entry with a menu is bound once the window is built, stands in the
    menu of its id, in table order, with the table's keys; nothing else is in a menu but the Panels toggles and
    the recent files."""
    from afp_desktop.app.shell.action_table import ACTIONS, MenuId, in_menu, key_sequences

    for entry in ACTIONS:
        if entry.menu is None:
            continue
        action = window.action(entry.id)
        assert action in window.menu(entry.menu).actions(), entry.id
        assert action.shortcuts() == key_sequences(entry.id)
        if entry.opens is None:
            assert action.text() == entry.text and action.isCheckable() == entry.checkable
    for menu_id in MenuId:
        if menu_id in (MenuId.PANELS, MenuId.RECENT):
            continue
        shown = [a for a in window.menu(menu_id).actions() if not a.isSeparator()]
        assert shown == [window.action(e.id) for e in in_menu(menu_id)], menu_id
    toggles = window.menu(MenuId.PANELS).actions()
    assert all(dock.toggleViewAction() in toggles for dock in window.docks.values())


def test_a_panel_that_cannot_be_imported_stops_the_window_loudly(qapp, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name == "afp_desktop.app.panels.inspector":
            raise ImportError("simulated: the inspector cannot be imported")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "afp_desktop.app.panels.inspector", raising=False)
    monkeypatch.setattr(builtins, "__import__", broken)
    with pytest.raises(ImportError, match="simulated"):
        MainWindow(restore_layout=False)


def test_ctrl_f_types_into_the_inspector_search(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "recording.json"))
    window.canvas.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    focused = QApplication.focusWidget()
    assert isinstance(focused, QLineEdit) and focused.placeholderText() == "Search keys and values"
    assert window.panels["inspector"].isAncestorOf(focused)
    qtbot.keyClicks(focused, "userMessage")
    assert focused.text() == "userMessage"


def test_template_lines_are_listed_when_their_tab_is_shown(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("04-tool-progress", "recording.json"))
    editor = window.panels["templates"]
    window.docks["inspector"].raise_()  # templates become a background tab
    qtbot.waitUntil(lambda: editor.visibleRegion().isEmpty(), timeout=2000)
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "recording.json"))
    assert editor.lines.topLevelItemCount() == 0 or "get_weather" not in editor.lines.topLevelItem(0).text(0)
    window.docks["templates"].raise_()
    qtbot.waitUntil(lambda: not editor.visibleRegion().isEmpty(), timeout=2000)
    qtbot.waitUntil(lambda: not editor.listing_lines(), timeout=20_000)  # listed a piece per turn
    texts = [editor.lines.topLevelItem(i).text(0) for i in range(editor.lines.topLevelItemCount())]
    assert "Working on `get_weather`…" in texts


def test_reload_reads_the_grown_file_and_keeps_the_cursor(qtbot, window, tmp_path):
    lines = corpus_path("02-react-two-tools", "events.ndjson").read_bytes().splitlines(keepends=True)
    live = tmp_path / "live.ndjson"
    live.write_bytes(b"".join(lines[:40]))
    open_and_wait(qtbot, window, live)
    assert len(window.session.run.typed_events) == 40
    window.session.move_to(30, immediate=True)
    live.write_bytes(b"".join(lines))  # the agent wrote more
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        qtbot.keyClick(window, Qt.Key.Key_F5)
    window.session.flush()
    assert len(window.session.run.typed_events) == len(lines)
    assert window.session.position == 30
    assert "Reloaded" in window.statusBar().currentMessage()


def test_file_names_and_trace_text_in_tooltips_stay_literal(qtbot, window, tmp_path):
    from PySide6.QtGui import QTextDocument

    from afp_desktop.app.widgets.plain_text import plain_tooltip

    tip = plain_tooltip("<b>bold</b>\nnext")
    document = QTextDocument()
    document.setHtml(tip)
    assert document.toPlainText() == "<b>bold</b>\nnext"  # rendered, the markup is text
    odd = tmp_path / "<b>odd<b>.ndjson"
    odd.write_bytes(corpus_path("01-llmcall-single", "events.ndjson").read_bytes())
    open_and_wait(qtbot, window, odd)
    assert window.load_label.textFormat() == Qt.TextFormat.PlainText
    document.setHtml(window.summary.name.toolTip())
    assert document.toPlainText() == odd.name


def test_payloads_that_are_not_json_go_to_the_banner(qtbot, window, tmp_path, monkeypatch):
    from afp_desktop.core.formats import lazy_trace

    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)  # as a large Trace is read: payloads checked after loading
    data = read_bytes(SCENARIO, "trace.json")
    broken = data.replace(b'"payload": {', b'"payload": {"oops": nul,', 1)  # (this Trace is indented)
    assert broken != data
    line = broken[:broken.index(b"nul,")].count(b"\n") + 1
    path = tmp_path / "broken-payload.json"
    path.write_bytes(broken)
    open_and_wait(qtbot, window, path)
    assert window.session.run is not None and window.session.run.stepgraph["nodes"]  # the run is shown
    # (the payloads are checked beside the window once the run is shown: its line comes then)
    qtbot.waitUntil(lambda: any("not valid JSON" in t for t in window.banner.texts), timeout=10000)
    text = next(t for t in window.banner.texts if "not valid JSON" in t)
    assert text.startswith(f"1 payload(s) in this file are not valid JSON (the first at {path}, line {line}, column ")


def test_the_window_opens_within_its_screen(qtbot):
    """Its default size is cut to the screen's free area, its minimum too when the panels ask for more than the
    screen has (a small or scaled-up screen: QT_SCALE_FACTOR=2 halves the room)."""
    from afp_desktop.app.shell.gui import show_main_window

    win = show_main_window()  # (as run_gui opens it)
    qtbot.addWidget(win)
    qtbot.waitExposed(win)
    room = win.screen().availableGeometry()
    assert win.width() <= room.width() and win.height() <= room.height(), (win.size(), room)
    assert room.contains(win.geometry().topLeft())
