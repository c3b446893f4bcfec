"""Issue 10 in the window: a FIFO or a file with wrong types shows the loader's message (no hang, no crash,
and closing the window afterwards leaves no thread running); settings that are a FIFO do not stop it starting."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QApplication

from afp_desktop.app.shell.main_window import MainWindow
from afp_desktop.app.storage.settings import Settings
from tests.hostile_inputs import corpus_document, encode, replaced

LOAD_TIMEOUT = 15_000


def _window(qtbot, settings=None) -> MainWindow:
    win = MainWindow(settings=settings) if settings is not None else MainWindow()
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_a_fifo_is_refused_with_a_message_and_the_window_closes_cleanly(qtbot, tmp_path):
    fifo = tmp_path / "trace.json"
    os.mkfifo(fifo)
    win = _window(qtbot)
    with qtbot.waitSignal(win.loader.failed, timeout=LOAD_TIMEOUT):
        win.open_file(fifo)
    assert "named pipe" in win.empty.error.text()
    win.close()
    assert win.loader.wait(5000)  # no thread left running


def test_wrong_types_show_a_run_or_a_message(qtbot, tmp_path):
    doc = corpus_document("recording")
    doc = replaced(doc, ("events", 3, "meta", "runId"), ["a", "b"])
    path = tmp_path / "r.json"
    path.write_bytes(encode("recording", doc))
    win = _window(qtbot)
    with qtbot.waitSignal(win.loader.loaded, timeout=LOAD_TIMEOUT):
        win.open_file(path)
    assert win.session.run is not None
    win.loader.wait()


def test_settings_that_are_a_fifo_do_not_stop_the_start(qtbot, tmp_path):
    path = tmp_path / "settings.json"
    os.mkfifo(path)
    win = _window(qtbot, Settings(path))
    assert win.isVisible() and "settings" in (win.settings.warning or "")
    QApplication.processEvents()


def test_screenshot_refuses_a_fifo_input_and_an_output_that_is_the_input(qtbot, tmp_path, capsys):
    import shutil

    from afp_desktop.app.shell.gui import run_gui
    from tests.corpus_util import corpus_path

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert run_gui(str(fifo), screenshot=str(tmp_path / "shot.png")) == 2
    assert "named pipe" in capsys.readouterr().err
    source = tmp_path / "run.png"  # a trace named like the screenshot
    shutil.copy(corpus_path("01-llmcall-single", "events.ndjson"), source)
    before = source.read_bytes()
    assert run_gui(str(source), screenshot=str(source)) == 2
    assert "refusing to overwrite the input" in capsys.readouterr().err and source.read_bytes() == before
