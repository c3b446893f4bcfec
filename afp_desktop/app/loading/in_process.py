"""Loads in a thread of the window's own process (tests that change the core in this process): the same signals
as the engine process's loads (engine_link.py), the run read by the in-process engine (engine/service.py)."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, QThread, Signal

from afp_desktop.app.loading import loader as loader_module
from afp_desktop.core.breathing import breathing
from afp_desktop.core.formats import ConversationChoiceNeeded, LoadCancelled
from afp_desktop.core.views.window_copy import part_counts, window_copy
from afp_desktop.engine.collector import collector_paused
from afp_desktop.engine.process import failure_message
from afp_desktop.engine.service import Engine

PROGRESS_GAP_S = 0.2  # progress at most this often (each repaints the bar), and at 100 %


class ThreadLoad(QThread):
    progress = Signal(float)
    prefix = Signal(object)  # the run of the first events, shown while the rest is read
    loaded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    conversation_needed = Signal(str, object)
    ended = Signal(str)  # (never: a thread cannot end apart from its process)

    def __init__(self, path: str, parent: QObject | None = None, conversation: str | None = None,
                 fold_above: int | None = None):
        super().__init__(parent)
        self.path, self.conversation, self.fold_above = path, conversation, fold_above
        self.stop_flag = threading.Event()
        self.shown = threading.Event()  # set by the window once a prefix is on screen
        self.prefixes_shown = 0  # (counted on the window's thread)
        self._parts: list[tuple[int, int]] = []  # (typed, domain) event counts of the parts handed on so far
        self._last_percent, self._last_emit = -1, 0.0

    @property
    def stopping(self) -> bool:
        return self.stop_flag.is_set()

    def stop(self) -> None:
        self.stop_flag.set()
        self.shown.set()

    abandon = stop

    def part_shown(self) -> None:
        self.shown.set()

    def _progress(self, fraction: float) -> None:
        percent, now = int(fraction * 100), time.monotonic()
        if percent != self._last_percent and (now - self._last_emit >= PROGRESS_GAP_S or percent == 100):
            self._last_percent, self._last_emit = percent, now
            self.progress.emit(percent / 100)

    def _stop_here(self) -> None:
        if self.stop_flag.is_set():
            raise LoadCancelled()

    def _show_prefix(self, run) -> None:
        """Hand a part to the window and wait (a little) until it is shown: the window's thread needs Python to show
        it, and a run built at the same time in this process would make every step of that take far longer."""
        self.shown.clear()
        self.prefix.emit(window_copy(run, self._parts))
        self._parts.append(part_counts(run))
        self.shown.wait(loader_module.PREFIX_WAIT_S)  # (not the file's reading pace: prefixes.py leaves it out)

    def run(self) -> None:
        try:
            with collector_paused(), breathing(self._stop_here):
                run = Engine().open(self.path, self.conversation, self.fold_above, progress=self._progress,
                                    cancelled=self.stop_flag.is_set, show_prefix=self._show_prefix)
        except Exception as err:  # noqa: BLE001 - told apart below
            if isinstance(err, LoadCancelled) or self.stop_flag.is_set():
                self.cancelled.emit()  # (what stopping raised on the way out is no failure)
            elif isinstance(err, ConversationChoiceNeeded):
                self.conversation_needed.emit(self.path, err.conversations)
            else:
                self.failed.emit(failure_message(self.path, err))
        else:
            if self.stop_flag.is_set():
                self.cancelled.emit()
            else:
                self.loaded.emit(window_copy(run, self._parts))


class ThreadLoads:
    """Makes ThreadLoads, and waits for them at shutdown."""

    def __init__(self, owner: QObject) -> None:
        self.owner = owner
        self.threads: set[ThreadLoad] = set()

    def make(self, path: str, conversation: str | None, fold_above: int | None) -> ThreadLoad:
        thread = ThreadLoad(path, self.owner, conversation, fold_above)
        self.threads.add(thread)
        thread.finished.connect(lambda: self._finished(thread))
        return thread

    def _finished(self, thread: ThreadLoad) -> None:
        self.threads.discard(thread)
        thread.deleteLater()

    def let_go(self) -> None:
        """(A run read in this process is let go of with the window's references to it.)"""

    def wait(self, msecs: int = 30_000) -> bool:
        return all(thread.wait(msecs) for thread in list(self.threads))



class _RequestThread(QThread):
    """Answers one request with the in-process engine (service.Engine.answer), on the run given."""

    done = Signal(int, str, object)  # (request id, "answer" | "request_failed" | "superseded", value)

    def __init__(self, engine: Engine, request_id: int, run, kind: str, args: dict, parent: QObject) -> None:
        super().__init__(parent)
        self.engine, self.request_id, self.run_asked, self.kind, self.args = engine, request_id, run, kind, args
        self.stop_flag = threading.Event()  # set: end at the next breathing point (superseded, or closing)

    def _stop_here(self) -> None:
        if self.stop_flag.is_set():
            raise LoadCancelled()

    def run(self) -> None:
        run, self.run_asked = self.run_asked, None  # (held by this call alone: gone when it ends)
        try:
            with collector_paused(freeze=False), breathing(self._stop_here):  # (no collection off the window's thread)
                self.engine.adopt(run)
                value = self.engine.answer(self.kind, self.args)
        except Exception as err:  # noqa: BLE001 - a request never takes the window down; the panel is told why
            if isinstance(err, LoadCancelled) or self.stop_flag.is_set():
                self.done.emit(self.request_id, "superseded", None)
            else:
                self.done.emit(self.request_id, "request_failed", f"{type(err).__name__}: {str(err)[:300]}")
        else:
            self.done.emit(self.request_id, "superseded" if self.stop_flag.is_set() else "answer", value)


class ThreadRequests(QObject):
    """Requests about a run the window holds but the engine process does not (tests that load in this process; a
    followed file's grown run, which the window makes from the engine's growths; a run shown after a later load
    failed): answered by the
    same service.Engine, in one thread of this process at a time, with the engine process's rules: a newer request
    with the same tag drops a queued one and stops a running one at its next breathing point."""

    replied = Signal(int, str, object)  # (request id, "answer" | "request_failed" | "superseded", value)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = Engine()  # (used by one thread at a time: requests run in turn)
        self._queue: list[tuple[int, str, object, str, dict]] = []  # (id, tag, run, kind, args)
        self._running: tuple[str, _RequestThread] | None = None  # (tag, thread)
        self._threads: set[_RequestThread] = set()
        self._ids = 0
        self._let_go = False  # the run was forgotten while a request ran: the engine lets go of it once none runs

    def request(self, tag: str, kind: str, args: dict, run) -> int:
        self._let_go = False
        self._ids += 1
        request_id = self._ids
        if self._running is not None and self._running[0] == tag:
            self._running[1].stop_flag.set()
        for queued in [queued for queued in self._queue if queued[1] == tag]:
            self._queue.remove(queued)
            self.replied.emit(queued[0], "superseded", None)
        self._queue.append((request_id, tag, run, kind, args))
        self._start_next()
        return request_id

    def _start_next(self) -> None:
        if self._running is not None or not self._queue:
            return
        request_id, tag, run, kind, args = self._queue.pop(0)
        thread = _RequestThread(self.engine, request_id, run, kind, args, self)
        thread.done.connect(self._done)
        thread.finished.connect(lambda: self._finished(thread))
        self._threads.add(thread)
        self._running = (tag, thread)
        thread.start()

    def _done(self, request_id: int, kind: str, value) -> None:
        self.replied.emit(request_id, kind, value)

    def _finished(self, thread: _RequestThread) -> None:
        thread.wait()  # (`finished` comes just before its thread ends: deleted before that, it takes the process down)
        self._threads.discard(thread)
        thread.deleteLater()
        if self._running is not None and self._running[1] is thread:
            self._running = None
        if self._let_go and not self._threads and not self._queue:
            self._let_go = False
            self.engine.adopt(None)
        self._start_next()

    def forget(self) -> None:
        """The run changed or the window is closing: queued requests are dropped and the running one stops at its
        next breathing point; the engine lets go of the run."""
        self._queue.clear()
        for thread in self._threads:
            thread.stop_flag.set()
        if self._threads:
            self._let_go = True
        else:
            self.engine.adopt(None)

    def let_go_when_idle(self) -> None:
        """The engine lets go of the run it was asked about, unless a request about it is under way."""
        if not self._threads and not self._queue:
            self.engine.adopt(None)

    def wait(self, msecs: int = 30_000) -> bool:
        return all(thread.wait(msecs) for thread in list(self._threads))

    def idle(self) -> bool:
        """No request runs or waits, and every thread that ran one is let go of (this object may then be deleted)."""
        return not self._queue and not self.findChildren(QThread)
