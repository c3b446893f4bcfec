"""Reading a file's bytes: never writing, transparently decompressing .gz/.xz, refusing what is not a file.

Files come from other people, so reading is bounded: only a regular file is opened (a FIFO, device, socket or
folder is refused at once, before any read that could block or never end), and neither the file nor what it
decompresses to may exceed a byte budget (`budget_for(kind)`: --max-bytes, `AFP_DESKTOP_MAX_BYTES`, else the
machine's available memory over what opening the file's format takes, size_limit.py). Every reader of an input
(runs, the follower and `tail`, settings, template maps, bookmarks, price tables) opens it through
`open_regular`, the one place these rules live; smaller kinds of file have their own cap. Decompression streams in
chunks and stops as soon as the budget is passed, so a "zip bomb" costs at most the budget in memory, never the
bomb's size.
"""

from __future__ import annotations

from typing import Any, BinaryIO, cast

import errno
import lzma
import mmap
import os
import stat
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from math import ceil
from pathlib import Path

from afp_desktop.core.breathing import breathe
from afp_desktop.core.formats.errors import LoadError, Problem
from afp_desktop.core.formats.size_limit import (HEAD_BYTES, KIND_NAMES, MEMORY_SHARE, available_memory,
                                                 expansion_at, kind_of_head, size_limit)

GZIP_MAGIC = b"\x1f\x8b"
XZ_MAGIC = b"\xfd7zXZ\x00"
ZIP_MAGIC = b"PK\x03\x04"  # a bug-report bundle (bundle.py)
EMPTY_ZIP_MAGIC = b"PK\x05\x06"  # a zip that holds nothing
MAX_BYTES_ENV = "AFP_DESKTOP_MAX_BYTES"
_CHUNK = 1 << 20


_override: int | None = None


@contextmanager
def byte_limit(limit: int | None):
    """Within the block, `max_bytes()` is `limit` (the command line's --max-bytes); None changes nothing."""
    global _override
    previous = _override
    _override = limit if limit is not None else previous
    try:
        yield
    finally:
        _override = previous


def byte_limit_given() -> int | None:
    """The limit a `byte_limit` block in force set (None: none), to hand on to another process."""
    return _override


@dataclass(frozen=True)
class ByteBudget:
    """The most bytes a file of one format may hold (on disk, and once decompressed), and where that comes from:
    `memory` is the memory available it was derived from, None when it was set (`set_by`)."""

    limit: int
    kind: str
    memory: int | None = None
    set_by: str | None = None

    def explained(self, size: int) -> str:
        """Why the limit is what it is, for a file of `size` bytes (for a refusal's message)."""
        if self.memory is None:
            return f"the limit is {describe_size(self.limit)}, set by {self.set_by}"
        return (f"the limit for {KIND_NAMES[self.kind]} is {describe_size(self.limit)}, because opening one this "
                f"large takes about {expansion_at(self.kind, size):g}× its size in memory and "
                f"{describe_size(self.memory)} of memory is available ({MEMORY_SHARE:.0%} of it for a run)")

    def refusal(self, what: str, needed: int) -> str:
        """`what` (the file is …), the limit and why, and what to pass to open it anyway: at least `needed`."""
        size = suggested_size(needed)
        return (f"{what}; {self.explained(needed)}. To open it anyway, pass --max-bytes {size} (or set "
                f"{MAX_BYTES_ENV}={size})")


def budget_for(kind: str = "unknown") -> ByteBudget:
    """The byte budget for a file of this format (size_limit.py's names): --max-bytes, `$AFP_DESKTOP_MAX_BYTES`,
    else the size limit of the memory available now."""
    if _override is not None:
        return ByteBudget(_override, kind, set_by="--max-bytes")
    override = os.environ.get(MAX_BYTES_ENV, "").strip()
    if override:
        try:
            value = parse_size(override)
        except ValueError:
            value = None
        if value is not None and value > 0:
            return ByteBudget(value, kind, set_by=MAX_BYTES_ENV)
    memory = available_memory()
    return ByteBudget(size_limit(memory, kind), kind, memory)


