"""The status-template editor: edit the active template map (§6.5/§6.6) with a live preview in the chat bubble,
see which variables each template may use and what is wrong with it, and list every line the map produces
over the whole run.

The map is the whole map the renderer gets: a key left out (or deleted) makes the ladder fall through, exactly
as when a consumer deletes a key from the merged map. Loading a file replaces the map, as agentfootprint does
when it is handed that object.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QFileDialog, QFrame, QScrollArea, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton,
    QSplitter, QStyledItemDelegate, QTableView, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget,
)

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.app.storage import template_store
from afp_desktop.app.widgets.plain_text import plain_label
from afp_desktop.app.panels.template_box import TemplateBox
from afp_desktop.core.model.bubble import LineUse, line_uses
from afp_desktop.core.model.summary import tool_names_called
from afp_desktop.core.library.status import (
    DEFAULT_TEMPLATES, spaced_placeholders, state_for_template_key, unknown_variables, variables_for_template_key,
)

APPLY_DELAY_MS = 120   # typing coalesces into one re-render of the bubble
LINES_DELAY_MS = 150   # the whole-run line list is the expensive part on a large run
MAX_OCCURRENCES_SHOWN = 500
LINES_PIECE_S = 0.01  # the walk over a run's lines, per event-loop turn
OCCURRENCES_ROLE = Qt.ItemDataRole.UserRole + 1  # a line's positions, made into rows when it is opened
MAX_LINES_SHOWN = 1_000  # each a tree row made on the window's thread: a long run's tens of thousands would freeze it
MUTED = QColor("#8a909c")
WARN = QColor("#b3261e")


def template_warnings(key: str, template: str) -> list[str]:
    """Sentences about what will not work in this template at this key."""
    warnings = []
    if state_for_template_key(key) is None:
        warnings.append("no status ever uses this key")
    for name in unknown_variables(key, template):
        warnings.append(f"unknown {{{{{name}}}}}: renders empty")
    for placeholder in spaced_placeholders(template):
        warnings.append(f"{placeholder} has spaces: shown as typed, never filled")
    return warnings


def tool_names(run) -> list[str]:
    """Names of the tools the run actually called, in first-call order (the loader thread's when it prepared the
    run's views)."""
    return list(run.views.tool_names) if run.views is not None else tool_names_called(run)


def fallback_template(key: str, templates: dict[str, str]) -> str:
    """What a new key starts with: the template its state renders with today, so adding changes nothing."""
    if key in DEFAULT_TEMPLATES:
        return DEFAULT_TEMPLATES[key]
    parts = key.split(".")
    name = ".".join(parts[1:])
    if key.endswith(".progress.generic"):
        ladder = ["tool.progress.generic", "tool." + name[: -len(".progress.generic")], "tool"]
    elif key.endswith(".progress"):
        ladder = ["tool.progress", "tool." + name[: -len(".progress")], "tool"]
    else:
        ladder = ["tool"]
    return next((templates[k] for k in ladder if isinstance(templates.get(k), str)), "")


ROW_CHARS = 300  # a whole streamed reply is one line: the list shows its start


def _row_text(line: str) -> str:
    """A line on one row: line breaks as ⏎, a long one cut after ROW_CHARS characters with its length said."""
    shown = line[:ROW_CHARS].replace("\n", " ⏎ ")
    return shown if len(line) <= ROW_CHARS else f"{shown}… ({len(line):,} characters)"


class TemplateTableModel(QAbstractTableModel):
    """Rows: the keys of the map, then the default keys it leaves out (shown as falling through)."""

    KEY, TEMPLATE, DEFAULT, STATE, VARIABLES, WARNINGS = range(6)
    HEADERS = ("Key", "Template", "Default", "State", "May use", "Warnings")
    edited = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.templates: dict[str, str] = {}
        self.keys: list[str] = []

    def set_map(self, templates: dict[str, str]) -> None:
        self.beginResetModel()
        self.templates = dict(templates)
        self.keys = list(self.templates) + [k for k in DEFAULT_TEMPLATES if k not in self.templates]
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.keys)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def flags(self, index):
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == self.TEMPLATE:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def warnings(self, row: int) -> list[str]:
        key = self.keys[row]
        return template_warnings(key, self.templates[key]) if key in self.templates else []

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        key, column = self.keys[index.row()], index.column()
        is_set = key in self.templates
        template = self.templates.get(key)
        if role == Qt.ItemDataRole.EditRole and column == self.TEMPLATE:
            return template or ""
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.KEY:
                return key
            if column == self.TEMPLATE:
                return template if is_set else "(not set: the ladder falls through)"
            if column == self.DEFAULT:
                return DEFAULT_TEMPLATES.get(key, "")
            if column == self.STATE:
                return state_for_template_key(key) or "—"
            if column == self.VARIABLES:
                return ", ".join(variables_for_template_key(key))
            if column == self.WARNINGS:
                return "; ".join(self.warnings(index.row()))
        if role == Qt.ItemDataRole.ForegroundRole:
            if column in (self.WARNINGS, self.KEY) and self.warnings(index.row()):
                return QBrush(WARN)
            if column == self.TEMPLATE and (not is_set or template == DEFAULT_TEMPLATES.get(key)):
                return QBrush(MUTED)  # unchanged default or fall-through: grey
            if column == self.DEFAULT:
                return QBrush(MUTED)
        if role == Qt.ItemDataRole.FontRole and column == self.TEMPLATE and not is_set:
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            text = {self.TEMPLATE: template or "", self.DEFAULT: DEFAULT_TEMPLATES.get(key, ""),
                    self.VARIABLES: "\n".join("{{%s}}" % v for v in variables_for_template_key(key)),
                    self.WARNINGS: "\n".join(self.warnings(index.row())),
                    self.KEY: "\n".join(self.warnings(index.row()))}.get(column)
            return plain_tooltip(text) if text else None
        return None

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole):
        if role != Qt.ItemDataRole.EditRole or index.column() != self.TEMPLATE or not isinstance(value, str):
            return False
        key = self.keys[index.row()]
        if self.templates.get(key) == value:
            return True
        self.templates[key] = value
        # Only this row changes: a reset would destroy the open editor while the user types.
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), self.columnCount() - 1))
        self.edited.emit()
        return True


