"""The Context tab: the run's state keys at the cursor, folded from the commit log (core/context_state.py),
with what entered, changed or left since the previous stop and which stage wrote each key. A click on the
stage jumps to that stage's stop. A file without a commit log says so plainly. All values are plain text.

The engine folds (a request, app/loading/engine_requests.py: tag "context" for the keys at the cursor,
"context_value" for the chosen key's whole value); the tab says "Reading…" until the answer comes and drops an
answer about an earlier moment. It asks when the cursor settles (not on every frame of a scrub), and only while
the tab shows (a background tab asks when it is next painted).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.widgets.text_box import TraceTextBox
from afp_desktop.app.widgets.plain_text import plain_label, plain_tooltip
from afp_desktop.core.views.context_state import CHANGED, ENTERED, LEFT, SAME, ContextAnswer, stop_of_commit

STATUS_TEXT = {ENTERED: "+ entered", CHANGED: "~ changed", LEFT: "− left", SAME: ""}
STATUS_COLOUR = {"light": {ENTERED: "#1d7a35", CHANGED: "#7a4cc2", LEFT: "#b3261e"},
                 "dark": {ENTERED: "#7fdc95", CHANGED: "#c9a8ff", LEFT: "#ff9a92"}}
COLUMNS = ("key", "change", "written by", "value")  # change: since the previous stop
WRITER_COLUMN = 2
READING = "Reading the run's state at the cursor…"


class ContextPanel(QWidget, PanelDefaults):
    """Session-following state view; `table`, `note`, `changed_only` and `view` (the ContextView) for tests."""

    def __init__(self, session, requests, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.requests = requests
        self.answer: ContextAnswer | None = None  # the engine's, for the moment asked last
        self.view = None
        self._asked: object | None = None  # the newest request (an answer to any other is dropped)
        self._value_asked: object | None = None  # the newest request for a key's whole value (the same rule)
        self.theme = "light"
        self._dirty = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        self.note = plain_label()
        layout.addWidget(self.note)
        self.changed_only = QCheckBox("Only what changed since the previous stop")
        self.changed_only.toggled.connect(lambda _on: self._fill())
        layout.addWidget(self.changed_only)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        vertical = self.table.verticalHeader()
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        for column, width in enumerate((150, 84, 120)):
            header.resizeSection(column, width)
        header.setStretchLastSection(True)
        self.table.setMinimumSize(120, 40)
        self.table.cellClicked.connect(self._clicked)
        self.table.cellActivated.connect(self._clicked)
        self.table.currentCellChanged.connect(lambda row, _c, _r, _pc: self._show_detail(row))
        self.detail = TraceTextBox()  # the chosen key's whole value
        self.detail.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.detail.setPlaceholderText("Choose a key to see its whole value here.")
        self.detail.setMinimumHeight(30)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        layout.addWidget(splitter, 1)
        self._shown_rows: list = []
        self.run_closed()

    # ------------------------------------------------------------------------------------------- the run
    def run_grown(self, run) -> None:
        """The run shown has grown (a followed file, a big file read in parts): show the latest of it."""
        self.run_loaded(run)

    def run_loaded(self, run) -> None:
        self._forget()
        self._shown_rows = []
        self.table.setRowCount(0)
        self.detail.clear()
        self.note.setText(READING)
        self._dirty = True
        if self.session.moment is not None:
            self.settled(self.session.moment)

    def run_closed(self) -> None:
        self._forget()
        self._show_unavailable("Open a recording to see the run's state keys at the cursor here.")

    def _forget(self) -> None:
        """Answers about the moment or run shown before are no longer wanted."""
        self.answer, self.view, self._asked, self._value_asked = None, None, None, None
        self.requests.drop("context")
        self.requests.drop("context_value")

    def _show_unavailable(self, text: str) -> None:
        self.note.setText(text)
        self.table.setRowCount(0)
        self.detail.clear()
        self.table.setEnabled(False)
        self.changed_only.setEnabled(False)

    def settled(self, _moment) -> None:
        self._dirty = True
        if self.isVisible() and not self.visibleRegion().isEmpty():  # (a background tab has an empty region)
            self.refresh()

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self._dirty:  # brought forward since the cursor moved: fold now, after this paint
            QTimer.singleShot(0, self, self.refresh)

    # ------------------------------------------------------------------------------------------- the view
    def refresh(self) -> None:
        """Ask the engine for the state at the cursor (shown when it comes; "Reading…" until then)."""
        moment = self.session.moment
        if moment is None or self.session.run is None:
            return
        if self.answer is not None and self.answer.view is None:  # (no commit log: nothing to ask again)
            self._dirty = False
            return
        self._dirty = False
        top_level = len(moment.breadcrumb) == 1  # inner stops count commits of their own subflow's log
        span = moment.stop
        stop = span.stop if span is not None and top_level else None
        previous_stop = None
        previous_position = None
        if span is not None:
            previous_position = span.start
            spans = self.session.spans
            if top_level and span.index > 0 and spans[span.index - 1].end == span.start:
                previous_stop = spans[span.index - 1].stop
        args = {"position": moment.position, "stop": stop, "at_stop": moment.at_stop,
                "previous_position": previous_position, "previous_stop": previous_stop}
        asked = self._asked = object()
        self.note.setText(READING)
        self.requests.request("context", "context", args, lambda answer: self._answered(asked, answer),
                              lambda why: self._failed(asked, why))

    def _answered(self, asked: object, answer: ContextAnswer) -> None:
        if asked is not self._asked:  # (an earlier moment's, or an earlier run's)
            return
        self.answer, self.view = answer, answer.view
        if answer.view is None:
            self._show_unavailable(answer.reason or "This run's state keys cannot be shown.")
            return
        self.changed_only.setEnabled(True)
        self.table.setEnabled(True)
        self._fill()

    def _failed(self, asked: object, why: str) -> None:
        if asked is self._asked:
            self.note.setText(f"The run's state could not be read: {why}")

    def _fill(self) -> None:
        view = self.view
        if view is None:
            return
        counts = view.counts()
        if view.note:
            self.note.setText(view.note)
        else:
            where = "at this stop" if self.session.moment is not None and self.session.moment.at_stop \
                else "at the cursor"
            since = "" if view.previous_commit is None else (
                f" Since the previous stop: {counts[ENTERED]} entered, {counts[CHANGED]} changed, "
                f"{counts[LEFT]} left.")
            commits = self.answer.commits if self.answer is not None else 0
            self.note.setText(f"{len(view.rows) - counts[LEFT]} state keys {where} (commits 1–{view.commit + 1} of "
                              f"{commits} applied).{since} Click a stage to go to its stop.")
        rows = [row for row in view.rows if not self.changed_only.isChecked() or row.status != SAME]
        chosen = self.table.currentRow()
        chosen_key = self._shown_rows[chosen].key if 0 <= chosen < len(self._shown_rows) else None
        self._shown_rows = rows
        colours = STATUS_COLOUR.get(self.theme, STATUS_COLOUR["light"])
        self.table.setRowCount(len(rows))
        bold = QFont()
        bold.setBold(True)
        for r, row in enumerate(rows):
            writer = row.writer
            writer_text = writer.stage if writer is not None else "initial state"
            cells = (row.key, STATUS_TEXT[row.status], writer_text, row.value)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(plain_tooltip(text))
                if row.status != SAME and c in (0, 1):
                    item.setForeground(QBrush(QColor(colours[row.status])))
                    item.setFont(bold)
                if c == WRITER_COLUMN and writer is not None:
                    item.setData(Qt.ItemDataRole.UserRole, writer.commit)
                    item.setToolTip(plain_tooltip(f"Written by {writer_text} ({writer.stage_id or 'no stage id'}), "
                                                  f"commit {writer.commit + 1}. Click to go to its stop."))
                    font = item.font()
                    font.setUnderline(True)
                    item.setFont(font)
                self.table.setItem(r, c, item)
        keys = [row.key for row in rows]
        if chosen_key in keys:
            self.table.setCurrentCell(keys.index(chosen_key), 0)
        self._show_detail(self.table.currentRow())

    def _show_detail(self, row: int) -> None:
        """The chosen key's head at once, its whole value when the engine sends it (tag "context_value")."""
        self.requests.drop("context_value")
        self._value_asked = None
        if not 0 <= row < len(self._shown_rows) or self.view is None:
            self.detail.clear()
            return
        key_row = self._shown_rows[row]
        view = self.view
        writer = key_row.writer
        head = f"{key_row.key}" + (" (left: its value before)" if key_row.status == LEFT else "") + (
            f" · written by {writer.stage} ({writer.stage_id}), commit {writer.commit + 1}" if writer else
            " · from the initial state")
        self.detail.setPlainText(head + "\n\nReading…")
        commit = view.commit if key_row.status != LEFT else view.previous_commit
        asked = self._value_asked = object()
        self.requests.request("context_value", "context_value", {"key": key_row.key, "commit": commit},
                              lambda text: self._show_value(asked, head, text),
                              lambda why: self._show_value(asked, head, f"(could not be read: {why})"))

    def _show_value(self, asked: object, head: str, text: str) -> None:
        if asked is self._value_asked:  # (not a key chosen, a moment or a run shown before)
            self.detail.setPlainText(head + "\n\n" + text)

    def _clicked(self, row: int, column: int) -> None:
        if column != WRITER_COLUMN:
            return
        item = self.table.item(row, column)
        commit = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if isinstance(commit, int):
            self.go_to_commit(commit)

    def go_to_commit(self, commit: int) -> None:
        """To the stop of the stage that made `commit` (its commit stop, else the position after it)."""
        session = self.session
        run = session.run
        if run is None:
            return
        if len(session.breadcrumb) == 1:
            index = stop_of_commit(session.stops, commit)
            if index is not None:
                session.move_to_stop(index)
                return
        session.move_to(run.axis.position_after_commit(commit))

    def set_theme(self, theme: str) -> None:
        self.theme = theme
        self._fill()