def max_bytes(kind: str = "unknown") -> int:
    """The most bytes a file of this format may hold (on disk, and once decompressed): `budget_for(kind)`."""
    return budget_for(kind).limit


def parse_size(text: str) -> int:
    """'500M', '2G', '1048576' → bytes (K, M, G, T are powers of 1024). Raises ValueError."""
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    factor = 1
    if text and text[-1] in "KMGT":
        factor = 1024 ** ("KMGT".index(text[-1]) + 1)
        text = text[:-1]
    number = float(text)
    if not 1 <= number * factor <= 1 << 60:  # (also refuses nan)
        raise ValueError(f"not a size: {text!r}")
    return int(number * factor)


def describe_size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


def suggested_size(n: int) -> str:
    """A size to write on the command line (parse_size's form) of at least `n` bytes: '1.3G', '640M', '2K'."""
    for suffix, unit in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= unit:
            tenths = ceil(n * 10 / unit)
            while parse_size(f"{tenths / 10:g}{suffix}") < n:  # (a tenth's rounding)
                tenths += 1
            return f"{tenths / 10:g}{suffix}"
    return str(max(n, 1))


def _kind_of(mode: int) -> str | None:
    """Why a file of this mode is not read, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "this is a folder, not a trace file; open one of the files inside it"
    if stat.S_ISFIFO(mode):
        return "this is a named pipe (FIFO), not a regular file; only regular files are read"
    if stat.S_ISSOCK(mode):
        return "this is a socket, not a regular file; only regular files are read"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "this is a device, not a regular file; only regular files are read"
    return "this is not a regular file; only regular files are read"


def is_zip(data: bytes) -> bool:
    """Whether `data` is a zip archive (a bug-report bundle, or an empty zip)."""
    return data[:4] in (ZIP_MAGIC, EMPTY_ZIP_MAGIC)


def check_regular(path: str | os.PathLike) -> os.stat_result:
    """stat() the path (following links) and refuse anything but a regular file, with a one-line reason."""
    name = os.fsdecode(path)
    try:
        info = os.stat(path)
    except OSError as err:
        raise LoadError(name, _os_error_text(err)) from None
    reason = _kind_of(info.st_mode)
    if reason:
        raise LoadError(name, reason)
    return info


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def open_regular(path: str | os.PathLike, limit: int | None = None,
                 check_size: bool = True) -> tuple[BinaryIO, os.stat_result]:
    """The one way an input file is opened: the path must name a regular file, it is opened read-only and
    non-blocking (a FIFO swapped in after that check never makes the open wait for a writer), and the opened
    descriptor itself must be a regular file too (what was swapped in is refused, never read), of at most
    `limit` bytes: None is the trace budget, `max_bytes()` (its message names --max-bytes); a kind of file with
    its own cap (settings, templates, bookmarks) passes that cap. Every reader of an input goes through here.
    `check_size=False`: the caller checks the size against its format's own budget once it has read the head.
    Returns an unbuffered handle, to close, and its stat; raises LoadError with a one-line reason."""
    name = os.fsdecode(path)
    check_regular(path)  # (a device is not even opened: opening some has effects)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as err:
        raise LoadError(name, _os_error_text(err)) from None
    handle = os.fdopen(fd, "rb", buffering=0)
    try:
        info = os.fstat(fd)
        reason = _kind_of(info.st_mode)
        if reason:
            raise LoadError(name, reason)
        if check_size and info.st_size > (max_bytes() if limit is None else limit):
            raise LoadError(name, _too_large_text(info.st_size, limit))
    except BaseException:
        handle.close()
        raise
    return handle, info


def _too_large_text(size: int | None, limit: int | None) -> str:
    """Why a file of `size` bytes (None: it grew while read) is refused under `limit` (None: the trace budget)."""
    if limit is None:
        budget = budget_for()
        if size is None:
            return budget.refusal("the file is larger than the limit (it grew while it was read)", budget.limit + 1)
        return budget.refusal(f"the file is {describe_size(size)}, too large to open", size)
    return f"the file is larger than {describe_size(limit)}, more than such a file can be"


def _os_error_text(err: OSError) -> str:
    if err.errno == errno.ENOENT:
        return "no such file"
    if err.errno == errno.ELOOP:
        return "a symbolic link loop: the link points (through other links) back at itself"
    if err.errno in (errno.EACCES, errno.EPERM):
        return "permission denied: the file cannot be read"
    if err.errno == errno.ENOTDIR:
        return "no such file (a part of the path is not a folder)"
    if err.errno == errno.ENAMETOOLONG:
        return "the file name is too long"
    return f"the file cannot be read ({err.strerror or err})"


def read_source(path: str | os.PathLike, warnings: list[Problem] | None = None) -> bytes:
    """The file's content, decompressed if it is gzip or xz. Opens read-only; raises LoadError. Warnings (such as
    trailing data after a compressed stream) are appended to `warnings` when given. A big file's content is a
    bytearray (`_read_capped`), typed as bytes: its readers only read it, as they read bytes (never hash it)."""
    name = os.fsdecode(path)
    handle, info = open_regular(path, check_size=False)  # (its format's own budget is checked below)
    with handle:
        try:
            head = handle.read(HEAD_BYTES)
            if head.startswith(GZIP_MAGIC) or head.startswith(XZ_MAGIC):  # (the limit: of what it expands to)
                return cast(bytes, _decompress_stream(head, handle, name, None, warnings))
            budget = budget_for(kind_of_head(head))
            if info.st_size > budget.limit:
                raise LoadError(name, budget.refusal(f"the file is {describe_size(info.st_size)}, too large to open",
                                                     info.st_size))
            handle.seek(0)  # (read whole, not head + rest: one copy of a large file in memory, not two)
            data = _read_capped(handle, budget.limit + 1, info.st_size)
        except OSError as err:
            raise LoadError(name, _os_error_text(err)) from None
    if len(data) > budget.limit:  # it grew while being read
        raise LoadError(name, budget.refusal("the file is larger than the limit (it grew while it was read)",
                                             len(data)))
    return cast(bytes, data)


class FileEnd:
    """The last `length` bytes of a regular file, read backward a piece at a time as they are needed: a search
    from the end reads only as far back as what it finds (a recording's events array lies near its end,
    so only that much of the tail is read). `buffer` holds them where they belong, in anonymous memory (pages not
    read cost nothing, and there is no join of pieces); `need(index)` reads buffer[index:] if it is not read yet, and
    raises OSError when the file changed under it. Never a map of the file itself: a file cut while mapped would
    kill the process (SIGBUS)."""

    PIECE = 8 << 20  # bytes read at a time (one short read)

    def __init__(self, handle: BinaryIO, size: int, length: int) -> None:
        self._handle, self._fd, self._size = handle, handle.fileno(), size
        self.length = min(length, size)
        self.buffer = mmap.mmap(-1, max(self.length, 1))
        self.floor = self.length  # buffer[floor:] is read

    def need(self, index: int) -> None:
        index = max(index, 0)
        while self.floor > index:
            start = max(index, self.floor - self.PIECE)
            piece = memoryview(self.buffer)[start:self.floor]
            try:
                done = 0
                while done < len(piece):
                    got = os.preadv(self._fd, [piece[done:]], self._size - self.length + start + done)
                    if got <= 0:
                        raise OSError(errno.EIO, "the file became shorter while it was read")
                    done += got
            finally:
                piece.release()
            self.floor = start

    def head(self, count: int) -> bytes:
        """The file's first `count` bytes (read now)."""
        return os.pread(self._fd, count, 0)

    def close(self) -> None:
        self._handle.close()


