"""The chat-bubble preview: the run drawn as the conversation a user saw — their prompt, the assistant's
"thinking" bubble with the status line at the cursor (§6), and the answer once the run has produced it.

Every piece of trace text goes through plain-text labels: a prompt or answer holding markup is shown as typed.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from afp_desktop.app.visible_text import visible_text
from afp_desktop.core.bubble import BubbleModel, BubbleView

USER_FILL, USER_TEXT = "#2f62d0", "#ffffff"
STATUS_FILL, STATUS_TEXT = "#eef0f4", "#1b2030"
ANSWER_FILL, ANSWER_TEXT = "#e4f5ea", "#14482a"
MUTED = "#5f6675"
# Colours per theme: (fill, text) of each bubble, the chat background, muted text, the Trace note.
COLOURS = {
    "light": {"user": (USER_FILL, USER_TEXT), "status": (STATUS_FILL, STATUS_TEXT),
              "answer": (ANSWER_FILL, ANSWER_TEXT), "background": "#ffffff", "muted": MUTED,
              "note": ("#fff3dc", "#6b4300")},
    "dark": {"user": ("#3b6fe0", "#ffffff"), "status": ("#2c313c", "#e6e9ef"),
             "answer": ("#1f3d2b", "#cdeed8"), "background": "#1b1e24", "muted": "#a0a8b8",
             "note": ("#3a2c10", "#f1d7a4")},
}

HIDDEN_NOTE = "No status bubble at this moment (the agent is between calls or done)."
TRACE_NOTE = ("This file is a Trace: it has no typed event stream, so tokens, progress reports and pauses are "
              "not in the file. The bubble below is derived from LLM and tool starts and ends only.")


class PlainLabel(QLabel):
    """A QLabel whose setText shows trace text safely: see app/visible_text.py."""

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(visible_text(text))


def plain_label(text: str = "", *, wrap: bool = True, colour: str | None = None, italic: bool = False,
                muted: bool = False) -> QLabel:
    """A label that never interprets its text as rich text (and shows bidi controls and lone surrogates visibly,
    app/visible_text.py). `muted` greys it with the theme's palette."""
    label = PlainLabel()
    if muted:
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    style = []
    if colour:
        style.append(f"color: {colour};")
    if italic:
        style.append("font-style: italic;")
    if style:
        label.setStyleSheet(" ".join(style))
    label.setText(text)
    return label


class Bubble(QFrame):
    """A rounded chat bubble holding one plain-text label."""

    def __init__(self, fill: str, text_colour: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("bubble")
        self.set_colours(fill, text_colour)
        self.label = plain_label()
        self.label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 9, 14, 9)
        layout.addWidget(self.label)

    def set_colours(self, fill: str, text_colour: str) -> None:
        self.setStyleSheet(f"QFrame#bubble {{ background: {fill}; border-radius: 14px; }}"
                           f"QFrame#bubble QLabel {{ color: {text_colour}; background: transparent; }}")

    def set_text(self, text: str) -> None:
        self.label.setText(text)
        self.fit()

    def fit(self) -> None:
        """Hug the text: as wide as its longest line, wrapping only beyond the widest allowed bubble.
        (A word-wrapped QLabel alone picks an arbitrary narrow width.)"""
        margins = self.layout().contentsMargins()
        widest = self.maximumWidth() - margins.left() - margins.right()
        metrics = self.label.fontMetrics()
        lines = self.label.text()[:20_000].split("\n")
        natural = max((metrics.horizontalAdvance(line) for line in lines), default=0) + 4
        self.label.setFixedWidth(max(8, min(natural, widest)))


class _Row(QWidget):
    """A bubble with a small caption, pushed to the right (the user) or the left (the assistant)."""

    def __init__(self, bubble: Bubble, right: bool):
        super().__init__()
        self.bubble = bubble
        self.caption = plain_label(colour=MUTED)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft)
        # The bubble hugs its text (Maximum policy) up to a share of the panel width set in resizeEvent.
        bubble.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        if right:
            row.addStretch(1)
        row.addWidget(bubble)
        if not right:
            row.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(self.caption)


