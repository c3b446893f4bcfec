"""Random sequences of what a user does in the window, run for a long time: files opened (and opened again
before the last one has loaded), every menu action, the cursor moved, keys, resizes, Find, the window closed
and made anew, compare windows closed while they compare, a followed stream written, cut mid-line and
truncated. No exception may reach a Qt slot or a thread, and the process must not abort. Each action is
written to the log before it runs, so the trail of a crash of the process itself is kept.

    .venv/bin/python bench/fuzz_actions.py [ACTIONS] [SEED] [LOG]

Dialogs are answered "cancel" at once (file pickers, message boxes, text prompts): what is fuzzed is the
window, not a person's answers. Found so far: a window deleted while its Find index was built aborted the
program; a payload check that ended after its window was deleted raised in its thread.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import threading
import time
import traceback

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("AFP_DESKTOP_CONFIG_DIR", tempfile.mkdtemp())

from PySide6.QtCore import QCoreApplication, QEvent, QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QAction, QKeyEvent, QWheelEvent  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QApplication,
    QDialog,
    QFileDialog,
    QInputDialog,
    QMessageBox,
    QWidget,
)

from afp_desktop.app.shell.gui import create_application  # noqa: E402
from afp_desktop.app.shell.main_window import MainWindow  # noqa: E402

TEXTS = ["{{toolName}}", "Running {{toolName", "}}{{", "ß∑😀", "a" * 300, "\t", "{{#if x}}y{{/if}}", "1m20s", "e300",
         "i5", "stop 7", "(", ".*", "<b>bold</b>", "", "\\", "{{ }}"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_FUZZED = {"&Quit"}  # (the window is closed by the fuzz itself, and made anew)
KEYS = [Qt.Key.Key_Right, Qt.Key.Key_Left, Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_Space, Qt.Key.Key_C,
        Qt.Key.Key_Backspace, Qt.Key.Key_Escape, Qt.Key.Key_Return, Qt.Key.Key_Tab, Qt.Key.Key_PageDown,
        Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_A, Qt.Key.Key_1]


def trace_files() -> list[str]:
    found = []
    for folder in (os.path.join(ROOT, "sample_traces"), os.path.join(ROOT, "tests", "corpus")):
        for base, _dirs, names in os.walk(folder):
            found += [os.path.join(base, n) for n in names
                      if n.endswith((".json", ".ndjson", ".jsonl", ".xz", ".zip")) and not n.startswith("ref.")]
    return sorted(found)


def answer_every_dialog_cancel() -> None:
    QDialog.exec = lambda self: (self.reject(), 0)[1]
    QFileDialog.getOpenFileName = staticmethod(lambda *a, **k: ("", ""))
    QFileDialog.getOpenFileNames = staticmethod(lambda *a, **k: ([], ""))
    QFileDialog.getSaveFileName = staticmethod(lambda *a, **k: ("", ""))
    QFileDialog.getExistingDirectory = staticmethod(lambda *a, **k: "")
    for name in ("information", "warning", "critical", "question"):
        setattr(QMessageBox, name, staticmethod(lambda *a, **k: QMessageBox.StandardButton.Cancel))
    QMessageBox.about = staticmethod(lambda *a, **k: None)
    QInputDialog.getText = staticmethod(lambda *a, **k: ("", False))
    QInputDialog.getMultiLineText = staticmethod(lambda *a, **k: ("", False))
    QInputDialog.getItem = staticmethod(lambda *a, **k: ("", False))
    QInputDialog.getInt = staticmethod(lambda *a, **k: (0, False))
    QInputDialog.getDouble = staticmethod(lambda *a, **k: (0.0, False))


def type_text(target, text: str) -> None:
    """Key presses carrying `text` (QTest.keyClicks takes ASCII only: it asserts on other characters)."""
    for char in text:
        if char.isascii():
            QTest.keyClicks(target, char)
        else:
            for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                QApplication.sendEvent(target, QKeyEvent(kind, 0, Qt.KeyboardModifier.NoModifier, char))


def menu_actions(window) -> list[QAction]:
    found = []

    def walk(menu) -> None:
        for action in menu.actions():
            if action.menu():
                walk(action.menu())
            elif not action.isSeparator() and action.text() not in NOT_FUZZED:
                found.append(action)

    for top in window.menuBar().actions():
        if top.menu():
            walk(top.menu())
    return found


class Fuzz:
    def __init__(self, app, seed: int, log) -> None:
        self.app, self.random, self.log = app, random.Random(seed), log
        self.files = trace_files()
        self.window = self.new_window()
        self.folder = tempfile.mkdtemp()
        self.growing: str | None = None
        self.growing_lines: list[bytes] = []
        self.written = 0

    def new_window(self) -> MainWindow:
        window = MainWindow(restore_layout=False)
        window.resize(self.random.choice([(1400, 900), (900, 600), (1920, 1080), (640, 480)])[0], 800)
        window.show()
        return window

    def grow(self) -> None:
        """A stream written while it is shown: the first time, a part of a corpus stream opened with Follow on;
        then more of its lines (sometimes cut mid-line), or the file truncated and written anew."""
        r = self.random
        if self.growing is None or r.random() < 0.2:
            source = r.choice([f for f in self.files if f.endswith(".ndjson")])
            with open(source, "rb") as handle:
                self.growing_lines = handle.read().splitlines(keepends=True)
            self.growing = os.path.join(self.folder, f"growing-{r.randrange(1 << 20)}.ndjson")
            self.written = r.randrange(1, max(2, len(self.growing_lines)))
            with open(self.growing, "wb") as handle:
                handle.writelines(self.growing_lines[:self.written])
            self.note(f"grow: new file {self.growing} from {source}, {self.written} lines, opened to follow")
            self.window.open_file(self.growing, follow=True)
            return
        how = r.choice(["lines", "lines", "half a line", "truncate"])
        self.note(f"grow: {how}")
        if how == "truncate":
            with open(self.growing, "wb") as handle:
                handle.writelines(self.growing_lines[:r.randrange(0, 3)])
            return
        more = self.growing_lines[self.written:self.written + r.randrange(1, 40)]
        self.written += len(more)
        data = b"".join(more)
        if how == "half a line" and data:
            data = data[:r.randrange(len(data))]
        with open(self.growing, "ab") as handle:
            handle.write(data)

    def note(self, text: str) -> None:
        self.log.write(text + "\n")
        self.log.flush()

    def wait(self, ms: int) -> None:
        end = time.monotonic() + ms / 1000
        while True:
            self.app.processEvents()
            if time.monotonic() >= end:
                return
            time.sleep(0.002)

    def step(self) -> None:
        w, r = self.window, self.random
        kind = r.choices(["open", "action", "move", "key", "wait", "resize", "find", "renew", "stop-key", "compare",
                          "grow", "focus", "type", "click", "wheel"],
                         [12, 30, 20, 15, 8, 3, 4, 2, 5, 2, 4, 6, 6, 10, 3])[0]
        if kind == "open":
            path = r.choice(self.files)
            self.note(f"open {path}")
            w.open_file(path)
        elif kind == "action":
            action = r.choice(menu_actions(w))
            self.note(f"action {action.text()!r} enabled={action.isEnabled()}")
            if action.isEnabled():
                action.trigger()
        elif kind == "move":
            stops = len(w.session.stops) if w.session.run is not None else 0
            if stops:
                stop = r.randrange(stops)
                self.note(f"move {stop}")
                w.session.move_to_stop(stop)
        elif kind in ("key", "stop-key"):
            key = r.choice(KEYS[:7] if kind == "stop-key" else KEYS)
            target = QApplication.focusWidget() or w
            self.note(f"key {key.name} to {type(target).__name__}")
            QTest.keyClick(target, key)
        elif kind == "wait":
            ms = r.choice([1, 20, 100, 400, 1500])
            self.note(f"wait {ms}")
            self.wait(ms)
        elif kind == "resize":
            size = (r.randrange(300, 2000), r.randrange(250, 1300))
            self.note(f"resize {size}")
            w.resize(*size)
        elif kind == "find":
            text = r.choice(["tool", "LLM", "weather", "ß", "(", ".*", "", "zzzz"])
            self.note(f"find {text!r}")
            from afp_desktop.app.features.find_and_bookmarks import show_find

            show_find(w)
            w.panels["find"].search_box.setText(text)
        elif kind == "compare":
            a, b = r.choice(self.files), r.choice(self.files)
            ms = r.choice([0, 10, 200, 1500])
            self.note(f"compare {a} with {b}, closed after {ms} ms")
            from afp_desktop.app.compare.compare_window import CompareWindow

            other = CompareWindow()
            other.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            other.show()
            other.open_paths(a, b)
            self.wait(ms)
            other.close()
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        elif kind == "grow":
            self.grow()
        elif kind == "focus":  # a visible widget that takes the keyboard: the next keys and text go there
            widgets = [x for x in w.findChildren(QWidget) if x.isVisible() and x.isEnabled()
                       and x.focusPolicy() != Qt.FocusPolicy.NoFocus]
            if widgets:
                target = r.choice(widgets)
                self.note(f"focus {type(target).__name__} {target.objectName()!r}")
                target.setFocus()
        elif kind in ("click", "wheel"):  # somewhere on a visible widget: cards, markers, rows, buttons, tabs
            widgets = [x for x in w.findChildren(QWidget) if x.isVisible() and x.width() > 2 and x.height() > 2]
            if widgets:
                target = r.choice(widgets)
                at = QPoint(r.randrange(target.width()), r.randrange(target.height()))
                how = r.choice(["click", "double", "right"]) if kind == "click" else "wheel"
                self.note(f"{how} {type(target).__name__} {target.objectName()!r} at {at.x()},{at.y()}")
                if how == "click":
                    QTest.mouseClick(target, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
                elif how == "double":
                    QTest.mouseDClick(target, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
                elif how == "right":  # (a context menu would wait for a choice: the press alone)
                    QTest.mousePress(target, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, at)
                    QTest.mouseRelease(target, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, at)
                else:
                    delta = r.choice([-480, -120, 120, 480])
                    event = QWheelEvent(QPointF(at), QPointF(target.mapToGlobal(at)), QPoint(0, 0), QPoint(0, delta),
                                        Qt.MouseButton.NoButton, r.choice([Qt.KeyboardModifier.NoModifier,
                                                                           Qt.KeyboardModifier.ControlModifier]),
                                        Qt.ScrollPhase.NoScrollPhase, False)
                    QApplication.sendEvent(target, event)
        elif kind == "type":
            target = QApplication.focusWidget()
            text = r.choice(TEXTS)
            self.note(f"type {text!r} into {type(target).__name__}")
            if target is not None:
                type_text(target, text)
        elif kind == "renew":
            self.note("close and delete the window, make a new one")
            w.close()
            w.deleteLater()
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            self.window = self.new_window()
        self.wait(r.choice([0, 0, 1, 5, 30]))


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.randrange(1 << 30)
    log_path = sys.argv[3] if len(sys.argv) > 3 else os.path.join(tempfile.gettempdir(), "afp-fuzz-actions.log")
    app = create_application()
    answer_every_dialog_cancel()
    errors: list[str] = []
    sys.excepthook = lambda kind, value, tb: errors.append("".join(traceback.format_exception(kind, value, tb)))
    threading.excepthook = lambda args: errors.append(
        f"in thread {args.thread.name}: " + "".join(traceback.format_exception(args.exc_type, args.exc_value,
                                                                              args.exc_traceback)))
    print(f"seed {seed}, {count} actions, log {log_path}", flush=True)
    started = time.perf_counter()
    with open(log_path, "w") as log:
        fuzz = Fuzz(app, seed, log)
        for number in range(count):
            fuzz.note(f"# {number}")
            fuzz.step()
            if errors:
                print(f"after action {number} (see the log's end):\n{errors[0]}", flush=True)
                return 1
        fuzz.note("close")
        fuzz.window.close()
        fuzz.wait(50)
    if errors:
        print(errors[0])
        return 1
    print(f"{count} actions in {time.perf_counter() - started:.0f} s: no error", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
