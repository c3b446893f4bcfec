"""A read-only table of text rows whose cells are made when Qt shows them.

A QTableWidget makes an item per cell for every row each time it is filled, and the inspector's injection and
progress tables are filled each time the cursor moves onto a step: a slot with thousands of injections would
freeze the window. Here `set_rows(count, cells)`
only says how many rows there are and how to make one (`cells(row)`, called for the rows in view and kept); the
little QTableWidget API the panels and tests use (rowCount, item(r, c).text(), setCurrentCell, currentRow,
currentCellChanged) is kept. Cells are trace text: shown through visible_text, on one line, at most CELL_CHARS.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QAbstractItemView, QStyle, QTableView, QWidget

from afp_desktop.app.widgets.visible_text import visible_text

CELL_CHARS = 500  # a cell shows one line of this much at most (the detail pane beside it shows the rest)
_KEPT_ROWS = 5_000
SIZED_ROWS = 100  # rows whose text sizes a column to its contents (Qt's default, 1,000, makes long tables slow)


class _Cell:
    def __init__(self, text: str) -> None:
        self._text = text

    def text(self) -> str:
        return self._text


class _RowsModel(QAbstractTableModel):
    def __init__(self, headers: Sequence[str]) -> None:
        super().__init__()
        self.headers = list(headers)
        self.count = 0
        self.cells: Callable[[int], Sequence[str]] = lambda _row: ()
        self._kept: dict[int, tuple[str, ...]] = {}

    def reset(self, count: int, cells: Callable[[int], Sequence[str]]) -> None:
        self.beginResetModel()
        self.count, self.cells, self._kept = count, cells, {}
        self.endResetModel()

    def row(self, row: int) -> tuple[str, ...]:
        kept = self._kept.get(row)
        if kept is None:
            if len(self._kept) > _KEPT_ROWS:
                self._kept.clear()
            kept = self._kept[row] = tuple(_shown(text) for text in self.cells(row))
        return kept

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008, N802 - Qt's signature
        return 0 if parent.isValid() else self.count

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole or not index.isValid():
            return None
        cells = self.row(index.row())
        return cells[index.column()] if index.column() < len(cells) else ""


def _shown(text: str) -> str:
    one_line = text[:CELL_CHARS].replace("\r", " ").replace("\n", " ")
    return visible_text(one_line + ("…" if len(text) > CELL_CHARS else ""))


class RowsTable(QTableView):
    """Rows selected whole, one at a time; `currentCellChanged(row, column, previous row, previous column)`."""

    currentCellChanged = Signal(int, int, int, int)

    def __init__(self, headers: Sequence[str], parent: QWidget | None = None):
        super().__init__(parent)
        self._model = _RowsModel(headers)
        self.setModel(self._model)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setStretchLastSection(True)
        self.setWordWrap(False)
        self.horizontalHeader().setResizeContentsPrecision(SIZED_ROWS)
        self.selectionModel().currentChanged.connect(
            lambda now, before: self.currentCellChanged.emit(now.row(), now.column(), before.row(), before.column()))

    def set_rows(self, count: int, cells: Callable[[int], Sequence[str]]) -> None:
        """`count` rows; `cells(row)` gives a row's texts when it is first shown."""
        self._model.reset(count, cells)

    def resizeColumnsToContents(self) -> None:  # noqa: N802 - Qt's name
        """What QTableView's does for these rows (each column as wide as its widest text among the first
        SIZED_ROWS rows, or as its header), measured here. Qt's asks the model for every role of every cell, one
        call into Python each, which would be most of filling a tool's progress table at each move of the cursor
        through a run's tool steps. (A test checks the widths are Qt's own.)"""
        metrics = QFontMetricsF(self.font())
        margins = 2 * (self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self) + 1)
        grid = 1 if self.showGrid() else 0
        rows = [self._model.row(row) for row in range(min(self._model.count, SIZED_ROWS))]
        header = self.horizontalHeader()
        for column in range(self.columnCount()):
            texts = {row[column] for row in rows if column < len(row)}
            widest = max((math.ceil(metrics.horizontalAdvance(text)) + margins + grid for text in texts), default=0)
            header.resizeSection(column, max(widest, header.sectionSizeHint(column)))

    def rowCount(self) -> int:  # noqa: N802 - QTableWidget's name
        return self._model.count

    def columnCount(self) -> int:  # noqa: N802
        return len(self._model.headers)

    def item(self, row: int, column: int) -> _Cell:
        return _Cell(self._model.row(row)[column])

    def setCurrentCell(self, row: int, column: int) -> None:  # noqa: N802
        self.setCurrentIndex(self._model.index(row, column))

    def currentRow(self) -> int:  # noqa: N802
        return self.currentIndex().row()
