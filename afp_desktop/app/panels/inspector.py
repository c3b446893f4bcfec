"""The inspector: everything the file holds about one StepGraph node (§3) — the selected node, else the node
at the cursor — as the run stood at the cursor.

Header (kind, label, id, model, tool, tokens, timing; "Show when it ended" while the step's end lies after the
cursor) over tabs: Readable first (core/inspect.py's sections: what the step saw, sent and received), then the
ones that appear only where they apply: Slots (the
system-prompt / messages / tools boundary payloads), Injections, Tool (arguments and result), Progress (the
call's `stream.tool_progress` reports), Text, Subflow (payloads and §2.9 rollups) and Raw JSON.
All trace text is plain text.

The content is the engine's: each moment shown is a request "inspect" (tag "inspector",
core/views/inspector_content.py), a newer one superseding the one before. Until its answer comes the header shows
the step's name and kind (the step graph's) and a quiet "Reading…" line stands where the tabs go (the same step
at another moment: its tabs greyed); an answer for a moment no longer shown is never drawn. The window reads none
of the run's events here.
"""

from __future__ import annotations


from typing import Any, Callable

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QFormLayout, QFrame, QPushButton, QScrollArea, QSizePolicy, QSplitter, QStackedWidget,
    QTabWidget, QVBoxLayout, QWidget,
)

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.look.fonts import fixed_font
from afp_desktop.app.widgets.rows_table import RowsTable
from afp_desktop.app.widgets.text_box import TraceTextBox
from afp_desktop.app.widgets.plain_text import plain_label
from afp_desktop.app.panels.header_rows import HeaderForms
from afp_desktop.app.panels.json_tree import JsonTreeView, value_summary
from afp_desktop.app.panels.readable_view import ReadableView, is_dark
from afp_desktop.app.look.theme import NOTE_TEXT
from afp_desktop.core.views.step_ids import StepId

REQUEST_TAG = "inspector"
READING = "Reading…"

MUTED = QColor("#8a909c")
NOTE_COLOURS = NOTE_TEXT  # (light, dark): the "in progress" note, ≥ 4.5:1 on each theme's window
INJECTION_COLUMNS = (("source", "source"), ("slot", "slot"), ("role", "asRole"), ("reason", "reason"),
                     ("score", "retrievalScore"), ("rank", "rankPosition"), ("budget tokens", "budgetTokens"),
                     ("budget fraction", "budgetFraction"), ("source id", "sourceId"),
                     ("summary", "contentSummary"))
MAIN_TABS = ("Readable", "Slots", "Tool", "Text", "Subflow", "Raw JSON")  # a new kind of step opens on the first


def _fmt(value: Any) -> str:
    return value_summary(value) if not isinstance(value, str) else value


# ── Widgets ─────────────────────────────────────────────────────────────────────────────────────────────


def _table(headers: list[str]) -> RowsTable:
    table = RowsTable(headers)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    return table


def _titled(title: str, widget: QWidget) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 4, 0, 0)
    layout.setSpacing(2)
    label = plain_label(title)
    label.setStyleSheet("font-weight: bold;")
    layout.addWidget(label)
    layout.addWidget(widget, 1)
    return box


def _text_view() -> TraceTextBox:
    view = TraceTextBox()
    view.setFont(fixed_font())  # long text: often JSON, code or logs
    return view


class HeaderScroll(QScrollArea):
    """The header (title, note, ids and facts) as tall as its content when there is room; on a short dock it
    scrolls instead of pushing the tabs — and the window — beyond the screen."""

    MIN_LINES = 4

    def __init__(self, header: QWidget):
        super().__init__()
        self.setWidget(header)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        header.installEventFilter(self)
        self._wish = QSize()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            wish = self.sizeHint()
            if wish != self._wish:  # the content changed its wish (new rows): a scroll area does not pass it on
                self._wish = wish
                self.updateGeometry()  # (new texts in rows of the same height: no layout of the window above)
        return super().eventFilter(watched, event)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """As tall as the content is at the width it has (wrapped labels and id pairs are taller when narrow)."""
        content = self.widget()
        hint = content.sizeHint()
        width = self.viewport().width()
        # (at its width, not the size hint's: a wrapping label's hint is its text at a narrow, several-line width,
        # and the extra height would be handed out as gaps between the rows)
        height = content.heightForWidth(width) if width > 0 and content.hasHeightForWidth() else hint.height()
        return QSize(hint.width(), max(height, content.minimumSizeHint().height()))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._wish = self.sizeHint()
            self.updateGeometry()  # a new width, a new height wish

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, min(self.sizeHint().height(), self.fontMetrics().lineSpacing() * self.MIN_LINES + 12))


