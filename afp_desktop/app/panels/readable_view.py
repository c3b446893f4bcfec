"""The inspector's Readable tab: the sections of `core.inspect.inspect_node` drawn as widgets a person reads —
facts as label/value rows, text as text (monospace when it is JSON), messages as a role-labelled conversation,
tools with a collapsed schema, injections as a table with a detail pane, changes as a list.

All trace text is plain text (labels with Qt.PlainText, read-only plain-text editors).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable

import orjson
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QApplication, QFormLayout, QFrame, QLabel, QScrollArea, QToolButton, QVBoxLayout, QWidget,
)

from afp_desktop.app.pacing import scheduler
from afp_desktop.app.widgets.copy_id import CopyIdButton, id_field
from afp_desktop.app.look.fonts import fixed_font
from afp_desktop.app.widgets.plain_text import plain_label
from afp_desktop.app.widgets.rows_table import RowsTable
from afp_desktop.app.widgets.text_box import TraceTextBox
from afp_desktop.app.look.theme import ERROR_TEXT

LONG_WORD = 60          # a word this long cannot wrap in a label: such text goes into a text box
SHORT_TEXT = 24         # text this short shows on one line (a wrapping label is measured again and again)
FIRST_SECTIONS = 2      # drawn at once; the rest of a step's sections follow one per event-loop turn
SPARE_SECTIONS = 24     # sections of steps drawn before, kept for a step that shows an equal one
SPARE_MESSAGES = 64     # and messages of their conversations
BOX_TEXT = 600          # text longer than this goes into a scrolling text box
MAX_BOX_LINES = 14
INJECTION_COLUMNS = (("source", "source"), ("summary", "summary"), ("why", "why"))
ID_KEYS = ("id", "idName")  # a facts row's exact id and what it is: for the copy button, not shown as text
ERROR_COLOURS = ERROR_TEXT  # (light, dark): ≥ 4.5:1 on the window colour of each theme


def is_dark(widget: QWidget | None = None) -> bool:
    """Whether the widgets are dark now (the application's palette: a widget's own follows it a moment later)."""
    palette = QApplication.palette() if QApplication.instance() is not None else widget.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def monospace_font():
    return fixed_font()


def _looks_like_json(text: str) -> bool:
    head = text.lstrip()[:1]
    return head in ("{", "[") and text.rstrip()[-1:] in ("}", "]")


def text_box(text: str, mono: bool = False) -> TraceTextBox:
    """A read-only text box as tall as its text (up to MAX_BOX_LINES lines, then it scrolls; a very long text is
    shown in part until asked for whole, app/widgets/text_box.py)."""
    box = TraceTextBox()
    box.setPlainText(text)
    if mono:
        box.setFont(monospace_font())
    lines = min(MAX_BOX_LINES, max(1, text.count("\n", 0, 10_000) + 1 + min(len(text), 10_000) // 90))
    box.box.setFixedHeight(int(box.fontMetrics().lineSpacing() * lines + 14))
    return box


def label(text: str, **style) -> QLabel:
    """A plain-text label that wraps only when its text is long or has several lines: a wrapping label is
    measured again and again by the layouts, which makes drawing a long step slow."""
    return plain_label(text, wrap=len(text) > SHORT_TEXT or "\n" in text, **style)


def text_widget(text: str) -> QWidget:
    """Short prose as a wrapped label; long text, JSON or unbreakable words as a text box."""
    if not text:
        return plain_label("(empty)", muted=True, italic=True)
    mono = _looks_like_json(text)
    if mono or len(text) > BOX_TEXT or any(len(word) > LONG_WORD for word in text.split()):
        return text_box(text, mono)
    return label(text)


class Collapsible(QWidget):
    """A toggle button over a widget that starts hidden (a tool's schema), made when first asked for: an LLM call's
    tools section made a text box per tool that was rarely opened."""

    def __init__(self, title: str, make_body: Callable[[], QWidget], parent: QWidget | None = None):
        super().__init__(parent)
        self.button = QToolButton()
        self.button.setText(title)
        self.button.setCheckable(True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setArrowType(Qt.ArrowType.RightArrow)
        self.button.setAutoRaise(True)
        self._make_body = make_body
        self._body: QWidget | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(0)
        self._layout.addWidget(self.button)
        self.button.toggled.connect(self._toggled)

    @property
    def body(self) -> QWidget:
        if self._body is None:
            self._body = self._make_body()
            self._body.setVisible(False)
            self._layout.addWidget(self._body)
        return self._body

    def _toggled(self, open_: bool) -> None:
        self.button.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.body.setVisible(open_)


class InjectionTable(QWidget):
    """source · summary · why, and below it everything about the selected injection (its full content)."""

    def __init__(self, rows: list[dict], parent: QWidget | None = None):
        super().__init__(parent)
        self.rows = rows
        self.table = RowsTable([title for title, _ in INJECTION_COLUMNS])  # (no tooltips: the detail pane has it all)
        self.table.set_rows(len(rows), lambda r: [rows[r].get(key, "") for _title, key in INJECTION_COLUMNS])
        self.table.resizeColumnsToContents()
        self.table.setColumnWidth(0, min(self.table.columnWidth(0), 120))
        self.table.setColumnWidth(1, min(max(self.table.columnWidth(1), 160), 320))
        row_height = self.table.verticalHeader().defaultSectionSize()
        self.table.setFixedHeight(self.table.horizontalHeader().sizeHint().height()
                                  + row_height * min(len(rows), 8) + 6)
        self.detail = TraceTextBox()
        self.detail.box.setFixedHeight(int(self.detail.fontMetrics().lineSpacing() * 6 + 14))
        self.detail.setPlaceholderText("Select an injection to read all of it.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.table)
        layout.addWidget(self.detail)
        self.table.currentCellChanged.connect(lambda row, *_: self.show_row(row))
        if rows:
            self.table.setCurrentCell(0, 0)

    def show_row(self, row: int) -> None:
        if 0 <= row < len(self.rows):
            data = self.rows[row]
            lines = [f"{key}: {value}" for key, value in data.items() if key != "content"]
            if "content" in data:
                lines += ["", data["content"]]
            self.detail.setPlainText("\n".join(lines))


def bold(label: QLabel) -> QLabel:
    font = label.font()
    font.setBold(True)
    label.setFont(font)  # (a font, not a style sheet: style sheets make building the tab several times slower)
    return label


def _title(text: str) -> QLabel:
    title = bold(label(text))
    title.setContentsMargins(0, 6, 0, 0)
    title.setAccessibleName(text)
    return title


def _facts(rows: list[dict]) -> QWidget:
    box = QWidget()
    form = QFormLayout(box)
    form.setContentsMargins(8, 0, 0, 0)
    form.setHorizontalSpacing(10)
    form.setVerticalSpacing(2)
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
    for row in rows:
        value = id_field(row["id"], row.get("idName", "id")) if "id" in row else text_widget(row.get("value", ""))
        form.addRow(label(row.get("label", ""), muted=True), value)
    return box


class Conversation(QWidget):
    """Messages, each in a frame under its role. `kept(key)` gives the frame of an equal message drawn before, if
    one is kept: an LLM call's conversation repeats the one before it and adds a message or two."""

    def __init__(self, rows: list[dict], kept: Callable[[bytes], QFrame | None] = lambda _key: None):
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        layout.setSpacing(4)
        self.messages: list[tuple[bytes | None, QFrame]] = []
        for row in rows:
            key = _key_of(row)
            message = kept(key) if key is not None else None
            if message is None:
                message = _message(row)
            layout.addWidget(message)
            self.messages.append((key, message))


def _message(row: dict) -> QFrame:
    message = QFrame()
    message.setObjectName("message")
    message.setFrameShape(QFrame.Shape.StyledPanel)
    inner = QVBoxLayout(message)
    inner.setContentsMargins(6, 3, 6, 4)
    inner.setSpacing(1)
    inner.addWidget(bold(label(row.get("label", row.get("role", "")))))
    inner.addWidget(text_widget(row.get("text", "")))
    return message


def _tools(rows: list[dict]) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(8, 0, 0, 0)
    layout.setSpacing(2)
    for row in rows:
        layout.addWidget(bold(label(row.get("name", ""))))
        if row.get("description"):
            layout.addWidget(text_widget(row["description"]))
        if row.get("schema"):
            layout.addWidget(Collapsible("schema", lambda schema=row["schema"]: text_box(schema, mono=True)))
    return box


def _changes(rows: list[dict]) -> QWidget:
    return _facts([{"label": row.get("change", ""), "value": row.get("what", "")} for row in rows])


def _key_of(value: dict) -> bytes | None:
    """What makes two sections, or two messages, look the same (their JSON text, the theme aside), or None."""
    try:
        return orjson.dumps(value)
    except TypeError:  # (a value orjson cannot write: drawn anew each time)
        return None


def section_widget(section: dict, parent: QWidget,
                   kept_message: Callable[[bytes], QFrame | None] = lambda _key: None) -> QWidget:
    style = section.get("style", "text")
    if "text" in section:
        if style == "note":
            return plain_label(section["text"], muted=True, italic=True)
        widget = text_widget(section["text"])
        if style == "error":
            palette = widget.palette()
            colour = QColor(ERROR_COLOURS[is_dark(parent)])
            palette.setColor(QPalette.ColorRole.WindowText, colour)
            palette.setColor(QPalette.ColorRole.Text, colour)
            widget.setPalette(palette)
        return widget
    rows = section.get("rows", [])
    if style == "conversation":
        return Conversation(rows, kept_message)
    if style == "tools":
        return _tools(rows)
    if style == "injections":
        return InjectionTable(rows)
    if style == "changes":
        return _changes(rows)
    return _facts(rows)


class ReadableView(QScrollArea):
    """Renders one `inspect_node` model. Building the widgets is the slow part, so it happens
    once the event loop is free (a burst of selections draws only the last), a few sections at a time, and only
    while the tab is visible; a model equal to the one drawn keeps the widgets and the scroll position."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.model: dict | None = None      # the model to show
        self.drawn: dict | None = None      # the model the widgets show
        self.titles: list[str] = []
        self._body = QWidget()
        self.setWidget(self._body)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        # (each piece of it waits a pass after a pass of heavy work: scheduler.on_a_light_turn)
        self._timer.timeout.connect(lambda: scheduler.on_a_light_turn(self, lambda: self._draw(in_pieces=True)))
        self._pending: list[dict] = []  # sections still to add to the body shown, one per event-loop turn
        self._shown: list[tuple[bytes | None, QWidget, QWidget]] = []  # (key, title, widget) of the sections drawn
        # Sections of steps drawn before, kept for a step that shows the same (SPARE_SECTIONS at most): successive
        # LLM calls repeat their system prompt, tools and their injections. Kept under a widget never shown.
        self._spare: OrderedDict[bytes, tuple[QWidget, QWidget]] = OrderedDict()
        self._spare_messages: OrderedDict[bytes, QFrame] = OrderedDict()  # messages of conversations drawn before
        self._spare_holder = QWidget(self)
        self._spare_holder.setVisible(False)
        self._keep_scroll = 0
        self._piece_timer = QTimer(self)
        self._piece_timer.setSingleShot(True)
        self._piece_timer.setInterval(0)
        self._piece_timer.timeout.connect(lambda: scheduler.on_a_light_turn(self, self._add_piece))

    def set_theme(self, _theme: str) -> None:
        """Error text has a colour per theme: draw again, keeping none of the sections drawn before (those shown
        now included)."""
        self.drawn = None
        self._shown = []  # (freed with the body the next drawing replaces)
        self._drop_spare()
        self.show_model(self.model)

    def show_model(self, model: dict | None) -> None:
        self.model = model
        if model != self.drawn and self.isVisible():
            self._timer.start()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self.model != self.drawn:  # in pieces too: a tab brought forward must not hold the window either
            self._timer.start()

    def clear(self) -> None:
        """Nothing shown, at once (another run is shown: its step is drawn on the next turn, and until then the
        last run's step must not stand beside the new run's header)."""
        self._timer.stop()
        self._piece_timer.stop()
        self._pending = []
        self.model = self.drawn = None
        self.titles = []
        self._shown = []
        self._drop_spare()
        old = self.takeWidget()
        if old is not None:
            old.deleteLater()
        self._body = QWidget()
        self.setWidget(self._body)

    def flush(self) -> None:
        """Draw the model now, whole (if it differs from the one drawn)."""
        self._draw(in_pieces=False)

    def _draw(self, in_pieces: bool) -> None:
        """A new body for the model. `in_pieces` (when the event loop is free): the first sections now, the
        others one per event-loop turn, so a long step (a dozen messages, changes, injection tables: slow
        to lay out at once) never holds the window; the cursor's next move can come in between."""
        self._timer.stop()
        model = self.model
        if model == self.drawn:
            if not in_pieces:
                self._finish()
            return
        previous, self.drawn = self.drawn, model
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 2, 6, 6)
        layout.setSpacing(3)
        sections = list((model or {}).get("sections", []))
        self.titles = [section["title"] for section in sections]
        first, self._pending = sections[:FIRST_SECTIONS], sections[FIRST_SECTIONS:]
        self._keep_shown_as_spare()
        for section in first:
            self._add_section(layout, layout.count(), section)
        layout.addStretch(1)
        same_step = model is not None and previous is not None and previous.get("node") == model.get("node")
        self._keep_scroll = self.verticalScrollBar().value() if same_step else 0
        old = self.takeWidget()
        if old is not None:
            old.deleteLater()
        self._body = body
        self.setWidget(body)
        if in_pieces and self._pending:
            self._piece_timer.start()
        else:
            self._finish()

    def _add_piece(self) -> None:
        if not self._pending:
            return
        section = self._pending.pop(0)
        layout = self._body.layout()
        self._add_section(layout, layout.count() - 1, section)  # (before the stretch)
        if self._pending:
            self._piece_timer.start()
        else:
            self.verticalScrollBar().setValue(self._keep_scroll)

    def _add_section(self, layout: QVBoxLayout, at: int, section: dict) -> None:
        """The section's title and widget at `at` in the body's layout: those of an equal section drawn before
        when they are kept, else new ones."""
        # (A conversation is kept a message at a time, not whole: the next call's adds to it.)
        key = _key_of(section) if section.get("style") != "conversation" else None
        kept = self._spare.pop(key, None) if key is not None else None
        if kept is None:
            kept = _title(section["title"]), section_widget(section, self, self._kept_message)
        title, widget = kept
        layout.insertWidget(at, title)
        layout.insertWidget(at + 1, widget)
        self._shown.append((key, title, widget))

    def _kept_message(self, key: bytes) -> QFrame | None:
        return self._spare_messages.pop(key, None)

    def _keep_shown_as_spare(self) -> None:
        """The sections drawn, out of the body about to be replaced, kept for the steps that follow."""
        for key, title, widget in self._shown:
            for message_key, message in getattr(widget, "messages", ()):
                if message_key is not None and message_key not in self._spare_messages:
                    message.setParent(self._spare_holder)
                    self._spare_messages[message_key] = message
            if key is None or key in self._spare:
                continue
            title.setParent(self._spare_holder)
            widget.setParent(self._spare_holder)
            self._spare[key] = (title, widget)
        self._shown = []
        while len(self._spare) > SPARE_SECTIONS:
            _key, (title, widget) = self._spare.popitem(last=False)
            title.deleteLater()
            widget.deleteLater()
        while len(self._spare_messages) > SPARE_MESSAGES:
            self._spare_messages.popitem(last=False)[1].deleteLater()

    def _drop_spare(self) -> None:
        for title, widget in self._spare.values():
            title.deleteLater()
            widget.deleteLater()
        for message in self._spare_messages.values():
            message.deleteLater()
        self._spare.clear()
        self._spare_messages.clear()

    def _finish(self) -> None:
        """Every section of the model drawn now."""
        self._piece_timer.stop()
        while self._pending:
            self._add_piece()
        self.verticalScrollBar().setValue(self._keep_scroll)

    def copy_buttons(self) -> list[CopyIdButton]:
        """The id copy buttons of the model drawn, in order."""
        self.flush()
        return self.widget().findChildren(CopyIdButton)

    def section_texts(self) -> dict[str, str]:
        """Title → the text shown under it (tests and accessibility)."""
        out: dict[str, str] = {}
        for section in (self.model or {}).get("sections", []):
            if "text" in section:
                out[section["title"]] = section["text"]
            else:
                out[section["title"]] = "\n".join(" · ".join(value for key, value in row.items() if key not in ID_KEYS)
                                                  for row in section["rows"])
        return out
