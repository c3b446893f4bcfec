"""View ▸ Token prices…: the price table the user edits, and where cost is shown.

A small dialog: one row per model name (as the LLM events carry it) with its price in US dollars per million input
and output tokens, and a default row for every other model. It is checked as the core checks it
(core/views/cost.py: non-negative finite numbers, bounded); a bad cell is named in a message under the table and
the dialog stays open. The table is remembered in the settings. With a table, cost shows next to tokens on
subflow boxes, in the run header ("cost so far", the calls ended at the cursor) and in the LLM card's inspector —
always only for calls that have ended at the cursor.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.core.views.cost import (
    PriceTable,
    PriceTableError,
    format_spent,
    parse_price_table,
    run_cost,
)

DEFAULT_ROW = "(any other model)"
ERROR_COLOUR = "#b3261e"


def _cell(text: str, editable: bool = True) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if not editable:
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    return item


def _price_text(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


class PriceDialog(QDialog):
    """Edit a price table; `table` holds the result once accepted (None: no table, no cost shown)."""

    def __init__(self, parent=None, table: PriceTable | None = None, models: list[str] | None = None):
        super().__init__(parent)
        self.setWindowTitle("Token prices")
        self.table: PriceTable | None = table
        column = QVBoxLayout(self)
        intro = QLabel("US dollars per million tokens, per model name as the run's LLM calls name it. The default "
                       "row prices every other model; leave it empty to price only the models listed.")
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        column.addWidget(intro)
        self.grid = QTableWidget(0, 3)
        self.grid.setHorizontalHeaderLabels(["Model", "Input $ / M tokens", "Output $ / M tokens"])
        header = self.grid.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):  # the price columns as wide as their headings: never cut
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.grid.verticalHeader().setVisible(False)
        self.grid.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        column.addWidget(self.grid, 1)
        buttons_row = QHBoxLayout()
        self.add_button = QPushButton("Add model")
        self.remove_button = QPushButton("Remove model")
        self.clear_button = QPushButton("No prices")
        self.clear_button.setToolTip("Forget the table: no cost is shown")
        for button in (self.add_button, self.remove_button, self.clear_button):
            buttons_row.addWidget(button)
        buttons_row.addStretch(1)
        column.addLayout(buttons_row)
        self.error = QLabel()
        self.error.setTextFormat(Qt.TextFormat.PlainText)  # model names come from the user and from traces
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.error.setVisible(False)
        column.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        column.addWidget(self.buttons)
        self.add_button.clicked.connect(lambda: self.add_row("", None, None, edit=True))
        self.remove_button.clicked.connect(self.remove_selected)
        self.clear_button.clicked.connect(self.clear_all)
        self.buttons.accepted.connect(self.try_accept)
        self.buttons.rejected.connect(self.reject)
        self._fill(table, models or [])
        self.resize(560, 360)

    # -- rows --------------------------------------------------------------------------------------------
    def _fill(self, table: PriceTable | None, models: list[str]) -> None:
        self.grid.setRowCount(0)
        default = table.default if table is not None else None
        self.grid.insertRow(0)
        self.grid.setItem(0, 0, _cell(DEFAULT_ROW, editable=False))
        self.grid.setItem(0, 1, _cell(_price_text(default.input if default else None)))
        self.grid.setItem(0, 2, _cell(_price_text(default.output if default else None)))
        listed = dict(table.models) if table is not None else {}
        for name in models:  # the run's models, so the user only types the prices
            listed.setdefault(name, None)  # type: ignore[arg-type]
        for name, price in listed.items():
            self.add_row(name, price.input if price else None, price.output if price else None)

    def add_row(self, name: str, price_in: float | None, price_out: float | None, edit: bool = False) -> None:
        row = self.grid.rowCount()
        self.grid.insertRow(row)
        self.grid.setItem(row, 0, _cell(name))
        self.grid.setItem(row, 1, _cell(_price_text(price_in)))
        self.grid.setItem(row, 2, _cell(_price_text(price_out)))
        if edit:
            self.grid.setCurrentCell(row, 0)
            self.grid.editItem(self.grid.item(row, 0))

    def remove_selected(self) -> None:
        for row in sorted({index.row() for index in self.grid.selectedIndexes()}, reverse=True):
            if row > 0:  # the default row stays (empty: no default)
                self.grid.removeRow(row)

    def clear_all(self) -> None:
        self.grid.setRowCount(1)
        for col in (1, 2):
            self.grid.setItem(0, col, _cell(""))
        self.error.setVisible(False)

    def set_cell(self, row: int, col: int, text: str) -> None:
        self.grid.setItem(row, col, _cell(text, editable=not (row == 0 and col == 0)))

    # -- reading and checking ---------------------------------------------------------------------------------
    def _text(self, row: int, col: int) -> str:
        item = self.grid.item(row, col)
        return item.text().strip() if item is not None else ""

    def as_json(self) -> dict | None:
        """The table typed, as the JSON the core reads; PriceTableError naming the row for a bad cell; None when
        nothing at all is priced."""
        out: dict = {"models": {}}
        for row in range(self.grid.rowCount()):
            name = DEFAULT_ROW if row == 0 else self._text(row, 0)
            texts = (self._text(row, 1), self._text(row, 2))
            if row > 0 and not name and not any(texts):
                continue  # an empty row left behind
            if not any(texts):
                if row == 0:
                    continue
                raise PriceTableError(f"Row {row + 1} ({name}): give its input and output prices, or remove it.")
            if row > 0 and not name:
                raise PriceTableError(f"Row {row + 1}: the model name is empty.")
            if row > 0 and name in out["models"]:
                raise PriceTableError(f"Row {row + 1}: the model {name!r} is listed twice.")
            prices = []
            for what, text in zip(("input", "output"), texts):
                try:
                    value = float(text.replace(",", "")) if text else math.nan
                except ValueError:
                    raise PriceTableError(f"Row {row + 1} ({name}), {what} price: {text!r} is not a number.") from None
                if not text or not math.isfinite(value) or value < 0:
                    shown = repr(text) if text else "empty"
                    raise PriceTableError(f"Row {row + 1} ({name}), {what} price: {shown} — give a non-negative "
                                          "number of US dollars per million tokens.")
                prices.append(value)
            entry = {"input": prices[0], "output": prices[1]}
            if row == 0:
                out["default"] = entry
            else:
                out["models"][name] = entry
        return out if out["models"] or "default" in out else None

    def try_accept(self) -> None:
        try:
            data = self.as_json()
            table = parse_price_table(data) if data is not None else None
        except PriceTableError as err:
            self.error.setText(str(err))
            self.error.setVisible(True)
            return
        self.table = table
        self.accept()


# ----------------------------------------------------------------------------------------- the window's part


def _stored_table(settings) -> PriceTable | None:
    data = settings.get("price_table")
    if data is None:
        return None
    try:
        return parse_price_table(data)
    except PriceTableError:  # (the settings checked it when read; a newer version's shape falls back to none)
        return None


def run_models(run) -> list[str]:
    """The model names of a run's LLM calls, in order of first use."""
    nodes = (run.stepgraph.get("nodes") or []) if run is not None else []
    return list(dict.fromkeys(str(n["llmModel"]) for n in nodes if isinstance(n, dict) and n.get("llmModel")))


