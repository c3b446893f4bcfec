"""Where bookmarks live: one JSON file per run in the user's data folder (platformdirs), or under
`$AFP_DESKTOP_CONFIG_DIR/bookmarks` when that is set (tests, portable setups), written atomically.
The model and its JSON are core/bookmarks.py; this module only reads and writes files. A bookmarks file is read
as any input is: only a regular file, of bounded size, at any nesting depth; one that cannot be read is said in
a sentence and the run starts with no bookmarks, never stopping the window."""

from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs

from afp_desktop.app.storage.storage import APP_DIR_NAME, write_atomic
from afp_desktop.core.formats.errors import LoadError
from afp_desktop.core.formats.source import read_regular
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.views.bookmarks import BookmarkBook, run_key


MAX_FILE_BYTES = 16 << 20  # a bookmarks file is a few KB; anything near this is not ours


def bookmarks_dir() -> Path:
    override = os.environ.get("AFP_DESKTOP_CONFIG_DIR")
    base = Path(override) if override else Path(platformdirs.user_data_dir(APP_DIR_NAME, appauthor=False))
    return base / "bookmarks"


def book_path(run_id: str | None, path: str) -> Path:
    return bookmarks_dir() / f"{run_key(run_id, path)}.json"


def load_book(run) -> tuple[BookmarkBook, str | None]:
    """The run's bookmarks (none yet: an empty book) and a warning sentence when the file could not be read."""
    from afp_desktop.core.views.prepared_views import run_id_known

    run_id, path = run_id_known(run), os.path.abspath(run.path)  # (the engine's: the events stay there)
    file = book_path(run_id, path)
    if not os.path.lexists(file):
        return BookmarkBook(run_id, path), None
    try:
        raw = read_regular(file, MAX_FILE_BYTES)
    except LoadError as err:
        return BookmarkBook(run_id, path), f"Could not read the bookmarks file, so it was ignored ({err})."
    try:
        value = jsonio.loads(raw)  # (any depth: never a RecursionError)
    except (jsonio.JSONSyntaxError, RecursionError, MemoryError):
        return BookmarkBook(run_id, path), f"The bookmarks file {file} is damaged (not valid JSON); starting with none."
    book, warning = BookmarkBook.from_json(value, run_id, path)
    return book, (f"{file}: {warning}." if warning else None)


def save_book(book: BookmarkBook) -> str | None:
    """Write the book (an empty one removes its file); an error sentence instead of raising."""
    file = book_path(book.run_id, book.path)
    try:
        if not book.bookmarks:
            file.unlink(missing_ok=True)
        else:
            write_atomic(file, json.dumps(book.to_json(), indent=2, ensure_ascii=False).encode("utf-8"))
    except OSError as err:
        return f"Could not save the bookmarks to {file} ({err.strerror or err})."
    return None
