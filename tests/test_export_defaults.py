"""The export dialog's defaults (issue 15): "Show the cursor" starts off and is remembered; the folder is the one
last exported to, the first time Pictures (else home) — never the input's folder; the name comes from the run's
file; a visible focus ring when the keyboard moves through it."""

from __future__ import annotations

import os
import shutil

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from afp_desktop.app.look import theme
from afp_desktop.app.export.export_dialog import ExportDialog, default_export_folder, proposed_file_name
from afp_desktop.app.storage.settings import Settings
from tests.corpus_util import corpus_path
from tests.dialog_util import answer_export_dialog, export_with_shortcut

LOAD_TIMEOUT = 20000


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home folder with a Pictures folder (Qt reads $HOME and the XDG user dirs each time it is asked)."""
    folder = tmp_path / "home"
    (folder / "Pictures").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / ".config"))
    return folder


@pytest.fixture
def opened(qtbot, window, tmp_path):
    """The window with a run opened from its own 'input' folder (as if shared or read-only)."""
    inputs = tmp_path / "shared-inputs"
    inputs.mkdir()
    run_file = inputs / "weather.run.json.xz"
    shutil.copy(corpus_path("02-react-two-tools", "recording.json.xz"), run_file)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(str(run_file))
    window.session.flush()
    return window, inputs


def drive_export(qtbot, window, act) -> dict:
    """Open the dialog with Ctrl+Shift+E; `act(dialog)` looks and changes things, then Export is pressed. Returns
    what the dialog first proposed."""
    seen: dict = {}

    def look_then_act(dialog) -> None:
        seen.update(path=dialog.path(), cursor=dialog.cursor.isChecked())
        act(dialog)

    export_with_shortcut(qtbot, window, look_then_act)
    return seen


def test_first_export_goes_to_pictures_without_the_cursor_and_the_box_is_remembered(qtbot, home, opened, tmp_path):
    window, inputs = opened
    pictures = home / "Pictures"

    def check_the_box(dialog):
        dialog.cursor.setChecked(True)

    first = drive_export(qtbot, window, check_the_box)
    assert first["cursor"] is False  # off the first time
    assert os.path.dirname(first["path"]) == str(pictures) != str(inputs)  # not the input's folder
    assert os.path.basename(first["path"]) == "weather.run-graph.png"  # named after the run
    assert (pictures / "weather.run-graph.png").exists() and not list(inputs.glob("*.png"))
    assert window.settings.get("export_cursor") is True
    assert Settings().get("export_cursor") is True  # saved to disk

    elsewhere = tmp_path / "exports"
    elsewhere.mkdir()

    def uncheck_and_move(dialog):
        dialog.path_edit.setText(str(elsewhere / "mine.svg"))
        dialog.path_edit.textEdited.emit(dialog.path_edit.text())  # (as typing it does)
        dialog.cursor.setChecked(False)

    second = drive_export(qtbot, window, uncheck_and_move)
    assert second["cursor"] is True  # as the user left it
    assert os.path.dirname(second["path"]) == str(pictures)  # the folder last exported to
    assert (elsewhere / "mine.svg").exists()

    third = drive_export(qtbot, window, lambda dialog: None)
    assert third["cursor"] is False
    assert os.path.dirname(third["path"]) == str(elsewhere)  # follows the last export
    assert os.path.basename(third["path"]) == "weather.run-graph.svg"  # and its format


def test_cancelling_changes_nothing(qtbot, home, opened):
    window, _inputs = opened
    seen: dict = {}

    def look_and_tick(dialog) -> None:
        seen["path"] = dialog.path()
        dialog.cursor.setChecked(True)

    answer_export_dialog(window, look_and_tick, QDialogButtonBox.StandardButton.Cancel)
    window.ask_export()
    assert seen["path"] and window.settings.get("export_cursor") is False
    assert window.settings.get("export_folder") == ""
    assert not list((home / "Pictures").iterdir())


def test_the_default_folder_falls_back_when_the_remembered_one_is_gone(home, tmp_path):
    gone = tmp_path / "was-here"
    assert default_export_folder(str(gone)) == str(home / "Pictures")
    assert default_export_folder("") == str(home / "Pictures")
    kept = tmp_path / "kept"
    kept.mkdir()
    assert default_export_folder(str(kept)) == str(kept)
    if os.geteuid() != 0:  # (root writes anywhere)
        kept.chmod(0o500)
        try:
            assert default_export_folder(str(kept)) == str(home / "Pictures")  # no longer writable
        finally:
            kept.chmod(0o700)
    (home / "Pictures").rmdir()
    assert default_export_folder("") == str(home)  # no Pictures folder: home


def test_the_name_comes_from_the_run_file():
    assert proposed_file_name("/a/recording.json", "png") == "recording-graph.png"
    assert proposed_file_name("/a/weather.run.ndjson.gz", "svg") == "weather.run-graph.svg"
    assert proposed_file_name("/a/trace.json.xz", "png") == "trace-graph.png"
    assert proposed_file_name("/a/.json", "png") == "json-graph.png"  # never a hidden file
    assert proposed_file_name("/a/noext", "png") == "noext-graph.png"


def test_a_bad_remembered_box_falls_back_to_off(tmp_path, monkeypatch):
    monkeypatch.setenv("AFP_DESKTOP_CONFIG_DIR", str(tmp_path))
    (tmp_path / "settings.json").write_text('{"export_cursor": "yes"}')
    settings = Settings()
    assert settings.get("export_cursor") is False and "export_cursor" in settings.warning


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_dialog_shows_a_focus_ring_when_tabbed_through(qtbot, tmp_path, mode):
    dark = theme.apply_theme(QApplication.instance(), mode) == "dark"
    try:
        dialog = ExportDialog(None, str(tmp_path / "run-graph.png"), "png")
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=3000)
        dialog.path_edit.setFocus(Qt.FocusReason.MouseFocusReason)
        for _ in range(12):
            if dialog.cursor.hasFocus():
                break
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert dialog.cursor.hasFocus()
        image = dialog.cursor.grab().toImage()
        ring = theme.FOCUS_RING[dark]
        ringed = sum(1 for x in range(image.width()) for y in range(image.height())
                     if image.pixelColor(x, y).name() == ring)
        assert ringed > 20  # drawn around the box's label
    finally:
        theme.apply_theme(QApplication.instance(), "light")


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_an_unchecked_box_and_radio_button_have_a_visible_edge(qtbot, mode):
    """Fusion outlines them in a darker shade of the window: on the dark theme an unchecked box vanished."""
    from PySide6.QtWidgets import QCheckBox, QRadioButton

    from afp_desktop.app.look.style import contrast_ratio

    theme.apply_theme(QApplication.instance(), mode)
    try:
        for widget in (QCheckBox("Show the cursor"), QRadioButton("Current view")):
            qtbot.addWidget(widget)
            widget.show()
            qtbot.waitExposed(widget)
            image = widget.grab().toImage()
            window = widget.palette().color(widget.palette().ColorRole.Window).name()
            edge = max((image.pixelColor(x, y).name() for x in range(min(20, image.width()))
                        for y in range(image.height())), key=lambda colour: contrast_ratio(colour, window))
            assert contrast_ratio(edge, window) >= 3.0, (type(widget).__name__, edge)  # (non-text contrast)
    finally:
        theme.apply_theme(QApplication.instance(), "light")


def test_the_bookmark_exports_follow_the_same_folder_rule(qtbot, home, opened, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from afp_desktop.app.features.find_and_bookmarks import export_bookmarks_json, export_graph_with_notes

    window, inputs = opened
    target = tmp_path / "notes"
    target.mkdir()
    proposed: list[str] = []

    def save_as(name):
        return lambda *args, **kwargs: (proposed.append(args[2]), (str(target / name), ""))[1]

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_as("with-notes.svg"))
    export_graph_with_notes(window)
    assert proposed[-1] == str(home / "Pictures" / "weather.run-bookmarks.png")  # not the input's folder
    assert (target / "with-notes.svg").exists()
    assert window.settings.get("export_folder") == str(target)  # remembered for the next export
    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_as("marks.json"))
    export_bookmarks_json(window)
    assert proposed[-1] == str(target / "weather.run-bookmarks.json")
    assert (target / "marks.json").exists() and not list(inputs.glob("*-bookmarks*"))
