"""The window's side of the engine process (engine/process.py): starts it, talks to it, and turns its messages
into the signals of a load (the same as in_process.ThreadLoad's), so RunLoader sees no difference.

The connection is watched by a QSocketNotifier on its descriptor: a message is read when it has arrived, on the
window's thread, and every message is small. A run comes as a spill file, received a slice per turn of the event
loop (received_runs.py).
When the process ends in the middle of a load (a crash, a kill, out of memory), the load says so (`ended`) and
the next load starts a fresh process. A load that failed or was cancelled retires its process (its memory goes back
to the system) and a fresh one is started a little later, warm for the next open; a load that ended with its run
keeps its process, which holds that run and answers requests about it (`request`, `replied`) until another run
takes its place in the window (each load goes to a process of its own: EngineLoads).
"""

from __future__ import annotations

import itertools
import shutil
import signal
import sys
import tempfile
import types
import weakref
from collections import deque
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal

from afp_desktop.engine import main as engine_main

if TYPE_CHECKING:
    from afp_desktop.app.loading.received_runs import SlicedReceive

WARM_AT_START_MS = 0  # a process is started on the first turn of the event loop after the loader is made (unless
# its owner starts it: the window, once its first frame is painted),
WARM_AFTER_MS = 1500  # and a fresh one this long after a load failed or was cancelled (not while the window is busy): each is
# ready for the next open
# tests: each load waits at its first breathing point (True), or once its first part is shown ("part"), until its
# `go()` (`held` says it is there)
HOLD_LOADS: bool | str = False
HOLD_REQUESTS = False  # tests: each request waits at its first breathing point until `go_on()` (`held` says so)
QUIT_WAIT_S = 2.0  # a process told to quit is waited for this long at shutdown, then killed
_ids = itertools.count(1)


def engine_process():
    """engine/process.py (and multiprocessing, the formats it reads), imported when the first engine process is
    started, not with the window: the window's first frame needs none of it."""
    from afp_desktop.engine import process

    return process


def _byte_limit_given() -> int | None:
    """source.byte_limit_given(): None while source.py is not imported (no `byte_limit` block can be in force)."""
    source = sys.modules.get("afp_desktop.core.formats.source")
    return source.byte_limit_given() if source is not None else None


def how_it_ended(exitcode: int | None) -> str:
    """"signal SIGKILL", "exit code 3" (what the system says of a process that ended)."""
    if exitcode is None:
        return "no exit code"
    if exitcode < 0:
        try:
            return f"signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"


@contextmanager
def _main_script_hidden() -> Iterator[None]:
    """While a process is spawned, `__main__` is a bare module: a spawned process runs the parent's main script
    again (unless it is a package's __main__), and the window's imports Qt, which the engine process never does
    (and a script without a `__name__ == "__main__"` guard would start its work again there)."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


class EngineProcess:
    """One engine process and the window's end of its connection."""

    def __init__(self, spill_folder: str) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.connection, child_end = context.Pipe(duplex=True)
        self.process = context.Process(target=engine_main.serve, args=(child_end, spill_folder),
                                       name="afp-engine", daemon=True)
        with _main_script_hidden():
            self.process.start()
        child_end.close()

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def send(self, *request) -> bool:
        """False when the process is gone (its end of the connection closed)."""
        try:
            self.connection.send(request)
            return True
        except (OSError, ValueError):
            return False

    def quit(self) -> None:
        self.send("quit")

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()

    def reap(self, seconds: float = 0.0) -> bool:
        """Whether the process has ended (waited for up to `seconds`); its connection is closed once it has."""
        self.process.join(seconds)
        if self.process.exitcode is None:
            return False
        self.connection.close()
        return True


