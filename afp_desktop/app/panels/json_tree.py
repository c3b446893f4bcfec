"""A JSON value as a lazily expanded tree: key | value | type, search with next/previous, copy value and copy
path, long strings in full in a wrapped text view, and a bounded preview of very large values.

Children are created only when a row is expanded (canFetchMore/fetchMore, in batches), so a payload with a
hundred thousand entries opens instantly. Everything is plain text: item views never interpret markup, and the
text view is a QPlainTextEdit.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import QAction, QFont, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QMenu, QPlainTextEdit, QPushButton, QSplitter,
    QTreeView, QVBoxLayout, QWidget,
)

from afp_desktop.app.widgets.visible_text import visible_text
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.problems import LoadError
from afp_desktop.core.jsonx.lazyjson import Unreadable, read_lazy
from afp_desktop.app.look.fonts import fixed_font

FETCH_BATCH = 500              # rows created per fetchMore
ELIDE_CHARS = 160              # a string longer than this is elided in the tree
LARGE_VALUE_CHARS = 2_000_000  # a value bigger than this is previewed, not shown whole
PREVIEW_CHARS = 100_000
MAX_MATCHES = 10_000
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_ROOT = object()  # key of the single row shown for a scalar top-level value


def is_embedding_summary(value: Any) -> bool:
    """§7.8: `{dims, norm}` stands in for an embedding vector the recorder summarized."""
    return (isinstance(value, dict) and value.keys() == {"dims", "norm"} and isinstance(value["dims"], int)
            and isinstance(value["norm"], (int, float)) and not isinstance(value["dims"], bool))


def path_string(path: tuple) -> str:
    """`$.messages[3].content`; keys that are not identifiers are quoted: `$["a b"]`."""
    out = "$"
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        elif _IDENTIFIER.match(key):
            out += "." + key
        else:
            out += "[" + jsonio.dumps(key).decode() + "]"
    return out


def json_text(value: Any) -> str:
    try:
        return jsonio.dumps(value, indent=True).decode()
    except LoadError as err:  # a payload inside whose bytes are not JSON
        return f"⚠ {err}"


def type_name(value: Any) -> str:
    if isinstance(value, Unreadable):
        return "not readable"
    if is_embedding_summary(value):
        return "embedding summary"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return f"string ({len(value):,} chars)" if len(value) > ELIDE_CHARS else "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def value_summary(value: Any) -> str:
    value = shown(value)
    if is_embedding_summary(value):
        return f"embedding summary ({value['dims']} dims, norm {value['norm']})"
    if isinstance(value, dict):
        return f"{{{len(value)} key{'s' if len(value) != 1 else ''}}}"
    if isinstance(value, list):
        return f"[{len(value)} item{'s' if len(value) != 1 else ''}]"
    if isinstance(value, str):
        flat = value[: ELIDE_CHARS + 1].replace("\r", "").replace("\n", " ⏎ ")
        return flat[:ELIDE_CHARS] + "…" if len(value) > ELIDE_CHARS else flat
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return jsonio.dumps(value).decode()


def shown(value: Any) -> Any:
    """What the tree shows for a value: a payload still in the file's bytes (LazyJSON) is parsed now; bytes
    that are not JSON show as the error, in words."""
    return read_lazy(value)


class _Node:
    __slots__ = ("key", "value", "parent", "row", "children")

    def __init__(self, key, value, parent, row):
        self.key = key
        self.value = shown(value)
        self.parent = parent
        self.row = row
        self.children: list[_Node] = []

    @property
    def total(self) -> int:
        return len(self.value) if isinstance(self.value, (dict, list)) else 0

    @property
    def path(self) -> tuple:
        keys = []
        node = self
        while node.parent is not None:
            if node.key is not _ROOT:
                keys.append(node.key)
            node = node.parent
        return tuple(reversed(keys))


class JsonModel(QAbstractItemModel):
    KEY, VALUE, TYPE = range(3)
    HEADERS = ("Key", "Value", "Type")

    def __init__(self, value: Any = None, parent=None):
        super().__init__(parent)
        self._root = _Node(None, None, None, 0)
        self.set_value(value)

    def set_value(self, value: Any) -> None:
        value = shown(value)
        self.beginResetModel()
        container = isinstance(value, (dict, list))
        self._root = _Node(None, value if container else [value], None, 0)
        self._scalar = not container
        self.endResetModel()

    @property
    def value(self) -> Any:
        return self._root.value[0] if self._scalar else self._root.value

    def node(self, index: QModelIndex) -> _Node:
        return index.internalPointer() if index.isValid() else self._root

    # -- lazy children ----------------------------------------------------------------------------------
    def _load(self, node: _Node, upto: int) -> None:
        """Create children up to row `upto` (exclusive), announcing them to the view."""
        start, end = len(node.children), min(upto, node.total)
        if end <= start:
            return
        parent_index = QModelIndex() if node is self._root else self.createIndex(node.row, 0, node)
        self.beginInsertRows(parent_index, start, end - 1)
        value = node.value
        if isinstance(value, list):
            keys = [_ROOT] * (end - start) if (node is self._root and self._scalar) else range(start, end)
            items = zip(keys, value[start:end])
        else:
            items = ((k, value[k]) for k in list(value)[start:end])
        node.children.extend(_Node(k, v, node, start + i) for i, (k, v) in enumerate(items))
        self.endInsertRows()

    def canFetchMore(self, parent: QModelIndex) -> bool:
        node = self.node(parent)
        return len(node.children) < node.total

    def fetchMore(self, parent: QModelIndex) -> None:
        node = self.node(parent)
        self._load(node, len(node.children) + FETCH_BATCH)

    def hasChildren(self, parent: QModelIndex = QModelIndex()) -> bool:
        return self.node(parent).total > 0

    # -- the model --------------------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: QModelIndex = QModelIndex()) -> QModelIndex:
        node = self.node(parent)
        if 0 <= row < len(node.children) and 0 <= column < 3:
            return self.createIndex(row, column, node.children[row])
        return QModelIndex()

    def parent(self, index: QModelIndex) -> QModelIndex:  # noqa: D401 - Qt's name
        if not index.isValid():
            return QModelIndex()
        parent = index.internalPointer().parent
        if parent is None or parent is self._root:
            return QModelIndex()
        return self.createIndex(parent.row, 0, parent)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        if parent.column() > 0:
            return 0
        return len(self.node(parent).children)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 3

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        node: _Node = index.internalPointer()
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.KEY:
                return "(value)" if node.key is _ROOT else f"[{node.key}]" if isinstance(node.key, int) else \
                    visible_text(node.key)
            if column == self.VALUE:
                return visible_text(value_summary(node.value))
            return type_name(node.value)
        if role == Qt.ItemDataRole.ToolTipRole and column == self.VALUE and isinstance(node.value, Unreadable):
            return plain_tooltip(node.value)  # the whole message: where in the file, and what is wrong
        if role == Qt.ItemDataRole.FontRole and column == self.VALUE and is_embedding_summary(node.value):
            font = QFont()
            font.setItalic(True)
            return font
        return None

    # -- paths ------------------------------------------------------------------------------------------
    def index_for_path(self, path: tuple) -> QModelIndex:
        """The index of the value at `path`, creating the rows on the way (invalid if there is none)."""
        node, index = self._root, QModelIndex()
        steps = ((_ROOT,) if self._scalar else ()) + tuple(path)
        for key in steps:
            value = node.value
            if key is _ROOT:
                row = 0
            elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
                row = key
            elif isinstance(value, dict) and key in value:
                row = list(value).index(key)
            else:
                return QModelIndex()
            self._load(node, row + 1)
            node = node.children[row]
            index = self.createIndex(row, 0, node)
        return index


def find_paths(value: Any, needle: str, limit: int = MAX_MATCHES) -> list[tuple]:
    """Paths (in display order) whose key or scalar value contains `needle`, case-insensitively."""
    needle = needle.casefold()
    found: list[tuple] = []
    stack: list[tuple[tuple, Any]] = [((), value)]
    while stack and len(found) < limit:
        path, current = stack.pop()
        current = shown(current)
        if path and needle in str(path[-1]).casefold() and not isinstance(path[-1], int):
            found.append(path)
        elif not isinstance(current, (dict, list)) and path and needle in value_text(current).casefold():
            found.append(path)
        if isinstance(current, dict):
            stack.extend((path + (k,), v) for k, v in reversed(list(current.items())))
        elif isinstance(current, list):
            stack.extend((path + (i,), v) for i, v in reversed(list(enumerate(current))))
    if not found and not isinstance(value, (dict, list)) and needle in value_text(value).casefold():
        found.append(())
    return found


def value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return jsonio.dumps(value).decode()
    except LoadError as err:
        return f"⚠ {err}"


class JsonTreeView(QWidget):
    """The tree, its search bar and the detail text view of the selected value."""

    def __init__(self, value: Any = None, parent: QWidget | None = None, *, expand_depth: int = 1):
        super().__init__(parent)
        self.expand_depth = expand_depth
        self.model = JsonModel(None, self)
        self.matches: list[tuple] = []
        self.match_index = -1
        self._detail_value: Any = None
        self._detail_text = ""

        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search keys and values")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.textChanged.connect(self.search)
        self.search_box.returnPressed.connect(self.next_match)
        self.prev_button = QPushButton("◀")
        self.next_button = QPushButton("▶")
        for button, tip in ((self.prev_button, "Previous match"), (self.next_button, "Next match")):
            button.setToolTip(tip)
            button.setFixedWidth(30)
        self.prev_button.clicked.connect(self.previous_match)
        self.next_button.clicked.connect(self.next_match)
        self.match_label = QLabel("")
        self.match_label.setTextFormat(Qt.TextFormat.PlainText)
        # Room for the widest count, so "2 / 8" is never clipped by a narrow panel (the search box gives way).
        self.match_label.setMinimumWidth(self.match_label.fontMetrics().horizontalAdvance("8888 / 8888+") + 8)

        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.selectionModel().currentChanged.connect(lambda current, _prev: self._show_detail(current))
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(JsonModel.KEY, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(JsonModel.VALUE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(JsonModel.TYPE, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setColumnWidth(JsonModel.KEY, 220)

        self.copy_value_action = QAction("Copy value (JSON)", self, shortcut=QKeySequence.StandardKey.Copy,
                                         triggered=self.copy_value)
        self.copy_path_action = QAction("Copy path", self, shortcut=QKeySequence("Ctrl+Shift+C"),
                                        triggered=self.copy_path)
        for action in (self.copy_value_action, self.copy_path_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.tree.addAction(action)

        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.detail.setFont(fixed_font())  # long strings are often JSON, code or logs: columns line up
        self.detail_path = QLabel()
        self.detail_path.setTextFormat(Qt.TextFormat.PlainText)
        self.preview_note = QLabel()
        self.preview_note.setTextFormat(Qt.TextFormat.PlainText)
        self.preview_note.setWordWrap(True)
        self.show_all_button = QPushButton("Show all")
        self.show_all_button.clicked.connect(self.show_all)
        self.save_button = QPushButton("Save as…")
        self.save_button.clicked.connect(self._save_dialog)
        preview_bar = QHBoxLayout()
        preview_bar.setContentsMargins(0, 0, 0, 0)
        preview_bar.addWidget(self.preview_note, 1)
        preview_bar.addWidget(self.show_all_button)
        preview_bar.addWidget(self.save_button)
        self.preview_bar = QWidget()
        self.preview_bar.setLayout(preview_bar)
        self.detail_box = QWidget()
        detail_layout = QVBoxLayout(self.detail_box)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.setSpacing(2)
        detail_layout.addWidget(self.detail_path)
        detail_layout.addWidget(self.preview_bar)
        detail_layout.addWidget(self.detail, 1)
        self.detail_box.setVisible(False)

        search_bar = QHBoxLayout()
        search_bar.setContentsMargins(0, 0, 0, 0)
        search_bar.addWidget(self.search_box, 1)
        search_bar.addWidget(self.prev_button)
        search_bar.addWidget(self.next_button)
        search_bar.addWidget(self.match_label)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.detail_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(search_bar)
        layout.addWidget(splitter, 1)
        self.set_value(value)

    # -- content ----------------------------------------------------------------------------------------
    def set_value(self, value: Any) -> None:
        self.model.set_value(value)
        self.matches, self.match_index = [], -1
        self.match_label.setText("")
        self.detail_box.setVisible(False)
        self._expand(QModelIndex(), self.expand_depth)
        if self.search_box.text():
            self.search(self.search_box.text())

    def _expand(self, parent: QModelIndex, depth: int) -> None:
        """Open the first levels of a small value so the tree does not start as one closed row."""
        if depth <= 0:
            return
        if self.model.canFetchMore(parent):
            self.model.fetchMore(parent)
        for row in range(min(self.model.rowCount(parent), 50)):
            index = self.model.index(row, 0, parent)
            if self.model.hasChildren(index) and self.model.node(index).total <= 50:
                self.tree.expand(index)
                self._expand(index, depth - 1)

    def select_path(self, path: tuple) -> bool:
        index = self.model.index_for_path(tuple(path))
        if not index.isValid():
            return False
        parent = index.parent()
        while parent.isValid():
            self.tree.expand(parent)
            parent = parent.parent()
        self.tree.setCurrentIndex(index)
        self.tree.scrollTo(index)
        return True

    def current_path(self) -> tuple | None:
        index = self.tree.currentIndex()
        return self.model.node(index).path if index.isValid() else None

    # -- search -----------------------------------------------------------------------------------------
    def search(self, text: str) -> int:
        self.matches = find_paths(self.model.value, text) if text else []
        self.match_index = -1
        if not text:
            self.match_label.setText("")
            return 0
        if self.matches:
            self.next_match()
        else:
            self.match_label.setText("no match")
        return len(self.matches)

    def next_match(self) -> None:
        self._step(1)

    def previous_match(self) -> None:
        self._step(-1)

    def _step(self, delta: int) -> None:
        if not self.matches:
            return
        self.match_index = (self.match_index + delta) % len(self.matches)
        self.select_path(self.matches[self.match_index])
        more = "+" if len(self.matches) >= MAX_MATCHES else ""
        self.match_label.setText(f"{self.match_index + 1} / {len(self.matches)}{more}")

    # -- copying ----------------------------------------------------------------------------------------
    def copy_value(self) -> str | None:
        index = self.tree.currentIndex()
        if not index.isValid():
            return None
        text = json_text(self.model.node(index).value)
        QGuiApplication.clipboard().setText(text)
        return text

    def copy_path(self) -> str | None:
        path = self.current_path()
        if path is None:
            return None
        text = path_string(path)
        QGuiApplication.clipboard().setText(text)
        return text

    def _context_menu(self, point) -> None:
        if not self.tree.indexAt(point).isValid():
            return
        menu = QMenu(self)
        menu.addAction(self.copy_value_action)
        menu.addAction(self.copy_path_action)
        menu.exec(self.tree.viewport().mapToGlobal(point))

    # -- the detail view --------------------------------------------------------------------------------
    def _show_detail(self, index: QModelIndex) -> None:
        """Long or multi-line strings in full, and any value too big for the tree as a bounded preview."""
        if not index.isValid():
            self.detail_box.setVisible(False)
            return
        value = self.model.node(index).value
        if isinstance(value, str):
            if len(value) <= ELIDE_CHARS and "\n" not in value:
                self.detail_box.setVisible(False)
                return
            text = value
        else:
            text = json_text(value) if isinstance(value, (dict, list)) else ""
            if len(text) <= LARGE_VALUE_CHARS:
                self.detail_box.setVisible(False)
                return
        self._detail_value, self._detail_text = value, text
        self.detail_path.setText(path_string(self.model.node(index).path))
        large = len(text) > LARGE_VALUE_CHARS
        self.preview_bar.setVisible(large)
        self.show_all_button.setEnabled(True)
        if large:
            self.preview_note.setText(f"Very large value: showing the first {PREVIEW_CHARS:,} of {len(text):,} "
                                      "characters.")
            self.detail.setPlainText(visible_text(text[:PREVIEW_CHARS]) + "\n…")
        else:
            self.detail.setPlainText(visible_text(text))
        self.detail_box.setVisible(True)

    def show_all(self) -> None:
        self.detail.setPlainText(visible_text(self._detail_text))
        self.preview_note.setText(f"Showing all {len(self._detail_text):,} characters.")
        self.show_all_button.setEnabled(False)

    def save_value(self, path: str | Path) -> None:
        """Write the detail value: a string as its text, anything else as JSON."""
        Path(path).write_text(self._detail_text, encoding="utf-8")

    def _save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save value", "value.txt" if isinstance(
            self._detail_value, str) else "value.json")
        if path:
            self.save_value(path)
