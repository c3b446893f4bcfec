"""Loading a run beside the window, with progress and Cancel.

`RunLoader.start(path)` has the engine read the run and compute its projections (axis, stops, step graph fold,
status states; engine/service.py), so the window receives a Run it can show at once. The engine runs in a process
of its own (engine_link.py): a crash there leaves the window up (`engine_ended`). Results come back as signals on
the UI thread: progress(0..1) and, for a big file, prefix(run) with the runs of its first events while the rest is
read (core/formats/prefixes.py), then exactly one of loaded(run), failed(message), cancelled(),
conversation_needed(path, conversations) for a bug-report bundle of several opened without a choice, or
engine_ended(path, how) when the engine process ended during the load.
Starting a new load abandons the one in flight; a superseded load's signals are dropped, never delivered late.
Tests that change the core in this process load in a thread of it instead (IN_PROCESS, in_process.py).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from afp_desktop.app.pacing.scheduler import on_a_light_turn

# After the window has shown a part, a load in this process goes on once the window has painted it
# (RunLoader.window_painted), or PREFIX_SETTLE_MS later if no held paint comes; at least PREFIX_HOLD_MS later (tests
# hold a load to act on a part). The engine process goes on at once: it shares nothing with the window's thread.
PREFIX_SETTLE_MS = 30
PREFIX_HOLD_MS = 0
PREFIX_WAIT_S = 1.0  # a load in this process waits at most this long for a part to be shown, then goes on
IN_PROCESS = False  # True: loads run in a thread of this process (tests that change the core here), not the engine


class RunLoader(QObject):
    """One load at a time. Signals are delivered on the thread that owns the loader (the UI thread).
    `loads`: what makes a load (engine_link.EngineLoads by default; in_process.ThreadLoads). `warm_at_start`: the
    engine process is started on the first turn of the event loop; False: by `warm` (or the first load)."""

    started = Signal(str)
    progress = Signal(float)
    prefix = Signal(object)  # a run of the first events of the file being read (then more, then `loaded`)
    loaded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    conversation_needed = Signal(str, object)  # (path, the bundle's conversations)
    engine_ended = Signal(str, str)  # (path, how: "signal SIGKILL", "exit code 3") the engine process ended

    def __init__(self, parent: QObject | None = None, loads=None, warm_at_start: bool = True):
        super().__init__(parent)
        if loads is None:
            if IN_PROCESS:
                from afp_desktop.app.loading.in_process import ThreadLoads

                loads = ThreadLoads(self)
            else:
                from afp_desktop.app.loading.engine_link import EngineLoads

                loads = EngineLoads(self, warm_at_start=warm_at_start)
        self.loads = loads
        self._current = None
        self._painting = None  # a load waiting for its part's paint (window_painted)
        self.path: str | None = None
        self.conversation: str | None = None

    def warm(self) -> None:
        """The engine process started now if none is up, ready for the next load (nothing to do in this process)."""
        warm = getattr(self.loads, "warm", None)
        if warm is not None:
            warm()

    @property
    def busy(self) -> bool:
        return self._current is not None

    def start(self, path: str | Path, conversation: str | None = None, fold_above: int | None = None) -> None:
        """Load `path`; `fold_above`: the window shows graphs of more steps than this folded (None: never)."""
        self.abandon()
        self.path, self.conversation = str(path), conversation
        load = self.loads.make(self.path, conversation, fold_above)
        # Bound slots of this QObject (which lives on the UI thread): the connections are queued when the load
        # signals from another thread. sender() tells a superseded load's signals apart.
        load.progress.connect(self._on_progress)
        load.prefix.connect(self._on_prefix)
        load.loaded.connect(self._on_loaded)
        load.failed.connect(self._on_failed)
        load.cancelled.connect(self._on_cancelled)
        load.conversation_needed.connect(self._on_conversation_needed)
        load.ended.connect(self._on_ended)
        self._current = load
        self.started.emit(self.path)
        load.start()

    def cancel(self) -> None:
        """Ask the running load to stop; `cancelled` follows once it has."""
        if self._current is not None:
            self._current.stop()

    def abandon(self) -> None:
        """Stop the running load without reporting anything (the window is closing or starting another)."""
        if self._current is not None:
            self._current.abandon()
            self._current = None

    def let_go(self) -> None:
        """The run shown is closed: whoever read it lets go of it (the engine process ends, and its memory with it;
        a fresh one is warmed for the next open)."""
        self.abandon()
        self.loads.let_go()

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until every load has ended (shutdown and tests)."""
        return self.loads.wait(msecs)

    @Slot(float)
    def _on_progress(self, fraction: float) -> None:
        if self.sender() is self._current:
            self.progress.emit(fraction)

    @Slot(object)
    def _on_prefix(self, run) -> None:
        load = self.sender()
        if load is self._current and not load.stopping:
            load.prefixes_shown += 1
            self.prefix.emit(run)
        if load is not None:
            self._painting = load if not PREFIX_HOLD_MS else None
            QTimer.singleShot(max(PREFIX_SETTLE_MS, PREFIX_HOLD_MS), load.part_shown)

    def window_painted(self) -> None:
        """The window painted what it held back (app/pacing/scheduler.py, PaintPhase): a part shown just now is on screen, and
        the load goes on."""
        load, self._painting = self._painting, None
        if load is not None:
            load.part_shown()

    @Slot(object)
    def _on_loaded(self, run) -> None:
        load = self.sender()
        if load is not None and load is self._current and load.prefixes_shown:
            # The whole run takes a part's place: on a turn of the event loop of its own, not the one in which a
            # move of the cursor was just painted (the two together would make one long stall).
            # (and after a pass of heavy work, on the next one: scheduler.on_a_light_turn)
            QTimer.singleShot(0, self, lambda: on_a_light_turn(self, lambda: self._deliver(load, run)))
            return
        self._deliver(load, run)

    def _deliver(self, load, run) -> None:
        if self._take(load):
            self.loaded.emit(run)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        if self._take(self.sender()):
            self.failed.emit(message)

    @Slot()
    def _on_cancelled(self) -> None:
        if self._take(self.sender()):
            self.cancelled.emit()

    @Slot(str, object)
    def _on_conversation_needed(self, path: str, conversations) -> None:
        if self._take(self.sender()):
            self.conversation_needed.emit(path, conversations)

    @Slot(str)
    def _on_ended(self, how: str) -> None:
        load = self.sender()
        if self._take(load):
            self.engine_ended.emit(load.path, how)

    def _take(self, load) -> bool:
        if load is not None and load is self._current:
            self._current = None
            return True
        return False