def open_file_end(path: str | os.PathLike, length: int) -> FileEnd | None:
    """A FileEnd of the last `length` bytes of a regular file that is not compressed (all of it if shorter), for
    a preview read before the whole file; or None (a compressed or unreadable file: the whole read says why).
    Close it when done."""
    try:
        handle, info = open_regular(path, check_size=False)
    except LoadError:
        return None
    try:
        first = os.pread(handle.fileno(), HEAD_BYTES, 0)
        if (info.st_size > max_bytes(kind_of_head(first)) or not info.st_size
                or first.startswith(GZIP_MAGIC) or first.startswith(XZ_MAGIC)):
            handle.close()
            return None
        return FileEnd(handle, info.st_size, length)
    except (OSError, MemoryError):
        handle.close()
        return None


def read_regular(path: str | os.PathLike, limit: int) -> bytes:
    """A small file's bytes as they are (settings, template maps, bookmarks): only a regular file, at most
    `limit` bytes, never a read that blocks. Raises LoadError with a one-line reason."""
    name = os.fsdecode(path)
    handle, _info = open_regular(path, limit)
    with handle:
        try:
            data = _read_capped(handle, limit + 1)
        except OSError as err:
            raise LoadError(name, _os_error_text(err)) from None
    if len(data) > limit:
        raise LoadError(name, _too_large_text(None, limit))
    return cast(bytes, data)  # (read with no size given: bytes)


