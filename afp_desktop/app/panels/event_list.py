"""The event list: every event of the run in axis order (typed and domain), the raw truth under the stops.

A windowed table: the model answers only for the rows on screen, so a run of hundreds of thousands of events
opens as fast as a small one. Filter by type (a choice of the run's types, or text matched against the type);
a click or Enter moves the one cursor to right after that event. The row of the moment (the last event that
has happened) is highlighted and kept in view; rows still to come are greyed. All trace text is plain.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.widgets.plain_text import plain_label, plain_tooltip
from afp_desktop.app.widgets.visible_text import visible_text
from afp_desktop.core.views.event_list import row_of_moment

COLUMNS = ("#", "kind", "type", "stage", "summary")
KIND_NAMES = {"t": "typed", "d": "domain"}
HIGHLIGHT = {"light": "#ffe9a8", "dark": "#5a4a12"}
NOT_YET = "…"  # a cell whose text the engine has not sent yet
_CACHE_ROWS = 4000
PAGE_MARGIN = 40  # rows asked for above and below the ones on screen (a short scroll finds them there)


class EventListModel(QAbstractTableModel):
    """Rows are axis entries (all of them, or the filtered indices). The number and kind of a row come from the
    axis; its type, stage and summary are asked of the engine a page at a time (`rows_wanted` says a row was
    read without them: `take_wanted`) and shown as NOT_YET until they arrive."""

    rows_wanted = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.run = None
        self.rows: Sequence[int] | None = None   # None: every entry, row r = entry r
        self.position = 0
        self.moment_row: int | None = None
        self.theme = "light"
        self._cells: dict[int, tuple[str, str, str]] = {}  # entry → (type, stage, summary), made visible
        self.asked: set[int] = set()  # entries asked of the engine, their cells still to come
        self._wanted: set[int] = set()  # entries read without cells and not asked for yet
        self._bold = QFont()
        self._bold.setBold(True)

    def set_run(self, run, rows: Sequence[int] | None = None) -> None:
        same_run = run is self.run
        self.beginResetModel()
        self.run, self.rows = run, rows
        if not same_run:
            self._cells.clear()
            self.asked.clear()
            self._wanted.clear()
        self.moment_row = None
        self.endResetModel()

    def entry_of(self, row: int) -> int:
        return row if self.rows is None else self.rows[row]

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        if parent.isValid() or self.run is None:
            return 0
        return len(self.run.axis.entries) if self.rows is None else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def cells(self, row: int) -> tuple[str, str, str, str, str]:
        entry_index = self.entry_of(row)
        kind = self.run.axis.entries[entry_index][0]
        known = self._cells.get(entry_index)
        if known is None:
            if entry_index not in self.asked and entry_index not in self._wanted:
                self._wanted.add(entry_index)
                if len(self._wanted) == 1:  # (one signal for the rows read until they are asked for)
                    self.rows_wanted.emit()
            known = (NOT_YET, NOT_YET, NOT_YET)
        return (f"{entry_index + 1:,}", KIND_NAMES.get(kind, kind), *known)

    def has_cells(self, entry_index: int) -> bool:
        return entry_index in self._cells

    def take_cells(self, answer: dict[int, tuple[str, str, str]]) -> None:
        """The engine's cells for the entries it was asked for (the list is repainted)."""
        if len(self._cells) + len(answer) > _CACHE_ROWS:
            self._cells.clear()
        for entry_index, cells in answer.items():
            self._cells[entry_index] = tuple(visible_text(text) for text in cells)  # type: ignore[assignment]
        self.asked.difference_update(answer)
        count = self.rowCount()
        if count and answer:
            self.dataChanged.emit(self.index(0, 2), self.index(count - 1, len(COLUMNS) - 1))

    def take_wanted(self) -> set[int]:
        """The entries read without cells since the last call (the caller asks for them)."""
        wanted, self._wanted = self._wanted, set()
        return wanted

    def asking(self, entries: list[int]) -> None:
        """`entries` are asked of the engine (a newer ask replaces the one before: its answer will not come)."""
        self.asked = set(entries)

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.run is None:
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells(row)[column]
        if role == Qt.ItemDataRole.ToolTipRole and column >= 2:
            return plain_tooltip(self.cells(row)[column])
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and row == self.moment_row:
            return QBrush(QColor(HIGHLIGHT.get(self.theme, HIGHLIGHT["light"])))
        if role == Qt.ItemDataRole.FontRole and row == self.moment_row:
            return self._bold
        if role == Qt.ItemDataRole.ForegroundRole and self.entry_of(row) >= self.position \
                and row != self.moment_row:
            return QBrush(QPalette().color(QPalette.ColorRole.PlaceholderText))  # not happened yet
        return None

    def row_at_entry(self, entry_index: int) -> int:
        """The first row whose entry is at or after `entry_index`."""
        return entry_index if self.rows is None else bisect_left(self.rows, entry_index)

    def set_position(self, position: int) -> int | None:
        """Follow the cursor: the moment's row changes, and rows the cursor crossed change colour."""
        if self.run is None:
            return None
        old_position, old_row = self.position, self.moment_row
        self.position = position
        self.moment_row = row_of_moment(self.rows, position, len(self.run.axis.entries))
        count = self.rowCount()
        if count and (old_position != position or old_row != self.moment_row):
            low_position, high_position = sorted((old_position, position))
            changed = [self.row_at_entry(low_position) - 1, self.row_at_entry(high_position),
                       *(r for r in (old_row, self.moment_row) if r is not None)]
            low, high = max(0, min(changed)), min(count - 1, max(changed))
            if low <= high:
                self.dataChanged.emit(self.index(low, 0), self.index(high, len(COLUMNS) - 1))
        return self.moment_row


