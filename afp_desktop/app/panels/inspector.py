"""The inspector: everything the file holds about one StepGraph node (§3) — the selected node, else the node
at the cursor — as the run stood at the cursor.

Header (kind, label, id, model, tool, tokens, timing; "Show when it ended" while the step's end lies after the
cursor) over tabs: Readable first (core/inspect.py's sections: what the step saw, sent and received), then the
ones that appear only where they apply: Slots (the
system-prompt / messages / tools boundary payloads), Injections, Tool (arguments and result), Progress (the
call's `stream.tool_progress` reports), Text, Subflow (payloads and §2.9 rollups) and Raw JSON.
All trace text is plain text.
"""

from __future__ import annotations


from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QFormLayout, QFrame, QPushButton, QScrollArea, QSizePolicy, QSplitter,
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
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.model import tool_progress
from afp_desktop.core.model.bubble import event_positions, rollups
from afp_desktop.core.views.cost import cost_text
from afp_desktop.core.views.inspect import inspect_node
from afp_desktop.core.views.step_ids import StepId, step_ids
from afp_desktop.core.model.replay import DONE, LASTING_KINDS, NOT_STARTED
from afp_desktop.core.library.status import progress_message_of

LATE_FIELDS = ("tokens", "endOffsetMs", "exitPayload")  # known only once the step has ended


MUTED = QColor("#8a909c")
NOTE_COLOURS = NOTE_TEXT  # (light, dark): the "in progress" note, ≥ 4.5:1 on each theme's window
LLM_START_KINDS = ("user->llm", "tool->llm")
INJECTION_COLUMNS = (("source", "source"), ("slot", "slot"), ("role", "asRole"), ("reason", "reason"),
                     ("score", "retrievalScore"), ("rank", "rankPosition"), ("budget tokens", "budgetTokens"),
                     ("budget fraction", "budgetFraction"), ("source id", "sourceId"),
                     ("summary", "contentSummary"))
_PROGRESS = "agentfootprint.stream.tool_progress"


# ── Facts about a node that live in the events, not in the node ─────────────────────────────────────────


def _domain_after(run, start: int, kind: str, match) -> tuple[int, dict] | None:
    for i in range(start + 1, len(run.domain_events)):
        event = run.domain_events[i]
        if isinstance(event, dict) and event.get("type") == kind and match(event):
            return i, event
    return None


def tool_call_id(run, index: int) -> Any:
    """The toolCallId of an llm->tool node (from the tool.start that created it)."""
    event = run.domain_events[run.step_fold.node_created_at[index]]
    return event.get("toolCallId") if isinstance(event, dict) else None


def tool_end_of(run, index: int) -> tuple[int, dict] | None:
    start = run.step_fold.node_created_at[index]
    call_id = tool_call_id(run, index)
    return _domain_after(run, start, "tool.end", lambda e: jsonio.same_id(e.get("toolCallId"), call_id))


def llm_events_of(run, index: int) -> tuple[dict | None, tuple[int, dict] | None]:
    """(llm.start, (index, llm.end)) of an LLM-call node: provider, prompt sizes, stop reason, response text."""
    start = run.step_fold.node_created_at[index]
    begin = run.domain_events[start]
    if not isinstance(begin, dict) or begin.get("type") != "llm.start":
        return None, None
    path = jsonio.path_key(begin.get("subflowPath"))  # (keys: comparing deeply nested lists recurses)
    return begin, _domain_after(run, start, "llm.end", lambda e: jsonio.path_key(e.get("subflowPath")) == path)


def progress_reports_by_call(run) -> dict[Any, list[int]]:
    """Typed-event indices of every `stream.tool_progress`, grouped by toolCallId (the loader thread's when it
    prepared the run's views; see core/tool_progress.py)."""
    return run.views.progress_by_call if run.views is not None else tool_progress.progress_reports_by_call(run)


def progress_reports(run, index: int, typed_pos: list[int],
                     by_call: dict[Any, list[int]] | None = None) -> list[tuple[int, dict]]:
    """(axis position, payload) of every `stream.tool_progress` of this node's call, in order."""
    call_id = tool_call_id(run, index)
    if call_id is None or run.typed_events is None or not isinstance(call_id, (str, int, float)):
        return []
    if by_call is None:
        by_call = progress_reports_by_call(run)
    return [(typed_pos[j], run.typed_events[j]["payload"]) for j in by_call.get(call_id, [])]


def _compact(value: Any, limit: int = 200) -> str:
    text = jsonio.text_of(value)
    return text[:limit] + "…" if len(text) > limit else text


def _fmt(value: Any) -> str:
    return value_summary(value) if not isinstance(value, str) else value


