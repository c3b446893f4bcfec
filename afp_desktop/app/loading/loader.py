"""Loading a run off the UI thread, with progress and Cancel.

`RunLoader.start(path)` runs `open_run` in a QThread and also computes the run's projections there (axis,
stops, step graph fold, status states), so the window receives a Run it can show at once. Results come back as
queued signals on the UI thread: progress(0..1) and, for a big file, prefix(run) with the runs of its first
events while the rest is read (core/formats/prefixes.py), then exactly one of loaded(run), failed(message), cancelled(),
or conversation_needed(path, conversations) for a bug-report bundle of several opened without a choice.
Starting a new load cancels the one in flight; a superseded load's signals are dropped, never delivered late.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from afp_desktop.app.pacing.beside_the_window import beside_the_window
from afp_desktop.app.pacing.scheduler import after_a_busy_pass
from afp_desktop.app.pacing.window_activity import window_activity
from afp_desktop.core.breathing import breathe, note_waiting
from afp_desktop.core.formats import ConversationChoiceNeeded, LoadCancelled, LoadError, open_run
from afp_desktop.core.gcpause import gc_paused
from afp_desktop.core.model.prepared_views import prepare_views
from afp_desktop.core.views.context_state import key_writes
from afp_desktop.core.views.inspect import pauses
from afp_desktop.core.views.orientation import run_iteration_bands
from afp_desktop.core.views.run_facts import facts_of_run
from afp_desktop.core.views.timeline_series import run_timeline_series

PROGRESS_GAP_S = 0.2
PREFIX_WAIT_S = 1.0
# After the window has shown a part, the load goes on once the window has painted it (RunLoader.window_painted),
# or PREFIX_SETTLE_MS later if no held paint comes; at least PREFIX_HOLD_MS later (tests hold a load to act on a
# part). Waiting for the paint rather than a fixed time keeps both threads from standing idle once it is done.
PREFIX_SETTLE_MS = 30
PREFIX_HOLD_MS = 0
def load_run(path: str, progress=None, cancelled=None, conversation: str | None = None, show_prefix=None,
             fold_above: int | None = None):
    """open_run plus every projection the window needs (prepared_views.prepare_views, handed on as run.views);
    raises LoadError / LoadCancelled.
    `show_prefix(run)` gets the prepared runs of the first events of a big file while the rest is read.
    `fold_above`: the window folds graphs of more steps than this (None: never; see prepare_views)."""
    report = progress or (lambda _f: None)

    def prepared_prefix(run) -> None:
        run.views = prepare_views(run, fold_above=fold_above, cancelled=cancelled)
        _read_for_the_window(run)
        show_prefix(run)

    with gc_paused():
        run = open_run(path, progress=lambda f: report(0.7 * f), cancelled=cancelled, conversation=conversation,
                       show_prefix=prepared_prefix if show_prefix is not None else None)
        # (A big Trace's payloads are checked, and a folded graph's whole layout made, once the run is shown:
        # app/loading/left_out.py.)
        run.views = prepare_views(run, fold_above=fold_above, cancelled=cancelled,
                                  progress=lambda f: report(0.7 + 0.3 * f))
        _read_for_the_window(run)
    report(1.0)
    return run


def _read_for_the_window(run) -> None:
    """What panels read once per run (core/views/per_run.py), read here and not on the window's thread: the
    pause marks' pauses, the Context panel's writers of each state key, the timeline's iteration bands, the run
    facts (findings, resilience, cost, thinking) of the Findings panel, the header and the timeline's marks, and
    the timeline's series (its stops' labels, markers and bars as arrays)."""
    pauses(run)
    key_writes(run)
    run_iteration_bands(run)
    facts_of_run(run)
    run_timeline_series(run)


class _LoadThread(QThread):
    progress = Signal(float)
    prefix = Signal(object)  # the run of the first events, shown while the rest is read
    loaded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    conversation_needed = Signal(str, object)

    def __init__(self, path: str, parent: QObject | None = None, conversation: str | None = None,
                 fold_above: int | None = None):
        super().__init__(parent)
        self.path, self.conversation, self.fold_above = path, conversation, fold_above
        self.stop_flag = threading.Event()
        self._last_percent = -1
        self._last_emit = 0.0
        self.shown = threading.Event()  # set by the window once a prefix is on screen
        self.prefixes_shown = 0  # (counted on the window's thread)
        self._prefix_handed: float | None = None  # when a prefix not yet waited for was handed to the window

    def _progress(self, fraction: float) -> None:
        # At most PROGRESS_GAP_S apart: each one repaints the progress bar at once (QProgressBar.setValue), on
        # the window's thread, which waits for the GIL this thread holds while it loads.
        percent = int(fraction * 100)
        now = time.monotonic()
        if percent != self._last_percent and (now - self._last_emit >= PROGRESS_GAP_S or percent == 100):
            self._last_percent, self._last_emit = percent, now
            self.progress.emit(percent / 100)

    def _checkpoint(self) -> bool:
        """Asked between the steps of a load: stop? (A breathing point too: a stop asked for ends the load at any
        of them, beside_the_window; a big recording's bracket scan, between two checkpoints, is long.)"""
        breathe()
        return self.stop_flag.is_set()

    def _show_prefix(self, run) -> None:
        """Hand a prefix to the window, which is then waited for (a little) at the next breathing point where
        Python runs (`_wait_for_prefix`): the window's thread needs the GIL to show it, and a run being built at
        the same time would make every step of that take many times longer. C that lets go of Python meanwhile
        (a big Trace's bracket scan, right after its first part) runs beside the window's work."""
        self.shown.clear()
        self._prefix_handed = time.monotonic()
        self.prefix.emit(run)

    def _wait_for_prefix(self) -> None:
        if self._prefix_handed is not None:
            handed, self._prefix_handed = self._prefix_handed, None
            began = time.monotonic()
            self.shown.wait(max(0.0, PREFIX_WAIT_S - (began - handed)))
            note_waiting(time.monotonic() - began)  # (not the file's reading pace: prefixes.py)

    def run(self) -> None:
        try:
            with beside_the_window(self.stop_flag, self._wait_for_prefix):  # (the window first: window_activity.py)
                try:
                    run = load_run(self.path, self._progress, self._checkpoint, self.conversation,
                                   self._show_prefix, self.fold_above)
                finally:  # (a part handed over is shown before the whole run, or before what ended the load)
                    self._wait_for_prefix()
        except Exception as err:  # noqa: BLE001 - told apart below
            if isinstance(err, LoadCancelled) or self.stop_flag.is_set():
                self.cancelled.emit()  # (what stopping raised on the way out is no failure)
            else:
                self._report(err)
        else:
            if self.stop_flag.is_set():
                self.cancelled.emit()
            else:
                self.loaded.emit(run)

    def _report(self, error: Exception) -> None:
        """Tell the window why the load ended (in words; never a crash)."""
        if isinstance(error, ConversationChoiceNeeded):
            self.conversation_needed.emit(self.path, error.conversations)
        elif isinstance(error, LoadError):
            self.failed.emit(str(error))
        elif isinstance(error, FileNotFoundError):
            self.failed.emit(f"{self.path}: the file does not exist (it may have been moved or deleted)")
        elif isinstance(error, PermissionError):
            self.failed.emit(f"{self.path}: permission denied; the file cannot be read")
        elif isinstance(error, IsADirectoryError):
            self.failed.emit(f"{self.path}: this is a folder, not a trace file")
        elif isinstance(error, MemoryError):
            self.failed.emit(f"{self.path}: not enough memory to load this file")
        else:  # a bug or an unforeseen shape
            self.failed.emit(f"{self.path}: could not be opened ({type(error).__name__}: {error})")


class RunLoader(QObject):
    """One load at a time. Signals are delivered on the thread that owns the loader (the UI thread)."""

    started = Signal(str)
    progress = Signal(float)
    prefix = Signal(object)  # a run of the first events of the file being read (then more, then `loaded`)
    loaded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    conversation_needed = Signal(str, object)  # (path, the bundle's conversations)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._current: _LoadThread | None = None
        self._painting: _LoadThread | None = None  # a load waiting for its part's paint (window_painted)
        self._threads: set[_LoadThread] = set()  # kept alive until each thread has really finished
        self.path: str | None = None
        self.conversation: str | None = None
        window_activity()  # made here, on the window's thread: it reads that thread's processor clock

    @property
    def busy(self) -> bool:
        return self._current is not None

    def start(self, path: str | Path, conversation: str | None = None, fold_above: int | None = None) -> None:
        """Load `path`; `fold_above`: the window shows graphs of more steps than this folded (None: never)."""
        self.abandon()
        self.path, self.conversation = str(path), conversation
        thread = _LoadThread(self.path, self, conversation, fold_above)
        # Bound slots of this QObject (which lives on the UI thread): the connections are queued, so the
        # thread's signals arrive here on the UI thread. sender() tells a superseded load's signals apart.
        thread.progress.connect(self._on_progress)
        thread.prefix.connect(self._on_prefix)
        thread.loaded.connect(self._on_loaded)
        thread.failed.connect(self._on_failed)
        thread.cancelled.connect(self._on_cancelled)
        thread.conversation_needed.connect(self._on_conversation_needed)
        thread.finished.connect(self._on_thread_finished)
        self._threads.add(thread)
        self._current = thread
        self.started.emit(self.path)
        thread.start()

    def cancel(self) -> None:
        """Ask the running load to stop; `cancelled` follows once it has."""
        if self._current is not None:
            self._current.stop_flag.set()
            self._current.shown.set()

    def abandon(self) -> None:
        """Stop the running load without reporting anything (the window is closing or starting another)."""
        if self._current is not None:
            self._current.stop_flag.set()
            self._current.shown.set()
            self._current = None

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until every load thread has ended (shutdown and tests)."""
        activity = window_activity()
        activity.waiting_for_load += 1  # (the window's thread is blocked here, not at work: loads need not wait)
        try:
            return all(t.wait(msecs) for t in list(self._threads))
        finally:
            activity.waiting_for_load -= 1

    @Slot(float)
    def _on_progress(self, fraction: float) -> None:
        if self.sender() is self._current:
            self.progress.emit(fraction)

    @Slot(object)
    def _on_prefix(self, run) -> None:
        thread = self.sender()
        if thread is self._current and not thread.stop_flag.is_set():
            thread.prefixes_shown += 1
            self.prefix.emit(run)
        if thread is not None:
            self._painting = thread if not PREFIX_HOLD_MS else None
            QTimer.singleShot(max(PREFIX_SETTLE_MS, PREFIX_HOLD_MS), thread.shown.set)

    def window_painted(self) -> None:
        """The window painted what it held back (app/pacing/paint_later.py): a part shown just now is on screen, and
        the load goes on."""
        thread, self._painting = self._painting, None
        if thread is not None:
            thread.shown.set()

    @Slot(object)
    def _on_loaded(self, run) -> None:
        thread = self.sender()
        if thread is not None and thread is self._current and thread.prefixes_shown:
            # The whole run takes a part's place: on a turn of the event loop of its own, not the one in which a
            # move of the cursor was just painted (the two together would make one long stall).
            # (and after a pass of heavy work, on the next one: one_per_turn.after_a_busy_pass)
            QTimer.singleShot(0, self, lambda: after_a_busy_pass(self, lambda: self._deliver(thread, run)))
            return
        self._deliver(thread, run)

    def _deliver(self, thread, run) -> None:
        if self._take(thread):
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

    def _take(self, thread) -> bool:
        if thread is not None and thread is self._current:
            self._current = None
            return True
        return False

    @Slot()
    def _on_thread_finished(self) -> None:
        thread = self.sender()
        self._threads.discard(thread)
        if thread is not None:
            thread.deleteLater()
