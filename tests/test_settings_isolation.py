"""The test suite never writes to the real user's settings, not even between tests: a widget's timer that fires
after its test (pytest-qt serves the event loop between tests, and at the end) finds the suite's own folder. (A
run of the suite once wrote a test's template map to the real one, ~/.config/afp-desktop/status-templates.json.)"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import platformdirs

from afp_desktop.app.storage import storage


def test_between_tests_the_settings_still_go_to_a_folder_of_the_suites_own(monkeypatch):
    monkeypatch.undo()  # the settings as they are before and after each test (the per-test folder undone)
    folder = os.environ.get("AFP_DESKTOP_CONFIG_DIR")
    assert folder, "between tests the settings would go to the real user's folder"
    assert Path(folder).resolve().is_relative_to(Path(tempfile.gettempdir()).resolve())
    real = Path(platformdirs.user_config_dir(storage.APP_DIR_NAME, appauthor=False))
    assert storage.config_dir() != real
