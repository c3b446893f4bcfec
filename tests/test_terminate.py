"""SIGTERM (a session logout) closes the window the way the user would: the layout is saved (issue 15)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32",
                                reason="POSIX signals")


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_terminated_app_saves_its_layout(tmp_path, sig):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", AFP_DESKTOP_CONFIG_DIR=str(tmp_path))
    # A marker line once the window is up and the handlers are in (the event loop is running).
    code = ("import sys\nfrom PySide6.QtCore import QTimer\nfrom afp_desktop.app.shell import gui\n"
            "gui.create_application()\n"
            "QTimer.singleShot(500, lambda: print('UP', flush=True))\n"
            "sys.exit(gui.run_gui(None))\n")
    process = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([process.stdout], [], [], 60)  # never block for ever on a hung start
        assert ready and "UP" in process.stdout.readline(), "the app did not start"
        process.send_signal(getattr(signal, sig))
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    settings = json.loads((tmp_path / "settings.json").read_text())
    assert settings.get("dock_state") and settings.get("geometry")
