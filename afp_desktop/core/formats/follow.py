"""Follow an NDJSON file while agentfootprint's file sink writes it: new complete lines, read incrementally.

What the sink does (9.62), and what the follower does about it:

| the sink                                                    | the follower                                       |
|-------------------------------------------------------------|----------------------------------------------------|
| appends whole batches; a reader can see a batch half written | keeps the bytes after the last newline until it comes |
| rotates one generation: `FILE` → `FILE.1`, a fresh `FILE`    | keeps the old file open, finishes it from its own handle (same inode), then reads the new `FILE` from 0 |
| rotates twice before the reader looks again                  | the new `FILE.1` is a generation it never saw: read whole, between the two |
| (someone truncates or replaces the file)                     | starts over, with a notice                         |

Nothing already read is read again: each file is read from the offset where the last read stopped, and a
partial line is kept in memory, not re-read. Pure Python, no Qt: the window, `afp-desktop tail` and the tests
all poll the same `FileFollower`.

Every file is opened as any input is (`source.open_regular`): only a regular file within the byte budget, never
a FIFO or device, whether it is `FILE`, `FILE.1` or swapped in while followed. `FILE` refused stops the follow
(a "refused" notice, `stopped` set); `FILE.1` refused is left unread (a "skipped" notice). Memory stays bounded
as the file grows: one poll reads at most `READ_PER_POLL` bytes (`more` says there is more to read now), and a
line longer than the byte budget is always left out, with a notice.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from afp_desktop.core.formats.errors import LoadError
from afp_desktop.core.formats.source import describe_size, max_bytes, open_regular

HEAD_BYTES = 4096  # the first bytes of a file (its first event, with its time and run id), kept to notice a rewrite
READ_PER_POLL = 64 << 20  # the most bytes one poll reads (never more than the byte budget)
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class FollowNotice:
    code: str  # "rotated" | "restarted" | "missing" | "cut-line" | "generation-read" | "long-line" | "skipped"
    #            | "refused" (the followed file cannot be read: the follow has stopped)
    text: str


@dataclass(frozen=True)
class Line:
    """One complete line: the file it was read from, its 1-based line number there, its bytes (no newline)."""

    source: str
    number: int
    data: bytes


@dataclass
class FollowUpdate:
    """What one poll found. With `restarted`, everything read before is void: start over with `lines`."""

    lines: list[Line] = field(default_factory=list)
    notices: list[FollowNotice] = field(default_factory=list)
    restarted: bool = False
    more: bool = False  # the file holds more than this poll read: poll again without waiting

    @property
    def empty(self) -> bool:
        return not self.lines and not self.notices and not self.restarted


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _fingerprint(st: os.stat_result | None) -> tuple | None:
    """Identity plus change time and size: a new `<path>.1` can reuse a deleted file's inode number."""
    return None if st is None else (st.st_dev, st.st_ino, st.st_ctime_ns, st.st_size)


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


