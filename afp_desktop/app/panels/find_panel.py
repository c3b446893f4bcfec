"""Find in run (Ctrl+Shift+F): one search box over the whole run (core/search.py), the hits listed by stop, event
and where, each excerpt with its match highlighted; Enter or a click moves the one cursor there and selects the
node; ↑/↓ walk the hits. Each search is a request to the engine (app/loading/engine_requests.py, tag "find"), which
builds the index with the first one (its status lines again when the template map changes) and searches within a
time limit: the window never waits, and a newer query supersedes the search under way.

Excerpts are trace text: they are drawn with QPainter.drawText as plain text and the match is highlighted by
painting a rectangle behind it, never by markup.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from typing import TYPE_CHECKING

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.core.views.search_limits import DEFAULT_MAX_HITS
from afp_desktop.app.widgets.text_lines import UNCLIPPED, line_height
from afp_desktop.app.widgets.visible_text import visible_text

if TYPE_CHECKING:
    from afp_desktop.core.views.found_hits import FoundHits

MAX_LISTED = DEFAULT_MAX_HITS  # hits listed (and marked); the count says when there are more
SEARCH_TIME_LIMIT_S = 3.0  # a search still running then is stopped, and the panel says why
SEARCH_DELAY_MS = 180  # typing pauses this long before the search runs
HIT_ROLE = Qt.ItemDataRole.UserRole + 1
HIGHLIGHT = {"light": QColor("#ffd54a"), "dark": QColor("#8a6d00")}


class HitModel(QAbstractListModel):
    """The hits of one query; each Hit (with its excerpt) is made when its row is first shown."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.result: FoundHits | None = None
        self._count = 0
        self._cache: dict[int, object] = {}

    def set_result(self, result: FoundHits | None) -> None:
        self.beginResetModel()
        self.result = result
        self._count = 0 if result is None else min(len(result), MAX_LISTED)
        self._cache = {}
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._count

    def hit(self, row: int):
        if not 0 <= row < self._count:
            return None
        hit = self._cache.get(row)
        if hit is None:
            hit = self._cache[row] = self.result[row]
        return hit

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        hit = self.hit(index.row()) if index.isValid() else None
        if hit is None:
            return None
        if role == HIT_ROLE:
            return hit
        if role == Qt.ItemDataRole.DisplayRole:  # for accessibility and tests; painting uses HIT_ROLE
            return f"{heading(hit)}\n{hit.excerpt}"
        return None


def heading(hit) -> str:
    stop = f"{hit.stop_label}" if hit.stop_label else "before the first stop"
    return f"{stop} · event {hit.position} · {hit.where}"


