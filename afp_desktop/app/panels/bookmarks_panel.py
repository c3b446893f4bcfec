"""Bookmarks (Ctrl+B adds one on the stop at the cursor, with a note): the list of the run's bookmarks, jumping
to them, editing and deleting notes, and exporting them as JSON or as captions under the graph image.

Bookmarks are kept per run in the user's data folder (app/storage/bookmark_store.py) and found again by their stop's
identity when the file is reloaded (core/bookmarks.py); one whose stop the file no longer has stays listed,
greyed, as missing. Notes are the user's text but bookmarks files can be shared: all shown as plain text.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.storage.bookmark_store import load_book, save_book
from afp_desktop.app.widgets.note_dialog import NoteDialog
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.views.bookmarks import BookmarkBook, bookmark_at, caption, ordinal_labels

MISSING = QColor("#8a909c")


def ask_note(parent: QWidget, title: str, label: str, text: str = "") -> str | None:
    """A small dialog for a bookmark's note; None when cancelled (tests replace this function)."""
    dialog = NoteDialog(parent, title, label, text)
    return dialog.note if dialog.exec() == QDialog.DialogCode.Accepted else None


class BookmarksPanel(QWidget, PanelDefaults):
    """Session-following list of the open run's bookmarks. `message(str)` reports a save or read problem."""

    message = Signal(str)

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.book: BookmarkBook | None = None
        self.rows: list = []  # (Bookmark, stop index or None), as listed
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        self.hint = QLabel()
        self.hint.setTextFormat(Qt.TextFormat.PlainText)
        self.hint.setWordWrap(True)
        layout.addWidget(self.hint)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.list.setSpacing(2)
        self.list.itemActivated.connect(lambda item: self.jump(self.list.row(item)))
        self.list.itemClicked.connect(lambda item: self.jump(self.list.row(item)))
        layout.addWidget(self.list, 1)
        buttons = QHBoxLayout()
        self.edit_button = QPushButton("Edit note…")
        self.edit_button.clicked.connect(lambda: self.edit_note(self.list.currentRow()))
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(lambda: self.delete(self.list.currentRow()))
        for button in (self.edit_button, self.delete_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.run_closed()

    # ----------------------------------------------------------------------------------------- loading
    def run_loaded(self, run) -> None:
        self.book, warning = load_book(run)
        if warning:  # after the window has shown the new run (which replaces its messages)
            QTimer.singleShot(0, self, lambda: self.message.emit(warning))
        self.refresh()

    def run_closed(self) -> None:
        self.book = None
        self.refresh()

    def refresh(self) -> None:
        run = self.session.run
        self.list.clear()
        self.rows = [] if self.book is None or run is None else self.book.resolved(run.stops)
        labels = ordinal_labels(run.stops) if run is not None and self.rows else []
        for bookmark, index in self.rows:
            if index is None:
                text = f"{bookmark.stop_label} — missing from this file"
            else:
                text = f"{labels[index]} · event {run.stops[index]['axisEnd']}"
            note = " ".join(bookmark.note.split())
            item = QListWidgetItem(f"{text}\n{note}" if note else text)  # item text is plain text
            item.setToolTip(plain_tooltip(bookmark.note or "(no note)"))
            if index is None:
                item.setForeground(QBrush(MISSING))
                item.setToolTip(plain_tooltip("This bookmark's stop is not in the file as loaded now (the file "
                                              "changed). It is kept in case the stop comes back.\n\n"
                                              + (bookmark.note or "(no note)")))
            self.list.addItem(item)
        if run is None:
            self.hint.setText("Open a run to bookmark its stops.")
        elif not self.rows:
            self.hint.setText("No bookmarks in this run yet: Ctrl+B bookmarks the stop at the cursor, with a note.")
        else:
            missing = sum(1 for _b, i in self.rows if i is None)
            self.hint.setText(f"{len(self.rows)} bookmark{'s' if len(self.rows) != 1 else ''}"
                              + (f", {missing} missing from this file" if missing else "")
                              + ". Click one to go there.")
        for button in (self.edit_button, self.delete_button):
            button.setEnabled(bool(self.rows))

    # ----------------------------------------------------------------------------------------- actions
    def stop_at_cursor(self) -> int | None:
        """The run's stop at the cursor (the one chosen where several share a position); the first stop before
        any has been reached."""
        run = self.session.run
        if run is None or not run.stops:
            return None
        if len(self.session.breadcrumb) == 1:
            index = self.session.stop_index
        else:  # drilled into a subflow: bookmarks are on the run's own stops
            from afp_desktop.core.model.replay import span_index_at  # (imported with the session's replay)

            index = span_index_at([s["axisEnd"] for s in run.stops], 0, self.session.position)
        return 0 if index is None else index

    def add_bookmark(self, note: str = "") -> bool:
        """Bookmark the stop at the cursor with `note`; False when there is no run or no stop."""
        index = self.stop_at_cursor()
        if index is None or self.book is None:
            return False
        self.book.bookmarks.append(bookmark_at(self.session.run.stops, index, note))
        self._save()
        self.refresh()
        return True

    def ask_and_add(self) -> None:
        """Ctrl+B: ask for a note, then bookmark the stop at the cursor."""
        index = self.stop_at_cursor()
        if index is None:
            return
        label = ordinal_labels(self.session.run.stops)[index]
        note = ask_note(self, "Bookmark this stop", f"Note for {label}:")
        if note is not None:
            self.add_bookmark(note)

    def edit_note(self, row: int) -> None:
        if not 0 <= row < len(self.rows):
            return
        bookmark = self.rows[row][0]
        note = ask_note(self, "Edit bookmark note", f"Note for {bookmark.stop_label}:", bookmark.note)
        if note is not None:
            bookmark.note = note
            self._save()
            self.refresh()

    def delete(self, row: int) -> None:
        if 0 <= row < len(self.rows) and self.book is not None:
            self.book.bookmarks.remove(self.rows[row][0])
            self._save()
            self.refresh()

    def jump(self, row: int) -> bool:
        """Move the cursor to the bookmark's stop; False for a missing one."""
        if not 0 <= row < len(self.rows) or self.rows[row][1] is None:
            return False
        index = self.rows[row][1]
        self.session.drill_out(0)
        self.session.move_to_stop(index)
        return True

    def _save(self) -> None:
        error = save_book(self.book) if self.book is not None else None
        if error:
            self.message.emit(error)

    # ----------------------------------------------------------------------------------------- export
    def export_json(self, path: str) -> None:
        """Write the bookmarks, each with its stop as found in the open file, as JSON (raises OSError)."""
        if self.book is None or self.session.run is None:
            raise ValueError("no run is open")
        with open(path, "wb") as handle:
            handle.write(jsonio.dumps(self.book.export_json(self.session.run.stops), indent=True) + b"\n")

    def captions(self) -> list[str]:
        run = self.session.run
        labels = ordinal_labels(run.stops) if run is not None and self.rows else []
        return [caption(bookmark, index, labels) for bookmark, index in self.rows]