def open_in_engine_process(path: str, conversation: str | None = None, fold_above: int | None = None):
    """The run `path` holds, read and prepared by an engine process of its own and waited for (the window's
    `--screenshot`: what opening the file shows, through the same process as the window's loads). Raises the
    LoadError the engine reports (a bundle's choice of conversation included), or one saying how the process ended."""
    from afp_desktop.core.formats import ConversationChoiceNeeded, LoadError

    folder = tempfile.mkdtemp(prefix="afp-engine-")
    engine = EngineProcess(folder)
    try:
        engine.send("open", 1, {"path": path, "conversation": conversation, "fold_above": fold_above,
                                "show_prefixes": False, "byte_limit": _byte_limit_given(), "hold": False,
                                "whole": True, "check_payloads": True})
        # (the process ends: the window answers about its copy; its banner tells the payloads' problems at once)
        while True:
            try:
                message = engine.connection.recv()
            except (EOFError, OSError):
                engine.reap(QUIT_WAIT_S)
                raise LoadError(path, "reading it stopped: the engine process ended "
                                      f"({how_it_ended(engine.process.exitcode)})") from None
            kind, rest = message[0], message[2:]
            if kind == "loaded":
                return engine_process().receive(rest[0])
            if kind == "failed":
                error = LoadError(path, "")
                error.args = (rest[0],)  # (the engine's message, whole: it names the file itself)
                raise error
            if kind == "conversation_needed":
                raise ConversationChoiceNeeded(path, tuple(rest[1]))
            if kind == "cancelled":
                raise LoadError(path, "reading it was cancelled")
    finally:
        engine.quit()
        if not engine.reap(QUIT_WAIT_S):
            engine.kill()
            engine.reap(QUIT_WAIT_S)
        shutil.rmtree(folder, ignore_errors=True)