PIECE_READ = 16 << 20  # a big file is read this much at a time into its one buffer, a breath between two


def _read_capped(handle, most: int, expected: int = 0) -> bytes | bytearray:
    """At most `most` bytes. A file read whole is one buffer, never parts joined (which doubles the peak): a big one
    (`expected`, a regular file's size) is a bytearray read into a piece at a time (`_read_in_pieces`), else the
    first read asks for all `expected` bytes and one more. (A bytearray reads as bytes do, and orjson, re and numpy
    take it as they take bytes.)"""
    if expected >= 2 * PIECE_READ and expected < most:
        whole = _read_in_pieces(handle, expected)
        if len(whole) < expected:
            return whole  # (the file became shorter while it was read: what it held)
        most -= expected
        while most > 0:  # (more than its size said: a file growing, read on as any stream, onto the same buffer)
            chunk = handle.read(min(most, 16 * _CHUNK))
            if not chunk:
                break
            whole += chunk
            most -= len(chunk)
        return whole
    parts = []
    first = expected + 1 if expected > 0 else 16 * _CHUNK
    while most > 0:
        chunk = handle.read(min(most, first))
        first = 16 * _CHUNK
        if not chunk:
            break
        parts.append(chunk)
        most -= len(chunk)
    return b"".join(parts)


def _read_in_pieces(handle, size: int) -> bytearray:
    """The next `size` bytes of `handle` (fewer at its end) read a piece at a time into one new bytearray, breathing
    between pieces (a loader's cancellation and progress, the window's turn in the same process): a big file read in
    one call would hold the thread with no breath."""
    text = bytearray(size)
    done = 0
    with memoryview(text) as target:
        while done < size:
            got = handle.readinto(target[done:min(done + PIECE_READ, size)])
            if not got:
                break
            done += got
            breathe()
    if done < size:
        del text[done:]  # (in place: the buffer shrinks, nothing is copied)
    return text


class _Decoder:
    """Successive gzip members or xz streams (both formats allow concatenation), decompressed incrementally with
    a bound on each call's output."""

    def __init__(self, magic: bytes):
        self.magic = magic
        self.restart()

    def restart(self) -> None:
        self.xz = self.magic == XZ_MAGIC
        self.decoder: Any = lzma.LZMADecompressor(lzma.FORMAT_XZ) if self.xz else zlib.decompressobj(wbits=31)

    def wants_input(self) -> bool:
        return self.decoder.needs_input if self.xz else not self.decoder.unconsumed_tail

    def decompress(self, data: bytes) -> bytes:
        if not self.xz and not data:
            data = self.decoder.unconsumed_tail
        return self.decoder.decompress(data, _CHUNK)

    @property
    def eof(self) -> bool:
        return self.decoder.eof


