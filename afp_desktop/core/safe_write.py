"""Every file the app writes (convert, export, saved template maps, settings) goes through `write_file`.

A destination is checked before any work is done (`check_destination`): its folder must exist, it must not be
one of the inputs (the same file reached through a symlink or a hard link: same st_dev and st_ino), and if it
exists it must be a regular file (never a device, FIFO or folder: renaming over `/dev/null` as root would
replace the device). The bytes go to a fresh private temporary file in the destination's folder, created
exclusively under an unpredictable name (tempfile.mkstemp: never a planted symlink at a guessable `.part`),
which is then renamed over the destination. On any failure the temporary file is removed: nothing is left
behind, and the destination is either its old self or the complete new file.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

StrPath = str | os.PathLike


class UnsafeOutput(ValueError):
    """A destination the app refuses to write, with a sentence saying why (for the user)."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_NEW_FILE_MODE = 0o666 & ~_umask()  # read once at import (os.umask can only be read by setting it)


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def check_destination(path: StrPath, inputs: Iterable[StrPath] = ()) -> os.stat_result | None:
    """Refuse (UnsafeOutput) a destination that must not be written; return its stat when it already exists."""
    path = Path(path)
    shown = os.fsdecode(path)
    folder = path.parent
    try:
        folder_info = os.stat(folder)
    except FileNotFoundError:
        raise UnsafeOutput(f"{shown}: the folder {os.fsdecode(folder)} does not exist") from None
    except OSError as err:
        raise UnsafeOutput(f"{shown}: the folder {os.fsdecode(folder)} cannot be used ({err.strerror or err})") \
            from None
    if not stat.S_ISDIR(folder_info.st_mode):
        raise UnsafeOutput(f"{shown}: {os.fsdecode(folder)} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UnsafeOutput(f"{shown}: the folder {os.fsdecode(folder)} is not writable")
    try:
        info = os.stat(path)  # through a symlink: what would a reader of this name get?
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise UnsafeOutput(f"{shown}: cannot be written ({err.strerror or err})") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise UnsafeOutput(f"{shown}: this is a folder; give a file name to write")
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeOutput(f"{shown}: this is not a regular file (a device, pipe or socket); refusing to "
                               "replace it")
        for source in inputs:
            try:
                source_info = os.stat(source)
            except OSError:
                continue
            if _same_file(info, source_info):
                raise UnsafeOutput(f"{shown}: refusing to overwrite the input file {os.fsdecode(source)} (this is "
                                   "the same file, perhaps through a link); choose another output name")
    return info


def write_file(path: StrPath, content: bytes | Callable[[BinaryIO], None], inputs: Iterable[StrPath] = ()) -> Path:
    """Write `content` (bytes, or a function that writes to the open binary file) to `path`, safely (see the
    module's docstring). Raises UnsafeOutput for a refused destination, OSError when the disk says no."""
    path = Path(path)
    inputs = list(inputs)
    existing = check_destination(path, inputs)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        mode = stat.S_IMODE(existing.st_mode) if existing is not None else _NEW_FILE_MODE
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            if isinstance(content, (bytes, bytearray, memoryview)):
                handle.write(content)
            else:
                content(handle)
        check_destination(path, inputs)  # again: the destination may have changed while we wrote
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    return path
