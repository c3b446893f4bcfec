"""Bookmarks: the core model (stops found again across loads, damaged files, export JSON) and the window
(Ctrl+B with a note, the panel, jumping, persisting across a new window, a reload that lost the stop, exports)."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from afp_desktop.app.storage import bookmark_store
from afp_desktop.app.features.find_and_bookmarks import add_bookmark
from afp_desktop.app.shell.main_window import MainWindow
from afp_desktop.app.panels import bookmarks_panel
from afp_desktop.core.views.bookmarks import (
    Bookmark,
    BookmarkBook,
    bookmark_at,
    caption,
    find_stop,
    ordinal_labels,
    run_id_of,
    run_key,
)
from afp_desktop.core.formats import open_run
from tests.corpus_util import corpus_path
from tests.test_main_window import open_and_wait, window  # noqa: F401 — the window fixture


def prepared(scenario: str, name: str):
    return open_run(str(corpus_path(scenario, name))).prepare()


# ── core ────────────────────────────────────────────────────────────────────────────────────────────────


def test_run_ids():
    assert run_id_of(prepared("02-react-two-tools", "events.ndjson")) == "run-1795989469600-2"
    assert run_id_of(prepared("02-react-two-tools", "trace.json")).startswith("trace captured at ")
    assert run_key("a", "/x/y") != run_key("b", "/x/y") != run_key("a", "/x/z")


def test_a_runs_book_is_found_without_its_events_in_the_window(monkeypatch, tmp_path):
    """The window holds a run whose events live in the engine: its bookmarks are filed under the run id the engine
    prepared, the one the events give."""
    from tests.answers_util import events_in_the_engine

    monkeypatch.setenv("AFP_DESKTOP_CONFIG_DIR", str(tmp_path))
    run = open_run(str(corpus_path("02-react-two-tools", "events.ndjson")))
    held = events_in_the_engine(run)
    book, warning = bookmark_store.load_book(held)
    assert warning is None and book.run_id == "run-1795989469600-2" == run_id_of(run)


def test_a_bookmark_finds_its_stop_again_and_misses_a_lost_one():
    run = prepared("02-react-two-tools", "events.ndjson")
    stops, labels = run.stops, ordinal_labels(run.stops)
    assert labels[4] == "LLM turn 2"
    mark = bookmark_at(stops, 4, "second turn")
    assert (mark.stop_label, mark.position) == ("LLM turn 2", stops[4]["axisEnd"])
    assert find_stop(mark, stops) == 4
    # the same file with a stop gained before it: found by identity, not by index
    grown = [dict(stops[0], runtimeStageId="extra#0", label="Extra"), *stops]
    assert find_stop(mark, grown) == 5
    # a file that lost it: missing
    assert find_stop(mark, stops[:4] + stops[5:]) is None
    # JSON round trip
    again = Bookmark.from_json(json.loads(json.dumps(mark.to_json())))
    assert again == mark


def test_stops_sharing_an_identity_are_told_apart_by_their_numbered_label():
    stops = [{"runtimeStageId": "loop#1", "label": "Tool call", "kind": "commit", "axisEnd": 10 * i}
             for i in range(1, 4)]
    mark = bookmark_at(stops, 2)
    assert mark.stop_label == "Tool call 3" and find_stop(mark, stops) == 2


def test_a_damaged_book_keeps_what_it_can():
    value = {"format": "afp-desktop-bookmarks", "version": 1,
             "bookmarks": [{"stop": {"label": "Route"}, "stopLabel": "Route 1", "position": 3, "note": "ok"},
                           {"stop": "nope"}, 7, {"stopLabel": "x", "position": "1", "stop": {}}]}
    book, warning = BookmarkBook.from_json(value, "r", "/f")
    assert [b.note for b in book.bookmarks] == ["ok"] and warning.startswith("3 damaged bookmark(s)")
    book, warning = BookmarkBook.from_json([], "r", "/f")
    assert book.bookmarks == [] and "not an afp-desktop bookmarks file" in warning


def test_export_json_and_captions():
    run = prepared("02-react-two-tools", "events.ndjson")
    book = BookmarkBook("run-1795989469600-2", run.path)
    book.bookmarks = [bookmark_at(run.stops, 3, "first tool\ncall"), bookmark_at(run.stops, 1)]
    lost = bookmark_at(run.stops, 5, "gone")
    lost.stop = {"runtimeStageId": "not-there#9", "label": "Tool call", "kind": "commit"}
    book.bookmarks.append(lost)
    out = book.export_json(run.stops)
    assert [row["stop"] for row in out["bookmarks"]] == [{"index": 1, "label": "LLM turn 1"},
                                                         {"index": 3, "label": "Tool call 1"}, None]
    assert [row["missing"] for row in out["bookmarks"]] == [False, False, True]
    assert out["runId"] == "run-1795989469600-2" and out["file"] == os.path.abspath(run.path)
    labels = ordinal_labels(run.stops)
    assert [caption(b, i, labels) for b, i in book.resolved(run.stops)] == [
        "LLM turn 1", "Tool call 1 — first tool call", "Route 2 (missing from this file) — gone"]


# ── the window ──────────────────────────────────────────────────────────────────────────────────────────


@pytest.fixture
def notes(monkeypatch):
    """Answer the note dialog with the next note in the list (None: cancel)."""
    answers: list = []
    monkeypatch.setattr(bookmarks_panel, "ask_note", lambda *args, **kwargs: answers.pop(0))
    return answers


def copy_of(tmp_path, scenario="02-react-two-tools", name="events.ndjson"):
    path = tmp_path / name
    shutil.copy(corpus_path(scenario, name), path)
    return path


def test_ctrl_b_bookmarks_the_stop_at_the_cursor(qtbot, window, notes, tmp_path):  # noqa: F811
    path = copy_of(tmp_path)
    open_and_wait(qtbot, window, path)
    window.session.move_to_stop(4)
    window.session.flush()
    notes.append("why did it convert?")
    window.canvas.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    panel = window.panels["bookmarks"]
    assert window.docks["bookmarks"].isVisible()
    assert panel.list.count() == 1
    assert panel.list.item(0).text() == f"LLM turn 2 · event {window.session.run.stops[4]['axisEnd']}\n" \
                                        "why did it convert?"
    saved = json.loads(bookmark_store.book_path("run-1795989469600-2", str(path)).read_text())
    assert saved["bookmarks"][0]["note"] == "why did it convert?" and saved["runId"] == "run-1795989469600-2"
    notes.append(None)  # cancelling the dialog adds nothing
    add_bookmark(window)
    assert panel.list.count() == 1
    # jump back to it from elsewhere
    window.session.home()
    window.session.flush()
    qtbot.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton,
                     pos=panel.list.visualItemRect(panel.list.item(0)).center())
    window.session.flush()
    assert window.session.stop_index == 4


def test_bookmarks_persist_across_a_new_window(qtbot, window, notes, tmp_path):  # noqa: F811
    path = copy_of(tmp_path, name="trace.json")
    open_and_wait(qtbot, window, path)
    window.session.move_to_stop(2)
    window.session.flush()
    notes.append("system prompt here")
    add_bookmark(window)
    window.close()
    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    try:
        open_and_wait(qtbot, second, path)
        panel = second.panels["bookmarks"]
        assert panel.list.count() == 1 and "system prompt here" in panel.list.item(0).text()
        assert panel.jump(0) and (second.session.flush() or second.session.stop_index == 2)
        # another file: its own (empty) bookmarks
        open_and_wait(qtbot, second, corpus_path("02-react-two-tools", "events.ndjson"))
        assert panel.list.count() == 0
    finally:
        second.loader.wait()


def test_a_reload_that_lost_the_stop_shows_it_missing(qtbot, window, notes, tmp_path):  # noqa: F811
    path = copy_of(tmp_path)
    open_and_wait(qtbot, window, path)
    run = window.session.run
    last_turn = max(i for i, s in enumerate(run.stops) if s["label"] == "LLM turn")
    window.session.move_to_stop(last_turn)
    window.session.flush()
    notes.extend(["the answer", "the first turn"])
    add_bookmark(window)
    window.session.move_to_stop(1)
    window.session.flush()
    add_bookmark(window)
    # The file is cut short (still being written, or replaced by an earlier copy): the last turn is gone.
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:40]), encoding="utf-8")
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.reload()
    panel = window.panels["bookmarks"]
    texts = [panel.list.item(i).text() for i in range(panel.list.count())]
    assert texts[0].startswith("LLM turn 1 · event")
    assert texts[1] == "LLM turn 3 — missing from this file\nthe answer"
    assert panel.list.item(1).foreground().color() == bookmarks_panel.MISSING
    assert "1 missing from this file" in panel.hint.text()
    position = window.session.position
    assert not panel.jump(1) and window.session.position == position  # nowhere to go
    saved = json.loads(bookmark_store.book_path("run-1795989469600-2", str(path)).read_text())
    assert len(saved["bookmarks"]) == 2  # kept, not dropped


def test_export_bookmarks_as_json_and_as_captions(qtbot, window, notes, tmp_path):  # noqa: F811
    from afp_desktop.app.export.export import export_view

    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    for stop, note in ((1, "first <b>turn</b>"), (3, "a tool")):
        window.session.move_to_stop(stop)
        window.session.flush()
        notes.append(note)
        add_bookmark(window)
    out = tmp_path / "marks.json"
    window.panels["bookmarks"].export_json(str(out))
    rows = json.loads(out.read_text())["bookmarks"]
    assert [(r["stop"]["label"], r["note"]) for r in rows] == [("LLM turn 1", "first <b>turn</b>"),
                                                               ("Tool call 1", "a tool")]
    plain, captioned = tmp_path / "plain.png", tmp_path / "captioned.png"
    export_view(window.canvas, plain, whole_graph=True, include_cursor=False)
    export_view(window.canvas, captioned, whole_graph=True, include_cursor=False,
                captions=window.panels["bookmarks"].captions())
    a, b = QImage(str(plain)), QImage(str(captioned))
    assert b.width() == a.width() and b.height() > a.height() + 30
    # the caption band holds text (dark pixels) under the graph
    band = [b.pixelColor(x, y).lightness() for x in range(0, b.width(), 2) for y in range(a.height() + 4, b.height())]
    assert min(band) < 120
    svg = tmp_path / "captioned.svg"
    export_view(window.canvas, svg, whole_graph=True, include_cursor=False, captions=window.panels["bookmarks"].captions())
    text = svg.read_text()
    assert "first &lt;b&gt;turn&lt;/b&gt;" in text and "<b>turn</b>" not in text  # plain text, never markup


def test_a_damaged_bookmarks_file_is_said_and_replaced(qtbot, window, notes, tmp_path):  # noqa: F811
    path = copy_of(tmp_path)
    book = bookmark_store.book_path("run-1795989469600-2", str(path))
    book.parent.mkdir(parents=True, exist_ok=True)
    book.write_bytes(b"{not json")
    open_and_wait(qtbot, window, path)
    qtbot.waitUntil(lambda: any("is damaged (not valid JSON)" in text for text in window.banner.texts))
    assert window.panels["bookmarks"].list.count() == 0
    notes.append("fresh start")
    add_bookmark(window)
    assert json.loads(book.read_text())["bookmarks"][0]["note"] == "fresh start"


def test_the_note_dialog_is_confirmed_with_enter(qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialog

    from afp_desktop.app.widgets.note_dialog import NoteDialog

    dialog = NoteDialog(None, "Bookmark", "Note:", "first")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.focusWidget() is dialog.edit  # typing goes to the note at once
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # a new line
    qtbot.keyClicks(dialog.edit, "second")
    assert dialog.isVisible() and dialog.note == "first\nsecond"
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    assert dialog.result() == QDialog.DialogCode.Accepted and not dialog.isVisible()
    other = NoteDialog(None, "Bookmark", "Note:", "kept?")
    qtbot.addWidget(other)
    other.show()
    qtbot.keyClick(other.edit, Qt.Key.Key_Escape)
    assert other.result() == QDialog.DialogCode.Rejected
