"""The window's process imports neither numpy nor a plotting library: the engine process reads and projects the
run, its copy for the window holds Python's own arrays, and the timeline draws with QPainter.

numpy's import held the window's thread 30–60 ms after its first frame, and a thread of the window's process that
imported numpy beside another raced it ("partially initialized module 'numpy'": `afp-desktop FILE --follow` failed at
start).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus_util import corpus_path

ROOT = Path(__file__).resolve().parents[1]

# A real `afp-desktop FILE [--follow]` in a fresh process, with an audit hook that notes which thread loads each
# module of numpy and pyqtgraph; it quits once the run is shown and the timeline built, and prints the notes.
START_UP_WATCH = r"""
import json, sys, threading
loads = []

def note(event, args):
    if event == "import" and str(args[0]).split(".")[0] in ("numpy", "pyqtgraph"):
        loads.append([str(args[0]), threading.current_thread().name, threading.current_thread() is threading.main_thread()])

sys.addaudithook(note)
from PySide6.QtCore import QTimer
from afp_desktop.app.shell import gui

real_show = gui.show_main_window

def show_main_window():
    window = real_show()

    def quit_when_shown():
        if window.session.run is not None and window.timeline.built and not window.loader.busy:
            window.close()
    QTimer(window, interval=20, timeout=quit_when_shown).start()
    return window

gui.show_main_window = show_main_window
from afp_desktop.cli import main
sys.argv = ["afp-desktop", *sys.argv[1:]]
try:
    main()
finally:
    print("LOADS " + json.dumps(loads), flush=True)
"""


def _start_up_loads(tmp_path: Path, *args: str) -> list[list]:
    env = {"QT_QPA_PLATFORM": "offscreen", "AFP_DESKTOP_CONFIG_DIR": str(tmp_path / "settings"),
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", START_UP_WATCH, *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=180)
    lines = [line for line in done.stdout.splitlines() if line.startswith("LOADS ")]
    assert lines, f"the window did not start: {done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return json.loads(lines[-1][len("LOADS "):])


def _sample(tmp_path: Path, scenario: str, name: str) -> Path:
    source = corpus_path(scenario, name)
    target = tmp_path / name
    if source.suffix == ".xz":
        import lzma

        target.write_bytes(lzma.decompress(source.read_bytes()))
    else:
        target.write_bytes(source.read_bytes())
    return target


@pytest.mark.parametrize("follow", [False, True], ids=["open", "follow"])
def test_a_real_start_up_imports_no_numpy_nor_pyqtgraph_in_the_window_process(tmp_path, follow):
    name = "events.ndjson" if follow else "recording.json.xz"
    path = _sample(tmp_path, "02-react-two-tools", name)
    loads = _start_up_loads(tmp_path, str(path), *(["--follow"] if follow else []))
    assert loads == []


def test_the_watch_sees_numpy_imported_in_the_window_process(tmp_path):
    """The watch above can fail: a module of numpy imported by the window's process is seen (else the test above
    would pass whatever the window imported)."""
    path = _sample(tmp_path, "02-react-two-tools", "recording.json.xz")
    watch = START_UP_WATCH.replace("sys.addaudithook(note)\n", "sys.addaudithook(note)\nimport numpy\n")
    env = {"QT_QPA_PLATFORM": "offscreen", "AFP_DESKTOP_CONFIG_DIR": str(tmp_path / "settings"),
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", watch, str(path)], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=180)
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("LOADS ")]
    assert "numpy" in {name.split(".")[0] for name, _thread, _main in json.loads(line[len("LOADS "):])}