class LiveDelegate(QStyledItemDelegate):
    """A line editor that commits on every keystroke, so the bubble previews the template as it is typed."""

    def createEditor(self, parent, option, index):
        editor = QLineEdit(parent)
        editor.textEdited.connect(lambda _text: self.commitData.emit(editor))
        return editor


class TemplateEditorPanel(QWidget, PanelDefaults):
    folder_chosen = Signal(str)  # the folder of a template map loaded or saved (the window remembers it)

    def __init__(self, session, parent: QWidget | None = None, *, restore: bool = True):
        super().__init__(parent)
        self.session = session
        self.folder = ""  # where the Load…/Save… dialogs open
        self.model = TemplateTableModel(self)
        self.model.edited.connect(self._schedule_apply)

        self.app_name = QLineEdit(session.app_name)
        self.app_name.setPlaceholderText("app name for {{appName}}")
        self.app_name.textEdited.connect(lambda _t: self._schedule_apply())
        self.app_name.textChanged.connect(self._on_app_name)
        self.add_combo = QComboBox()
        self.add_combo.setMinimumContentsLength(24)
        self.add_button = QPushButton("Add key")
        self.delete_button = QPushButton("Delete key")
        self.reset_button = QPushButton("Reset to defaults")
        self.load_button = QPushButton("Load…")
        self.save_button = QPushButton("Save…")
        self.message = plain_label()
        self.message.setVisible(False)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setItemDelegateForColumn(TemplateTableModel.TEMPLATE, LiveDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(TemplateTableModel.TEMPLATE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TemplateTableModel.STATE, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        # What a template may use and what is wrong with it are shown beside the text box, not off-screen.
        for column in (TemplateTableModel.DEFAULT, TemplateTableModel.VARIABLES, TemplateTableModel.WARNINGS):
            self.table.setColumnHidden(column, True)
        self.table.setMinimumHeight(80)
        self.box = TemplateBox()
        self.box.app_name = self.app_name.text()
        self.box.edited.connect(self._on_box_edited)
        self.table.selectionModel().currentRowChanged.connect(lambda _c, _p: self._show_selected())
        self.model.dataChanged.connect(lambda _a, _b: self._show_selected())
        self.model.modelReset.connect(self._reselect)

        self.lines = QTreeWidget()
        self.lines.setHeaderLabels(["Line", "Times", "First at"])
        self.lines.setUniformRowHeights(True)
        self.lines.itemClicked.connect(self._on_line_clicked)
        self.lines.itemActivated.connect(self._on_line_clicked)
        self.lines.itemExpanded.connect(self._add_occurrences)
        self.lines_title = plain_label("All lines in this run")
        self.lines_title.setStyleSheet("font-weight: bold;")

        top = QHBoxLayout()
        top.addWidget(QLabel("App name"))
        top.addWidget(self.app_name, 1)
        top.addWidget(self.load_button)
        top.addWidget(self.save_button)
        top.addWidget(self.reset_button)
        keys = QHBoxLayout()
        keys.addWidget(self.add_combo, 1)
        keys.addWidget(self.add_button)
        keys.addWidget(self.delete_button)
        lines_box = QWidget()
        lines_layout = QVBoxLayout(lines_box)
        lines_layout.setContentsMargins(0, 4, 0, 0)
        lines_layout.addWidget(self.lines_title)
        lines_layout.addWidget(self.lines)
        self.lines.setMinimumHeight(60)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(self.box)
        splitter.addWidget(lines_box)
        splitter.setChildrenCollapsible(False)
        for i, stretch in enumerate((2, 3, 2)):
            splitter.setStretchFactor(i, stretch)
        self.splitter = splitter
        # In a low window the panel scrolls rather than forcing the window taller.
        content = QWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        layout = QVBoxLayout(content)
        layout.addLayout(top)
        layout.addLayout(keys)
        layout.addWidget(self.message)
        layout.addWidget(splitter, 1)
        scroll.setWidget(content)

        self._apply_timer = QTimer(self, singleShot=True, interval=APPLY_DELAY_MS, timeout=self._apply_edits)
        self._lines_timer = QTimer(self, singleShot=True, interval=LINES_DELAY_MS, timeout=self._list_lines)
        self._lines_work: tuple | None = None  # (run, the walk over its lines, the lines so far) while listing
        self._lines_stale = False  # a run arrived while the panel was out of sight: its lines are still to list
        self.add_button.clicked.connect(self.add_selected_key)
        self.delete_button.clicked.connect(self.delete_selected_key)
        self.reset_button.clicked.connect(self.reset_to_defaults)
        self.load_button.clicked.connect(self._load_dialog)
        self.save_button.clicked.connect(self._save_dialog)

        self.model.set_map(session.templates)
        if restore:
            remembered = template_store.load_remembered()
            if remembered.warning:
                self.show_message(remembered.warning, error=True)
            self.set_map(remembered.templates, remembered.app_name, remember=False)
        self._on_run_changed()
        self._fit_columns()

    # -- the map ----------------------------------------------------------------------------------------
    @property
    def templates(self) -> dict[str, str]:
        return dict(self.model.templates)

    def set_map(self, templates: dict[str, str], app_name: str | None = None, *, remember: bool = True) -> None:
        """Replace the whole map (and optionally the app name) and apply it now."""
        self.model.set_map(templates)
        if app_name is not None:
            self.app_name.setText(app_name)
        self._refresh_add_combo()
        self._apply(remember)

    def set_template(self, key: str, template: str) -> None:
        """Edit one template as the table does (applied after the short typing delay; `flush` applies now)."""
        if key not in self.model.keys:
            self.model.set_map({**self.model.templates, key: template})
            self._schedule_apply()
        else:
            self.model.setData(self.model.index(self.model.keys.index(key), TemplateTableModel.TEMPLATE), template)

    def set_app_name(self, name: str) -> None:
        self.app_name.setText(name)
        self._apply(True)

    def delete_key(self, key: str) -> None:
        if key in self.model.templates:
            templates = self.templates
            del templates[key]
            self.set_map(templates)
            self.show_message(f"Deleted {key}: its state now falls through to the next key on its ladder.")

    def delete_selected_key(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self.delete_key(self.model.keys[rows[0].row()])

    def add_key(self, key: str) -> None:
        if key not in self.model.templates:
            self.set_map({**self.model.templates, key: fallback_template(key, self.model.templates)})
        self.select_key(key)
        self.table.scrollTo(self.model.index(self.model.keys.index(key), 0))

    def add_selected_key(self) -> None:
        key = self.add_combo.currentData()
        if key:
            self.add_key(key)

    def reset_to_defaults(self) -> None:
        self.set_map(dict(DEFAULT_TEMPLATES))
        self.show_message("Reset to agentfootprint's default English templates.")

    # -- files ------------------------------------------------------------------------------------------
    def load_map(self, path: str | Path) -> bool:
        """Load a flat JSON `{key: template}` map; it replaces the active map. False (and a message) if unusable."""
        try:
            templates = template_store.read_map(path)
        except template_store.TemplateMapError as err:
            self.show_message(f"Could not load {Path(path).name}: {err}", error=True)
            return False
        self.set_map(templates)
        self.show_message(f"Loaded {len(templates)} template(s) from {Path(path).name}. Keys it leaves out fall "
                          "through the ladder.")
        return True

    def save_map(self, path: str | Path) -> bool:
        try:
            template_store.write_atomic(path, template_store.dump_map(self.model.templates))
        except OSError as err:
            self.show_message(f"Could not save {Path(path).name}: {err.strerror or err}", error=True)
            return False
        self.show_message(f"Saved {len(self.model.templates)} template(s) to {Path(path).name}.")
        return True

    def _load_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load status templates", self.folder,
                                              "JSON (*.json);;All files (*)")
        if path:
            self._chose_folder(path)
            self.load_map(path)

    def _save_dialog(self) -> None:
        start = str(Path(self.folder) / "status-templates.json") if self.folder else "status-templates.json"
        path, _ = QFileDialog.getSaveFileName(self, "Save status templates", start, "JSON (*.json)")
        if path:
            self._chose_folder(path)
            self.save_map(path)

    def _chose_folder(self, path: str) -> None:
        self.folder = str(Path(path).parent)
        self.folder_chosen.emit(self.folder)

    # -- the box for the selected key --------------------------------------------------------------------
    @property
    def selected_key(self) -> str | None:
        index = self.table.selectionModel().currentIndex()
        return self.model.keys[index.row()] if index.isValid() and index.row() < len(self.model.keys) else None

    def select_key(self, key: str) -> None:
        row = self.model.keys.index(key)
        self.table.setCurrentIndex(self.model.index(row, TemplateTableModel.KEY))
        self.table.selectRow(row)

    def _show_selected(self) -> None:
        key = self.selected_key
        if key is None:
            self.box.show_key(None, None, [])
            return
        self.box.show_key(key, self.model.templates.get(key), self.model.warnings(self.model.keys.index(key)))

    def _reselect(self) -> None:
        key = self.box.key
        if key in self.model.keys:
            self.select_key(key)
        self._show_selected()

    def _on_box_edited(self, text: str) -> None:
        key = self.box.key
        if key is not None:
            self.set_template(key, text)
            self.box.set_warnings(template_warnings(key, text))

    def _on_app_name(self, name: str) -> None:
        self.box.app_name = name
        self.box.refresh_preview()

    def show_message(self, text: str, *, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet(f"color: {'#b3261e' if error else '#2b5f2b'}; padding: 2px;")
        self.message.setVisible(bool(text))

    # -- applying to the session ------------------------------------------------------------------------
    def _schedule_apply(self) -> None:
        self._apply_timer.start()

    def flush(self) -> None:
        """Apply pending edits to the session now, and bring the line list up to date."""
        self._apply_timer.stop()
        self._apply(True)
        self.refresh_lines()

    def _apply_edits(self) -> None:
        """The edits, a moment after the last keystroke: applied, and the lines listed a piece per turn."""
        self._apply(True)
        self._list_lines()

    def _apply(self, remember: bool) -> None:
        self._apply_timer.stop()
        name = self.app_name.text()
        if self.session.templates != self.model.templates or self.session.app_name != name:
            self.session.set_templates(self.model.templates, name)
        if remember:
            warning = template_store.remember(self.model.templates, name)
            if warning:
                self.show_message(warning, error=True)

    def templates_changed(self) -> None:
        if self.session.templates != self.model.templates:  # changed by someone else: follow
            self.model.set_map(self.session.templates)
            self._refresh_add_combo()
        if self.session.app_name != self.app_name.text():
            self.app_name.setText(self.session.app_name)
        self._lines_timer.start()

    # -- the run ----------------------------------------------------------------------------------------
    def run_grown(self, _run) -> None:
        """The run shown has grown: its tools and lines are listed again."""
        self._on_run_changed()

    def run_loaded(self, _run) -> None:
        self._on_run_changed()

    def run_closed(self) -> None:
        self._on_run_changed()

    def _on_run_changed(self) -> None:
        self._refresh_add_combo()
        if self.isVisible() and not self.visibleRegion().isEmpty():
            self._list_lines()
        else:  # a hidden (or background-tab) panel: list the lines when it is shown, not while a run opens
            self._lines_stale = True

    def ensure_lines(self) -> None:
        """List the lines now if a run arrived while the panel was out of sight (its dock calls this)."""
        if self._lines_stale:
            self._list_lines()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.ensure_lines()

    def _refresh_add_combo(self) -> None:
        self.add_combo.clear()
        self.add_combo.addItem("Add a key…", None)
        run = self.session.run
        names = tool_names(run) if run is not None else []
        self.box.samples = {"toolName": names[0]} if names else {}
        candidates = [k for k in DEFAULT_TEMPLATES if k not in self.model.templates]
        for name in tool_names(run) if run is not None else []:
            candidates += [f"tool.{name}", f"tool.{name}.progress", f"tool.{name}.progress.generic"]
        for key in candidates:
            if key not in self.model.templates:
                self.add_combo.addItem(key, key)

    def listing_lines(self) -> bool:
        """True while the lines are being listed a piece per turn (the list shown is not yet whole)."""
        return self._lines_work is not None or self._lines_stale

    def refresh_lines(self) -> None:
        """List the lines now, in one go (flush, tests)."""
        self._list_lines(at_once=True)

    def _list_lines(self, at_once: bool = False) -> None:
        """List the lines the map renders over the run: LINES_PIECE_S of the walk per event-loop turn (walked at
        once, a long run's positions would freeze the window after each edit), then the rows. Work for an older map or
        run is dropped."""
        self._lines_timer.stop()
        self._lines_stale = False
        self._lines_work = None
        run = self.session.run
        if run is None:
            self.lines.clear()
            self.lines_title.setText("All lines in this run (no run open)")
            return
        self._lines_work = (run, line_uses(run, self.model.templates, self.app_name.text()), {})
        self._next_lines_piece(None if at_once else LINES_PIECE_S)

    def _next_lines_piece(self, seconds: float | None = LINES_PIECE_S) -> None:
        work = self._lines_work
        if work is None or work[0] is not self.session.run:
            return
        run, walk, uses = work
        deadline = None if seconds is None else time.perf_counter() + seconds
        for position, line in walk:
            uses.setdefault(line, LineUse(line)).positions.append(position)
            if deadline is not None and time.perf_counter() > deadline:
                self.lines_title.setText("Listing the lines of this run…")
                QTimer.singleShot(0, self, lambda: self._lines_work is work and self._next_lines_piece())
                return
        self._lines_work = None
        self._show_lines(list(uses.values()))

    def _show_lines(self, uses: list[LineUse]) -> None:
        self.lines.clear()
        listed = uses[:MAX_LINES_SHOWN]
        more = f" The first {len(listed):,} are listed (Find searches them all)." if len(uses) > len(listed) else ""
        self.lines_title.setText(f"All lines in this run: {len(uses):,} distinct, shown "
                                 f"{sum(u.count for u in uses):,} time(s). Click one to move the cursor there.{more}")
        items = []
        for use in listed:
            item = QTreeWidgetItem([_row_text(use.line), str(use.count), str(use.first_position)])
            item.setData(0, Qt.ItemDataRole.UserRole, use.first_position)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight)
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight)
            if use.count > 1:  # its places are made when it is opened (a long run has thousands of them)
                item.setData(0, OCCURRENCES_ROLE, use.positions[:MAX_OCCURRENCES_SHOWN])
                item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
            items.append(item)
        self.lines.addTopLevelItems(items)
        self.lines.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.lines.header().setStretchLastSection(False)
        self.lines.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.lines.header().setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)

    def _add_occurrences(self, item: QTreeWidgetItem) -> None:
        positions = item.data(0, OCCURRENCES_ROLE)
        if not positions or item.childCount():
            return
        for position in positions:
            child = QTreeWidgetItem(["at position", "", str(position)])
            child.setData(0, Qt.ItemDataRole.UserRole, position)
            child.setTextAlignment(2, Qt.AlignmentFlag.AlignRight)
            child.setForeground(0, QBrush(MUTED))
            item.addChild(child)

    def _on_line_clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        position = item.data(0, Qt.ItemDataRole.UserRole)
        if position is not None:
            self.session.move_to(int(position))

    def _fit_columns(self) -> None:
        for column, width in ((TemplateTableModel.KEY, 170), (TemplateTableModel.DEFAULT, 170),
                              (TemplateTableModel.VARIABLES, 200), (TemplateTableModel.WARNINGS, 230)):
            self.table.setColumnWidth(column, width)
