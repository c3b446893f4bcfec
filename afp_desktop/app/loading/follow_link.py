"""The window's end of a follow (engine/follow.py RunFollow): the engine process follows the file (ProcessFollow,
through engine_link.EngineLoads), or, when the window loads in its own process (loader.IN_PROCESS: tests), a thread
of it runs the same RunFollow (ThreadFollow). Either way `arrived` gives the window, in order, on its thread:

  ("grown", copy, facts)   the grown run's window copy (core/views/window_copy.py) and engine/follow.py's
                           Grown.facts()
  ("note", text, msecs)   ("stopped", text)   the follow's other messages (engine/follow.py)
  ("ended", how)      the engine process ended while it followed (a crash, a kill)
  ("retired",)        the process was ended by the window (a load failed or was abandoned): follow again

`applied(copy)` tells the engine the window shows that copy (the engine then answers requests about its run), and
`shown()` that the window is ready for the next growth.
"""

from __future__ import annotations

import io
import threading
from collections import deque

from PySide6.QtCore import QObject, QThread, Signal

from afp_desktop.app.loading.received_runs import SlicedReceive
from afp_desktop.core.views.window_copy import load_with_stand_ins, window_copy
from afp_desktop.engine import process as engine_process
from afp_desktop.engine.collector import collector_paused

# The copy of a grown run bigger than this comes through a spill file, received a slice per turn (a smaller one is
# read at once, on the window's thread).
SPILL_ABOVE_BYTES = 256 << 10


class ProcessFollow(QObject):
    """A follow run by the engine process (`loads`: the loader's engine_link.EngineLoads)."""

    arrived = Signal(object)

    def __init__(self, loads, path: str, shown: tuple[int, int] | None, fold_above: int | None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.loads = loads
        self._queue: deque = deque()  # messages not yet handed on (behind a growth being received)
        self._receiver: SlicedReceive | None = None
        self._facts: dict = {}  # of the growth being received
        loads.followed.connect(self._followed)
        loads.follow_ended.connect(self._ended)
        self.id = loads.follow(path, {"shown": shown, "fold_above": fold_above, "spill_above": SPILL_ABOVE_BYTES})

    def applied(self, copy) -> None:
        self.loads.follow_applied(self.id, copy)

    def shown(self) -> None:
        self.loads.follow_shown(self.id)

    def stop(self) -> None:
        self.loads.followed.disconnect(self._followed)
        self.loads.follow_ended.disconnect(self._ended)
        self.loads.unfollow(self.id)
        if self._receiver is not None:
            self._receiver.stop()
        for message in self._queue:
            if message[0] == "grown_spill":
                engine_process.discard(message[1])
        self._queue.clear()

    def _followed(self, follow_id: int, kind: str, rest) -> None:
        if follow_id == self.id:
            self._queue.append((kind, *rest))
            self._hand_on()

    def _ended(self, follow_id: int, how: str) -> None:
        if follow_id == self.id:
            self._queue.append(("ended", how) if how else ("retired",))
            self._hand_on()

    def _hand_on(self) -> None:
        """Hand on the messages in order; a growth in a spill file is received a slice per turn first."""
        while self._queue and self._receiver is None:
            message = self._queue.popleft()
            if message[0] == "grown_spill":
                self._facts = message[2]
                self._receiver = SlicedReceive("grown", message[1], self)
                self._receiver.received.connect(self._received)
                self._receiver.start()
                return
            if message[0] == "grown_copy":
                message = ("grown", load_with_stand_ins(io.BytesIO(message[1])), message[2])
            self.arrived.emit(message)

    def _received(self, _kind: str, copy) -> None:
        receiver, self._receiver = self._receiver, None
        if receiver is not None:
            receiver.deleteLater()
        if copy is None:
            self.arrived.emit(("stopped", "the engine's growth of the followed file could not be received"))
        else:
            self.arrived.emit(("grown", copy, self._facts))
        self._hand_on()


class _FollowThread(QThread):
    """Steps a RunFollow (engine/follow.py) until stopped; each growth handed on as the grown run's window copy made
    whole (requests about it are answered in this process: engine_requests.py)."""

    arrived = Signal(object)

    def __init__(self, path: str, shown: tuple[int, int] | None, fold_above: int | None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path, self.shown, self.fold_above = path, shown, fold_above
        self.stop_flag = threading.Event()
        self.wake = threading.Event()
        self.shown_flag = threading.Event()

    def run(self) -> None:
        from afp_desktop.engine.follow import RunFollow  # (imported only when this process follows)

        follow = RunFollow(self.path, self.shown, fold_above=self.fold_above,
                           pack=lambda grown: window_copy(grown.run, grown.parts_before, whole=True))
        try:
            while not self.stop_flag.is_set():
                if self.shown_flag.is_set():
                    self.shown_flag.clear()
                    follow.shown()
                try:
                    with collector_paused(freeze=False):  # (no collection off the window's thread)
                        messages = follow.step()
                        messages = [("grown", message[1].packed, message[1].facts()) if message[0] == "grown"
                                    else message for message in messages]
                except Exception as err:  # noqa: BLE001 - a follow never takes the window down; it is told why
                    messages = [("stopped", f"{self.path}: following it stopped ({type(err).__name__}: "
                                            f"{str(err)[:300]})")]
                    follow.close()
                for message in messages:
                    self.arrived.emit(message)
                if follow.stopped:
                    return
                self.wake.wait(follow.wait_s())
                self.wake.clear()
        finally:
            follow.close()


class ThreadFollow(QObject):
    """A follow run by a thread of the window's process (loads in this process: tests)."""

    arrived = Signal(object)

    def __init__(self, path: str, shown: tuple[int, int] | None, fold_above: int | None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = _FollowThread(path, shown, fold_above, self)
        self._thread.arrived.connect(self._arrived)
        self._thread.start()

    def _arrived(self, message) -> None:
        if not self._thread.stop_flag.is_set():
            self.arrived.emit(message)

    def applied(self, _copy) -> None:
        """(Requests about the copy are answered in this process, from the copy itself.)"""

    def shown(self) -> None:
        self._thread.shown_flag.set()
        self._thread.wake.set()

    def stop(self) -> None:
        self._thread.stop_flag.set()
        self._thread.wake.set()
        self._thread.wait(5000)
