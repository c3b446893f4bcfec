"""The event list: every event of the run in axis order (typed and domain), the raw truth under the stops.

A windowed table: the model answers only for the rows on screen, so a run of hundreds of thousands of events
opens as fast as a small one. Filter by type (a choice of the run's types, or text matched against the type);
a click or Enter moves the one cursor to right after that event. The row of the moment (the last event that
has happened) is highlighted and kept in view; rows still to come are greyed. All trace text is plain.
"""

from __future__ import annotations

from bisect import bisect_left

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer
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
from afp_desktop.core.views.event_list import (
    event_stage,
    event_summary,
    event_type,
    event_types,
    filter_entries,
    row_of_moment,
    type_counts,
)

COLUMNS = ("#", "kind", "type", "stage", "summary")
KIND_NAMES = {"t": "typed", "d": "domain"}
HIGHLIGHT = {"light": "#ffe9a8", "dark": "#5a4a12"}
_CACHE_ROWS = 4000


class EventListModel(QAbstractTableModel):
    """Rows are axis entries (all of them, or the filtered indices); cells are made when asked for."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.run = None
        self.rows: list[int] | None = None   # None: every entry, row r = entry r
        self.position = 0
        self.moment_row: int | None = None
        self.theme = "light"
        self._cells: dict[int, tuple[str, str, str, str, str]] = {}
        self._bold = QFont()
        self._bold.setBold(True)

    def set_run(self, run, rows: list[int] | None = None) -> None:
        self.beginResetModel()
        self.run, self.rows = run, rows
        self._cells.clear()
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
        cells = self._cells.get(entry_index)
        if cells is None:
            run = self.run
            entry = run.axis.entries[entry_index]
            cells = (f"{entry_index + 1:,}", KIND_NAMES.get(entry[0], entry[0]), visible_text(event_type(run, entry)),
                     visible_text(event_stage(run, entry)), visible_text(event_summary(run, entry)))
            if len(self._cells) > _CACHE_ROWS:
                self._cells.clear()
            self._cells[entry_index] = cells
        return cells

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
    """Session-following list of every event; `table`, `model`, `type_combo` and `filter_edit` for tests."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.types: list[str] | None = None
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
        self.types = None  # the type of every event: worked out when the list is first shown
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
            self.types = None
            self._fill_types()
        self._show_count()

    def _fill_types(self) -> None:
        run = self.session.run
        self.type_combo.blockSignals(True)
        self.type_combo.clear()
        if run is not None:
            self.type_combo.addItem(f"All types ({len(run.axis.entries):,} events)", None)
        self.type_combo.blockSignals(False)
        if run is not None and self.isVisible() and not self.visibleRegion().isEmpty():
            self._ensure_types()

    def _ensure_types(self) -> list[str]:
        run = self.session.run
        if self.types is None and run is not None:
            self.types = event_types(run)
            self.type_combo.blockSignals(True)
            for kind, count in type_counts(run, self.types):
                self.type_combo.addItem(f"{kind} ({count:,})", kind)
            self.type_combo.blockSignals(False)
        return self.types or []

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if self.types is None and self.session.run is not None:  # first shown since the run opened
            QTimer.singleShot(0, self, self._ensure_types)  # (never once the list is gone)

    def run_closed(self) -> None:
        self.types = None
        self.model.set_run(None)
        self.type_combo.clear()
        for widget in (self.type_combo, self.filter_edit, self.table):
            widget.setEnabled(False)
        self.count_label.setText("Open a trace file to list its events here.")

    def apply_filter(self) -> None:
        run = self.session.run
        if run is None:
            return
        types = self._ensure_types()
        rows = filter_entries(run, self.filter_edit.text(), self.type_combo.currentData(), types)
        self.model.set_run(run, rows)
        self._show_count()
        if self.session.moment is not None:
            self.moment(self.session.moment)

    def _show_count(self) -> None:
        run = self.session.run
        total = len(run.axis.entries) if run is not None else 0
        shown = self.model.rowCount()
        typed = len(run.typed_events or []) if run is not None else 0
        where = f"{typed:,} typed and {total - typed:,} domain events" if run is not None else ""
        self.count_label.setText(f"All {total:,} events in order ({where}). Click one to move the cursor right "
                                 "after it." if shown == total else f"{shown:,} of {total:,} events match the filter.")

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