class ModestTabs(QTabWidget):
    """Tabs that ask for no more than their minimum height: a box layout short of room takes the same amount off
    every item's wish, so a big wish here would squeeze the header to its scroll minimum even on a tall dock.
    The tabs still get all the height left over (stretch)."""

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().sizeHint()
        return QSize(hint.width(), min(hint.height(), max(self.minimumHeight(), 1)))


class InspectorPanel(QWidget, PanelDefaults):
    """`requests`: the window's engine requests (app/loading/engine_requests.py); by default the main window's
    it is in, else its own (a panel shown alone)."""

    content_shown = Signal()  # an answer was drawn: the content of the moment shown
    failed_shown = Signal(str)  # a request failed: the sentence shown

    def __init__(self, session, parent: QWidget | None = None, requests=None):
        super().__init__(parent)
        self.session = session
        self._requests = requests
        self._own_requests = None  # made when docked in no window that has them
        self.node_index: int | None = None  # the step shown (its header at once, its content when it comes)
        self.node: dict | None = None  # that step as known at the moment its content is of
        self.content: dict | None = None  # the engine's answer drawn (core/views/inspector_content.py)
        self._wanted: tuple | None = None  # (run, step, position, prices) of the request last sent
        self._drawn_for: tuple | None = None  # and of the content drawn
        self._drawn_tabs: Any = None  # what the tabs beside Readable were drawn from (same: kept, tree expansion too)
        self._kind: str | None = None
        self.prices = None  # the user's price table (core/views/cost.py), or None: no cost shown
        self._header_rows: list | None = None  # the rows the header shows (their widgets change only with them)

        self.title = plain_label()
        self.title.setStyleSheet("font-weight: bold; font-size: 14px;")
        self.note = plain_label()
        self.show_end = QPushButton("Show when it ended")
        self.show_end.setToolTip("Move the cursor to when this step ended: its whole life, result included")
        self.show_end.clicked.connect(self._show_end_clicked)
        self.note.setVisible(False)  # (each shown with a step that has one)
        self.show_end.setVisible(False)
        header = QWidget()
        header_layout = QVBoxLayout(header)
        header_layout.setContentsMargins(6, 6, 6, 2)
        header_layout.addWidget(self.title)
        # The step's facts (note, "Show when it ended", ids): hidden while another step's content is read, their
        # place kept, so the room the panel needs stays the same until the answer comes.
        self.details = QWidget()
        keep_place = self.details.sizePolicy()
        keep_place.setRetainSizeWhenHidden(True)
        self.details.setSizePolicy(keep_place)
        details_layout = QVBoxLayout(self.details)
        details_layout.setContentsMargins(0, 0, 0, 0)
        details_layout.addWidget(self.note)
        details_layout.addWidget(self.show_end, 0, Qt.AlignmentFlag.AlignLeft)
        rows_slot = QVBoxLayout()
        rows_slot.setContentsMargins(0, 0, 0, 0)
        details_layout.addLayout(rows_slot)
        header_layout.addWidget(self.details)
        self._rows = HeaderForms(rows_slot)

        self.tabs = ModestTabs()
        # Pages with two trees ask for ~260 px; an explicit minimum lets the dock share the column with the chat
        # bubble by default (a user who wants more makes the dock taller).
        self.tabs.setMinimumHeight(140)
        self.readable = ReadableView()
        self.slots_tree = JsonTreeView(expand_depth=2)
        self.injections = _table([title for title, _ in INJECTION_COLUMNS])
        self.injection_detail = _text_view()  # the selected injection in full (the table cuts its summary)
        self.injection_detail.setPlaceholderText("Select an injection to read all of it.")
        self.injections.currentCellChanged.connect(lambda row, *_: self._show_injection(row))
        self._injections: list = []
        self.tool_args = JsonTreeView(expand_depth=2)
        self.tool_result = JsonTreeView(expand_depth=2)
        self.tool_note = plain_label()
        self.progress_table = _table(["#", "position", "message shown (§6.4)", "payload"])
        self.progress_table.currentCellChanged.connect(lambda row, *_: self._show_progress_payload(row))
        self.progress_payload = JsonTreeView(expand_depth=2)
        self.text_view = _text_view()
        self.text_title = plain_label()
        self.rollup_fields = QFormLayout()
        self.entry_tree = JsonTreeView(expand_depth=1)
        self.exit_tree = JsonTreeView(expand_depth=1)
        self.raw_tree = JsonTreeView(expand_depth=1)
        self._progress: list[tuple[int, dict]] = []

        injections_split = QSplitter(Qt.Orientation.Vertical)
        injections_split.addWidget(self.injections)
        injections_split.addWidget(_titled("Selected injection", self.injection_detail))
        tool_box = QWidget()
        tool_layout = QVBoxLayout(tool_box)
        tool_layout.setContentsMargins(0, 0, 0, 0)
        tool_layout.addWidget(self.tool_note)
        tool_split = QSplitter(Qt.Orientation.Vertical)
        self.tool_args_box = _titled("Arguments", self.tool_args)
        tool_split.addWidget(self.tool_args_box)
        tool_split.addWidget(_titled("Result", self.tool_result))
        tool_layout.addWidget(tool_split, 1)
        self.progress_note = plain_label()
        progress_top = QWidget()
        progress_top_layout = QVBoxLayout(progress_top)
        progress_top_layout.setContentsMargins(0, 4, 0, 0)
        progress_top_layout.addWidget(self.progress_note)
        progress_top_layout.addWidget(self.progress_table, 1)
        progress_split = QSplitter(Qt.Orientation.Vertical)
        progress_split.addWidget(progress_top)
        progress_split.addWidget(_titled("Payload of the selected report", self.progress_payload))
        text_box = QWidget()
        text_layout = QVBoxLayout(text_box)
        text_layout.setContentsMargins(0, 4, 0, 0)
        text_layout.addWidget(self.text_title)
        text_layout.addWidget(self.text_view, 1)
        subflow_box = QWidget()
        subflow_layout = QVBoxLayout(subflow_box)
        subflow_layout.setContentsMargins(0, 4, 0, 0)
        subflow_layout.addLayout(self.rollup_fields)
        subflow_split = QSplitter(Qt.Orientation.Vertical)
        subflow_split.addWidget(_titled("Entry payload", self.entry_tree))
        subflow_split.addWidget(_titled("Exit payload", self.exit_tree))
        subflow_layout.addWidget(subflow_split, 1)

        self._tab_pages = {
            "Readable": self.readable, "Slots": self.slots_tree, "Injections": injections_split, "Tool": tool_box,
            "Progress": progress_split, "Text": text_box, "Subflow": subflow_box, "Raw JSON": self.raw_tree,
        }
        for name, page in self._tab_pages.items():
            self.tabs.addTab(page, name)

        self.empty = plain_label("Select a step, or move the cursor, to inspect it.", muted=True, italic=True)
        # The panel has no layout of its own: what it holds is laid out in `inside`, and a new wish of theirs (a
        # header a line taller once the answer came) reaches the dock only when the room the panel needs changed.
        self.inside = QWidget(self)
        self._needs = QSize()
        layout = QVBoxLayout(self.inside)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        self._header = HeaderScroll(header)  # (hidden while no step is shown)
        layout.addWidget(self._header)
        self.reading_line = plain_label(READING, muted=True, italic=True)  # (or why the content is not shown)
        self.reading_page = QWidget()
        reading_layout = QVBoxLayout(self.reading_page)
        reading_layout.setContentsMargins(6, 6, 6, 6)
        reading_layout.addWidget(self.reading_line)
        reading_layout.addStretch(1)
        self.body = QStackedWidget()  # the tabs, or "Reading…" in their place
        self.body.addWidget(self.tabs)
        self.body.addWidget(self.reading_page)
        layout.addWidget(self.body, 1)

        if session.run is not None:
            self.run_loaded(session.run)
        else:
            self.refresh()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.inside.sizeHint()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.inside.minimumSizeHint()

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:  # (posted by `inside`: the panel has no layout)
            needs = self.inside.minimumSizeHint()
            if needs != self._needs:  # (a new minimum: the dock and the window hear of it, once)
                self._needs = needs
                self.updateGeometry()
            self.inside.setGeometry(self.rect())
            return True
        return super().event(event)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.inside.setGeometry(self.rect())

    def focus_search(self) -> bool:
        """Put the keyboard in the search box of the JSON tree on the visible tab (Ctrl+F)."""
        page = self.tabs.currentWidget()
        trees = [t for t in (page.findChildren(JsonTreeView) if page is not None else []) if t.isVisibleTo(page)]
        if isinstance(page, JsonTreeView):
            trees.insert(0, page)
        if not trees:
            trees = [self.raw_tree]
            self.tabs.setCurrentWidget(self._tab_pages["Raw JSON"])
        trees[0].search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        trees[0].search_box.selectAll()
        return True

    # -- which node, as of when -------------------------------------------------------------------------
    @property
    def requests(self):
        """Where the inspector's requests go: the one given, else the main window's it is in (docked or floating),
        else the panel's own."""
        if self._requests is not None:
            return self._requests
        holder = self.parentWidget()
        while holder is not None:
            window_requests = getattr(holder, "engine_requests", None)
            if window_requests is not None:
                return window_requests
            holder = holder.parentWidget()
        if self._own_requests is None:
            from afp_desktop.app.loading.engine_requests import EngineRequests

            self._own_requests = EngineRequests(self.session, None, self)
        return self._own_requests

    @property
    def is_reading(self) -> bool:
        """A request for the moment shown is under way (its content is not drawn yet)."""
        return self._wanted is not None and self._wanted != self._drawn_for

    def run_grown(self, run) -> None:
        """The run shown has grown (a followed file, a big file read in parts): show the latest of it."""
        self.run_loaded(run)

    def run_closed(self) -> None:
        self.refresh()

    def settled(self, _moment) -> None:
        # The inspector is the heaviest panel: it follows the moment once a scrub settles (the session drops
        # the moves in between), so fast scrubbing never queues stale work here.
        self.refresh()

    def selection_changed(self, _index) -> None:
        self.refresh()

    def run_loaded(self, run) -> None:
        self._wanted = self._drawn_for = self._drawn_tabs = None
        if self._own_requests is not None:
            self._own_requests.forget_run()
        self.readable.clear()  # (the last run's step, drawn on the turn after its header changed, stood beside it)
        if getattr(self.session, "settle_pending", False):
            self._show_nothing()  # (the settled moment draws the step shortly; nothing of the last run meanwhile)
        else:
            self.refresh()

    def _show_nothing(self) -> None:
        if self._wanted is not None:
            self.requests.drop(REQUEST_TAG)
        self.node_index = self.node = self.content = None
        self._wanted = self._drawn_for = None
        self.empty.setVisible(True)
        self._header.setVisible(False)
        self.body.setVisible(False)

    def _target(self) -> tuple[int | None, str]:
        session, view = self.session, self.session.moment
        count = len(session.run.step_fold.nodes) if session.run else 0
        if session.selected is not None and 0 <= session.selected < count:
            return session.selected, "selected step"
        if view is not None and view.current_node is not None:
            return view.current_node, "step at the cursor"
        return None, ""

    def refresh(self) -> None:
        """Show the step of the moment: its name and kind at once (the step graph's), its content when the
        engine's answer comes (one request per moment; a newer one supersedes it)."""
        run, moment = self.session.run, self.session.moment
        index, source = self._target() if run is not None else (None, "")
        if index is None:
            self._show_nothing()
            return
        step = run.step_fold.nodes[index]  # (the step graph: its name and kind)
        kind = step.get("kind")
        self.title.setText(f"{step.get('label', kind)}  ·  {kind}  ({source})")
        self.empty.setVisible(False)
        self._header.setVisible(True)
        position = moment.position if moment is not None else None
        wanted = (id(run), index, position, id(self.prices))
        if wanted == self._wanted:
            return
        self._wanted = wanted
        if self.node_index != index or self._drawn_for is None or self._drawn_for[0] != id(run):
            # Another step: nothing of the step before stands under its header while this one's is read.
            self.node = self.content = None
            self._drawn_for = self._drawn_tabs = None
            self.details.setVisible(False)
            self.reading_line.setText(READING)
            self.body.setCurrentWidget(self.reading_page)
        else:
            self.tabs.setEnabled(False)  # (the same step at another moment: greyed until its content comes)
        self.body.setVisible(True)
        self.node_index = index
        self.requests.request(REQUEST_TAG, "inspect", {"index": index, "position": position, "prices": self.prices},
                              self._answer_for(wanted), self._failure_for(wanted))

    def _answer_for(self, wanted: tuple) -> Callable[[object], None]:
        def on_answer(content) -> None:
            if wanted == self._wanted and isinstance(content, dict):  # (an answer for another moment: never shown)
                self._show_content(wanted, content)
        return on_answer

    def _failure_for(self, wanted: tuple) -> Callable[[str], None]:
        def on_failed(why: str) -> None:
            if wanted == self._wanted:
                self._show_failure(why)
        return on_failed

    def _show_failure(self, why: str) -> None:
        """The step's content cannot be read: a plain sentence where it would be."""
        self._drawn_for = self._wanted
        self.node = self.content = None
        self._drawn_tabs = None
        self.details.setVisible(False)
        sentence = f"This step's content could not be read: {why.rstrip('.')}."
        self.reading_line.setText(sentence)
        self.body.setCurrentWidget(self.reading_page)
        self.failed_shown.emit(sentence)

    def _show_content(self, wanted: tuple, content: dict) -> None:
        self._drawn_for = wanted
        self.content = content
        self.node = node = content["node"]
        kind = content["kind"]
        self.tabs.setEnabled(True)
        self.body.setCurrentWidget(self.tabs)
        self.details.setVisible(True)
        note = content["note"]
        self.note.setStyleSheet(f"color: {NOTE_COLOURS[is_dark(self)]};")
        self.note.setText(note or "")
        self.note.setVisible(bool(note))
        self.show_end.setVisible(bool(content["ends_later"]))
        self.readable.show_model(content["readable"])
        self._fill_header(content["header"])
        tabs = content["tabs"]
        drawn = (wanted[:2], tabs, node)
        if drawn != self._drawn_tabs:  # (redrawn only when they differ: tree expansion kept while scrubbing)
            self._drawn_tabs = drawn
            self._fill_tabs(tabs)
            self.raw_tree.set_value(node)
        shown = {"Readable", "Raw JSON", *tabs}
        current = self.tabs.tabText(self.tabs.currentIndex())
        for i in range(self.tabs.count()):
            visible = self.tabs.tabText(i) in shown
            if self.tabs.isTabVisible(i) != visible:  # re-laying out the tab bar is the slow part
                self.tabs.setTabVisible(i, visible)
        if current not in shown or kind != self._kind:  # a new kind of step opens on its main tab
            first = next(name for name in MAIN_TABS if name in shown)
            self.tabs.setCurrentWidget(self._tab_pages[first])
        self._kind = kind
        self.content_shown.emit()

    def set_theme(self, theme: str) -> None:
        """The main window calls this when the theme changes: the note and error colours are per theme."""
        self.note.setStyleSheet(f"color: {NOTE_COLOURS[theme == 'dark']};")
        self.readable.set_theme(theme)

    def set_prices(self, table) -> None:
        """Show cost beside an LLM call's tokens at these prices (None: none)."""
        if table == self.prices:
            return
        self.prices = table
        if self.session.run is not None:
            self.refresh()

    def _show_end_clicked(self) -> None:
        if self.node_index is not None:
            self.session.show_node_end(self.node_index)

    # -- sections ---------------------------------------------------------------------------------------
    def _fill_header(self, rows: list[tuple[str, Any]]) -> None:
        """Kind-specific facts between the step's ids; every id has a copy button."""
        # What the header shows, as text (1, 1.0 and true are equal in Python, not on screen):
        shown = [(name, value if value is None or isinstance(value, (tuple, StepId)) else _fmt(value))
                 for name, value in rows]
        if shown == self._header_rows:
            return  # (the cursor moved within the step: its header's widgets, a dozen ids and buttons, stay)
        self._header_rows = shown
        before = self._rows.current
        now = self._rows.show([(name, value) for name, value in shown if value is not None])
        if now is not before:  # Tab walks the header's buttons first, then the tabs
            previous = self.show_end
            for button in now.copy_buttons:
                QWidget.setTabOrder(previous, button)
                previous = button

    def _fill_tabs(self, tabs: dict[str, Any]) -> None:
        """The tabs beside Readable and Raw JSON that apply to this step (those not in `tabs` are hidden)."""
        if "Slots" in tabs:
            self.slots_tree.set_value(tabs["Slots"])
        if "Injections" in tabs:
            self._fill_injections(tabs["Injections"])
        if "Tool" in tabs:
            self._fill_tool(tabs["Tool"])
        if "Progress" in tabs:
            self._fill_progress(tabs["Progress"])
        if "Text" in tabs:
            self._fill_text(tabs["Text"]["title"], tabs["Text"]["text"])
        if "Subflow" in tabs:
            self._fill_subflow(tabs["Subflow"])

    @property
    def fields(self) -> QFormLayout:
        """The header's rows shown (captions and fields)."""
        return self._rows.form

    @property
    def copy_buttons(self) -> list:
        """The header's id copy buttons shown, in order."""
        return self._rows.current.copy_buttons if self._rows.current is not None else []

    def _show_injection(self, row: int) -> None:
        if 0 <= row < len(self._injections) and isinstance(self._injections[row], dict):
            injection = self._injections[row]
            self.injection_detail.setPlainText("\n".join(f"{key}: {_fmt(value)}" for key, value in injection.items()))
        else:
            self.injection_detail.clear()

    def _fill_injections(self, injections: list) -> None:
        self._injections = list(injections)
        table = self.injections

        def cells(row: int) -> list[str]:
            injection = injections[row]
            values = [injection.get(field) if isinstance(injection, dict) else None for _t, field in INJECTION_COLUMNS]
            return ["" if value is None else _fmt(value) for value in values]

        table.set_rows(len(injections), cells)
        table.resizeColumnsToContents()
        for column in range(table.columnCount() - 1):
            table.setColumnWidth(column, min(table.columnWidth(column), 220))
        if injections:
            table.setCurrentCell(0, 0)
        self._show_injection(table.currentRow() if injections else -1)

    def _fill_tool(self, tool: dict) -> None:
        self.tool_args_box.setVisible(tool["has_args"])
        if tool["has_args"]:
            self.tool_args.set_value(tool["args"])
        if tool["given"]:
            self.tool_note.setText("The tool result this call was given (from the previous tool call).")
        elif not tool["returned"]:
            self.tool_note.setText("Not known yet at this moment: the call has not returned.")
        else:
            parts = [f"returned after {_fmt(tool['duration_ms'])} ms" if tool["has_duration"] else "returned"]
            if tool["error"]:
                parts.append(f"error: {_fmt(tool['error'])}")
            self.tool_note.setText("; ".join(parts))
        self.tool_result.set_value(tool["result"])

    def _fill_progress(self, progress: dict) -> None:
        self._progress = reports = progress["rows"]
        table = self.progress_table

        def cells(row: int) -> list[str]:
            report = reports[row]
            return [str(row + 1), str(report["at"]), report["message"], report["summary"]]

        table.set_rows(len(reports), cells)
        table.resizeColumnsToContents()
        table.setColumnWidth(2, min(table.columnWidth(2), 360))
        self.progress_note.setText(progress["note"])
        if reports:
            table.setCurrentCell(0, 0)
            self._show_progress_payload(0)

    def _show_progress_payload(self, row: int) -> None:
        if 0 <= row < len(self._progress):
            self.progress_payload.set_value(self._progress[row]["payload"])

    def _fill_text(self, title: str, text: Any) -> None:
        self.text_title.setText(title)
        self.text_view.setPlainText(text if isinstance(text, str) else _fmt(text))

    def _fill_subflow(self, subflow: dict) -> None:
        self.entry_tree.set_value(subflow["entry"])
        self.exit_tree.set_value(subflow["exit"])
        while self.rollup_fields.rowCount():
            self.rollup_fields.removeRow(0)
        if subflow["rollup"] is None:
            self.rollup_fields.addRow(plain_label("Not entered yet at the cursor.", italic=True))
            return
        for name, value in subflow["rollup"]:
            self.rollup_fields.addRow(plain_label(name, muted=True), plain_label(value))
