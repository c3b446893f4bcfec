"""Where the app keeps what it remembers for a user, and how it writes it without ever leaving half a file."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from afp_desktop.core.safe_write import UnsafeOutput, write_file

APP_DIR_NAME = "afp-desktop"


def config_dir() -> Path:
    """The per-user folder for settings and template maps (`AFP_DESKTOP_CONFIG_DIR` overrides it)."""
    override = os.environ.get("AFP_DESKTOP_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir(APP_DIR_NAME, appauthor=False))


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write to a fresh temporary file beside `path`, then rename it over `path` (readers never see a partial
    file; a device or folder at `path` is refused: core/safe_write.py). Raises OSError (UnsafeOutput included,
    as a PermissionError-like OSError) when it cannot."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_file(path, data)
    except UnsafeOutput as err:
        raise OSError(str(err)) from None


def dump_keys_by_line(values: dict) -> bytes:
    """A JSON object with one key per line and each value compact: readable, and never the quadratic size that
    indenting a deeply nested value (kept from a newer version's file) would give."""
    from afp_desktop.core.jsonx import jsonio

    lines = [jsonio.dumps(str(key)) + b": " + jsonio.dumps(value) for key, value in values.items()]
    return b"{\n  " + b",\n  ".join(lines) + b"\n}\n" if lines else b"{}\n"
