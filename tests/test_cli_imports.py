"""The command line's JSON subcommands import only what reading the file needs: no Qt, no window, and (for a
small file) none of the libraries the big-file readers use. Checked in a fresh interpreter, by its own account
of what it imported (`-X importtime`), so an import added back anywhere on the path fails here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.corpus_util import corpus_path, read_bytes

ROOT = Path(__file__).resolve().parents[1]
NEVER = ("PySide6", "shiboken6", "pyqtgraph", "afp_desktop.app")  # the window's
NOT_FOR_A_SMALL_FILE = ("numpy", "lz4", "platformdirs")  # big files' readers, settings
NOT_FOR_STEPGRAPH = ("afp_desktop.core.formats.bundle", "zipfile",  # (a bundle's reader: for a zip only)
                     "afp_desktop.core.views.prepared_views", "afp_desktop.core.views.query", "regex")  # the window's


def imported_by(*argv: str) -> set[str]:
    """The modules `afp-desktop ARGV` imports, in a fresh interpreter (its output discarded)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "afp_desktop", *argv], env=env, cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def within(names: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if n.startswith(tuple(p + "." for p in packages)) or n in packages)


@pytest.mark.parametrize("command", ["stepgraph", "info"])
@pytest.mark.parametrize("name", ["trace.json", "events.ndjson", "recording.json"])
def test_a_small_file_is_read_without_qt_the_window_or_numpy(command, name):
    names = imported_by(command, str(corpus_path("02-react-two-tools", name)))
    assert "afp_desktop.core.formats" in names and "orjson" in names  # (the account is read right)
    assert within(names, NEVER) == []
    assert within(names, NOT_FOR_A_SMALL_FILE) == []
    if command == "stepgraph":
        assert within(names, NOT_FOR_STEPGRAPH) == []


def test_a_trace_read_once_below_its_size_is_parsed_whole_without_numpy_or_the_views(tmp_path):
    """The command line reads a run once: a Trace under lazy_trace.ONCE_MIN_BYTES is parsed whole, without the big
    files' readers (numpy's import alone costs more than parsing it) nor the window's projections."""
    path = tmp_path / "trace.json"
    path.write_bytes(read_bytes("15-large-run", "trace.json"))
    names = imported_by("stepgraph", str(path))
    assert "afp_desktop.core.formats" in names and "orjson" in names  # (the account is read right)
    assert within(names, NEVER + NOT_FOR_A_SMALL_FILE + NOT_FOR_STEPGRAPH) == []


def test_a_big_trace_imports_numpy_but_never_qt_or_the_window(tmp_path):
    from afp_desktop.core.formats.lazy_trace import ONCE_MIN_BYTES

    doc = orjson.loads(read_bytes("15-large-run", "trace.json"))
    copies = ONCE_MIN_BYTES // len(orjson.dumps(doc)) + 1
    path = tmp_path / "trace.json"
    path.write_bytes(orjson.dumps({**doc, "events": doc["events"] * copies}))
    names = imported_by("stepgraph", str(path))
    assert "numpy" in names
    assert within(names, NEVER) == []
