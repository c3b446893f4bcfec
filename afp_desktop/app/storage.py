"""Where the app keeps what it remembers for a user, and how it writes it without ever leaving half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import platformdirs

APP_DIR_NAME = "afp-desktop"


def config_dir() -> Path:
    """The per-user folder for settings and template maps (`AFP_DESKTOP_CONFIG_DIR` overrides it)."""
    override = os.environ.get("AFP_DESKTOP_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir(APP_DIR_NAME, appauthor=False))


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write to a temporary file beside `path`, then rename it over `path` (readers never see a partial file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