def _decompress_stream(head: bytes, handle, name: str, budget: ByteBudget | None,
                       warnings: list[Problem] | None) -> bytes | bytearray:
    """The content of a gzip or xz stream, refused as soon as it passes the budget (None: the budget of the format
    its first HEAD_BYTES decompressed name)."""
    magic = GZIP_MAGIC if head.startswith(GZIP_MAGIC) else XZ_MAGIC
    decoder = _Decoder(magic)
    whole = bytearray()  # (grown in place, never parts joined at the end: no second copy of what it expands to)
    pending = head  # compressed bytes read but not yet given to the decoder
    trailing = b""
    ended = False
    try:
        while True:
            exhausted = False
            data = b""
            if decoder.wants_input():
                data, pending = pending or handle.read(_CHUNK), b""
                exhausted = not data
            out = decoder.decompress(data)
            if out:
                whole += out
                if budget is None and len(whole) >= HEAD_BYTES:
                    budget = budget_for(kind_of_head(bytes(whole[:HEAD_BYTES])))
                if budget is not None and len(whole) > budget.limit:
                    raise LoadError(name, budget.refusal("the compressed file expands to more than the limit; it "
                                                         "was not loaded", 2 * budget.limit))
            if decoder.eof:
                ended = True
                rest = decoder.decoder.unused_data.lstrip(b"\x00")  # (xz pads streams with zero bytes)
                while not rest:
                    more = handle.read(_CHUNK)
                    if not more:
                        break
                    rest = more.lstrip(b"\x00")
                if not rest:
                    break
                if len(rest) < len(magic):
                    rest += handle.read(_CHUNK)
                if rest.startswith(magic):  # another stream follows
                    decoder.restart()
                    ended = False
                    pending = rest
                    continue
                trailing = rest
                break
            elif exhausted and not out:
                break
    except (zlib.error, lzma.LZMAError, EOFError) as err:
        raise LoadError(name, f"the compressed file is damaged ({err})") from None
    if budget is None:  # (it ended within its head)
        budget = budget_for(kind_of_head(bytes(whole[:HEAD_BYTES])))
        if len(whole) > budget.limit:
            raise LoadError(name, budget.refusal("the compressed file expands to more than the limit; it was not "
                                                 "loaded", 2 * budget.limit))
    if not ended:
        if warnings is None or not whole:
            raise LoadError(name, "the compressed file is cut off (its end is missing); decompress what there is "
                                  "with a tool, or open the complete file")
        # What it holds up to the cut is read like any file cut off while written (a cut last line, a cut Trace).
        warnings.append(Problem(name, "the compressed file is cut off (its end is missing): what it holds up to "
                                      "the cut is shown"))
    if trailing and warnings is not None:
        extra = len(trailing) + len(_read_capped(handle, budget.limit if budget is not None else max_bytes()))
        kind = "gzip" if magic == GZIP_MAGIC else "xz"
        warnings.append(Problem(name, f"{describe_size(extra)} of data after the end of the {kind} stream "
                                      "were ignored (they are not part of the compressed file)"))
    return whole if len(whole) >= 2 * PIECE_READ else bytes(whole)


def decompress(data: bytes, name: str) -> bytes:
    """Decompress bytes already in memory (gzip or xz, else returned as they are), within the same budget (big:
    a bytearray, as `read_source`'s)."""
    if not (data.startswith(GZIP_MAGIC) or data.startswith(XZ_MAGIC)):
        return data
    import io

    handle = io.BytesIO(data)
    return cast(bytes, _decompress_stream(handle.read(8), handle, name, None, None))


def rotation_partner(path: str | os.PathLike) -> Path:
    """The other half's name of a rotated pair, whether that file exists or not: `<path>.1` (the older half)
    for `<path>`, and `<path>` (the newer half) for `<path>.1`. Opening either name reads both halves."""
    p = Path(path)
    return p.with_suffix("") if p.suffix == ".1" else p.with_name(p.name + ".1")


def rotated_pair(path: str | os.PathLike) -> list[Path]:
    """The file sink rotates `<path>` to `<path>.1`: a whole session is `<path>.1` then `<path>`."""
    p = Path(path)
    partner = rotation_partner(p)
    if not partner.is_file():
        return [p]
    return [p, partner] if p.suffix == ".1" else [partner, p]
