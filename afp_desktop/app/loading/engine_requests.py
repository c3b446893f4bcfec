"""The window's one way to ask the engine about the run it shows: `request(tag, kind, args, on_answer, on_failed)`.
Everything but the view data is such a request; the window never waits for one. A newer request with the same tag
supersedes the one before it: only the newest's reply is delivered (the engine drops an older one queued, and stops
one running at its next breathing point).

A run the engine process loaded or grew (engine_link.py: an open, a followed file) is asked there; any other run the
window shows — loaded in this process (in_process.py, the tests), a part of a big file shown while the rest is read,
a run still shown after a later load failed — is asked of the same service.Engine in a thread of the window's process (ThreadRequests).
When the process holding the run has ended, the request fails at once with how (`engine_lost` tells the window).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from afp_desktop.app.loading.in_process import ThreadRequests


class EngineRequests(QObject):
    """`loads`: the loader's (engine_link.EngineLoads, or in_process.ThreadLoads, which holds no run)."""

    engine_lost = Signal(str)  # how the engine process holding the run shown ended (a request found it gone)

    def __init__(self, session, loads, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.engine_link = loads if hasattr(loads, "holds") else None
        self._threads: ThreadRequests | None = None  # (made by the first request asked in this process)
        if self.engine_link is not None:  # (methods of this object: disconnected once it is deleted)
            self.engine_link.replied.connect(self._engine_replied)
        self._latest: dict[str, tuple[str, int]] = {}  # tag → (route, id) of its newest request
        self._waiting: dict[tuple[str, int], tuple[str, Callable, Callable]] = {}  # (route, id) → (tag, callbacks)

    @property
    def threads(self) -> ThreadRequests:
        """The requests answered in this process, made with the engine's service when first needed (in_process.py):
        the window's first frame imports neither."""
        if self._threads is None:
            from afp_desktop.app.loading.in_process import ThreadRequests

            self._threads = ThreadRequests(self)
            self._threads.replied.connect(self._thread_replied)
        return self._threads

    def request(self, tag: str, kind: str, args: dict, on_answer: Callable[[object], None],
                on_failed: Callable[[str], None]) -> None:
        """Ask `kind` (service.REQUESTS) with `args` about the run shown; `on_answer(value)` or `on_failed(why, in
        words)` is called later, on the window's thread, unless a newer request with `tag` comes first."""
        self.drop(tag)
        run = self.session.run
        if self.engine_link is not None and self.engine_link.holds(run):
            if self._threads is not None:
                self._threads.let_go_when_idle()  # (of a run it was asked about before: a part shown while loading)
            key = ("engine", self.engine_link.request(tag, kind, args, run))
        else:
            key = ("thread", self.threads.request(tag, kind, args, run))
        self._latest[tag] = key
        self._waiting[key] = (tag, on_answer, on_failed)

    @property
    def pending(self) -> bool:
        """A reply is still wanted (a panel waits for it)."""
        return bool(self.waiting_tags())

    def drop(self, tag: str) -> None:
        """The reply to `tag`'s newest request is no longer wanted."""
        key = self._latest.pop(tag, None)
        if key is not None:
            self._waiting.pop(key, None)

    def waiting_tags(self) -> list[str]:
        """The tags whose newest request is not answered yet."""
        return list(self._latest)

    def forget_run(self) -> None:
        """The run shown is closed or replaced: no reply about it is wanted, and this process lets go of it."""
        self._latest.clear()
        self._waiting.clear()
        if self._threads is not None:
            self._threads.forget()

    def stop(self, msecs: int = 5000) -> bool:
        """The window is closing: requests in this process end (at their next breathing point)."""
        self.forget_run()
        return self._threads is None or self._threads.wait(msecs)

    def _thread_replied(self, request_id: int, kind: str, value) -> None:
        self._replied("thread", request_id, kind, value)

    def _engine_replied(self, request_id: int, kind: str, value) -> None:
        self._replied("engine", request_id, kind, value)

    def _replied(self, route: str, request_id: int, kind: str, value) -> None:
        key = (route, request_id)
        waiting = self._waiting.pop(key, None)
        if waiting is None:
            return
        tag, on_answer, on_failed = waiting
        if self._latest.get(tag) == key:
            del self._latest[tag]
        if kind == "answer":
            on_answer(value)
        elif kind == "ended":
            on_failed(f"the engine process ended ({value}); Reload the file to use it again")
            self.engine_lost.emit(str(value))
        elif kind == "request_failed":
            on_failed(str(value))
        elif kind == "superseded":  # (one superseded by a newer request with its tag is no longer waited for here)
            on_failed("another run was being opened or the run was closed")
