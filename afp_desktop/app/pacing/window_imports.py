"""numpy and pyqtgraph are imported on the window's thread only, a piece per turn of its event loop.

The rule, in the window's process: numpy and pyqtgraph, and what they import, are imported by the window's thread,
as pieces run by the window's queue of deferred work (scheduler.py), one piece per turn, from the window's first
frame on (`start`). Two threads importing numpy at once leave it "partially initialized"; pyqtgraph's import reads
every Qt type and defines Qt subclasses, which on another thread, while the window runs, crashes the app.

A thread beside the window imports neither; each waits for numpy's piece or needs none:
- a run received from the engine (loading/received_runs.py) may hold arrays: its unpickling works only while the
  window's thread waits for it, and is given its first slice once numpy's piece has run (`numpy_imported`);
- a load or a request answered in the window's process (loading/in_process.py: a part of a big file shown while
  the rest is read, the tests' loads) waits while the pieces are under way until numpy's has run
  (`wait_for_numpy`); the tests import numpy and pyqtgraph on the main thread before any test;
- once the application quits no piece runs any more, and nothing waits for one.

The pieces, in order: numpy; the Qt types pyqtgraph reads (PySide6 makes each on first read), QT_NAMES_PER_PIECE per
piece; the modules outside pyqtgraph it imports, one per piece; pyqtgraph. A package's import (numpy's, pyqtgraph's)
cannot be cut, as a package's modules import only after it: what can be done before it is, in pieces of its own
(`_package_in_pieces`): its modules' source read into `linecache`, which PySide6's import hook reads for every
module that imports, and their code read, so that the import only runs it. `when_imported` calls what waits for
them (the timeline's build) once the last has run.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import linecache
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType

from PySide6.QtCore import QCoreApplication

from afp_desktop.app.pacing import scheduler
from afp_desktop.engine.collector import collector_paused

NUMPY = "numpy"
PYQTGRAPH = "pyqtgraph"
QT_NAMES_PER_PIECE = 30
SOURCES_PER_PIECE = 40
CODES_PER_PIECE = 40
# Modules outside pyqtgraph that its import brings in. One that is not installed is left to pyqtgraph, which tells a
# missing one it needs from one it can do without.
PYQTGRAPH_IMPORTS = ("subprocess", "pydoc", "multiprocessing.connection", "xml.etree.ElementTree", "cProfile",
                     "numpy.typing", "PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets", "PySide6.QtTest", "PySide6.QtSvg", "colorama")
# Each package's folders that its import never reads (their modules are neither read nor prepared beforehand).
SKIPPED_FOLDERS = {
    NUMPY: ("tests", "f2py", "_pyinstaller", "testing", "typing", "distutils", "random", "fft", "polynomial", "ma",
            "_examples", "doc"),
    PYQTGRAPH: ("examples", "opengl", "flowchart", "dockarea", "exporters", "jupyter", "console"),
}
WAIT_STEP_S = 0.05  # a job waiting for numpy looks at its stop flag this often


def imported(name: str) -> bool:
    return name in sys.modules


def _import(name: str) -> None:
    importlib.import_module(name)


def _import_if_installed(name: str) -> None:
    try:
        _import(name)
    except ImportError:
        pass


def _qt_names() -> list[tuple[object, str]]:
    from PySide6 import QtCore, QtGui, QtWidgets

    return [(module, name) for module in (QtCore, QtGui, QtWidgets) for name in dir(module)
            if not name.startswith("_")]


def _package_sources(package: str) -> list[tuple[str, str]]:
    """(module name, source path) of each module of `package` but those in its SKIPPED_FOLDERS."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    skipped = set(SKIPPED_FOLDERS.get(package, ()))
    modules: list[tuple[str, str]] = []
    for top in spec.submodule_search_locations:
        for folder, subfolders, files in os.walk(top):
            subfolders[:] = sorted(name for name in subfolders if name not in skipped and name != "__pycache__")
            parts = Path(folder).relative_to(top).parts
            for file in sorted(files):
                if file.endswith(".py"):
                    stem = file[:-len(".py")]
                    names = parts if stem == "__init__" else (*parts, stem)
                    modules.append((".".join((package, *names)), os.path.join(folder, file)))
    return modules


def _read_code(name: str, path: str) -> CodeType | None:
    """The module's code, from its cached bytecode when that is up to date (compiled from the source otherwise), as
    its import would read it; None if it cannot be read (its import then says why)."""
    try:
        return importlib.machinery.SourceFileLoader(name, path).get_code(name)
    except (ImportError, OSError, SyntaxError, ValueError):
        return None


class _PreparedLoader(importlib.machinery.SourceFileLoader):
    """A module's loader that runs the code read beforehand instead of reading it again."""

    def __init__(self, name: str, path: str, code: CodeType) -> None:
        super().__init__(name, path)
        self._code: CodeType | None = code

    def get_code(self, fullname: str) -> CodeType:  # type: ignore[override]
        code, self._code = self._code, None
        return code if code is not None else super().get_code(fullname)


class _PreparedCode(importlib.abc.MetaPathFinder):
    """Finds the modules of `package` as the import system would, with the code read beforehand as their loader's."""

    def __init__(self, package: str, codes: dict[str, CodeType]) -> None:
        self._package = package
        self._codes = codes

    def find_spec(self, fullname, path, target=None):  # noqa: ANN001 - the import system's signature
        if fullname.partition(".")[0] != self._package:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        code = self._codes.pop(spec.origin, None) if spec is not None and spec.origin else None
        if code is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None  # (the import system looks as it would have)
        spec.loader = _PreparedLoader(fullname, spec.origin, code)
        return spec


