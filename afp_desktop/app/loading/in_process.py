"""Loads in a thread of the window's own process (tests that change the core in this process): the same signals
as the engine process's loads (engine_link.py), the run read by the in-process engine (engine/service.py)."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, QThread, Signal

from afp_desktop.app.loading import loader as loader_module
from afp_desktop.core.breathing import breathing
from afp_desktop.core.formats import ConversationChoiceNeeded, LoadCancelled
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
        self.prefix.emit(run)
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
                self.loaded.emit(run)


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

    def wait(self, msecs: int = 30_000) -> bool:
        return all(thread.wait(msecs) for thread in list(self.threads))

