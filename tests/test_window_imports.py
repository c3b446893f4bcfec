"""numpy and pyqtgraph are imported on the window's thread alone, a piece per turn (app/pacing/window_imports.py).

A thread that imported numpy beside the window raced the loader's own import ("partially initialized module
'numpy'": `afp-desktop FILE --follow` failed at start), and held Python's lock away from the window meanwhile.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from afp_desktop.app.pacing import scheduler, window_imports
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
def test_a_real_start_up_imports_numpy_and_pyqtgraph_on_the_window_thread_alone(tmp_path, follow):
    name = "events.ndjson" if follow else "recording.json.xz"
    path = _sample(tmp_path, "02-react-two-tools", name)
    loads = _start_up_loads(tmp_path, str(path), *(["--follow"] if follow else []))
    packages = {name.split(".")[0] for name, _thread, _main in loads}
    assert packages == {"numpy", "pyqtgraph"}  # (the audit saw their modules loaded)
    assert [(name, thread) for name, thread, main in loads if not main] == []


def test_the_pieces_come_one_a_turn_numpy_first_and_the_qt_types_in_several(qapp, monkeypatch):
    """Driven by a ManualClock, a turn at a time: numpy's sources and code read in pieces, then its import; the Qt
    types pyqtgraph reads, QT_NAMES_PER_PIECE a turn; the modules it imports; pyqtgraph's own pieces, its import
    last. What waits for them is called after the last."""
    from PySide6 import QtCore

    read: list[str] = []
    imported: list[str] = []
    code_read: list[str] = []

    class Module:  # stands for QtCore, noting each name read
        def __getattr__(self, name):
            read.append(name)
            return getattr(QtCore, name)

    count = window_imports.QT_NAMES_PER_PIECE * 3 + 1
    modules = window_imports.SOURCES_PER_PIECE + 1
    monkeypatch.setattr(window_imports, "imported", lambda name: False)
    monkeypatch.setattr(window_imports, "_qt_names", lambda: [(Module(), "QObject")] * count)
    monkeypatch.setattr(window_imports, "_package_sources",
                        lambda package: [(f"{package}.part", f"/nowhere/{package}/part.py")] * modules)
    monkeypatch.setattr(window_imports, "_read_code", lambda name, path: code_read.append(name))
    monkeypatch.setattr(window_imports, "PYQTGRAPH_IMPORTS", ("colorsys",))
    monkeypatch.setattr(window_imports, "_import", lambda name: imported.append(name))
    monkeypatch.setattr(window_imports, "_numpy_done", window_imports.threading.Event())
    monkeypatch.setattr(window_imports, "CODES_PER_PIECE", window_imports.SOURCES_PER_PIECE)
    clock = scheduler.ManualClock()
    imports = window_imports.WindowImports(scheduler.TurnQueue(clock))
    called: list[int] = []
    imports.when_imported(lambda: called.append(len(imports.ran)))
    assert imports.ran == [] and imported == []  # (nothing before a turn)
    turns = []
    for _turn in range(1_000):  # (far more turns than the pieces)
        if imports.done:
            break
        clock.advance(scheduler.TURN_MS)  # (a turn)
        turns.append((imports.ran[-1] if imports.ran else None, len(read), list(imported),
                      window_imports.numpy_imported()))
    package = ["{}'s modules listed", "{}'s sources read", "{}'s sources read", "{}'s code read", "{}'s code read",
               "import {}"]
    assert imports.ran == ([piece.format("numpy") for piece in package] + ["Qt types"] * 4 + ["import colorsys"]
                           + [piece.format("pyqtgraph") for piece in package])
    assert [numpy_in for _piece, _read, _imported, numpy_in in turns].index(True) == package.index("import {}")
    assert [names for piece, names, _imported, _numpy in turns if piece == "Qt types"] == [
        window_imports.QT_NAMES_PER_PIECE * turn for turn in (1, 2, 3)] + [count]
    assert imported == ["numpy", "colorsys", "pyqtgraph"] and len(code_read) == 2 * modules
    assert called == [len(imports.ran)]


def test_a_run_received_from_the_engine_waits_for_numpys_piece(qapp, qtbot, monkeypatch, tmp_path):
    """The receive's unpickling thread is given no slice before numpy's piece has run (it may meet arrays): the
    window's turns come and go, and it asks for the pieces; once numpy is in, the receive goes on."""
    import threading

    from afp_desktop.app.loading import received_runs

    numpy_done = threading.Event()
    monkeypatch.setattr(window_imports, "_numpy_done", numpy_done)
    started: list[bool] = []
    monkeypatch.setattr(window_imports, "start", lambda: started.append(True))
    receive = received_runs.SlicedReceive("loaded", str(tmp_path / "missing.spill"))  # (read: it fails, run None)
    received: list[str] = []
    receive.received.connect(lambda kind, run: received.append(kind))
    receive.start()
    for _turn in range(20):  # (the unpickling thread cannot go on without a slice: no race)
        qapp.processEvents()
    assert received == [] and started
    numpy_done.set()
    qtbot.waitUntil(lambda: received == ["loaded"], timeout=10_000)
    assert receive.wait()