class CostShown(PanelDefaults):
    """Keeps the table and shows cost where it goes: the canvas's subflow boxes, the inspector, the header."""

    key = "cost"

    def __init__(self, window):
        self.window = window
        self.table = _stored_table(window.settings)
        window.bind_action("prices", self.edit)
        self.apply()

    def run_loaded(self, _run) -> None:
        self.apply()

    def moment(self, moment) -> None:
        self.show_moment(moment)

    def set_table(self, table: PriceTable | None) -> None:
        self.table = table
        settings = self.window.settings
        settings.set("price_table", table.as_json() if table is not None else None)
        settings.save()
        self.apply()

    def apply(self) -> None:
        window = self.window
        if hasattr(window.canvas, "set_prices"):
            window.canvas.set_prices(self.table)
        inspector = window.panels.get("inspector")
        if hasattr(inspector, "set_prices"):
            inspector.set_prices(self.table)
        if window.session.moment is not None:
            self.show_moment(window.session.moment)
        else:
            window.summary.show_cost("", "")

    def show_moment(self, moment) -> None:
        """The header's "cost so far": the LLM calls that have ended at the cursor."""
        run = self.window.session.run
        if self.table is None or run is None:
            self.window.summary.show_cost("", "")
            return
        ended, n_domain = moment.facts.ended, moment.n_domain
        spent = run_cost(self.table, moment.facts.nodes,
                         lambda i: ended[i] is not None and ended[i] < n_domain)
        text = format_spent(spent)
        if not text:
            none = "no call has ended yet" if not spent.unpriced else "no price for this run's models"
            self.window.summary.show_cost("cost: –", f"Cost so far: {none} (View ▸ Token prices…).")
            return
        tip = (f"Cost of the {spent.priced:,} LLM call{'s' if spent.priced != 1 else ''} ended at the cursor, at "
               "the prices of View ▸ Token prices….")
        if spent.unpriced:
            tip += f" {spent.unpriced:,} call{'s have' if spent.unpriced != 1 else ' has'} no price (model not listed)."
        self.window.summary.show_cost(f"cost so far {text}", tip)

    def edit(self) -> None:
        dialog = PriceDialog(self.window, self.table, run_models(self.window.session.run))
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.set_table(dialog.table)
