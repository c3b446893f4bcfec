"""The user's preferences: recent files, last folder, window layout, theme, replay options, template map.

One JSON file in the platform's config folder (or `$AFP_DESKTOP_CONFIG_DIR`), written atomically (temp file +
os.replace) so a crash mid-write never leaves half a file. Keys this version does not know are kept on save.
Only a regular file of bounded size is read, at any nesting depth. A file that cannot be read or parsed, or a value of
the wrong type, falls back to the default and leaves a sentence in `warning` for the window to show: bad
settings must never stop the app from starting.
"""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path

from afp_desktop.app.storage.storage import config_dir, dump_keys_by_line, write_atomic
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.formats.source import read_regular
from afp_desktop.core.problems import LoadError

FILE_NAME = "settings.json"
MAX_RECENT = 10
MAX_FILE_BYTES = 4 << 20  # a settings file is a few KB; anything near this is not ours
MAX_POSITIONS = 50   # files whose cursor position is remembered (the most recently left first)
EXPORT_FORMATS = ("png", "svg")
THEMES = ("system", "light", "dark")
FUTURE_MODES = ("dim", "hide")
PLAY_SPEEDS = (0.5, 1.0, 2.0, 4.0)

DEFAULTS: dict = {
    "recent_files": [],
    "last_folder": "",
    "geometry": "",       # QMainWindow.saveGeometry(), base64
    "dock_state": "",     # QMainWindow.saveState(), base64
    "theme": "system",
    "future_mode": "dim",
    "play_speed": 1.0,
    "template_folder": "",   # where the template editor's Load…/Save… open
    "export_folder": "",     # where File ▸ Export graph… opens
    "export_format": "png",
    "export_cursor": False,  # the export dialog's "Show the cursor" box, as the user left it
    "positions": [],         # [[path, cursor position], …], most recent first: reopening starts there
    "hide_framework_steps": True,  # View ▸ Hide framework steps (agentfootprint-lens hides them by default)
    "price_table": None,     # Tools ▸ Prices…: USD per million tokens per model (core/views/cost.py), or None
    # The status-template map and app name are remembered by template_store.py (the editor owns them).
}




def _valid(key: str, value) -> bool:
    if key == "recent_files":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if key in ("last_folder", "geometry", "dock_state", "template_folder", "export_folder"):
        return isinstance(value, str)
    if key == "export_format":
        return value in EXPORT_FORMATS
    if key == "export_cursor":
        return isinstance(value, bool)
    if key == "positions":
        return isinstance(value, list) and all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], int)
            and not isinstance(p[1], bool) and p[1] >= 0 for p in value)
    if key == "hide_framework_steps":
        return isinstance(value, bool)
    if key == "price_table":
        return value is None or _valid_prices(value)
    if key == "theme":
        return value in THEMES
    if key == "future_mode":
        return value in FUTURE_MODES
    if key == "play_speed":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value in PLAY_SPEEDS
    return False


def _valid_prices(value) -> bool:
    from afp_desktop.core.views.cost import PriceTableError, parse_price_table

    try:
        parse_price_table(value)
    except PriceTableError:
        return False
    return True


class Settings:
    """Preferences held in memory; `save()` writes them. Attribute access reads and writes the values."""

    def __init__(self, path: Path | None = None):
        self.path = path or config_dir() / FILE_NAME
        self.values: dict = {k: _copy(v) for k, v in DEFAULTS.items()}
        self.warning: str | None = None
        self.unknown: dict = {}
        self._load()

    # -- file ---------------------------------------------------------------------------------------------
    def _load(self) -> None:
        if not os.path.lexists(self.path):
            return
        try:  # a regular file of bounded size only: a FIFO or /dev/zero here must not stop the app starting
            raw = read_regular(self.path, MAX_FILE_BYTES)
        except LoadError as err:
            self.warning = f"Could not read the settings file, so it was ignored ({err}); using the defaults."
            return
        try:
            data = jsonio.loads(raw)  # (any depth: never a RecursionError)
        except (jsonio.JSONSyntaxError, RecursionError, MemoryError):
            self.warning = f"The settings file {self.path} is damaged (not valid JSON); using the defaults."
            return
        if not isinstance(data, dict):
            self.warning = f"The settings file {self.path} is not a JSON object; using the defaults."
            return
        # Keys this version does not know (a newer version's) are kept and written back as they were.
        self.unknown = {k: v for k, v in data.items() if k not in DEFAULTS}
        bad = []
        for key in DEFAULTS:
            if key not in data:
                continue
            if _valid(key, data[key]):
                self.values[key] = data[key]
            else:
                bad.append(key)
        if bad:
            self.warning = (f"Some settings in {self.path} had values of the wrong kind and were reset: "
                            f"{', '.join(bad)}.")
        # Files that were moved or deleted since last time are not offered again (nor twice, nor too many).
        present = [p for p in dict.fromkeys(self.values["recent_files"]) if os.path.isfile(p)]
        self.values["recent_files"] = present[:MAX_RECENT]

    def save(self) -> str | None:
        """Write the settings; returns an error sentence instead of raising (a read-only disk is not fatal)."""
        try:
            write_atomic(self.path, dump_keys_by_line({**self.unknown, **self.values}))
        except (OSError, ValueError, TypeError) as err:
            return f"Could not save the settings to {self.path} ({err.strerror or err})."
        return None

    # -- recent files ----------------------------------------------------------------------------------------
    @property
    def recent_files(self) -> list[str]:
        return list(self.values["recent_files"])

    def add_recent(self, path: str | os.PathLike) -> None:
        path = os.path.abspath(os.fspath(path))
        recent = [p for p in self.values["recent_files"] if p != path]
        self.values["recent_files"] = [path, *recent][:MAX_RECENT]
        self.values["last_folder"] = os.path.dirname(path)

    def remove_recent(self, path: str) -> None:
        self.values["recent_files"] = [p for p in self.values["recent_files"] if p != path]

    def clear_recent(self) -> None:
        self.values["recent_files"] = []

    # -- where the user was in each file ------------------------------------------------------------------------
    def position_for(self, path: str | os.PathLike) -> int | None:
        path = os.path.abspath(os.fspath(path))
        return next((position for p, position in self.values["positions"] if p == path), None)

    def remember_position(self, path: str | os.PathLike, position: int) -> None:
        path = os.path.abspath(os.fspath(path))
        kept = [entry for entry in self.values["positions"] if entry[0] != path]
        self.values["positions"] = [[path, int(position)], *kept][:MAX_POSITIONS]

    # -- window layout (QByteArray ↔ base64 text) -------------------------------------------------------------
    def layout_bytes(self, key: str) -> bytes | None:
        text = self.values.get(key) or ""
        try:
            return base64.b64decode(text, validate=True) or None
        except (binascii.Error, ValueError):
            return None

    def set_layout_bytes(self, key: str, data) -> None:
        self.values[key] = base64.b64encode(bytes(data)).decode("ascii") if data else ""

    # -- plain values -------------------------------------------------------------------------------------------
    def get(self, key: str):
        return _copy(self.values[key])

    def set(self, key: str, value) -> None:
        if not _valid(key, value):
            raise ValueError(f"not a valid value for setting {key!r}: {value!r}")
        self.values[key] = _copy(value)


def _copy(value):
    return dict(value) if isinstance(value, dict) else list(value) if isinstance(value, list) else value