class EngineLoads(QObject):
    """Makes EngineLoads for a RunLoader and keeps the engine processes they go through: `engine`, the one the next
    load (or follow) goes to, and the holder, the one that loaded the run shown and answers requests about it. A load
    always goes to a process that holds no run shown, so the run shown stays answerable until another takes its place
    in the window: when the new load fails or is cancelled, its process alone is retired. Once a run is shown, a
    fresh process is started a little later (WARM_AFTER_MS), ready for the next open."""

    held = Signal()  # (HOLD_LOADS, HOLD_REQUESTS, tests: a load or request waits at its first breathing point)
    # (request id, "answer" | "request_failed" | "superseded" | "ended", the answer | why | how the process ended)
    replied = Signal(int, str, object)
    # (follow id, "grown" | "grown_spill" | "note" | "stopped", the rest) a follow's message (engine/follow.py)
    followed = Signal(int, str, object)
    follow_ended = Signal(int, str)  # (follow id, how the process ended; "" when it was retired by the window)

    def __init__(self, parent: QObject | None = None, warm_at_start: bool = True) -> None:
        super().__init__(parent)
        self.spill_folder: str | None = None  # made with the first process, removed once none is left (wait)
        self.engine: EngineProcess | None = None  # the process the next load goes to
        self._notifiers: dict[EngineProcess, QSocketNotifier] = {}  # every process up, watched
        self._loads: dict[int, EngineLoad] = {}
        self._requests: dict[int, EngineProcess] = {}  # sent, not yet replied to: the process asked
        self.following: int | None = None  # the follow a process runs (follow_link.py)
        self._follower: EngineProcess | None = None
        self._held_run: weakref.ref | None = None  # the run the holder loaded (the window's copy)
        self._held_by: EngineProcess | None = None  # the holder
        # (the part of a big file shown while the rest is read, and the process reading it, which answers about it)
        self._part: tuple[weakref.ref, EngineProcess] | None = None
        self.lost_how: str | None = None  # how the holder ended, if it did
        self._ending: list[EngineProcess] = []  # told to quit, or killed: reaped later
        self._warm = QTimer(self)
        self._warm.setSingleShot(True)
        self._warm.timeout.connect(self.warm)
        if warm_at_start:
            self._warm.start(WARM_AT_START_MS)

    @property
    def engine_pid(self) -> int | None:
        return self.engine.pid if self.engine is not None else None

    @property
    def holder(self) -> EngineProcess | None:
        """The process holding the run shown (None: none does, or it has ended)."""
        return self._held_by if self.lost_how is None else None

    def make(self, path: str, conversation: str | None, fold_above: int | None) -> EngineLoad:
        return EngineLoad(self, next(_ids), path, conversation, fold_above)

    def go_on(self) -> None:
        """Every held load and request goes on (HOLD_LOADS, HOLD_REQUESTS)."""
        for load_id in self._loads:
            self.send("go", load_id)
        for request_id, engine in self._requests.items():
            engine.send("go", request_id)

    def holds(self, run) -> bool:
        """Whether `run` is the one the holder loaded (its requests go to that process; when it has ended,
        `lost_how` says how), or the part of a big file shown while its process reads the rest."""
        if run is None:
            return False
        return (self._held_run is not None and self._held_run() is run) or self._is_part(run)

    def part_shown(self, run) -> None:
        """`run`, the part of the file being read that the window shows now: asked of the process reading it."""
        if self.engine is not None and self._loads:
            self._part = (weakref.ref(run), self.engine)

    def _is_part(self, run) -> bool:
        return run is not None and self._part is not None and self._part[0]() is run

    def now_holds(self, run) -> None:
        """The last load gave the window `run`, which its process keeps: it is the holder now, and the process that
        held the run shown before is retired."""
        if self._loads or self.engine is None:
            return
        self._hold(run, self.engine)

    def _hold(self, run, process: EngineProcess) -> None:
        """`process` holds `run`, the run shown, and answers the requests about it; the process that held the run
        shown before is retired (unless it is the one the next load goes to)."""
        before, self._held_by = self._held_by, process
        self._held_run, self.lost_how, self._part = weakref.ref(run), None, None
        if before is not None and before is not process and before is not self.engine:
            self._retire(before, kill=False)
        if process is self.engine:
            self._warm.start(WARM_AFTER_MS)  # (a fresh process for the next open)

    def request(self, tag: str, kind: str, args: dict, run=None) -> int:
        """Send a request about the held run to the holder (about `run`, a part of the file being read: to the
        process reading it); its reply comes as `replied` (ended at once: the process is gone)."""
        request_id = next(_ids)
        if self._is_part(run):
            reader = self._part[1]  # type: ignore[index]  # (_is_part: a part is shown)
            holder = reader if reader in self._notifiers else None  # (ended: the request ends at once)
        else:
            holder = self.holder
        if holder is not None and holder.send("request", request_id, tag, kind, args, HOLD_REQUESTS):
            self._requests[request_id] = holder
        elif holder is not None:
            self._requests[request_id] = holder
            QTimer.singleShot(0, self, lambda: self._process_ended(holder))  # (its reply comes after this returns)
        else:
            QTimer.singleShot(0, self, lambda: self.replied.emit(request_id, "ended", self.lost_how or "no exit code"))
        return request_id

    def follow(self, path: str, asked: dict) -> int:
        """Have a process follow `path` (`asked`: the rest of the engine's "follow" request, process.py); its
        messages come as `followed`."""
        follow_id = next(_ids)
        follower = self.holder  # (the process that read the file, if it still holds it; else a fresh one)
        if follower is None:
            self.warm()
            follower = self.engine
        self.following, self._follower = follow_id, follower
        if not follower.send("follow", follow_id, {"path": path, **asked}):
            QTimer.singleShot(0, self, lambda: self._process_ended(follower))
        return follow_id

    def follow_applied(self, follow_id: int, run) -> None:
        """The window shows `run`, the copy of follow `follow_id`'s last growth: the process following it holds that
        run now and answers the requests about it (the process that held the run shown before, if another, is
        retired)."""
        follower = self._follower
        if self.following != follow_id or follower is None:
            return
        follower.send("follow_applied", follow_id)
        self._hold(run, follower)

    def follow_shown(self, follow_id: int) -> None:
        """The window has shown follow `follow_id`'s last growth: the process following it may send the next."""
        if self.following == follow_id and self._follower is not None:
            self._follower.send("follow_shown", follow_id)

    def unfollow(self, follow_id: int) -> None:
        if self.following == follow_id:
            follower, self.following, self._follower = self._follower, None, None
            if follower is not None:
                follower.send("unfollow", follow_id)

    def let_go(self) -> None:
        """The run shown is closed: its holder ends (its memory goes back to the system)."""
        holder, self._held_run, self._held_by = self._held_by, None, None
        if holder is None or (holder is self.engine and self._loads):
            return
        self._retire(holder, kill=False)
        if self.engine is None:  # (it was the process of the loads too: a fresh one later)
            self._warm.start(WARM_AFTER_MS)

    def warm(self) -> None:
        """A process ready for the next load: started now if there is none, if it has ended, or if it holds the run
        shown (it goes on holding it; the next load goes to the new one)."""
        self._reap_ended()
        if self.engine is not None and not self.engine.process.is_alive():
            self._process_ended(self.engine)
        if self.engine is not None and self.engine is self._held_by and not self._loads:
            self.engine = None
        if self.engine is None:
            if self.spill_folder is None:
                self.spill_folder = tempfile.mkdtemp(prefix="afp-engine-")
                weakref.finalize(self, shutil.rmtree, self.spill_folder, ignore_errors=True)  # (at exit at the latest)
            self.engine = EngineProcess(self.spill_folder)
            notifier = QSocketNotifier(self.engine.connection.fileno(), QSocketNotifier.Type.Read, self)
            engine = self.engine
            notifier.activated.connect(lambda: self._readable(engine))
            self._notifiers[engine] = notifier

    def begin(self, load: EngineLoad) -> None:
        self._warm.stop()
        self.warm()
        self._loads[load.id] = load
        request = {"path": load.path, "conversation": load.conversation, "fold_above": load.fold_above,
                   "show_prefixes": True, "byte_limit": _byte_limit_given(), "hold": HOLD_LOADS}
        if not self.engine.send("open", load.id, request):
            self._process_ended(self.engine)

    def send(self, *request) -> None:
        """To the process of the loads."""
        if self.engine is not None:
            self.engine.send(*request)

    def abandon(self, load: EngineLoad) -> None:
        """A load no one waits for any more: its process is ended at once (no need to wait for a breathing point)
        and the next load gets a fresh one."""
        if self._loads.pop(load.id, None) is not None and self.engine is not None:
            self._retire(self.engine, kill=True)

    def _readable(self, engine: EngineProcess) -> None:
        if engine not in self._notifiers:
            return  # (retired meanwhile: what it still sends is not wanted)
        try:
            while engine.connection.poll():
                message = engine.connection.recv()
                self._deliver(engine, message)
                if engine not in self._notifiers:
                    return
        except (EOFError, OSError):
            self._process_ended(engine)

    def _deliver(self, engine: EngineProcess, message) -> None:
        kind, load_id, *rest = message
        if kind == "follow":
            if load_id == self.following:
                self.followed.emit(load_id, rest[0], rest[1:])
            elif rest[0] == "grown_spill":
                engine_process().discard(rest[1])
            return
        if load_id in self._requests:
            if kind == "held":
                self.held.emit()
            else:
                del self._requests[load_id]
                self.replied.emit(load_id, kind, rest[0] if rest else None)
            return
        load = self._loads.get(load_id)
        if load is None:
            if kind in ("prefix", "loaded"):
                engine_process().discard(rest[0])
            return
        if kind in ("loaded", "failed", "cancelled", "conversation_needed"):
            del self._loads[load_id]
            if kind != "loaded":  # (a loaded run stays in its process, for requests about it)
                self._retire(engine, kill=False)
                self._warm.start(WARM_AFTER_MS)
        load.message(kind, rest)

    def _process_ended(self, engine: EngineProcess | None) -> None:
        """`engine` ended by itself: its loads, requests and follow end with how."""
        if engine is None or engine in self._ending:
            return
        loading = engine is self.engine
        asked, following = self._let_go_of(engine)
        engine.reap(5.0)
        how = how_it_ended(engine.process.exitcode)
        if engine is self._held_by:
            self.lost_how = how
        if loading:
            loads, self._loads = list(self._loads.values()), {}
            for load in loads:
                load.message("ended", [how])
        for request_id in asked:
            self.replied.emit(request_id, "ended", how)
        if following is not None:
            self.follow_ended.emit(following, how)

    def _retire(self, engine: EngineProcess, kill: bool) -> None:
        """End `engine` (the window no longer needs it): its follow ends with it (the window starts it again in a
        fresh one), and requests still asked of it are not answered."""
        _asked, following = self._let_go_of(engine)
        if following is not None:
            QTimer.singleShot(0, self, lambda: self.follow_ended.emit(following, ""))
        engine.kill() if kill else engine.quit()
        self._ending.append(engine)

    def _let_go_of(self, engine: EngineProcess) -> tuple[list[int], int | None]:
        """`engine` is no longer watched nor the one loads go to; returns the requests asked of it (no longer
        waited for) and the follow it ran, if any."""
        self._unwatch(engine)
        if engine is self.engine:
            self.engine = None
        asked = sorted(request_id for request_id, process in self._requests.items() if process is engine)
        for request_id in asked:
            del self._requests[request_id]
        following = None
        if engine is self._follower:
            following, self.following, self._follower = self.following, None, None
        return asked, following

    def _unwatch(self, engine: EngineProcess) -> None:
        notifier = self._notifiers.pop(engine, None)
        if notifier is not None:
            notifier.setEnabled(False)
            notifier.deleteLater()

    def _reap_ended(self) -> None:
        self._ending = [engine for engine in self._ending if not engine.reap()]

    def wait(self, msecs: int = 30_000) -> bool:
        """Every receive ended (one going on is stopped) and, with no load going on, every process ended and the
        spill folder removed (shutdown, tests; the next load starts a fresh process)."""
        receiving = [load for load in EngineLoad.receiving if load.link is self]
        done = all(load.wait(msecs) for load in receiving)
        if not self._loads:
            self._warm.stop()
            for engine in list(self._notifiers):
                self._retire(engine, kill=False)
            self._held_by = None
        for engine in self._ending:
            if not engine.reap(min(QUIT_WAIT_S, msecs / 1000)):
                engine.kill()
                engine.reap(QUIT_WAIT_S)
        self._ending = []
        if not self._notifiers and self.spill_folder is not None:
            shutil.rmtree(self.spill_folder, ignore_errors=True)
            self.spill_folder = None
        return done


