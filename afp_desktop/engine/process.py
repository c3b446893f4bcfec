"""The engine process's main: requests in, messages out, over one `multiprocessing.connection.Connection`.

Requests (tuples, the kind first):
  ("open", load, {"path", "conversation", "fold_above", "show_prefixes", "byte_limit", "hold"[, "whole",
                   "check_payloads"]})   the run's copy made whole (window_copy.py), its payloads checked first
  ("cancel", load)            stop that load at its next breathing point
  ("go", load)                a load held goes on ("hold": tests; True: at its first breathing point, "part": once
                              its first part is sent)
  ("close",)                  let go of the open run
  ("quit",)                   end the process
  ("request", id, tag, kind, args[, hold])   a request about the run the last open loaded (service.Engine.answer)
  ("follow", id, {"path", "shown", "fold_above", "spill_above"})   follow that file as it grows (follow.py);
  ("follow_applied", id) the window shows the last growth's copy: later requests are about that run;
  ("follow_shown", id) the window is ready for the next growth; ("unfollow", id) stop
Messages (tuples, the kind and the load first):
  ("progress", load, fraction)   ("prefix", load, spill)   ("loaded", load, spill)   ("failed", load, message)
  ("cancelled", load)   ("conversation_needed", load, path, conversations)   ("held", load)
  ("answer", id, value)   ("request_failed", id, message)   ("superseded", id)   ("held", id)
  ("follow", id, "grown_copy", bytes, facts)   ("follow", id, "grown_spill", spill, facts)
  ("follow", id, "note", text, msecs)   ("follow", id, "stopped", text)   (follow.py: the grown run's window copy,
  through a spill file when it is longer than the window's "spill_above" bytes; `facts`: Grown.facts())
The process keeps the run it loaded until the next open or close, and answers requests about it one at a time.
A newer request with the same tag supersedes an older one: a queued one is dropped before it starts, and a running
one stops at its next breathing point (both are told "superseded"); an open, close or quit waiting stops one too.
A request held ("hold": tests) waits at its first breathing point for its ("go", id).
While a big file is read, the window shows its first part ("prefix"): requests about it come to the process reading
the file, which answers them at its breathing points (the part's copy, like the whole run's, holds no event).
A run travels as a pickle (protocol 5) written to a spill file in the folder the window gave (`spill`: its name),
never through the connection: every message on it stays small, so the window reads it at once.

The process's own policy lives here: the garbage collector held off while a run is built (collector.py), and a
priority below the window's (NICENESS).
"""

from __future__ import annotations

import io
import os
import time
from collections import deque
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Callable

from afp_desktop.core.breathing import breathing
from afp_desktop.core.formats import ConversationChoiceNeeded, LoadCancelled, LoadError
from afp_desktop.core.formats.source import byte_limit
from afp_desktop.core.framed_pickle import FrameReader
from afp_desktop.core.views.window_copy import (
    part_counts,
    load_with_stand_ins,
    write_window_copy,
)
from afp_desktop.engine.collector import collector_paused
from afp_desktop.engine.service import Engine, NoRun

if TYPE_CHECKING:
    from afp_desktop.engine.follow import RunFollow

PROGRESS_GAP_S = 0.1  # progress messages at most this often (and at 100 %)
POLL_GAP_S = 0.01  # a breathing point looks for a cancel at most this often (a poll is a system call)
# The engine runs at a lower priority than the window: when they want the same processor (two processors, another
# program busy on one), the system runs the window's thread first and the engine in what it leaves.
NICENESS = 5


