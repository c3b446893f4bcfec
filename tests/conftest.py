"""Shared test set-up: Qt runs offscreen, settings go to a temporary folder, and corpus files are found
whether stored plain or xz-compressed."""

from __future__ import annotations

import os

# Must be set before Qt is imported anywhere (pytest-qt has no ini option for it).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_QUICK_BACKEND", "software")
# Paint as the app does (gui.keep_painting_on_the_window_thread): every fill on the window's thread.
os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")

import tempfile

# Settings for the whole run, in a folder of its own (each test gets a fresh one besides, below): a timer of a
# test's widget that fires after the test, as pytest-qt serves the event loop between tests (the template
# editor applies an edit 0.12 s after it, and remembers the map), wrote to the real user's template map.
os.environ["AFP_DESKTOP_CONFIG_DIR"] = tempfile.mkdtemp(prefix="afp-tests-settings-")

import pytest  # noqa: E402
# The tests' loads and requests run on threads of the test's own process (app/loading/in_process.py), where the
# engine imports numpy (search); imported here, on the main thread before any test, two of them never import it at
# once (numpy then fails as "partially initialized"). The window's own process never imports it.
import numpy  # noqa: E402,F401

from tests.corpus_util import SCENARIOS


@pytest.fixture(autouse=True)
def _loads_in_process(monkeypatch):
    """Windows load in a thread of the test's own process (many tests change the core here, which an engine process
    would not see); the tests of the engine process (test_engine_*.py) set this back."""
    from afp_desktop.app.loading import loader

    monkeypatch.setattr(loader, "IN_PROCESS", True)


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """Keep every test away from the real user's settings, recent files and template maps."""
    home = tmp_path_factory.mktemp("afp-settings")
    monkeypatch.setenv("AFP_DESKTOP_CONFIG_DIR", str(home))
    yield


@pytest.fixture(params=SCENARIOS)
def scenario(request):
    return request.param


@pytest.fixture
def restore_app_look(qapp):
    """The application's palette, style, colour scheme and theme notifier put back after a test that switches the
    theme (the notifier says "changed" only when the theme differs from the one it last applied)."""
    from PySide6.QtGui import QPalette

    from afp_desktop.app.look import theme

    palette, style = QPalette(qapp.palette()), qapp.style().name()
    notifier = theme.theme_notifier(qapp)
    chosen = (notifier.mode, notifier.effective)
    yield qapp
    hints = qapp.styleHints()
    if hasattr(hints, "unsetColorScheme"):
        hints.unsetColorScheme()
    qapp.setStyle(style)
    qapp.setPalette(palette)
    notifier = theme.theme_notifier(qapp)
    notifier.mode, notifier.effective = chosen


def _shown_window(qtbot):
    from afp_desktop.app.shell.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.follow.stop()
    win.loader.abandon()
    win.loader.wait()


@pytest.fixture
def window(qtbot):
    """The main window, shown at 1400×900 and exposed; its following and its loader stopped afterwards. (A test file that needs
    another window defines its own `window`.)"""
    yield from _shown_window(qtbot)


@pytest.fixture
def engine_window(qtbot, monkeypatch):
    """The main window as `window`, but loading through the engine process as the app does (tests load in a thread
    of their own process otherwise: `loader.IN_PROCESS`)."""
    from afp_desktop.app.loading import loader

    monkeypatch.setattr(loader, "IN_PROCESS", False)
    yield from _shown_window(qtbot)
