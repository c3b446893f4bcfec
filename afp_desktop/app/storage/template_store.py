"""Status-template maps as files: parse and write the flat `{key: template}` JSON agentfootprint takes, and
remember the user's active map and app name between sessions. No Qt.

The per-user file lives in `$AFP_DESKTOP_CONFIG_DIR` (tests) or platformdirs' config dir and is written
atomically (temp file + os.replace), so a crash mid-write never leaves half a file. A corrupted file is
ignored with a warning: the app starts with the defaults instead of refusing to start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from afp_desktop.app.storage.storage import config_dir, dump_keys_by_line, write_atomic
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.formats.source import read_regular
from afp_desktop.core.problems import LoadError
from afp_desktop.core.library.status import DEFAULT_TEMPLATES

STORE_NAME = "status-templates.json"
MAX_FILE_BYTES = 16 << 20  # a template map is a few KB; a file past this is not one
DEFAULT_APP_NAME = "Agent"  # renderStatusLine's live default (§6.7)


class TemplateMapError(ValueError):
    """A template map file that cannot be used, with a sentence saying why."""


def parse_map(data: bytes | str) -> dict[str, str]:
    """A flat JSON object of string templates, or TemplateMapError naming what is wrong and where."""
    try:
        value = jsonio.loads(data)
    except jsonio.JSONSyntaxError as err:
        where = f" at line {err.line}, column {err.column}" if err.line is not None else ""
        raise TemplateMapError(f"Not valid JSON{where}: {err.message}.") from None
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else f"a {type(value).__name__}" if value is not None else "null"
        raise TemplateMapError(
            f"A template map must be a JSON object of key → template string; this file holds {kind}.")
    bad = [key for key, template in value.items() if not isinstance(template, str)]
    if bad:
        shown = ", ".join(repr(key) for key in bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise TemplateMapError(f"Every template must be a string; these keys are not: {shown}.")
    return value


def _read_store(path: Path):
    return jsonio.loads(read_regular(path, MAX_FILE_BYTES))


def dump_map(templates: dict[str, str]) -> bytes:
    return jsonio.dumps(templates, indent=True) + b"\n"


def read_map(path: str | os.PathLike) -> dict[str, str]:
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except LoadError as err:
        raise TemplateMapError(f"Cannot read {err.problem.path}: {err.problem.message}.") from None
    return parse_map(data)


@dataclass
class Remembered:
    templates: dict[str, str]
    app_name: str
    warning: str | None = None  # why the stored map was not used


def load_remembered() -> Remembered:
    path = config_dir() / STORE_NAME
    if not os.path.lexists(path):
        return Remembered(dict(DEFAULT_TEMPLATES), DEFAULT_APP_NAME)
    try:
        stored = _read_store(path)
        if not isinstance(stored, dict):
            raise TemplateMapError("the file does not hold a JSON object")
        templates = parse_map(jsonio.dumps(stored.get("templates")))
        app_name = stored.get("appName", DEFAULT_APP_NAME)
        if not isinstance(app_name, str):
            raise TemplateMapError("appName is not a string")
    except (OSError, LoadError, jsonio.JSONSyntaxError, TemplateMapError, RecursionError) as err:
        return Remembered(dict(DEFAULT_TEMPLATES), DEFAULT_APP_NAME,
                          f"Your saved status templates ({path}) could not be read ({err}); using the defaults.")
    return Remembered(templates, app_name)


def remember(templates: dict[str, str], app_name: str) -> str | None:
    """Store the active map; returns a warning sentence instead of raising when the disk says no."""
    path = config_dir() / STORE_NAME
    try:  # keep what a newer version stored beside the map
        stored = _read_store(path) if os.path.lexists(path) else {}
    except (LoadError, jsonio.JSONSyntaxError, RecursionError):
        stored = {}
    kept = {k: v for k, v in stored.items() if k not in ("templates", "appName")} if isinstance(stored, dict) else {}
    try:
        write_atomic(path, dump_keys_by_line({**kept, "templates": templates, "appName": app_name}))
    except (OSError, ValueError, TypeError) as err:
        return f"Could not remember the status templates: {err.strerror or err}."
    return None