def test_a_job_off_the_windows_thread_waits_for_numpy_until_asked_to_stop(qapp, monkeypatch):
    import threading

    monkeypatch.setattr(window_imports, "_numpy_done", threading.Event())
    monkeypatch.setattr(window_imports, "imported", lambda name: False)  # (as in a fresh process)
    imports = window_imports.WindowImports(scheduler.TurnQueue(scheduler.ManualClock()))
    imports.start()  # (under way: its first piece waits for a turn that never comes here)
    monkeypatch.setattr(window_imports, "_imports", imports)
    stop, order = threading.Event(), []

    def job() -> None:
        window_imports.wait_for_numpy(stop.is_set)
        order.append("stopped" if stop.is_set() else "ran")

    worker = threading.Thread(target=job)
    worker.start()
    worker.join(0.2)  # (not a timing check: the job must still be waiting whatever this wait is)
    assert order == []
    stop.set()
    worker.join(60)
    assert order == ["stopped"]


def test_a_request_answered_in_the_windows_process_waits_for_numpys_piece_first(qapp, qtbot, monkeypatch):
    """A followed file's requests are answered on a thread of the window's process, and an answer may import numpy
    (search, the timeline's figures): the thread waits for numpy's piece (`wait_for_numpy`, whose waiting the test
    above shows) before it answers."""
    from afp_desktop.app.loading.in_process import ThreadRequests

    order: list[str] = []
    monkeypatch.setattr(window_imports, "wait_for_numpy", lambda stopped: order.append("waited for numpy"))
    requests = ThreadRequests()
    real_answer = requests.engine.answer
    monkeypatch.setattr(requests.engine, "answer", lambda kind, args: (order.append(kind), real_answer(kind, args))[1])
    replies: list[str] = []
    requests.replied.connect(lambda _id, kind, _value: replies.append(kind))
    requests.request("find", "find", {"query": "x"}, None)
    qtbot.waitUntil(lambda: replies != [], timeout=10_000)
    assert order == ["waited for numpy", "find"]
    qtbot.waitUntil(requests.idle, timeout=10_000)  # (deleted with a thread still running, it takes the test down)


def test_a_piece_that_fails_ends_the_pieces_and_what_waits_goes_on(qapp, monkeypatch):
    """numpy not importable (a broken install): its piece fails, and on the next turn the pieces are done, so that
    what waits for them (the timeline, a received run) goes on and says what is wrong instead of waiting forever."""
    import threading

    def fail(name: str) -> None:
        raise ImportError(f"no {name}")

    monkeypatch.setattr(window_imports, "imported", lambda name: False)
    monkeypatch.setattr(window_imports, "_package_sources", lambda package: [])
    monkeypatch.setattr(window_imports, "_import", fail)
    monkeypatch.setattr(window_imports, "_numpy_done", threading.Event())
    clock = scheduler.ManualClock()
    imports = window_imports.WindowImports(scheduler.TurnQueue(clock))
    called: list[bool] = []
    imports.when_imported(lambda: called.append(True))
    clock.advance(scheduler.TURN_MS)  # ("numpy's modules listed")
    with pytest.raises(ImportError):
        clock.advance(scheduler.TURN_MS)
    assert window_imports.numpy_imported() and not imports.done
    clock.advance(scheduler.TURN_MS)
    assert imports.done and called == [True]
