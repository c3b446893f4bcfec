"""Every file the app writes (convert, export, saved template maps, settings) goes through `write_file`.

A destination is one of two kinds, decided before any work is done (`check_destination`):

- **A stream**: `-` (standard output), a name of one of this process's open descriptors (`/dev/stdout`,
  `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, or a symlink leading to one), or a character device such as
  `/dev/null`. The bytes are written into it as they come; nothing is created, renamed or truncated, so a
  device path stays what it is. A stream that is one of the inputs (standard output redirected onto the input
  file) is refused.
- **A file**: its folder must exist, it must not be one of the inputs (the same file reached through a symlink
  or a hard link: same st_dev and st_ino), and if it exists it must be a regular file (never a FIFO, socket,
  block device or folder). A symlink is followed: the file it leads to is replaced and the link stays a link.
  The bytes go to a fresh private temporary file in that file's folder, created exclusively under an
  unpredictable name (tempfile.mkstemp: never a planted symlink at a guessable `.part`), which is then renamed
  over the destination. On any failure the temporary file is removed: nothing is left behind, and the
  destination is either its old self or the complete new file.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

StrPath = str | os.PathLike

STANDARD_OUTPUT = "-"
_STANDARD_NAMES = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR_NAME = re.compile(r"^/(?:dev/fd|proc/self/fd|proc/thread-self/fd|proc/(\d+)/fd)/(\d+)$")
_MOST_LINK_HOPS = 40  # as the kernel's own limit


class UnsafeOutput(ValueError):
    """A destination the app refuses to write, with a sentence saying why (for the user)."""


@dataclass(frozen=True)
class Destination:
    """Where the bytes go: an open descriptor of this process, a character device, or a file to replace."""

    shown: str
    descriptor: int | None = None
    device: str | None = None
    file: Path | None = None
    existing: os.stat_result | None = None

    @property
    def is_stream(self) -> bool:
        return self.file is None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_NEW_FILE_MODE = 0o666 & ~_umask()  # read once at import (os.umask can only be read by setting it)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _descriptor_named(name: str) -> int | None:
    """The descriptor of this process that an absolute, normalised name stands for, if it names one."""
    if name in _STANDARD_NAMES:
        return _STANDARD_NAMES[name]
    match = _DESCRIPTOR_NAME.match(name)
    if match is None or (match.group(1) is not None and int(match.group(1)) != os.getpid()):
        return None
    return int(match.group(2))


def _descriptor_behind(path: str) -> int | None:
    """Follow `path`'s chain of symlinks one link at a time (never through the descriptor's own magic link) and
    return the descriptor number when the chain passes through a name of one of this process's descriptors."""
    current = os.path.abspath(path)
    for _ in range(_MOST_LINK_HOPS):
        descriptor = _descriptor_named(os.path.normpath(current))
        if descriptor is not None:
            return descriptor
        try:
            target = os.readlink(current)
        except OSError:  # not a link, or not there
            return None
        current = os.path.join(os.path.dirname(current), target)
    return None


def _refuse_if_input(shown: str, info: os.stat_result, inputs: Iterable[StrPath]) -> None:
    for source in inputs:
        try:
            source_info = os.stat(source)
        except OSError:
            continue
        if _same_file(info, source_info):
            raise UnsafeOutput(f"{shown}: refusing to overwrite the input file {os.fsdecode(source)} (this is "
                               "the same file, perhaps through a link); choose another output name")


def _stream_destination(shown: str, descriptor: int, inputs: list[StrPath]) -> Destination:
    try:
        info = os.fstat(descriptor)
    except OSError:
        raise UnsafeOutput(f"{shown}: this names descriptor {descriptor}, which is not open") from None
    if stat.S_ISREG(info.st_mode):
        _refuse_if_input(shown, info, inputs)
    return Destination(shown, descriptor=descriptor)


def check_destination(path: StrPath, inputs: Iterable[StrPath] = ()) -> Destination:
    """Decide what `path` is as a destination (see the module's docstring), or refuse it with UnsafeOutput."""
    inputs = list(inputs)
    text = os.fsdecode(path)
    if text == STANDARD_OUTPUT:
        return _stream_destination("standard output", 1, inputs)
    descriptor = _descriptor_behind(text)
    if descriptor is not None:
        return _stream_destination(text, descriptor, inputs)
    try:
        info = os.stat(text)  # through symlinks: what would a reader of this name get?
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise UnsafeOutput(f"{text}: cannot be written ({err.strerror or err})") from None
    if info is not None and stat.S_ISCHR(info.st_mode):
        return Destination(text, device=text)
    file = Path(os.path.realpath(text))  # a symlink's target is replaced; the link stays
    folder = file.parent
    try:
        folder_info = os.stat(folder)
    except FileNotFoundError:
        raise UnsafeOutput(f"{text}: the folder {os.fsdecode(folder)} does not exist") from None
    except OSError as err:
        raise UnsafeOutput(f"{text}: the folder {os.fsdecode(folder)} cannot be used ({err.strerror or err})") \
            from None
    if not stat.S_ISDIR(folder_info.st_mode):
        raise UnsafeOutput(f"{text}: {os.fsdecode(folder)} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UnsafeOutput(f"{text}: the folder {os.fsdecode(folder)} is not writable")
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise UnsafeOutput(f"{text}: this is a folder; give a file name to write")
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeOutput(f"{text}: this is not a regular file (a block device, pipe or socket); refusing to "
                               "write it")
        _refuse_if_input(text, info, inputs)
    return Destination(text, file=file, existing=info)


def _write_stream(destination: Destination, content: bytes | Callable[[BinaryIO], None]) -> None:
    if destination.descriptor is not None:
        if destination.descriptor in (1, 2):  # what Python has buffered for the stream goes first
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        fd = os.dup(destination.descriptor)
    else:
        fd = os.open(destination.device or "", os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "wb") as handle:
        if isinstance(content, (bytes, bytearray, memoryview)):
            handle.write(content)
        else:
            content(handle)


def write_file(path: StrPath, content: bytes | Callable[[BinaryIO], None], inputs: Iterable[StrPath] = ()) -> Path:
    """Write `content` (bytes, or a function that writes to the open binary file) to `path`, safely (see the
    module's docstring). Raises UnsafeOutput for a refused destination, OSError when the disk says no."""
    import tempfile  # (here: the command line's reads do without it)

    inputs = list(inputs)
    destination = check_destination(path, inputs)
    if destination.is_stream:
        _write_stream(destination, content)
        return Path(os.fsdecode(path))
    file = destination.file
    assert file is not None
    existing = destination.existing
    fd, temp = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".tmp", dir=file.parent)
    try:
        mode = stat.S_IMODE(existing.st_mode) if existing is not None else _NEW_FILE_MODE
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            if isinstance(content, (bytes, bytearray, memoryview)):
                handle.write(content)
            else:
                content(handle)
        again = check_destination(path, inputs)  # the destination may have changed while we wrote
        if again.file != file:
            raise UnsafeOutput(f"{destination.shown}: changed while it was written; nothing was written")
        os.replace(temp, file)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    return Path(os.fsdecode(path))
