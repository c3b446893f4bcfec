"""The window's first frame comes before what it does not show: the widgets' style and palette are set before the
widgets are made (set after them, every widget is polished again); the engine's link (multiprocessing,
engine/process.py) and what reads and receives a run are imported after the first frame, a module per turn
(app/pacing/open_imports.py), and the engine process is started after it too. Checked in a fresh interpreter, by
what it has imported and done, so an import added back anywhere on the window's path fails here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Imported after the window's first frame (open_imports.RUN_MODULES and what comes with them, or when first used:
# the shortcut overview), never before it.
AFTER_THE_FIRST_FRAME = (
    "multiprocessing", "multiprocessing.connection", "afp_desktop.engine.process", "afp_desktop.engine.service",
    "afp_desktop.core.formats.bundle", "afp_desktop.app.loading.received_runs", "afp_desktop.app.loading.follow_link",
    "afp_desktop.app.loading.in_process", "afp_desktop.core.views.window_copy",
    "afp_desktop.core.views.prepared_views", "afp_desktop.core.formats.bugreport",
    "afp_desktop.core.views.inspector_content", "afp_desktop.core.views.goto", "afp_desktop.app.shell.help_overlay",
    "afp_desktop.core.model.replay", "afp_desktop.core.views.inspect", "afp_desktop.core.views.run_facts",
    "afp_desktop.core.views.findings", "afp_desktop.core.views.pause_marks",
)

# In a fresh interpreter: the MainWindow made, noting how many widgets there were each time the style was set.
STYLE_SET = r"""
import json
from PySide6.QtWidgets import QApplication
from afp_desktop.app.shell import gui

app = gui.create_application()
widgets_then = []
real_set_style = QApplication.setStyle

def set_style(style):
    widgets_then.append(len(QApplication.allWidgets()))
    return real_set_style(style)

QApplication.setStyle = staticmethod(set_style)
from afp_desktop.app.shell.main_window import MainWindow

window = MainWindow()
print("SEEN " + json.dumps({"widgets_then": widgets_then, "widgets": len(QApplication.allWidgets()),
                            "style": type(app.style()).__name__}), flush=True)
"""

# In a fresh interpreter: the MainWindow made and shown, and the event loop run until its first paint (not after).
FIRST_FRAME = r"""
import json, sys
from PySide6.QtCore import QEvent, QObject, QTimer
from afp_desktop.app.shell import gui

app = gui.create_application()
seen = {}

class Watch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not seen and obj.isWidgetType() \
                and type(obj.window()).__name__ == "MainWindow":
            seen["modules"] = sorted(sys.modules)
            seen["engine_started"] = window.loader.loads.engine is not None
            app.quit()
        return False

watch = Watch()
app.installEventFilter(watch)
window = gui.show_main_window()
QTimer.singleShot(60_000, app.quit)
app.exec()
window.close()
print("SEEN " + json.dumps(seen), flush=True)
"""

# In a fresh interpreter: open_imports.import_then, its call noting what was imported by then.
OPEN_IMPORTS = r"""
import json, sys
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication
from afp_desktop.app.pacing import open_imports

app = QApplication([])
owner = QObject()
at_call = {}

def call():
    at_call.update({name: name in sys.modules for name in open_imports.OPEN_MODULES + open_imports.RUN_MODULES})

def done():
    if at_call and not open_imports.missing():
        app.quit()

open_imports.import_then(owner, call)
QTimer(owner, interval=10, timeout=done).start()
QTimer.singleShot(60_000, app.quit)
app.exec()
print("SEEN " + json.dumps({"at_call": at_call, "missing": open_imports.missing()}), flush=True)
"""


def _seen(script: str, tmp_path: Path) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "AFP_DESKTOP_CONFIG_DIR": str(tmp_path / "settings"),
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    lines = [line for line in done.stdout.splitlines() if line.startswith("SEEN ")]
    assert lines, f"the script did not finish: {done.stderr[-3000:]}"
    return json.loads(lines[-1][len("SEEN "):])


def test_the_style_is_set_once_before_the_windows_widgets_are_made(tmp_path):
    seen = _seen(STYLE_SET, tmp_path)
    assert seen["style"] == "FocusRingStyle" and seen["widgets"] > 100  # (the account is read right)
    assert len(seen["widgets_then"]) == 1 and seen["widgets_then"][0] <= 2  # (the window itself, at most)


def test_the_first_frame_imports_neither_the_engine_nor_a_runs_views(tmp_path):
    modules = set(_seen(FIRST_FRAME, tmp_path)["modules"])
    assert "afp_desktop.app.shell.main_window" in modules  # (the account is read right)
    assert sorted(modules.intersection(AFTER_THE_FIRST_FRAME)) == []


def test_the_engine_process_is_started_after_the_first_frame(tmp_path):
    assert _seen(FIRST_FRAME, tmp_path)["engine_started"] is False


def test_the_open_comes_once_what_starting_the_engine_needs_is_in_and_the_runs_modules_after_it(tmp_path):
    from afp_desktop.app.pacing import open_imports

    seen = _seen(OPEN_IMPORTS, tmp_path)
    assert seen["missing"] == []
    at_call = seen["at_call"]
    assert [name for name in open_imports.OPEN_MODULES if not at_call[name]] == []
    assert [name for name in open_imports.RUN_MODULES if at_call[name]] == []