class _OpenFile:
    """One generation of the file, held open by descriptor so a rename does not take it away."""

    def __init__(self, path: Path, handle, st: os.stat_result):
        self.name = str(path)
        self.handle = handle
        self.identity = _identity(st)
        self.offset = 0
        self.partial = b""
        self.skipping = False  # inside a line longer than the byte budget: dropped up to its newline
        self.line_no = 0
        self.head = b""

    @classmethod
    def open(cls, path: Path) -> "_OpenFile | None":
        """The file opened as any input is (raises LoadError), or None when there is no file there (yet)."""
        try:
            handle, st = open_regular(path)
        except LoadError:
            if not os.path.exists(path):
                return None  # (gone, or mid-rename: looked for again at the next poll)
            raise
        return cls(path, handle, st)

    def size(self) -> int:
        return os.fstat(self.handle.fileno()).st_size

    def read_new(self, out: list[Line], notices: list[FollowNotice]) -> bool:
        """Append the complete lines written since the last read (at most READ_PER_POLL bytes of them); keep a
        trailing partial line. True when there is more to read."""
        budget = max_bytes()
        most = min(READ_PER_POLL, budget)
        data = os.pread(self.handle.fileno(), most, self.offset)
        if not data:
            return False
        if self.offset < HEAD_BYTES:
            self.head = (self.head + data)[:HEAD_BYTES]
        self.offset += len(data)
        more = len(data) == most
        if self.skipping:
            end = data.find(b"\n")
            if end < 0:
                return more
            data, self.skipping = data[end + 1:], False
            self.line_no += 1
        data = self.partial + data
        if self.line_no == 0 and data.startswith(BOM):
            data = data[len(BOM):]
        pieces = data.split(b"\n")
        self.partial = pieces.pop()
        for piece in pieces:
            self.line_no += 1
            if len(piece) > budget:
                notices.append(self._too_long(self.line_no, budget))
            elif piece.strip():
                out.append(Line(self.name, self.line_no, piece))
        if len(self.partial) > budget:  # (the rest of it, up to its newline, is not kept either)
            self.partial, self.skipping = b"", True
            notices.append(self._too_long(self.line_no + 1, budget))
        return more

    def _too_long(self, line_no: int, budget: int) -> FollowNotice:
        return FollowNotice("long-line", f"{self.name}, line {line_no}: the line is longer than the limit "
                                         f"({describe_size(budget)}); it was left out")

    def rewritten(self) -> bool:
        """True when the file's first bytes are no longer the ones read (rewritten in place)."""
        if not self.head:
            return False
        try:
            return os.pread(self.handle.fileno(), len(self.head), 0) != self.head
        except OSError:
            return True

    def finish(self, out: list[Line], notices: list[FollowNotice]) -> None:
        """Read to the end of a file nobody writes any more; a last line without newline is taken if it is
        whole JSON (the sink always ends a batch with a newline), else said to be cut."""
        while self.read_new(out, notices):
            pass
        tail, self.partial = self.partial, b""
        if tail.strip():
            self.line_no += 1
            if _looks_whole(tail):
                out.append(Line(self.name, self.line_no, tail))
            else:
                notices.append(FollowNotice("cut-line", f"{self.name}, line {self.line_no}: the last line was cut "
                                                        "off when the file was rotated; it was left out"))
        self.close()

    def close(self) -> None:
        try:
            self.handle.close()
        except OSError:
            pass


def _looks_whole(data: bytes) -> bool:
    import orjson

    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