class _Requests:
    """The connection's requests: the ones read while a load runs (looking for its cancel) kept for later."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.waiting: deque = deque()
        self.cancelled: set[int] = set()

    def next(self):
        return self.waiting.popleft() if self.waiting else self.connection.recv()

    def read_waiting(self) -> None:
        """Read what has arrived without blocking; cancels are noted, the rest kept in order."""
        while self.connection.poll():
            self._note(self.connection.recv())

    def wait_for_go(self, load: int, meanwhile: Callable[[], None] | None = None) -> None:
        """Block until `load` may go on (its "go", or its cancel); `meanwhile()` after each other request read."""
        while load not in self.cancelled:
            request = self.connection.recv()
            if request[:2] == ("go", load):
                return
            self._note(request)
            if meanwhile is not None:
                meanwhile()

    def take_request(self):
        """The first "request" read and kept, taken out of the waiting ones (None: there is none)."""
        for index, waiting in enumerate(self.waiting):
            if waiting[0] == "request":
                del self.waiting[index]
                return waiting
        return None

    def superseded(self, request) -> bool:
        """Whether a request waiting makes `request` (a "request") pointless: a newer one with its tag, or an open,
        close or quit."""
        tag = request[2]
        return any(waiting[0] in ("open", "close", "quit") or (waiting[0] == "request" and waiting[2] == tag)
                   for waiting in self.waiting)

    def _note(self, request) -> None:
        if request[0] == "cancel":
            self.cancelled.add(request[1])
        else:
            self.waiting.append(request)


def serve(connection: Connection, spill_folder: str) -> None:
    """The engine process's main: serve requests until "quit" or the window's end of the connection closes."""
    if hasattr(os, "nice"):
        try:
            os.nice(NICENESS)
        except OSError:
            pass
    engine = Engine()
    requests = _Requests(connection)
    spills = 0
    following: tuple[int, RunFollow] | None = None
    while True:
        try:
            if following is not None and not requests.waiting and not connection.poll(following[1].wait_s()):
                _follow_step(connection, following)
                if following[1].stopped:
                    following = None
                continue
            request = requests.next()
        except (EOFError, OSError):
            return
        kind = request[0]
        if kind == "quit":
            return
        if kind == "close":
            engine.close()
        elif kind == "open":
            spills = _open(engine, requests, request[1], request[2], spill_folder, spills)
        elif kind == "request":
            _answer(engine, requests, request)
        elif kind == "follow":
            from afp_desktop.engine.follow import RunFollow  # (the window imports this module, never the follow)

            if following is not None:
                following[1].close()
            asked = request[2]
            follow = RunFollow(asked["path"], asked.get("shown"), fold_above=asked.get("fold_above"),
                               pack=_follow_packer(spill_folder, asked["spill_above"], request[1]),
                               unsent=_discard_unsent)
            following = (request[1], follow)
        elif kind in ("follow_applied", "follow_shown", "unfollow") and following is not None \
                and following[0] == request[1]:
            if kind == "unfollow":
                following[1].close()
                following = None
            elif kind == "follow_applied":
                sent = following[1].last_sent
                if sent is not None and sent is not engine.run:
                    engine.hold(sent)
            else:
                following[1].shown()
        # ("go" and "cancel" of a load that has ended: nothing to do)


def _open(engine: Engine, requests: _Requests, load: int, asked: dict, spill_folder: str, spills: int) -> int:
    """Serve one open request; returns the number of spill files written so far."""
    connection = requests.connection
    last = {"poll": time.monotonic(), "progress": -1.0, "percent": -1}
    held = [asked.get("hold") is True]
    held_after_part = [asked.get("hold") == "part"]  # (tests: the load waits once its first part is sent)
    part = Engine()  # holds the part of the file shown while the rest is read: requests about it are answered
    answering = [False]  # (a request answered at a breathing point breathes too: it answers no other meanwhile)

    def send(*message) -> None:
        connection.send(message)

    def breathe_here() -> None:
        if held[0]:
            held[0] = False
            send("held", load)
            requests.wait_for_go(load)
        now = time.monotonic()
        if now - last["poll"] >= POLL_GAP_S:
            last["poll"] = now
            requests.read_waiting()
            if part.run is not None and not answering[0] and load not in requests.cancelled:
                answer_about_the_part()
        if load in requests.cancelled:
            raise LoadCancelled()

    def answer_about_the_part() -> None:
        """The window's requests about the part it shows, answered now (the load goes on after them)."""
        answering[0] = True
        try:
            while (request := requests.take_request()) is not None:
                _answer(part, requests, request)
                last["poll"] = time.monotonic()
        finally:
            answering[0] = False

    def cancelled() -> bool:
        breathe_here()
        return False

    def progress(fraction: float) -> None:
        percent, now = int(fraction * 100), time.monotonic()
        if percent != last["percent"] and (now - last["progress"] >= PROGRESS_GAP_S or percent == 100):
            last["percent"], last["progress"] = percent, now
            send("progress", load, percent / 100)

    parts: list[tuple[int, int]] = []  # (typed, domain) event counts of the parts sent so far

    def spill(run, whole: bool) -> str:
        nonlocal spills
        spills += 1
        name = os.path.join(spill_folder, f"run-{os.getpid()}-{spills}.pickle")
        with open(name, "wb") as out:
            write_window_copy(run, out, parts, whole)
        return name

    def show_prefix(run) -> None:
        send("prefix", load, spill(run, whole=False))
        parts.append(part_counts(run))
        part.hold(run)  # (asked about until the next part, or the whole run, takes its place)
        if held_after_part[0]:
            held_after_part[0] = False
            send("held", load)
            requests.wait_for_go(load, answer_about_the_part)

    path = asked["path"]
    try:
        with byte_limit(asked.get("byte_limit")), collector_paused(), breathing(breathe_here):
            run = engine.open(path, conversation=asked.get("conversation"), fold_above=asked.get("fold_above"),
                              progress=progress, cancelled=cancelled,
                              show_prefix=show_prefix if asked.get("show_prefixes") else None)
        part.close()
        if asked.get("check_payloads"):
            run.payload_problems  # noqa: B018 - checked now: the copy carries what was found
        name = spill(run, whole=bool(asked.get("whole")))
    except LoadCancelled:
        send("cancelled", load)
    except Exception as err:  # noqa: BLE001 - told apart in words (failure_message)
        if load in requests.cancelled:
            send("cancelled", load)  # (what stopping raised on the way out is no failure)
        elif isinstance(err, ConversationChoiceNeeded):
            send("conversation_needed", load, path, err.conversations)
        else:
            send("failed", load, failure_message(path, err))
    else:
        if load in requests.cancelled:
            os.unlink(name)
            send("cancelled", load)
        else:
            send("loaded", load, name)
    return spills


