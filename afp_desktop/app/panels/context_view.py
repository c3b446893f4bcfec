"""The inspector's Context tab: the run's state keys at the cursor (core/context_state.py) — value, the stage
that wrote each last, and what entered, changed or left since the previous stop. Double-click a row (or press
Enter on it) to move the cursor to the commit that wrote it. Plain text throughout."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from afp_desktop.app.panels.chat_bubble import plain_label
from afp_desktop.core.context_state import context_at

COLUMNS = ("key", "change", "value", "written by")


class ContextView(QWidget):
    go_to = Signal(int)  # an axis position

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.note = plain_label(muted=True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.cellDoubleClicked.connect(lambda row, _column: self._jump(row))
        self.table.cellActivated.connect(lambda row, _column: self._jump(row))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        self.rows: list[dict] = []
        self._key = None

    def show_context(self, run, position: int, since: int | None) -> None:
        key = (id(run), position, since)
        if key == self._key:
            return
        self._key = key
        context = context_at(run, position, since) if run is not None else None
        self.rows = context["rows"] if context else []
        if context is None:
            self.note.setText("This file has no commit log: the run's state is not in it.")
        else:
            changed = sum(1 for row in self.rows if row["change"])
            self.note.setText(f"The state at the cursor: {len(self.rows)} key(s), through commit "
                              f"{context['throughCommit']}; {changed} entered, changed or left since the previous "
                              "stop. Double-click a row to go to the commit that wrote it.")
        table = self.table
        table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            for c, text in enumerate((row["key"], row["change"], row["value"], row["writtenBy"])):
                item = QTableWidgetItem(text)
                if row["change"] == "left":
                    font = item.font()
                    font.setStrikeOut(True)
                    item.setFont(font)
                table.setItem(r, c, item)
        table.resizeColumnsToContents()
        table.setColumnWidth(2, min(table.columnWidth(2), 320))

    def _jump(self, row: int) -> None:
        if 0 <= row < len(self.rows) and self.rows[row]["position"] is not None:
            self.go_to.emit(self.rows[row]["position"])
