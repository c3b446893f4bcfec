"""Reading a file's bytes: never writing, transparently decompressing .gz/.xz, refusing what is not a file."""

from __future__ import annotations

import gzip
import lzma
import os
from pathlib import Path

from afp_desktop.core.formats.errors import LoadError

GZIP_MAGIC = b"\x1f\x8b"
XZ_MAGIC = b"\xfd7zXZ\x00"


def read_source(path: str | os.PathLike) -> bytes:
    """The file's content, decompressed if it is gzip or xz. Opens read-only; raises LoadError."""
    p = Path(path)
    if not p.exists():
        raise LoadError(str(p), "no such file")
    if p.is_dir():
        raise LoadError(str(p), "this is a folder, not a trace file; open one of the files inside it")
    try:
        with open(p, "rb") as handle:
            data = handle.read()
    except PermissionError:
        raise LoadError(str(p), "permission denied: the file cannot be read") from None
    except OSError as err:
        raise LoadError(str(p), f"the file cannot be read ({err.strerror or err})") from None
    return decompress(data, str(p))


def decompress(data: bytes, name: str) -> bytes:
    try:
        if data.startswith(GZIP_MAGIC):
            return gzip.decompress(data)
        if data.startswith(XZ_MAGIC):
            return lzma.decompress(data)
    except (OSError, EOFError, lzma.LZMAError) as err:
        raise LoadError(name, f"the compressed file is damaged or cut off ({err})") from None
    return data


def rotated_pair(path: str | os.PathLike) -> list[Path]:
    """The file sink rotates `<path>` to `<path>.1`: a whole session is `<path>.1` then `<path>`."""
    p = Path(path)
    if p.suffix == ".1":
        newer = p.with_suffix("")
        return [p, newer] if newer.is_file() else [p]
    older = p.with_name(p.name + ".1")
    return [older, p] if older.is_file() else [p]