def _paired(ids: dict[str, StepId], first: str, second: str) -> tuple[str, Any]:
    """A header row holding two ids (the second with its own caption), or whichever of them the step has."""
    if first in ids and second in ids:
        return first, (ids[first], second, ids[second])
    return (first, ids[first]) if first in ids else (second, ids.get(second))


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
    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.node_index: int | None = None
        self.node: dict | None = None
        self._key: Any = None
        self._positions: tuple[list[int], list[int]] | None = None
        self._upto = 0          # DomainEvents that count as happened for this node's look-ups
        self._position = 0      # the axis position they correspond to
        self._kind: str | None = None
        self.prices = None  # the user's price table (core/views/cost.py), or None: no cost shown
        self._header_rows: list | None = None  # the rows the header shows (their widgets change only with them)

        self.title = plain_label()
        self.title.setStyleSheet("font-weight: bold; font-size: 14px;")
        self.note = plain_label()
        self.show_end = QPushButton("Show when it ended")
        self.show_end.setToolTip("Move the cursor to when this step ended: its whole life, result included")
        self.show_end.clicked.connect(self._show_end_clicked)
        header = QWidget()
        header_layout = QVBoxLayout(header)
        header_layout.setContentsMargins(6, 6, 6, 2)
        header_layout.addWidget(self.title)
        header_layout.addWidget(self.note)
        header_layout.addWidget(self.show_end, 0, Qt.AlignmentFlag.AlignLeft)
        rows_slot = QVBoxLayout()
        rows_slot.setContentsMargins(0, 0, 0, 0)
        header_layout.addLayout(rows_slot)
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        self._header = HeaderScroll(header)  # (hidden while no step is shown)
        layout.addWidget(self._header)
        layout.addWidget(self.tabs, 1)

        if session.run is not None:
            self.run_loaded(session.run)
        else:
            self.refresh()

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
        self._positions = event_positions(run)
        self._progress_by_call = progress_reports_by_call(run)
        self._key = None
        self.readable.clear()  # (the last run's step, drawn on the turn after its header changed, stood beside it)
        if getattr(self.session, "settle_pending", False):
            self._show_nothing()  # (the settled moment draws the step shortly; nothing of the last run meanwhile)
        else:
            self.refresh()

    def _show_nothing(self) -> None:
        self.node_index = self.node = self._key = None
        self.empty.setVisible(True)
        self._header.setVisible(False)
        self.tabs.setVisible(False)

    def _target(self) -> tuple[int | None, str]:
        session, view = self.session, self.session.moment
        count = len(session.run.step_fold.nodes) if session.run else 0
        if session.selected is not None and 0 <= session.selected < count:
            return session.selected, "selected step"
        if view is not None and view.current_node is not None:
            return view.current_node, "step at the cursor"
        return None, ""

    def _node_as_of_cursor(self, index: int) -> tuple[dict, str | None]:
        """The node as known at the moment shown — never a fact from later; `self._upto`/`self._position` become
        the horizon for event look-ups."""
        run, moment = self.session.run, self.session.moment
        final = run.step_fold.nodes[index]
        if moment is None:
            self._upto, self._position = len(run.domain_events), len(run.axis)
            return final, None
        self._upto, self._position = moment.n_domain, moment.position
        state = moment.node_state(index)
        if state == NOT_STARTED:
            return ({key: final.get(key) for key in ("id", "kind", "label")},
                    "Not known yet at this moment: this step starts later. Move the cursor on to see it.")
        if state == DONE:
            return final, None
        known = {key: value for key, value in final.items() if key not in LATE_FIELDS}
        failed = next((e for e in moment.errors if e.node == index and e.kind in ("fatal", "run")), None)
        if failed is not None:
            return known, (f"This step failed: {failed.message} It never ended, so its end, tokens, stop reason "
                           "and result were never recorded.")
        return known, ("In progress at the cursor: its end, tokens, stop reason and result are not known yet "
                       "at this moment.")

    def refresh(self) -> None:
        run, view = self.session.run, self.session.moment
        index, source = self._target() if run is not None else (None, "")
        if index is None:
            self._show_nothing()
            return
        node, note = self._node_as_of_cursor(index)
        kind = node.get("kind")
        self._show_readable(run, index)
        # Redraw only when what is shown can differ: keeps tree expansion while scrubbing past a finished step.
        key = (id(run), index, source, id(node), note,
               view.n_typed if kind == "llm->tool" and view is not None else None,
               view.n_domain if kind in ("subflow", "llm->tool") and view is not None else None)
        if key == self._key:
            return
        self._key = key
        self.node_index, self.node = index, node
        self.empty.setVisible(False)
        self._header.setVisible(True)
        self.tabs.setVisible(True)
        self.title.setText(f"{node.get('label', kind)}  ·  {kind}  ({source})")
        self.note.setStyleSheet(f"color: {NOTE_COLOURS[is_dark(self)]};")
        self.note.setText(note or "")
        self.note.setVisible(bool(note))
        self._fill_header(run, index, node)
        shown = {"Readable", "Raw JSON"}
        if kind in LLM_START_KINDS:
            shown |= self._fill_llm(run, index, node)
        elif kind == "llm->tool":
            shown |= self._fill_tool(run, index, node)
        elif kind == "llm->user":
            self._fill_text("Answer to the user", node.get("assistantText"))
            shown.add("Text")
        elif kind == "subflow":
            self._fill_subflow(run, index, node)
            shown.add("Subflow")
        self.raw_tree.set_value(node)
        current = self.tabs.tabText(self.tabs.currentIndex())
        for i in range(self.tabs.count()):
            visible = self.tabs.tabText(i) in shown
            if self.tabs.isTabVisible(i) != visible:  # re-laying out the tab bar is the slow part
                self.tabs.setTabVisible(i, visible)
        if current not in shown or kind != self._kind:  # a new kind of step opens on its main tab
            order = ["Readable", "Slots", "Tool", "Text", "Subflow", "Raw JSON"]
            first = next(name for name in order if name in shown)
            self.tabs.setCurrentWidget(self._tab_pages[first])
        self._kind = kind

    def set_theme(self, theme: str) -> None:
        """The main window calls this when the theme changes: the note and error colours are per theme."""
        self.note.setStyleSheet(f"color: {NOTE_COLOURS[theme == 'dark']};")
        self.readable.set_theme(theme)

    def _show_readable(self, run, index: int) -> None:
        """The Readable tab and the "Show when it ended" button, as known at the moment shown."""
        moment, replay = self.session.moment, self.session.replay
        facts = replay.facts if replay is not None else None
        position = moment.position if moment is not None else None
        self.readable.show_model(inspect_node(run, facts, index, position, prices=self.prices))
        ends_later = (facts is not None and moment is not None and facts.ended[index] is not None
                      and moment.node_state(index) != DONE)
        self.show_end.setVisible(ends_later)

    def set_prices(self, table) -> None:
        """Show cost beside an LLM call's tokens at these prices (None: none)."""
        if table == self.prices:
            return
        self.prices = table
        self._key = None
        if self.session.run is not None:
            self.refresh()

    def _show_end_clicked(self) -> None:
        if self.node_index is not None:
            self.session.show_node_end(self.node_index)

    # -- sections ---------------------------------------------------------------------------------------
    def _fill_header(self, run, index: int, node: dict) -> None:
        """Kind-specific facts between the step's ids; every id has a copy button."""
        ids = {step_id.label: step_id for step_id in step_ids(run, index)}
        # Ids that say where the step is sit in pairs, so the header leaves the tabs their room.
        rows: list[tuple[str, Any]] = [("id", ids.get("id")), _paired(ids, "stage id", "event")]
        begin, end = llm_events_of(run, index) if node.get("kind") in LLM_START_KINDS else (None, None)
        if node.get("llmModel") is not None or begin:
            provider = f" ({begin.get('provider')})" if begin and begin.get("provider") else ""
            rows.append(("model", f"{node.get('llmModel', begin.get('model') if begin else '')}{provider}"))
        if node.get("toolName") is not None:
            rows.append(("tool", node["toolName"]))
            rows.append(("call id", ids.get("call id")))
        tokens = node.get("tokens")
        if isinstance(tokens, dict):
            rows.append(("tokens", f"{tokens.get('in')} in  ·  {tokens.get('out')} out"))
            if self.prices is not None and node.get("kind") in LLM_START_KINDS:
                rows.append(("cost", cost_text(self.prices, node)))
        start, stop = node.get("startOffsetMs"), node.get("endOffsetMs")
        if not isinstance(start, (int, float)):  # (a step not started at the cursor: nothing of it is known)
            timing = "not started at this moment"
        else:
            timing = f"starts at +{start} ms"
            if isinstance(stop, (int, float)):
                timing += f", ends at +{stop} ms ({stop - start} ms)"
            elif stop is None and node.get("kind") in LASTING_KINDS:  # (a chip has no end)
                timing += ", not ended"
        rows.append(("timing", timing))
        if begin:
            sizes = [f"{label} {begin[k]}" for k, label in (("systemPromptChars", "system-prompt chars"),
                     ("messagesCount", "messages"), ("toolsCount", "tools")) if k in begin]
            if sizes:
                rows.append(("prompt", "  ·  ".join(sizes)))
        if end and end[0] < self._upto and end[1].get("stopReason"):
            rows.append(("stop reason", end[1]["stopReason"]))
        if node.get("iterationIndex") is not None:
            rows.append(("iteration", node["iterationIndex"]))
        if node.get("primitiveKind") is not None:
            rows.append(("primitive", node["primitiveKind"]))
        rows.append(_paired(ids, "path", "run id"))
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

    @property
    def fields(self) -> QFormLayout:
        """The header's rows shown (captions and fields)."""
        return self._rows.form

    @property
    def copy_buttons(self) -> list:
        """The header's id copy buttons shown, in order."""
        return self._rows.current.copy_buttons if self._rows.current is not None else []

    def _fill_llm(self, run, index: int, node: dict) -> set[str]:
        shown = {"Injections"}
        slots = node.get("slotBoundaries")
        if isinstance(slots, dict):
            self.slots_tree.set_value(slots)
            shown.add("Slots")
        self._fill_injections(node.get("injections") or [])
        _begin, end = llm_events_of(run, index)
        if end is not None and end[0] < self._upto and isinstance(end[1].get("content"), str):
            self._fill_text("Response of this call (llm.end content)", end[1]["content"])
            shown.add("Text")
        if "toolResult" in node:
            self.tool_note.setText("The tool result this call was given (from the previous tool call).")
            self.tool_args_box.setVisible(False)
            self.tool_result.set_value(node["toolResult"])
            shown.add("Tool")
        return shown

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

    def _fill_tool(self, run, index: int, node: dict) -> set[str]:
        self.tool_args_box.setVisible(True)
        self.tool_args.set_value(node.get("toolArgs"))
        end = tool_end_of(run, index)
        if end is None or end[0] >= self._upto:
            self.tool_note.setText("Not known yet at this moment: the call has not returned.")
            self.tool_result.set_value({})  # (no row: a result not known is not a null result)
        else:
            event = end[1]
            parts = [f"returned after {event['durationMs']} ms" if "durationMs" in event else "returned"]
            if event.get("error"):
                parts.append(f"error: {_fmt(event['error'])}")
            self.tool_note.setText("; ".join(parts))
            self.tool_result.set_value(event.get("result"))
        shown = {"Tool"}
        if node.get("assistantText"):
            self._fill_text("What the assistant said before calling the tool", node["assistantText"])
            shown.add("Text")
        self._fill_progress(run, index)
        if self._progress:
            shown.add("Progress")
        return shown

    def _fill_progress(self, run, index: int) -> None:
        position = self._position
        self._progress = [(at, payload) for at, payload in
                          progress_reports(run, index, self._positions[1], self._progress_by_call) if at <= position]
        table = self.progress_table
        reports = self._progress

        def cells(row: int) -> list[str]:
            at, payload = reports[row]
            message = progress_message_of(payload.get("payload"))
            return [str(row + 1), str(at), message if message is not None else "(no message)",
                    _compact(payload.get("payload"))]

        table.set_rows(len(reports), cells)
        table.resizeColumnsToContents()
        table.setColumnWidth(2, min(table.columnWidth(2), 360))
        self.progress_note.setText(f"{len(self._progress)} progress report(s) of call {_compact(tool_call_id(run, index), 80)} "
                                   "by this moment.")
        if self._progress:
            table.setCurrentCell(0, 0)
            self._show_progress_payload(0)

    def _show_progress_payload(self, row: int) -> None:
        if 0 <= row < len(self._progress):
            self.progress_payload.set_value(self._progress[row][1])

    def _fill_text(self, title: str, text: Any) -> None:
        self.text_title.setText(title)
        self.text_view.setPlainText(text if isinstance(text, str) else _fmt(text))

    def _fill_subflow(self, run, index: int, node: dict) -> None:
        self.entry_tree.set_value(node.get("entryPayload"))
        self.exit_tree.set_value(node.get("exitPayload"))
        while self.rollup_fields.rowCount():
            self.rollup_fields.removeRow(0)
        rollup = rollups(run, index, self._upto)
        if rollup is None:
            self.rollup_fields.addRow(plain_label("Not entered yet at the cursor.", italic=True))
            return
        duration = "still open at the cursor" if rollup.duration_ms is None else f"{rollup.duration_ms} ms"
        for name, value in (("inside it", f"{rollup.llm_calls} LLM call(s), {rollup.tool_calls} tool call(s), "
                                          f"{rollup.iterations} loop iteration(s)"),
                            ("tokens", f"{rollup.tokens_in} in  ·  {rollup.tokens_out} out"),
                            ("duration", duration)):
            self.rollup_fields.addRow(plain_label(name, muted=True), plain_label(value))