class EventListPanel(QWidget, PanelDefaults):
    """Session-following list of every event; `table`, `model`, `type_combo` and `filter_edit` for tests.
    `requests` (app/loading/engine_requests.py) asks the engine for the rows' cells (tag "event_rows"), the run's
    types ("event_types") and a filter's entries ("event_filter"); an answer about an earlier run or an earlier
    filter is dropped."""

    def __init__(self, session, requests, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.requests = requests
        self.types: list[tuple[str, int]] | None = None  # (type, count), most frequent first: once the engine says
        self._types_asked = False
        self._filter_asked: object | None = None  # the filter asked for last (its answer is the one shown)
        self.failure: str | None = None  # why the engine could not answer, said under the filters
        self._shown = object()  # the run shown (a new one each time a run is opened or closed; not when it grows)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        filters = QHBoxLayout()
        self.type_combo = QComboBox()
        self.type_combo.setToolTip("Show only events of one type")
        self.type_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.type_combo.setMinimumContentsLength(18)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by type (text)…")
        self.filter_edit.setClearButtonEnabled(True)
        filters.addWidget(self.type_combo, 1)
        filters.addWidget(self.filter_edit, 1)
        layout.addLayout(filters)
        self.count_label = plain_label(muted=True)
        layout.addWidget(self.count_label)
        self.model = EventListModel(self)
        self.model.rows_wanted.connect(lambda: QTimer.singleShot(0, self, self.ask_for_rows))
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        vertical = self.table.verticalHeader()
        vertical.setVisible(False)
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # uniform rows: no per-row measuring
        vertical.setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        for column, width in enumerate((64, 58, 220, 150)):
            header.resizeSection(column, width)
        self.table.setMinimumSize(120, 40)  # a docked tab must not make the window's minimum taller
        self.table.clicked.connect(self._activate)
        self.table.activated.connect(self._activate)
        layout.addWidget(self.table, 1)
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(150)
        self._filter_timer.timeout.connect(self.apply_filter)
        self.filter_edit.textChanged.connect(lambda _text: self._filter_timer.start())
        self.type_combo.currentIndexChanged.connect(lambda _i: self.apply_filter())
        self.run_closed()

    # ------------------------------------------------------------------------------------------- the run
    def run_loaded(self, run) -> None:
        self._forget_asks()
        self.filter_edit.blockSignals(True)
        self.filter_edit.clear()
        self.filter_edit.blockSignals(False)
        for widget in (self.type_combo, self.filter_edit, self.table):
            widget.setEnabled(True)
        self.model.set_run(run)
        self._fill_types()
        self._show_count()
        if self.session.moment is not None:
            self.moment(self.session.moment)

    def run_grown(self, run) -> None:
        """The run shown has grown: an unfiltered list gets the new rows (its scroll kept); a filtered one keeps
        its rows (the events it matched are still there)."""
        model = self.model
        if model.rows is None and model.run is not None:
            old, new = model.rowCount(), len(run.axis.entries)
            if new > old:
                model.beginInsertRows(model.index(0, 0).parent(), old, new - 1)
                model.run = run
                model.endInsertRows()
            else:
                model.run = run
        else:
            model.run = run
        if self.type_combo.currentIndex() <= 0:  # no type chosen: the type counts are listed again
            self.types, self._types_asked = None, False
            self._fill_types()
        self._show_count()

    def _forget_asks(self) -> None:
        """Answers asked for about the run shown before are no longer wanted."""
        for tag in ("event_rows", "event_types", "event_filter"):
            self.requests.drop(tag)
        self.types, self._types_asked, self._filter_asked, self.failure = None, False, None, None
        self._shown = object()

    def _fill_types(self) -> None:
        run = self.session.run
        self.type_combo.blockSignals(True)
        self.type_combo.clear()
        if run is not None:
            self.type_combo.addItem(f"All types ({len(run.axis.entries):,} events)", None)
        self.type_combo.blockSignals(False)
        if run is not None and self.isVisible() and not self.visibleRegion().isEmpty():
            self._ask_for_types()

    def _ask_for_types(self) -> None:
        """Ask the engine for the run's types and their counts (once a run; the combo lists them on arrival)."""
        if self.types is not None or self._types_asked or self.session.run is None:
            return
        self._types_asked = True
        shown = self._shown
        self.requests.request("event_types", "event_types", {},
                              lambda counts: self._show_types(shown, counts), lambda why: self._failed(shown, why))

    def _show_types(self, shown: object, counts: list[tuple[str, int]]) -> None:
        if shown is not self._shown:
            return
        self.types = counts
        self.type_combo.blockSignals(True)
        for kind, count in counts:
            self.type_combo.addItem(f"{kind} ({count:,})", kind)
        self.type_combo.blockSignals(False)

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self.types is None and not self._types_asked and self.session.run is not None:  # first shown
            QTimer.singleShot(0, self, self._ask_for_types)  # (never once the list is gone)

    def run_closed(self) -> None:
        self._forget_asks()
        self.model.set_run(None)
        self.type_combo.clear()
        for widget in (self.type_combo, self.filter_edit, self.table):
            widget.setEnabled(False)
        self.count_label.setText("Open a trace file to list its events here.")

    # ----------------------------------------------------------------------------------------- the rows
    def ask_for_rows(self) -> None:
        """Ask the engine for the cells of the rows on screen (and a margin around them) and of any row read since
        the last ask, those it has not sent yet."""
        model, run = self.model, self.model.run
        wanted = model.take_wanted()
        count = model.rowCount()
        if run is None or not count:
            return
        top = self.table.rowAt(0)
        bottom = self.table.rowAt(self.table.viewport().height() - 1)
        top = 0 if top < 0 else top
        bottom = min(count - 1, top + self.table.viewport().height() // max(1, self.table.rowHeight(0))) \
            if bottom < 0 else bottom
        first, last = max(0, top - PAGE_MARGIN), min(count - 1, bottom + PAGE_MARGIN)
        on_screen = map(model.entry_of, range(first, last + 1))
        missing = sorted(entry for entry in wanted.union(on_screen) if not model.has_cells(entry))
        if not missing:
            return
        model.asking(missing)
        shown = self._shown
        self.requests.request("event_rows", "event_rows", {"entries": missing},
                              lambda cells: self._take_rows(shown, cells), lambda why: self._failed(shown, why))

    def _take_rows(self, shown: object, cells: dict) -> None:
        if shown is self._shown:  # (cells of an earlier part of a run that grew are still right)
            self.model.take_cells(cells)
            if self.failure is not None:
                self.failure = None
                self._show_count()

    def _failed(self, shown: object, why: str) -> None:
        if shown is self._shown:
            self.model.asking([])
            self.failure = why
            self._show_count()

    # --------------------------------------------------------------------------------------- the filter
    def apply_filter(self) -> None:
        """Ask the engine which entries the filter keeps (no filter: every entry, at once)."""
        run = self.session.run
        if run is None:
            return
        text, exact_type = self.filter_edit.text(), self.type_combo.currentData()
        if not text.strip() and not exact_type:
            self.requests.drop("event_filter")
            self._filter_asked = None
            self._show_rows(run, None)
            return
        asked = self._filter_asked = (text, exact_type)
        shown = self._shown
        self.count_label.setText("Filtering…")
        self.requests.request("event_filter", "event_filter", {"text": text, "exact_type": exact_type},
                              lambda rows: self._filtered(shown, asked, rows), lambda why: self._failed(shown, why))

    def _filtered(self, shown: object, asked: object, rows) -> None:
        if shown is self._shown and asked is self._filter_asked:  # (not a filter typed over since)
            self._show_rows(self.session.run, rows)

    def _show_rows(self, run, rows) -> None:
        self.model.set_run(run, rows)
        self._show_count()
        if self.session.moment is not None:
            self.moment(self.session.moment)

    def _show_count(self) -> None:
        run = self.session.run
        if run is None:
            return
        if self.failure is not None:
            self.count_label.setText(f"The events could not be read: {self.failure}")
            return
        axis = run.axis
        total = len(axis.entries)
        shown = self.model.rowCount()
        typed = axis.typed_before[total] if total < len(axis.typed_before) else 0
        where = f"{typed:,} typed and {total - typed:,} domain events"
        self.count_label.setText(f"All {total:,} events in order ({where}). Click one to move the cursor right "
                                 "after it." if shown == total else
                                 f"{shown:,} of {total:,} events match the filter.")

    # ---------------------------------------------------------------------------------------- the cursor
    def moment(self, moment) -> None:
        row = self.model.set_position(moment.position)
        if row is not None:
            self.table.scrollTo(self.model.index(row, 0), QAbstractItemView.ScrollHint.EnsureVisible)

    def _activate(self, index: QModelIndex) -> None:
        if index.isValid() and self.session.run is not None:
            self.session.move_to(self.model.entry_of(index.row()) + 1)

    def set_theme(self, theme: str) -> None:
        self.model.theme = theme
        self.table.viewport().update()