class HitDelegate(QStyledItemDelegate):
    """Two plain-text lines per hit: where it is (muted), then the excerpt with a painted highlight behind the
    match. Both are elided to the row's width, keeping the match in view."""

    PAD = 6

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.theme = "light"

    def sizeHint(self, option, index) -> QSize:
        line = line_height(QFontMetricsF(option.font))
        return QSize(200, int(line * 2 + self.PAD * 2 + 2))

    def paint(self, painter, option, index) -> None:
        hit = index.data(HIT_ROLE)
        if hit is None:
            return
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        if selected:
            painter.fillRect(option.rect, palette.color(QPalette.ColorRole.Highlight))
        text_colour = palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        muted = QColor(text_colour)
        muted.setAlpha(170)
        font = QFont(option.font)
        metrics = QFontMetricsF(font)
        line = line_height(metrics)
        rect = QRectF(option.rect).adjusted(self.PAD, self.PAD, -self.PAD, -self.PAD)
        painter.setFont(font)
        painter.setPen(muted)
        painter.drawText(QRectF(rect.x(), rect.y(), rect.width(), line), Qt.AlignmentFlag.AlignLeft | UNCLIPPED,
                         metrics.elidedText(visible_text(heading(hit)), Qt.TextElideMode.ElideRight, rect.width()))
        self._paint_excerpt(painter, hit, QRectF(rect.x(), rect.y() + line + 2, rect.width(), line), metrics,
                            text_colour)
        painter.restore()

    def _paint_excerpt(self, painter, hit, rect: QRectF, metrics: QFontMetricsF, colour: QColor) -> None:
        text, (start, end) = hit.excerpt, hit.match
        before, match, after = (visible_text(part) for part in (text[:start], text[start:end], text[end:]))
        width = rect.width()
        # Keep the match in view: drop text from the front while the match would not fit.
        while before and metrics.horizontalAdvance(before + match) > width * 0.7:
            before = "…" + before[max(2, len(before) // 4):]
        if metrics.horizontalAdvance(match) > width:
            match = metrics.elidedText(match, Qt.TextElideMode.ElideRight, width)
            after = ""
        x = rect.x()
        painter.setPen(colour)
        painter.drawText(QRectF(x, rect.y(), width, rect.height()), Qt.AlignmentFlag.AlignLeft | UNCLIPPED, before)
        x += metrics.horizontalAdvance(before)
        match_width = metrics.horizontalAdvance(match)
        painter.fillRect(QRectF(x - 1, rect.y(), match_width + 2, rect.height()), HIGHLIGHT.get(self.theme))
        painter.setPen(QColor("#1b2030") if self.theme == "light" else QColor("#ffffff"))
        painter.drawText(QRectF(x, rect.y(), match_width + 1, rect.height()), Qt.AlignmentFlag.AlignLeft | UNCLIPPED,
                         match)
        x += match_width
        rest = rect.right() - x
        if after and rest > 0:
            painter.setPen(colour)
            painter.drawText(QRectF(x, rect.y(), rest, rect.height()), Qt.AlignmentFlag.AlignLeft | UNCLIPPED,
                             metrics.elidedText(after, Qt.TextElideMode.ElideRight, rest))


class _SearchBox(QLineEdit):
    """↑/↓ in the box walk the hits; Enter goes to the next one."""

    step = Signal(int)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Down:
            self.step.emit(1)
        elif event.key() == Qt.Key.Key_Up:
            self.step.emit(-1)
        else:
            super().keyPressEvent(event)


class FindPanel(QWidget, PanelDefaults):
    """Session-following search panel. `marks_changed(positions, node_indices)` tells the window what to mark on
    the timeline and the graph (empty lists clear the marks)."""

    marks_changed = Signal(list, list)
    searched = Signal()  # a search finished (tests wait on it)

    def __init__(self, session, requests, parent: QWidget | None = None):
        """`requests`: the window's EngineRequests (the only way a search is run)."""
        super().__init__(parent)
        self.session = session
        self.requests = requests
        self._searching = False
        self._index_asked = False  # the engine was asked to build the index of the run shown
        self._go_to_first = False  # when the search under way ends (Enter was pressed before it did)
        self._marks_shown = True
        self._build_ui()
        self.run_closed()

    def _build_ui(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        row = QHBoxLayout()
        self.search_box = _SearchBox()
        self.search_box.setPlaceholderText("Find in the whole run…")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.textChanged.connect(lambda _t: self._timer.start())
        self.search_box.returnPressed.connect(self._on_return)
        self.search_box.step.connect(self.step)
        self.case_button = self._toggle("Aa", "Match case")
        self.regex_button = self._toggle(".*", "Regular expression (Python syntax; ^ and $ are line starts and ends)")
        row.addWidget(self.search_box, 1)
        row.addWidget(self.case_button)
        row.addWidget(self.regex_button)
        layout.addLayout(row)
        self.count_label = QLabel()
        self.count_label.setTextFormat(Qt.TextFormat.PlainText)
        self.count_label.setWordWrap(True)
        layout.addWidget(self.count_label)
        self.model = HitModel(self)
        self.delegate = HitDelegate(self)
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setItemDelegate(self.delegate)
        self.list.setUniformItemSizes(True)
        self.list.setSelectionMode(QListView.SelectionMode.SingleSelection)
        self.list.clicked.connect(lambda index: self.go_to(index.row()))
        self.list.activated.connect(lambda index: self.go_to(index.row()))
        self.list.selectionModel().currentChanged.connect(self._on_current_changed)
        layout.addWidget(self.list, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self.search)

    def _toggle(self, text: str, tip: str) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setCheckable(True)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.toggled.connect(lambda _on: self.search())
        return button

    # ------------------------------------------------------------------------------------------ public
    def focus_search(self) -> None:
        self.search_box.setFocus()
        self.search_box.selectAll()
        self._prepare_index()

    def _prepare_index(self) -> None:
        """Have the engine build the run's index before the first query comes (queries wait behind it)."""
        if self.session.run is not None and not self._index_asked:
            self._index_asked = True
            self.requests.request("find_index", "index_for_find", self._index_args(), lambda _none: None,
                                  lambda _why: None)  # (a failure is said by the query that follows)

    def _index_args(self) -> dict:
        return {"templates": dict(self.session.templates), "app_name": self.session.app_name}

    def set_theme(self, theme: str) -> None:
        self.delegate.theme = theme if theme in HIGHLIGHT else "light"
        self.list.viewport().update()

    @property
    def result(self) -> FoundHits | None:
        return self.model.result

    @property
    def searching(self) -> bool:
        """A search is under way (its hits replace the list when it ends)."""
        return self._searching

    def search(self) -> None:
        """Ask the engine for the query in the box; `searched` is emitted when its hits (or the reason there are
        none) are shown."""
        self._timer.stop()
        self._drop_search()
        query = self.search_box.text()
        if self.session.run is None or not query:
            self._show(None, "" if self.session.run is None else "Type to search the whole run: labels, tools, "
                       "arguments, results, messages, prompts, status lines, progress, errors.")
            return
        args = {"query": query, "regex": self.regex_button.isChecked(), "ignore_case": not self.case_button.isChecked(),
                "limit": MAX_LISTED, "time_limit": SEARCH_TIME_LIMIT_S, **self._index_args()}
        self._searching = True
        self.count_label.setText("Searching…")
        self._prepare_index()  # (a request of its own: a newer query, which supersedes this one, never stops it)
        self.requests.request("find", "find", args, self._on_found, self._on_failed)

    def _drop_search(self) -> None:
        """The search under way, if any, is superseded: its answer is not wanted."""
        self._searching = False
        self.requests.drop("find")

    def _on_failed(self, why: str) -> None:
        self._searching = False
        self._go_to_first = False
        self._show(None, f"The search could not run: {why}.")

    def _on_found(self, result: FoundHits) -> None:
        self._searching = False
        go_to_first, self._go_to_first = self._go_to_first, False
        if result.refusal is not None:
            self._show(None, f"Cannot search: {result.refusal}.")
            return
        if not len(result):
            self._show(result, "No matches.")
        elif result.complete:
            self._show(result, f"{len(result):,} match{'es' if len(result) != 1 else ''}")
        else:
            self._show(result, f"More than {MAX_LISTED:,} matches: the first {MAX_LISTED:,} are listed.")
        if go_to_first and self.model.rowCount():
            self.go_to(0)

    def step(self, delta: int) -> None:
        """Select the next (+1) or previous (-1) hit and go there."""
        count = self.model.rowCount()
        if not count:
            return
        current = self.list.currentIndex().row() if self.list.currentIndex().isValid() else -1
        row = (current + delta) % count if current >= 0 else (0 if delta > 0 else count - 1)
        self.go_to(row)

    def go_to(self, row: int) -> None:
        """Select hit `row` in the list and move the cursor there."""
        hit = self.model.hit(row)
        if hit is None:
            return
        index = self.model.index(row)
        if self.list.currentIndex() != index:
            self.list.setCurrentIndex(index)  # → _on_current_changed goes there
        else:
            self._go(hit)
        self.list.scrollTo(index)

    def _on_current_changed(self, current, _previous) -> None:
        """The list's own ↑/↓ (when it has the focus) move the cursor too."""
        hit = self.model.hit(current.row()) if current.isValid() else None
        if hit is not None:
            self._go(hit)

    def _go(self, hit) -> None:
        # Several stops can end at one position: name the hit's, so the timeline marks that one.
        self.session.move_to(hit.position, stop=hit.stop if len(self.session.breadcrumb) == 1 else None)
        self.session.select_node(hit.node)  # (None, for text before the first step: the inspector follows the cursor)

    # ------------------------------------------------------------------------------------------ internals
    def _on_return(self) -> None:
        if self._timer.isActive() or self.model.result is None:
            self.search()
            self._go_to_first = self._searching
        elif self._searching:
            self._go_to_first = True
        else:
            self.step(1)

    def _show(self, result: FoundHits | None, message: str) -> None:
        self.model.set_result(result)
        self.count_label.setText(message)
        self.show_marks(self._marks_shown)
        self.searched.emit()

    def show_marks(self, shown: bool) -> None:
        """Mark the hits on the timeline and graph (or clear the marks: the panel was closed)."""
        self._marks_shown = shown
        result = self.model.result
        if not shown or result is None or not len(result):
            self.marks_changed.emit([], [])
        else:
            self.marks_changed.emit(sorted({int(p) for p in result.positions}), sorted(result.node_set()))

    def run_grown(self, run) -> None:
        """The run shown has grown (a followed file, a big file read in parts): show the latest of it."""
        self.run_loaded(run)

    def run_loaded(self, _run) -> None:
        self._drop_search()
        self._index_asked = False
        self._show(None, "")
        self.search_box.setEnabled(True)
        if self.isVisible():
            self._prepare_index()
            if self.search_box.text():
                self.search()

    def run_closed(self) -> None:
        self._drop_search()
        self._index_asked = False
        self._show(None, "Open a run to search it.")
        self.search_box.setEnabled(self.session.run is not None)

    def templates_changed(self) -> None:
        """The status lines read differently: the hits shown are searched for again (the engine re-renders the
        status lines it indexed)."""
        if self.model.result is not None or self._searching:
            self.search()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._prepare_index()

    def stop_indexing(self) -> None:
        """The window is closing: no answer is wanted any more (the window's EngineRequests stops the work)."""
        self._drop_search()