class FileFollower:
    """Poll `path` for new complete lines. The first poll reads what is there: `<path>.1` (the older half of
    a rotated pair) first when it exists, then `<path>`. Once `stopped` (the reason, when `path` could not be
    read), polls find nothing. Call `close()` when done."""

    def __init__(self, path: str | os.PathLike, *, read_rotated: bool = True):
        self.path = Path(path)
        self.rotated_path = self.path.with_name(self.path.name + ".1")
        self.read_rotated = read_rotated
        self._current: _OpenFile | None = None
        self._rotated_seen: tuple | None = None  # fingerprint of FILE.1 at the last poll
        self._started = False
        self.stopped: str | None = None

    # -- state ---------------------------------------------------------------------------------------------
    @property
    def has_partial_line(self) -> bool:
        """True while the file ends in a line still being written."""
        return self._current is not None and bool(self._current.partial.strip())

    @property
    def held_bytes(self) -> int:
        """Bytes of a line still being written, held until its newline comes (never more than the budget)."""
        return len(self._current.partial) if self._current is not None else 0

    @property
    def offset(self) -> int:
        return self._current.offset if self._current is not None else 0

    def close(self) -> None:
        if self._current is not None:
            self._current.close()
            self._current = None

    # -- polling -------------------------------------------------------------------------------------------
    def poll(self) -> FollowUpdate:
        update = FollowUpdate()
        if self.stopped is not None:
            return update
        if not self._started:
            self._started = True
            self._start(update, with_rotated=self.read_rotated)
            return update
        rotated = _stat(self.rotated_path)
        st = _stat(self.path)
        current = self._current
        if current is None:
            if st is not None:  # the file appeared (or came back): read it from the start
                if rotated is not None and _fingerprint(rotated) != self._rotated_seen:
                    self._read_missed_generation(update)  # it was written and rotated before we looked
                self._open_current(update)
        elif st is None or _identity(st) != current.identity:
            self._switched(update, st, rotated)
        elif current.size() < current.offset or current.rewritten():
            self._restart(update, f"{self.path.name} was truncated or rewritten; reading it again from the start")
        else:
            update.more = current.read_new(update.lines, update.notices)
        self._rotated_seen = _fingerprint(_stat(self.rotated_path))
        return update

    def _start(self, update: FollowUpdate, with_rotated: bool) -> None:
        rotated = _stat(self.rotated_path)
        if with_rotated and rotated is not None:
            older = self._open_rotated(update)
            if older is not None:
                older.finish(update.lines, update.notices)
                update.notices.append(FollowNotice("rotated", f"Read the rotated pair: {self.rotated_path.name} "
                                                              f"(older) then {self.path.name}."))
        self._rotated_seen = _fingerprint(rotated)
        self._open_current(update)
        if self._current is None and self.stopped is None:
            update.notices.append(FollowNotice("missing", f"{self.path} does not exist yet; waiting for it"))

    def _open_current(self, update: FollowUpdate) -> None:
        try:
            self._current = _OpenFile.open(self.path)
        except LoadError as err:
            self.close()
            self.stopped = f"{err}; the follow stopped"
            update.notices.append(FollowNotice("refused", self.stopped))
            return
        if self._current is not None:
            update.more = self._current.read_new(update.lines, update.notices)

    def _open_rotated(self, update: FollowUpdate) -> _OpenFile | None:
        """`<path>.1` opened, or None: not there, or not readable (said in a notice, and left unread)."""
        try:
            return _OpenFile.open(self.rotated_path)
        except LoadError as err:
            update.notices.append(FollowNotice("skipped", f"{err}; it was not read"))
            return None

    def _switched(self, update: FollowUpdate, st: os.stat_result | None, rotated: os.stat_result | None) -> None:
        """`path` is gone or is another file. A rotation when the file we hold is now `<path>.1`, or when a
        file was renamed to `<path>.1` since we last looked (two rotations: that one is a generation we never
        saw); otherwise the file was replaced."""
        old = self._current
        assert old is not None
        if rotated is not None and _identity(rotated) == old.identity:
            old.finish(update.lines, update.notices)
            update.notices.append(FollowNotice("rotated", f"{self.path.name} was rotated to "
                                                          f"{self.rotated_path.name}; following the new file"))
        elif rotated is not None and _fingerprint(rotated) != self._rotated_seen:
            old.finish(update.lines, update.notices)
            self._read_missed_generation(update)
            update.notices.append(FollowNotice("generation-read", f"{self.path.name} was rotated twice since the "
                                                                  "last read; both generations were read"))
        elif st is None:
            return  # deleted (or mid-rename): keep what we hold and look again next time
        else:
            self._restart(update, f"{self.path.name} was replaced by another file; reading it from the start")
            return
        self._current = None
        if st is not None:
            self._open_current(update)

    def _read_missed_generation(self, update: FollowUpdate) -> None:
        missed = self._open_rotated(update)
        if missed is not None:
            missed.finish(update.lines, update.notices)

    def _restart(self, update: FollowUpdate, text: str) -> None:
        self.close()
        update.lines.clear()
        update.restarted = True
        update.notices.append(FollowNotice("restarted", text))
        self._open_current(update)


def parse_lines(lines: list[Line]) -> tuple[list[dict], list[FollowNotice]]:
    """The typed events of complete lines; a line that is not an event is left out and named in a notice
    (a live file keeps going: one damaged line does not stop the follow)."""
    import orjson

    from afp_desktop.core.formats.ndjson import loads_line
    from afp_desktop.core.jsonx.jsonio import JSONSyntaxError

    events: list[dict] = []
    notices: list[FollowNotice] = []
    for line in lines:
        try:
            event = loads_line(line.data)  # (as opening the file reads it: deep values and lone surrogates too)
        except (orjson.JSONDecodeError, JSONSyntaxError) as err:
            notices.append(FollowNotice("bad-line", f"{line.source}, line {line.number}: not valid JSON ({err}); "
                                                    "the line was left out"))
            continue
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            notices.append(FollowNotice("bad-line", f"{line.source}, line {line.number}: not a typed event "
                                                    "{type, payload, meta}; the line was left out"))
            continue
        events.append(event)
    return events, notices