@contextmanager
def _prepared_code(package: str, codes: dict[str, CodeType]) -> Iterator[None]:
    finder = _PreparedCode(package, codes)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _package_in_pieces(package: str) -> Iterator[str]:
    """`package` imported, a piece per step: the source of its modules read into `linecache` (PySide6's import hook
    reads the source of every module that imports, through it), their code read (the bytecode's reading and
    unmarshalling), then the import itself, which runs that code. The lines and code are dropped once it is in."""
    modules = _package_sources(package)
    yield f"{package}'s modules listed"
    codes: dict[str, CodeType] = {}
    try:
        for first in range(0, len(modules), SOURCES_PER_PIECE):
            for _name, path in modules[first:first + SOURCES_PER_PIECE]:
                linecache.getlines(path)
            yield f"{package}'s sources read"
        for first in range(0, len(modules), CODES_PER_PIECE):
            for name, path in modules[first:first + CODES_PER_PIECE]:
                code = _read_code(name, path)
                if code is not None:
                    codes[path] = code
            yield f"{package}'s code read"
        with _prepared_code(package, codes):
            _import(package)
        yield f"import {package}"
    finally:
        codes.clear()
        for _name, path in modules:  # (read for the import alone)
            linecache.cache.pop(path, None)


def pieces() -> Iterator[str]:
    """The imports, a piece per step: each step does one piece's work, then yields the piece's name."""
    try:
        if not imported(NUMPY):
            for name in _package_in_pieces(NUMPY):
                if name == f"import {NUMPY}":
                    _numpy_done.set()
                yield name
    finally:  # (numpy's piece has run, even if it failed: what waits for it goes on, and says what is wrong)
        _numpy_done.set()
    if imported(PYQTGRAPH):  # (its import has read the Qt types and imported what it needs)
        return
    names = _qt_names()
    for first in range(0, len(names), QT_NAMES_PER_PIECE):
        for module, name in names[first:first + QT_NAMES_PER_PIECE]:
            getattr(module, name, None)
        yield "Qt types"
    for name in PYQTGRAPH_IMPORTS:
        if not imported(name):
            _import_if_installed(name)
            yield f"import {name}"
    yield from _package_in_pieces(PYQTGRAPH)


_numpy_done = threading.Event()  # numpy's piece has run: numpy is in, whole
_event_loop_ended = threading.Event()  # the application quits: no piece runs any more


class WindowImports:
    """Runs `pieces()` on the window's thread, one per turn of `queue`."""

    def __init__(self, queue: scheduler.TurnQueue | None = None) -> None:
        self._queue = queue
        self._pieces: Iterator[str] | None = None
        self._done = False
        self._waiting: list[Callable[[], None]] = []
        self.ran: list[str] = []  # the names of the pieces run, in order

    @property
    def queue(self) -> scheduler.TurnQueue:
        return self._queue if self._queue is not None else scheduler.turns()

    @property
    def started(self) -> bool:
        return self._pieces is not None

    @property
    def done(self) -> bool:
        return self._done

    def start(self) -> None:
        """Begin the pieces, the first on a later turn (once: asked again, nothing changes)."""
        if self._pieces is None:
            if imported(NUMPY):  # (imported on this thread before: whole, as no other thread imports it)
                _numpy_done.set()
            self._pieces = pieces()
            self.queue.later((self, "piece"), self._next_piece)

    def when_imported(self, call: Callable[[], None]) -> None:
        """Call `call` once every piece has run (now, if they have), starting them if they were not."""
        if self._done:
            call()
            return
        self._waiting.append(call)
        self.start()

    def finish_now(self) -> None:
        """Run what is left of the pieces now (a picture taken, or a panel asked for at once)."""
        self.start()
        self.queue.cancel((self, "piece"))
        while not self._done:
            self._step()

    def _next_piece(self) -> None:
        try:
            self._step()
        finally:  # (a piece that failed has ended the pieces: the next step says they are done)
            if not self._done:
                self.queue.later((self, "piece"), self._next_piece)

    def _step(self) -> None:
        assert self._pieces is not None
        with collector_paused():  # (what a piece imports lives as long as the app: frozen out of the collector's way)
            name = next(self._pieces, None)
        if name is not None:
            self.ran.append(name)
            return
        self._done = True
        waiting, self._waiting = self._waiting, []
        for call in waiting:
            call()


_imports: WindowImports | None = None


def window_imports() -> WindowImports:
    """The application's imports (made on first use, on the window's thread)."""
    global _imports
    if _imports is None:
        _imports = WindowImports()
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(_event_loop_ended.set)
    return _imports


def start() -> None:
    """The pieces begin (the window calls this once its first frame is painted)."""
    window_imports().start()


def numpy_imported() -> bool:
    """numpy's piece has run (numpy is whole in sys.modules): a thread beside the window may use it."""
    return _numpy_done.is_set()


def wait_for_numpy(stopped: Callable[[], bool] = lambda: False) -> None:
    """On a thread beside the window: return once numpy's piece has run, or at once when the pieces have not begun
    (no window imports anything then), or once `stopped()` says the job is to stop, or the application quits (the
    window's thread, which may be waiting for the job, runs no piece any more)."""
    if threading.current_thread() is threading.main_thread():
        return  # (the window's thread runs the pieces: it never waits for them)
    while _imports is not None and _imports.started and not _numpy_done.wait(WAIT_STEP_S):
        if stopped() or _event_loop_ended.is_set():
            return
