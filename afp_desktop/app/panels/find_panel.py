"""Find in run (Ctrl+Shift+F): one search box over the whole run (core/search.py), the hits listed by stop, event
and where, each excerpt with its match highlighted; Enter or a click moves the one cursor there and selects the
node; ↑/↓ walk the hits. The index is built on a worker thread the first time it is needed (and again, for the
status lines only, when the template map changes), and each search runs on a worker thread too, within a time
limit: the window never waits for either, and a newer query drops the search under way.

Excerpts are trace text: they are drawn with QPainter.drawText as plain text and the match is highlighted by
painting a rectangle behind it, never by markup.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QRectF, QSize, Qt, QThread, QTimer, Signal
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
from afp_desktop.core.problems import LoadCancelled
from afp_desktop.core.views.search_limits import DEFAULT_MAX_HITS
from afp_desktop.app.widgets.text_lines import UNCLIPPED, line_height
from afp_desktop.app.widgets.visible_text import visible_text

if TYPE_CHECKING:  # (imported when the first index is built: numpy stays off the window's start-up path)
    from afp_desktop.core.views.search import SearchIndex, SearchResult

MAX_LISTED = DEFAULT_MAX_HITS  # hits listed (and marked); the count says when there are more
SEARCH_TIME_LIMIT_S = 3.0  # a search still running then is stopped, and the panel says why
SEARCH_WAIT_MS = 30_000  # a window closing waits this long at most for a search to end (it ends at its time limit)
SEARCH_DELAY_MS = 180  # typing pauses this long before the search runs
HIT_ROLE = Qt.ItemDataRole.UserRole + 1
HIGHLIGHT = {"light": QColor("#ffd54a"), "dark": QColor("#8a6d00")}


class _IndexThread(QThread):
    """Builds a SearchIndex (or swaps the status lines of one) off the UI thread."""

    built = Signal(object, int)  # SearchIndex, generation

    def __init__(self, run, templates: dict, app_name: str, base: SearchIndex | None, generation: int,
                 parent: QObject | None = None):
        super().__init__(parent)
        self._args = (run, dict(templates), app_name, base)
        self.generation = generation
        self.stop_flag = threading.Event()  # set: end at the next breathing point (the window is closing)

    def run(self) -> None:
        from afp_desktop.core.views.search import SearchIndex

        from afp_desktop.app.pacing.stoppable import stoppable

        run, templates, app_name, base = self._args
        try:
            with stoppable(self.stop_flag):
                index = base.with_templates(templates, app_name) if base is not None and base.run is run \
                    else SearchIndex(run, templates, app_name)
        except LoadCancelled:
            return
        except Exception as err:  # never take the window down over a search index
            index = err
        self.built.emit(index, self.generation)


class _SearchThread(QThread):
    """Runs one query on an index off the UI thread; `found` carries the SearchResult, or the QueryError (or any
    other exception) that says why there is none."""

    found = Signal(object, int)  # SearchResult | Exception, generation

    def __init__(self, index: SearchIndex, query: str, regex: bool, ignore_case: bool, generation: int,
                 parent: QObject | None = None):
        super().__init__(parent)
        self._args = (index, query, regex, ignore_case)
        self.generation = generation
        self.stop_flag = threading.Event()  # set: end at the next breathing point (superseded, or closing)

    def run(self) -> None:
        from afp_desktop.app.pacing.stoppable import stoppable

        index, query, regex, ignore_case = self._args
        try:
            with stoppable(self.stop_flag):
                result = index.find(query, regex=regex, ignore_case=ignore_case, limit=MAX_LISTED,
                                    time_limit=SEARCH_TIME_LIMIT_S)
        except LoadCancelled:
            return
        except Exception as err:  # a QueryError says what is wrong; anything else must not take the window down
            result = err
        self.found.emit(result, self.generation)


class HitModel(QAbstractListModel):
    """The hits of one query; each Hit (with its excerpt) is made when its row is first shown."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.result: SearchResult | None = None
        self._count = 0
        self._cache: dict[int, object] = {}

    def set_result(self, result: SearchResult | None) -> None:
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

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.index: SearchIndex | None = None
        self._generation = 0
        self._building: _IndexThread | None = None
        self._threads: set[QThread] = set()
        self._searching: _SearchThread | None = None
        self._search_generation = 0
        self._go_to_first = False  # when the search under way ends (Enter was pressed before it did)
        self._pending_search = False
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
        self._ensure_index()

    def set_theme(self, theme: str) -> None:
        self.delegate.theme = theme if theme in HIGHLIGHT else "light"
        self.list.viewport().update()

    @property
    def result(self) -> SearchResult | None:
        return self.model.result

    @property
    def searching(self) -> bool:
        """A search is under way (its hits replace the list when it ends)."""
        return self._searching is not None

    def search(self) -> None:
        """Run the query in the box (the index is built first when there is none yet). The search runs on a worker
        thread; `searched` is emitted when its hits (or the reason there are none) are shown."""
        self._timer.stop()
        self._drop_search()
        query = self.search_box.text()
        if self.session.run is None or not query:
            self._show(None, "" if self.session.run is None else "Type to search the whole run: labels, tools, "
                       "arguments, results, messages, prompts, status lines, progress, errors.")
            return
        if self.index is None:
            self._pending_search = True
            self._ensure_index()
            self.count_label.setText("Indexing the run…")
            return
        self._search_generation += 1
        thread = _SearchThread(self.index, query, self.regex_button.isChecked(), not self.case_button.isChecked(),
                               self._search_generation, self)
        thread.found.connect(self._on_found)
        thread.finished.connect(self._on_thread_finished)
        self._threads.add(thread)
        self._searching = thread
        self.count_label.setText("Searching…")
        thread.start()

    def _drop_search(self) -> None:
        """The search under way, if any, is superseded: it ends at its next breathing point, unheard."""
        self._search_generation += 1
        if self._searching is not None:
            self._searching.stop_flag.set()
            self._searching = None

    def _on_found(self, result, generation: int) -> None:
        if generation != self._search_generation:
            return  # a newer query, run or close superseded this search
        self._searching = None
        go_to_first, self._go_to_first = self._go_to_first, False
        from afp_desktop.core.views.search import QueryError

        if isinstance(result, QueryError):
            self._show(None, f"Cannot search: {result}.")
            return
        if isinstance(result, Exception):
            self._show(None, f"The search failed ({type(result).__name__}: {str(result)[:200]}).")
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
            self._go_to_first = self._searching is not None
        elif self._searching is not None:
            self._go_to_first = True
        else:
            self.step(1)

    def _show(self, result: SearchResult | None, message: str) -> None:
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

    def _ensure_index(self) -> None:
        if self.index is None and self._building is None and self.session.run is not None:
            self._start_build(None)

    def _start_build(self, base: SearchIndex | None) -> None:
        self._generation += 1
        thread = _IndexThread(self.session.run, self.session.templates, self.session.app_name, base,
                              self._generation, self)
        thread.built.connect(self._on_built)
        thread.finished.connect(self._on_thread_finished)
        self._threads.add(thread)
        self._building = thread
        thread.start()

    def _on_thread_finished(self) -> None:
        thread = self.sender()
        self._threads.discard(thread)
        if thread is not None:
            thread.deleteLater()

    def _on_built(self, index, generation: int) -> None:
        if generation != self._generation:
            return  # a newer run or template map superseded this build
        self._building = None
        if isinstance(index, Exception):
            self._show(None, f"The run could not be indexed for search ({type(index).__name__}: {index}).")
            return
        self.index = index
        if self._pending_search or self.search_box.text():
            self._pending_search = False
            self.search()

    def run_grown(self, run) -> None:
        """The run shown has grown (a followed file, a big file read in parts): show the latest of it."""
        self.run_loaded(run)

    def run_loaded(self, _run) -> None:
        self._generation += 1  # drop any build under way
        self._building = None
        self._drop_search()
        self.index = None
        self._show(None, "")
        self.search_box.setEnabled(True)
        if self.isVisible():
            self._ensure_index()
            if self.search_box.text():
                self.search()

    def run_closed(self) -> None:
        self._generation += 1
        self._building = None
        self._drop_search()
        self.index = None
        self._show(None, "Open a run to search it.")
        self.search_box.setEnabled(self.session.run is not None)

    def templates_changed(self) -> None:
        if self.index is None:
            return
        self._drop_search()
        base, self.index = self.index, None
        self._start_build(base)  # only the status lines are rebuilt

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._ensure_index()

    def stop_indexing(self) -> None:
        """The window is closing: every index build and search ends at its next breathing point (a thread still
        running when the window is deleted would take the whole program down)."""
        self._generation += 1
        self._building = None
        self._drop_search()
        for thread in self._threads:
            thread.stop_flag.set()  # type: ignore[attr-defined]

    def wait_for_index(self, msecs: int = 60_000) -> bool:
        """Block until index and search threads have ended (tests and shutdown). A search may be inside one long
        match, which only its time limit ends: it is waited for that long at least."""
        return all(t.wait(max(msecs, SEARCH_WAIT_MS) if isinstance(t, _SearchThread) else msecs)
                   for t in list(self._threads))