class ChatBubblePanel(QWidget):
    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.model: BubbleModel | None = None
        self.view: BubbleView | None = None

        self.trace_note = plain_label(TRACE_NOTE, colour="#7a4b00")
        self.empty_note = plain_label("Open a run to see its chat.", colour=MUTED, italic=True)
        self.user_row = _Row(Bubble(USER_FILL, USER_TEXT), right=True)
        self.answer_row = _Row(Bubble(ANSWER_FILL, ANSWER_TEXT), right=False)
        self.status_row = _Row(Bubble(STATUS_FILL, STATUS_TEXT), right=False)
        self.hidden_note = plain_label(HIDDEN_NOTE, colour=MUTED, italic=True)

        content = QWidget()
        content.setObjectName("chat")
        self._content = content
        column = QVBoxLayout(content)
        column.setContentsMargins(12, 12, 12, 12)
        column.setSpacing(10)
        for widget in (self.trace_note, self.empty_note, self.user_row, self.answer_row, self.status_row,
                       self.hidden_note):
            column.addWidget(widget)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)

        self.set_theme("light")
        session.run_loaded.connect(self._on_run_loaded)
        session.run_closed.connect(self._on_run_closed)
        session.cursor_moved.connect(lambda _view: self.refresh())
        session.templates_changed.connect(self.refresh)
        if session.run is not None:
            self._on_run_loaded(session.run)
        else:
            self.refresh()

    def set_theme(self, theme: str) -> None:
        """Recolour the conversation for "light" or "dark" (the window calls this when the theme changes)."""
        colours = COLOURS.get(theme, COLOURS["light"])
        self.theme = theme
        self._content.setStyleSheet(f"QWidget#chat {{ background: {colours['background']}; }}")
        for row, key in ((self.user_row, "user"), (self.answer_row, "answer"), (self.status_row, "status")):
            row.bubble.set_colours(*colours[key])
        muted = colours["muted"]
        for row in (self.user_row, self.answer_row, self.status_row):
            row.caption.setStyleSheet(f"color: {muted};")
        self.hidden_note.setStyleSheet(f"color: {muted}; font-style: italic; padding: 4px 2px;")
        self.empty_note.setStyleSheet(f"color: {muted}; font-style: italic;")
        note_fill, note_text = colours["note"]
        self.trace_note.setStyleSheet(f"color: {note_text}; background: {note_fill}; border-radius: 6px; "
                                      "padding: 6px;")

    # -- what tests and other code can read -------------------------------------------------------------
    @property
    def status_label(self) -> QLabel:
        return self.status_row.bubble.label

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        widest = max(120, int(self.width() * 0.8))
        for row in (self.user_row, self.answer_row, self.status_row):
            row.bubble.setMaximumWidth(widest)
            row.bubble.fit()

    def status_text(self) -> str | None:
        """The status line the bubble shows, or None when no status bubble is shown."""
        return self.status_label.text() if self.status_row.isVisibleTo(self) else None

    # -- following the session --------------------------------------------------------------------------
    def _on_run_loaded(self, run) -> None:
        self.model = BubbleModel(run)
        self.refresh()

    def _on_run_closed(self) -> None:
        self.model = None
        self.refresh()

    def refresh(self) -> None:
        session = self.session
        if self.model is None or session.run is None or session.view is None:
            self.view = None
            for widget in (self.trace_note, self.user_row, self.answer_row, self.status_row, self.hidden_note):
                widget.setVisible(False)
            self.empty_note.setVisible(True)
            return
        self.empty_note.setVisible(False)
        view = self.view = self.model.at(session.view.position, session.templates, session.app_name)
        self.trace_note.setVisible(view.derived)

        self.user_row.setVisible(view.prompt is not None)
        if view.prompt is not None:
            self.user_row.bubble.set_text(view.prompt)
            self.user_row.caption.setText("You")

        self.answer_row.setVisible(view.answer is not None)
        if view.answer is not None:
            self.answer_row.bubble.set_text(view.answer)
            self.answer_row.caption.setText(f"{session.app_name} · answer ({view.answer_source})")

        showing = view.line is not None
        self.status_row.setVisible(showing)
        if showing:
            self.status_row.bubble.set_text(view.line)
            self.status_row.caption.setText(f"{session.app_name} · {self._caption(view)}")
        self.hidden_note.setVisible(not showing)
        if not showing:
            self.hidden_note.setText(HIDDEN_NOTE if view.hidden else
                                     f"The {view.state.get('state')} state has no template in the active map "
                                     "(every key on its ladder was deleted), so the bubble shows nothing.")

    @staticmethod
    def _caption(view: BubbleView) -> str:
        state = view.state
        parts = [state.get("state", "?") + (" (derived from the Trace)" if view.derived else ""),
                 f"template {view.template_key}"]
        variables = state.get("vars") or {}
        if state.get("state") == "streaming":
            parts.append(f"{len(variables.get('partial', ''))} characters so far")
        if "toolCallId" in variables:
            parts.append(f"call {variables['toolCallId']}")
        if "progressCount" in variables:
            parts.append(f"{variables['progressCount']} progress report(s)")
        if view.line == "":
            parts.append("the template renders an empty line")
        return " · ".join(str(part) for part in parts)
