"""A run's bookmarks file is read as any input is: a FIFO or a link to /dev/zero there, a file too big, or JSON
nested 100,000 deep never stops the window; the run opens with no bookmarks and a sentence naming the file.

The FIFO and device cases run in a child process with a timeout and a memory ceiling: hang guards (a blocking
open, an endless read), not measures of speed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from afp_desktop.app.storage import bookmark_store
from afp_desktop.core.formats import open_run
from afp_desktop.core.views.bookmarks import BookmarkBook, run_id_of
from tests.corpus_util import corpus_path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUARD_S = 120
MEMORY_CEILING = 2 << 30
SCENARIO = "02-react-two-tools"
SAID = {"fifo": "named pipe (FIFO)", "dev-zero": "this is a device"}
DEEP = 100_000


@pytest.fixture(autouse=True)
def _config_here(tmp_path, monkeypatch):
    monkeypatch.setenv("AFP_DESKTOP_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture
def run_file(tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(corpus_path(SCENARIO, "events.ndjson").read_bytes())
    return path


def _book_file(run_file):
    run = open_run(run_file)
    book = bookmark_store.book_path(run_id_of(run), os.path.abspath(run.path))
    book.parent.mkdir(parents=True, exist_ok=True)
    return book


def _make(path, kind: str) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("FIFOs are a POSIX thing")
    if kind == "fifo":
        os.mkfifo(path)
    else:
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero")
        os.symlink("/dev/zero", path)


def _ceiling() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CEILING, MEMORY_CEILING))


def _child(argv: list[str]) -> tuple[int, str, str]:
    proc = subprocess.Popen([sys.executable, *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_ceiling, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    try:
        out, err = proc.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("never ended (hang guard): the bookmarks file was read as if it were a regular file")
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


LOAD_BOOK = """
import json, sys
from afp_desktop.app.storage.bookmark_store import load_book
from afp_desktop.core.formats import open_run
book, warning = load_book(open_run(sys.argv[1]))
print(json.dumps({"bookmarks": len(book.bookmarks), "warning": warning}))
"""


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_bookmarks_file_that_is_not_regular_is_ignored_with_a_sentence(run_file, kind):
    book = _book_file(run_file)
    _make(book, kind)
    code, out, err = _child(["-c", LOAD_BOOK, str(run_file)])
    assert code == 0 and "Traceback" not in err, err
    said = json.loads(out)
    assert said["bookmarks"] == 0 and str(book) in said["warning"] and SAID[kind] in said["warning"]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_the_window_starts_with_a_bookmarks_file_that_is_not_regular(run_file, tmp_path, kind):
    _make(_book_file(run_file), kind)
    shot = tmp_path / "window.png"
    code, _out, err = _child(["-m", "afp_desktop", str(run_file), "--screenshot", str(shot)])
    assert code == 0 and "Traceback" not in err and "internal error" not in err, err
    assert shot.stat().st_size > 0


def test_a_bookmarks_file_too_big_is_ignored(run_file):
    book = _book_file(run_file)
    with open(book, "wb") as handle:
        handle.truncate(bookmark_store.MAX_FILE_BYTES + 1)  # (sparse: no disk used)
    loaded, warning = bookmark_store.load_book(open_run(run_file))
    assert loaded.bookmarks == [] and str(book) in warning and "more than such a file can be" in warning


def test_json_nested_far_too_deep_is_a_damaged_entry_not_a_crash(run_file):
    book = _book_file(run_file)
    good = {"stop": {"label": "Route"}, "stopLabel": "Route 1", "position": 3, "note": "kept"}
    deep = b"[" * DEEP + b"]" * DEEP
    book.write_bytes(b'{"format": "afp-desktop-bookmarks", "version": 1, "bookmarks": [' + json.dumps(good).encode()
                     + b", " + deep + b"]}")
    loaded, warning = bookmark_store.load_book(open_run(run_file))
    assert [b.note for b in loaded.bookmarks] == ["kept"] and "1 damaged bookmark(s)" in warning
    book.write_bytes(deep)
    loaded, warning = bookmark_store.load_book(open_run(run_file))
    assert loaded.bookmarks == [] and "not an afp-desktop bookmarks file" in warning


@pytest.mark.parametrize("position", [-1, 1 << 53, 10 ** 400], ids=["negative", "2**53", "400-digits"])
def test_a_position_no_run_can_have_is_a_damaged_bookmark(position):
    value = {"format": "afp-desktop-bookmarks", "version": 1,
             "bookmarks": [{"stop": {"label": "Route"}, "stopLabel": "Route 1", "position": position}]}
    book, warning = BookmarkBook.from_json(value, "r", "/f")
    assert book.bookmarks == [] and warning.startswith("1 damaged bookmark(s)")
