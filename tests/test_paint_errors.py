"""An error while one of our widgets paints is reported, never a crash.

A QPainter still active when a paint event returns (an exception left it referenced by the traceback) makes Qt
abort the process: "endPaint() called with active painter", then a segmentation fault. Every painter the app
opens is ended however its block is left (`with QPainter(...) as painter:`)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bare_painters(source: str) -> list[int]:
    """Lines where a QPainter is made other than as a `with` statement's context (or handed to a try/finally)."""
    tree = ast.parse(source)
    in_with = {id(item.context_expr) for node in ast.walk(tree) if isinstance(node, ast.With) for item in node.items}
    ended_in_finally = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and node.finalbody and any(
                isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "end"
                for statement in node.finalbody for call in ast.walk(statement)):
            ended_in_finally.add(node.lineno - 1)  # the painter made on the line before the try
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "QPainter"
            and id(node) not in in_with and node.lineno not in ended_in_finally]


def test_every_painter_the_app_opens_is_ended_whatever_happens():
    found = {str(path.relative_to(ROOT)): lines for path in sorted((ROOT / "afp_desktop").rglob("*.py"))
             if (lines := _bare_painters(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_check_finds_a_bare_painter():
    assert _bare_painters("def paintEvent(self, e):\n    painter = QPainter(self)\n    painter.end()\n") == [2]
    assert _bare_painters("def paintEvent(self, e):\n    with QPainter(self) as painter:\n        pass\n") == []


def test_a_widget_whose_paint_fails_is_reported_and_the_app_goes_on():
    """An id label whose paint raises (in a process of its own: before, this was a segmentation fault)."""
    script = textwrap.dedent("""
        from PySide6.QtCore import QTimer
        from afp_desktop.app.shell.gui import create_application
        from afp_desktop.app.widgets.copy_id import IdLabel
        app = create_application()
        painted = []
        def failing(self):
            painted.append(1)
            raise ValueError("a broken id")
        IdLabel.elided = failing
        label = IdLabel("run-1")
        label.resize(120, 20)
        label.show()
        timer = QTimer()
        timer.timeout.connect(label.update)
        timer.start(10)
        QTimer.singleShot(400, app.quit)
        app.exec()
        print("still running after", len(painted), "failed paints")
    """)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "still running after" in result.stdout and " 0 failed" not in result.stdout
    assert "a broken id" in result.stderr  # reported
