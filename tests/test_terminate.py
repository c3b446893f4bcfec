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


def test_an_app_closed_during_its_window_imports_ends_cleanly(tmp_path):
    """Closed between two pieces of the window's imports (numpy in, pyqtgraph not yet), the app ends at once and
    cleanly: the imports are pieces on the window's thread, none is half done when the event loop stops (a thread
    that imported numpy beside the window left it half imported at the interpreter's teardown, which crashed)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", AFP_DESKTOP_CONFIG_DIR=str(tmp_path))
    code = ("import sys\nfrom afp_desktop.app.shell import gui\nfrom afp_desktop.app.pacing import window_imports\n"
            "real_step = window_imports.WindowImports._step\n"
            "def step(imports):\n"
            "    real_step(imports)\n"
            "    if imports.ran[-1:] == ['import numpy']:\n"
            "        print('NUMPY IN', flush=True)\n"
            "        app.quit()  # closed while the imports are under way\n"
            "window_imports.WindowImports._step = step\n"
            "app = gui.create_application()\n"
            "code = gui.run_gui(None)\n"
            "print('PYQTGRAPH', 'pyqtgraph' in sys.modules, flush=True)\n"
            "sys.exit(code)\n")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "NUMPY IN" in done.stdout and "PYQTGRAPH False" in done.stdout
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
