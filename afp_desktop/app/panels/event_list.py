"""The Events panel: every event of the run in order (typed and domain), a type filter, and a click that moves
the cursor to just after the event. Rows are built only when Qt asks for them, so a 100,000-event run opens
at once. The row of the cursor is kept selected. Plain text throughout."""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QTableView, QVBoxLayout, QWidget

from afp_desktop.core.event_rows import event_row, positions_of, type_counts

COLUMNS = (("#", "position"), ("channel", "channel"), ("type", "type"), ("stage", "stage"), ("what", "summary"))
ALL = "All events"


class EventModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.run = None
        self.rows: list[int] = []  # axis entries shown, in order
        self._cache: dict[int, dict] = {}

    def set_rows(self, run, rows: list[int]) -> None:
        self.beginResetModel()
        self.run, self.rows, self._cache = run, rows, {}
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt's name
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def row(self, r: int) -> dict:
        k = self.rows[r]
        row = self._cache.get(k)
        if row is None:
            if len(self._cache) > 5000:
                self._cache.clear()
            row = self._cache[k] = event_row(self.run, k)
        return row

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return None  # (a tooltip would guess rich text from trace content)
        value = self.row(index.row())[COLUMNS[index.column()][1]]
        return str(value)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        return None


class EventListPanel(QWidget):
    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.filter = QComboBox()
        self.filter.setAccessibleName("Event type filter")
        self.count = QLabel()
        self.model = EventModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        for column, width in enumerate((56, 60, 170, 170)):
            self.table.setColumnWidth(column, width)
        self.table.clicked.connect(self._go)
        self.table.activated.connect(self._go)
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.count)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self.filter.currentIndexChanged.connect(lambda _i: self._apply_filter())
        session.run_loaded.connect(self._on_run_loaded)
        session.run_closed.connect(lambda: self._on_run_loaded(None))
        session.moment_settled.connect(self._follow)
        self._on_run_loaded(session.run)

    def _on_run_loaded(self, run) -> None:
        self.filter.blockSignals(True)
        self.filter.clear()
        if run is not None:
            self.filter.addItem(f"{ALL} ({len(run.axis.entries):,})", None)
            for kind, count in type_counts(run):
                self.filter.addItem(f"{kind} ({count:,})", kind)
        self.filter.blockSignals(False)
        self._apply_filter()

    def _apply_filter(self) -> None:
        run = self.session.run
        kind = self.filter.currentData()
        rows = positions_of(run, None if kind is None else {kind}) if run is not None else []
        self.model.set_rows(run, rows)
        self.count.setText(f"{len(rows):,} shown" if run is not None else "")
        if self.session.moment is not None:
            self._follow(self.session.moment)

    def _go(self, index) -> None:
        if index.isValid():
            self.session.move_to(self.model.rows[index.row()] + 1, immediate=True)

    def _follow(self, moment) -> None:
        """Select the last listed event that has happened at the cursor."""
        rows = self.model.rows
        r = bisect_right(rows, moment.position - 1) - 1  # entry k has happened when k < position
        if r < 0:
            self.table.clearSelection()
            return
        index = self.model.index(r, 0)
        if self.table.currentIndex().row() != r:
            self.table.blockSignals(True)
            self.table.setCurrentIndex(index)
            self.table.blockSignals(False)
            self.table.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