class EngineLoad(QObject):
    """One load through the engine process (the signals of in_process.ThreadLoad)."""

    progress = Signal(float)
    prefix = Signal(object)
    loaded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    conversation_needed = Signal(str, object)
    ended = Signal(str)  # how the engine process ended ("signal SIGKILL", "exit code 3")
    receiving: set["EngineLoad"] = set()  # loads whose runs are being unpickled

    def __init__(self, link: EngineLoads, load_id: int, path: str, conversation: str | None,
                 fold_above: int | None) -> None:
        super().__init__(link)
        self.link, self.id = link, load_id
        self.path, self.conversation, self.fold_above = path, conversation, fold_above
        self.stopping = False
        self.prefixes_shown = 0
        self._spills: deque = deque()  # ("prefix" | "loaded", spill file) waiting to be received, in order
        self._receiver: SlicedReceive | None = None

    def start(self) -> None:
        self.link.begin(self)

    def stop(self) -> None:
        self.stopping = True
        self.link.send("cancel", self.id)

    def abandon(self) -> None:
        self.stopping = True
        self.link.abandon(self)
        if self._receiver is not None:
            self._receiver.stop()
        for _kind, spill in self._spills:
            engine_process().discard(spill)
        self._spills.clear()

    def part_shown(self) -> None:
        """(The engine does not wait for the window: nothing to do.)"""

    def wait(self, msecs: int = 30_000) -> bool:
        receiver = self._receiver
        if receiver is not None and not receiver.wait(msecs):
            return False
        EngineLoad.receiving.discard(self)
        return True

    def message(self, kind: str, rest: list) -> None:
        if kind == "progress":
            self.progress.emit(rest[0])
        elif kind == "held":
            self.link.held.emit()
        elif kind in ("prefix", "loaded"):
            if kind == "loaded":  # (the whole run: the parts not yet received are not needed)
                for _kind, spill in self._spills:
                    engine_process().discard(spill)
                self._spills.clear()
            elif self._spills and self._spills[-1][0] == "prefix":  # (a later part replaces one not yet received)
                engine_process().discard(self._spills.pop()[1])
            self._spills.append((kind, rest[0]))
            self._receive_next()
        elif kind == "failed":
            self.failed.emit(rest[0])
        elif kind == "cancelled":
            self.cancelled.emit()
        elif kind == "conversation_needed":
            self.conversation_needed.emit(rest[0], rest[1])
        elif kind == "ended":
            self.ended.emit(rest[0])

    def _receive_next(self) -> None:
        if self._receiver is not None or not self._spills:
            return
        kind, spill = self._spills.popleft()
        from afp_desktop.app.loading.received_runs import SlicedReceive

        self._receiver = SlicedReceive(kind, spill, self)
        self._receiver.received.connect(self._received)
        EngineLoad.receiving.add(self)
        self._receiver.start()

    def _received(self, kind: str, run) -> None:
        receiver, self._receiver = self._receiver, None
        if receiver is not None:
            receiver.deleteLater()
        EngineLoad.receiving.discard(self)
        if run is None:
            self.failed.emit(f"{self.path}: the engine's run could not be received")
        elif kind == "prefix":
            self.link.part_shown(run)
            self.prefix.emit(run)
        else:
            self.link.now_holds(run)
            self.loaded.emit(run)
        self._receive_next()