def _follow_packer(spill_folder: str, spill_above: int, follow_id: int) -> Callable:
    """How a growth goes to the window (RunFollow's `pack`): the grown run's window copy, through a spill file when it
    is longer than the window's `spill_above` bytes (received a slice per turn), else in the message itself."""
    written = [0]

    def pack(grown) -> tuple:
        buffer = io.BytesIO()
        write_window_copy(grown.run, buffer, grown.parts_before)
        if buffer.tell() > spill_above:
            written[0] += 1
            name = os.path.join(spill_folder, f"growth-{os.getpid()}-{follow_id}-{written[0]}.pickle")
            with open(name, "wb") as out:
                out.write(buffer.getbuffer())
            return ("grown_spill", name, grown.facts())
        return ("grown_copy", buffer.getvalue(), grown.facts())

    return pack


def _discard_unsent(grown) -> None:
    """A growth packed and never sent: its spill file, if it has one, is removed."""
    if grown.packed[0] == "grown_spill":
        discard(grown.packed[1])


def _follow_step(connection: Connection, following: tuple[int, RunFollow]) -> None:
    """One step of the follow; its messages sent, a growth as what RunFollow's `pack` made of it (_follow_packer)."""
    follow_id, follow = following
    try:
        messages = follow.step()
    except Exception as err:  # noqa: BLE001 - a follow never takes the engine down; the window is told why
        follow.close()
        messages = [("stopped", f"{follow.path}: following it stopped ({type(err).__name__}: {str(err)[:300]})")]
    for message in messages:
        if message[0] == "grown":
            message = message[1].packed
        connection.send(("follow", follow_id, *message))


class _Superseded(Exception):
    """A newer request stops the one running."""


def _answer(engine: Engine, requests: _Requests, request) -> None:
    """Serve one request, unless a request waiting supersedes it (then, or when one arrives while it runs, it is
    told "superseded")."""
    _kind, request_id, _tag, kind, args, *hold = request
    connection = requests.connection
    requests.read_waiting()
    if requests.superseded(request):
        connection.send(("superseded", request_id))
        return
    last = {"poll": time.monotonic()}
    held = [bool(hold and hold[0])]

    def breathe_here() -> None:
        if held[0]:
            held[0] = False
            connection.send(("held", request_id))
            requests.wait_for_go(request_id)
            last["poll"] = 0.0
        now = time.monotonic()
        if now - last["poll"] >= POLL_GAP_S:
            last["poll"] = now
            requests.read_waiting()
            if requests.superseded(request):
                raise _Superseded()

    try:
        with breathing(breathe_here):
            value = engine.answer(kind, args)
    except _Superseded:
        connection.send(("superseded", request_id))
    except NoRun:
        connection.send(("request_failed", request_id, "the engine holds no run (it was closed, or another is "
                                                       "being opened)"))
    except Exception as err:  # noqa: BLE001 - a request never takes the engine down; the window is told why
        connection.send(("request_failed", request_id, f"{type(err).__name__}: {str(err)[:300]}"))
    else:
        connection.send(("answer", request_id, value))


def failure_message(path: str, error: Exception) -> str:
    """Why a load ended, in words (never a traceback)."""
    if isinstance(error, LoadError):
        return str(error)
    if isinstance(error, FileNotFoundError):
        return f"{path}: the file does not exist (it may have been moved or deleted)"
    if isinstance(error, PermissionError):
        return f"{path}: permission denied; the file cannot be read"
    if isinstance(error, IsADirectoryError):
        return f"{path}: this is a folder, not a trace file"
    if isinstance(error, MemoryError):
        return f"{path}: not enough memory to load this file"
    return f"{path}: could not be opened ({type(error).__name__}: {error})"  # a bug or an unforeseen shape


def receive(spill: str, between_frames: Callable[[], None] | None = None, remove: bool = True):
    """The run in spill file `spill` (then removed, unless `remove` is False: the caller removes it), unpickled
    through `FrameReader`: Python code between every frame the unpickler reads, which calls `between_frames()`
    (where the reading thread may pause)."""
    try:
        with open(spill, "rb") as source:
            return load_with_stand_ins(FrameReader(source, between_frames))
    finally:
        if remove:
            discard(spill)


def discard(spill: str) -> None:
    """Remove a spill file no one will read."""
    try:
        os.unlink(spill)
    except OSError:
        pass

