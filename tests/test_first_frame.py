"""The window's first frame comes before what it does not show: the widgets' style and palette are set before the
widgets are made (set after them, every widget is polished again). Checked in a fresh interpreter, where nothing
has set them before the window."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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
