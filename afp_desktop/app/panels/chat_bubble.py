"""The chat-bubble preview: the run drawn as the conversation a user saw — their prompt, the assistant's
"thinking" bubble with the status line at the cursor (§6), and the answer once the run has produced it.

Every piece of trace text goes through plain-text labels: a prompt or answer holding markup is shown as typed.
"""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.panels.stop_lines import StopLines
from afp_desktop.app.widgets.plain_text import TOOLTIP_CHARS, plain_label, plain_tooltip
from afp_desktop.app.panels.run_end_words import TONE, bubble_words


USER_FILL, USER_TEXT = "#2f62d0", "#ffffff"
STATUS_FILL, STATUS_TEXT = "#eef0f4", "#1b2030"
ANSWER_FILL, ANSWER_TEXT = "#e4f5ea", "#14482a"
MUTED = "#5f6675"
SEEN_LINES_SHOWN = 12  # a long stop lists its first lines and its last two; the tooltip has them all
# A line longer than this is listed with its middle cut (a streaming line is the whole answer so far: its start
# and its newest words are what tell lines apart): laying out a dozen long wrapped lines would be most of a
# cursor move on a streaming run. The tooltip has every line whole.
SEEN_LINE_CHARS = 240
SEEN_LINE_HEAD = 80
# Colours per theme: (fill, text) of each bubble, the chat background, muted text, the Trace note.
COLOURS = {
    "light": {"user": (USER_FILL, USER_TEXT), "status": (STATUS_FILL, STATUS_TEXT),
              "answer": (ANSWER_FILL, ANSWER_TEXT), "background": "#ffffff", "muted": MUTED,
              "note": ("#fff3dc", "#6b4300"), "error": ("#fde8e8", "#8a1c1c"), "seen": ("#f6f7f9", "#30384a"),
              "thinking": ("#f3effa", "#3f2f66"), "ended": ("#eef0f4", "#1b2030")},
    "dark": {"user": ("#3b6fe0", "#ffffff"), "status": ("#2c313c", "#e6e9ef"),
             "answer": ("#1f3d2b", "#cdeed8"), "background": "#1b1e24", "muted": "#a0a8b8",
             "note": ("#3a2c10", "#f1d7a4"), "error": ("#4a1d1d", "#ffd2d2"), "seen": ("#23272f", "#d5dae3"),
             "thinking": ("#2d2640", "#ddd3f5"), "ended": ("#2c313c", "#e6e9ef")},
}

THINKING_SHOWN = 4000  # the newest characters of a long reasoning (the tooltip has it whole)
LLM_CALL_KINDS = ("user->llm", "tool->llm")


def latest_llm_call(moment) -> int | None:
    """The node of the latest LLM call started at the moment (None: none yet)."""
    facts = moment.facts
    for index in range(facts.nodes_started(moment.n_domain) - 1, -1, -1):
        if facts.nodes[index].get("kind") in LLM_CALL_KINDS:
            return index
    return None


HIDDEN_NOTE = "No status bubble at this moment (the agent is between calls or done)."
TRACE_NOTE = ("This file is a Trace: it has no typed event stream, so tokens, progress reports and pauses are "
              "not in the file. The bubble below is derived from LLM and tool starts and ends only.")


def _joined(lines) -> str:
    """The lines one per row, as far as a tooltip shows them (a long answer streamed token by token is thousands
    of lines, each the whole answer so far: joining all of them would be gigabytes)."""
    rows, size = [], 0
    for count, line in enumerate(lines):
        if size > TOOLTIP_CHARS:
            rows.append(f"… {len(lines) - count:,} more lines")
            break
        rows.append(line)
        size += len(line) + 1
    return "\n".join(rows)


def _cut_middle(line: str) -> str:
    """`line`, or its first SEEN_LINE_HEAD and last characters with " … " between, SEEN_LINE_CHARS in all."""
    if len(line) <= SEEN_LINE_CHARS:
        return line
    return f"{line[:SEEN_LINE_HEAD]} … {line[-(SEEN_LINE_CHARS - SEEN_LINE_HEAD):]}"


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
        if text == self.label.text():  # scrubbing: an unchanged bubble costs no new text layout
            return
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


class _SteadyColumn(QWidget):
    """The conversation's column, whose height only grows while one run is shown at one width.

    A cursor move changes the seen lines and the bubbles, so a column fitted to them would change height at
    almost every step, and a column that crosses the scroll area's height brings the scroll bar in or out: every
    row rewraps to the new width and the whole chat is repainted. The
    column keeps the tallest height its rows have needed, so the scroll bar comes once and stays and nothing
    jumps while one scrubs; `settle()` lets it shrink (a new run, a new panel width). It is opaque and keeps its
    static contents: a move repaints the rows that changed, not the column and the viewport beneath it."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("chat")
        self.setAutoFillBackground(True)
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents)

    def set_background(self, colour: str) -> None:
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor(colour))
        self.setPalette(palette)

    def keep_height(self) -> None:
        """Grow to what the rows need now at this width; never shrink."""
        layout = self.layout()
        needed = (layout.totalHeightForWidth(self.width()) if layout.hasHeightForWidth()
                  else layout.totalSizeHint().height())
        if needed > self.minimumHeight():
            self.setMinimumHeight(needed)

    def settle(self) -> None:
        self.setMinimumHeight(0)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.keep_height()
        return super().event(event)


class ChatBubblePanel(QWidget, PanelDefaults):
    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.view = None  # the Bubble of the moment shown (afp_desktop.core.model.replay.Bubble)
        self.shown_moment = None

        self.trace_note = plain_label(TRACE_NOTE, colour="#7a4b00")
        self.empty_note = plain_label("Open a run to see its chat.", colour=MUTED, italic=True)
        self.user_row = _Row(Bubble(USER_FILL, USER_TEXT), right=True)
        self.answer_row = _Row(Bubble(ANSWER_FILL, ANSWER_TEXT), right=False)
        self.status_row = _Row(Bubble(STATUS_FILL, STATUS_TEXT), right=False)
        self.hidden_note = plain_label(HIDDEN_NOTE, colour=MUTED, italic=True)
        self.error_note = plain_label()
        self.error_note.setObjectName("bubbleError")
        self.pause_note = plain_label()  # the question of a pause: the library's line says only its generic reason
        self.pause_note.setObjectName("bubblePause")
        self._pauses: list = []
        self.end_note = plain_label()  # how the run ended, once it has at the cursor (app/run_end_words.py)
        self.end_note.setObjectName("bubbleEnd")
        self.end_note.setWordWrap(True)
        self._end_tone: str | None = None
        self.thinking_row = _Row(Bubble(*COLOURS["light"]["thinking"]), right=False)  # the model's reasoning
        self._thinking_of = None  # the run whose reasoning chunks are kept in _thinking (notes, their positions)
        self._thinking: tuple | None = None
        self.seen_lines = StopLines()  # the title "During …, the chat user saw …" and the lines
        self.seen_lines.setObjectName("seenLines")

        content = _SteadyColumn()
        self._content = content
        column = QVBoxLayout(content)
        column.setContentsMargins(12, 12, 12, 12)
        column.setSpacing(10)
        for widget in (self.trace_note, self.empty_note, self.user_row, self.thinking_row, self.answer_row,
                       self.status_row, self.hidden_note, self.pause_note, self.error_note, self.end_note,
                       self.seen_lines):
            column.addWidget(widget)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        # Opaque scroll bars: the content's height changes with almost every step, and a scroll bar that let the
        # window show through had the dock and the main window under it repainted each time.
        for bar in (scroll.verticalScrollBar(), scroll.horizontalScrollBar()):
            bar.setAutoFillBackground(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)

        self.set_theme("light")
        if session.moment is not None:
            self.moment(session.moment)
        else:
            self.refresh()

    def set_theme(self, theme: str) -> None:
        """Recolour the conversation for "light" or "dark" (the window calls this when the theme changes)."""
        colours = COLOURS.get(theme, COLOURS["light"])
        self.theme = theme
        self._content.set_background(colours["background"])
        for row, key in ((self.user_row, "user"), (self.answer_row, "answer"), (self.status_row, "status"),
                         (self.thinking_row, "thinking")):
            row.bubble.set_colours(*colours[key])
        muted = colours["muted"]
        for row in (self.user_row, self.answer_row, self.status_row, self.thinking_row):
            row.caption.setStyleSheet(f"color: {muted};")
        self.hidden_note.setStyleSheet(f"color: {muted}; font-style: italic; padding: 4px 2px;")
        self.empty_note.setStyleSheet(f"color: {muted}; font-style: italic;")
        error_fill, error_text = colours["error"]
        self.error_note.setStyleSheet(f"color: {error_text}; background: {error_fill}; border-radius: 6px; "
                                      "padding: 6px;")
        seen_fill, seen_text = colours["seen"]
        self.seen_lines.set_colours(seen_fill, seen_text)
        note_fill, note_text = colours["note"]
        self.pause_note.setStyleSheet(f"color: {note_text}; background: {note_fill}; border-radius: 6px; "
                                      "padding: 6px;")
        self.trace_note.setStyleSheet(f"color: {note_text}; background: {note_fill}; border-radius: 6px; "
                                      "padding: 6px;")
        self._end_colours = {"bad": colours["error"], "note": colours["note"], "done": colours["ended"]}
        if self._end_tone is not None:
            self._colour_end(self._end_tone)
        self.pause_note.setStyleSheet(f"color: {note_text}; background: {note_fill}; border-radius: 6px; "
                                      "padding: 6px;")

    # -- what tests and other code can read -------------------------------------------------------------
    @property
    def status_label(self) -> QLabel:
        return self.status_row.bubble.label

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != self.width():
            self._settle()  # the rows wrap anew: what they need is measured again
        widest = max(120, int(self.width() * 0.8))
        for row in (self.user_row, self.answer_row, self.status_row, self.thinking_row):
            row.bubble.setMaximumWidth(widest)
            row.bubble.fit()

    def _settle(self) -> None:
        """Let the chat shrink to what it shows (while one scrubs a run, it only grows: nothing jumps)."""
        self.seen_lines.settle()
        self._content.settle()

    def status_text(self) -> str | None:
        """The status line the bubble shows, or None when no status bubble is shown."""
        return self.status_label.text() if self.status_row.isVisibleTo(self) else None

    # -- the panel's calls (app/panels/panel.py) ----------------------------------------------------------
    def run_loaded(self, run) -> None:
        self.shown_moment = None
        self._settle()

    def run_closed(self) -> None:
        self.shown_moment = None
        self._thinking_of = self._thinking = None  # (nothing of a closed run is kept: it is freed)
        self._settle()
        self.refresh()

    def moment(self, moment) -> None:
        """Render the bubble of `moment` (every moment the session publishes)."""
        self.shown_moment = moment
        self.refresh()

    def refresh(self) -> None:
        session = self.session
        moment = self.shown_moment
        if moment is None or session.run is None:
            self.view = None
            for widget in (self.trace_note, self.user_row, self.answer_row, self.status_row, self.hidden_note,
                           self.error_note, self.pause_note, self.seen_lines, self.end_note, self.thinking_row):
                widget.setVisible(False)
            self.empty_note.setVisible(True)
            return
        self.empty_note.setVisible(False)
        view = self.view = moment.bubble
        self.trace_note.setVisible(view.derived)

        self.user_row.setVisible(view.user is not None)
        if view.user is not None:
            self.user_row.bubble.set_text(view.user)
            self.user_row.caption.setText("You")

        self.answer_row.setVisible(view.answer is not None)
        if view.answer is not None:
            self.answer_row.bubble.set_text(view.answer if view.answer else "(an empty answer)")
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
        self._show_pause(view, moment)
        self.error_note.setVisible(view.error is not None)
        if view.error is not None:
            failed = any(error.kind in ("fatal", "run") for error in moment.errors)
            self.error_note.setText(("⚠ The run failed: " if failed else "⚠ ") + view.error)
        self._show_thinking(moment)
        self._show_seen(moment)

    def show_end(self, end) -> None:
        """How the run ended as known at the cursor (a RunEnd; None: running), said under the conversation
        (app/run_facts_header.py tells it after each moment). A failure the error note already tells, and a pause
        whose question is shown, are not said twice."""
        said = end is not None and self.shown_moment is not None \
            and not (end.reason == "paused" and self.pause_note.isVisibleTo(self)) \
            and not (end.reason == "failed" and self.error_note.isVisibleTo(self))
        self.end_note.setVisible(said)
        if said:
            self.end_note.setText(bubble_words(end))
            self._colour_end(TONE.get(end.reason, "note"))

    def _colour_end(self, tone: str) -> None:
        self._end_tone = tone
        fill, text = self._end_colours.get(tone, self._end_colours["note"])
        self.end_note.setStyleSheet(f"color: {text}; background: {fill}; border-radius: 6px; padding: 6px;")

    def _show_thinking(self, moment) -> None:
        """The model's reasoning (stream.thinking_delta) for the latest LLM call started at the cursor, beside
        its answer: as much of it as had arrived by then, as tokens are."""
        run = self.session.run
        if self._thinking_of is not run:
            from afp_desktop.core.views.run_facts import facts_of_run

            notes = facts_of_run(run).thinking
            self._thinking_of, self._thinking = run, (notes, [note.position for note in notes])
        notes, positions = self._thinking
        known = bisect_right(positions, moment.position)
        call = latest_llm_call(moment)
        chunks = []
        for note in reversed(notes[:known]):
            if note.node != call:
                break
            chunks.append(note)
        chunks.reverse()
        self.thinking_row.setVisible(bool(chunks))
        if not chunks:
            return
        text = "".join(c.payload["content"] for c in chunks if isinstance(c.payload.get("content"), str))
        shown = text if len(text) <= THINKING_SHOWN else "… " + text[-THINKING_SHOWN:]
        self.thinking_row.bubble.set_text(shown or "(no text)")
        self.thinking_row.bubble.setToolTip(plain_tooltip(text) if len(text) > THINKING_SHOWN else "")
        self.thinking_row.caption.setText(f"{self.session.app_name} · thinking (streamed: {len(chunks):,} "
                                          f"chunk{'s' if len(chunks) != 1 else ''}, {len(text):,} characters so "
                                          "far)")

    def _show_pause(self, view, moment) -> None:
        """Paused: the question the run waits on (from the pause event), under the library's own line."""
        from afp_desktop.core.views.pause_marks import pause_at, pause_marks

        run = self.session.run
        paused = view.state is not None and view.state.get("state") == "paused"
        if paused and run is not None and getattr(self, "_pauses_of", None) is not run:
            self._pauses_of, self._pauses = run, pause_marks(run)
        mark = pause_at(self._pauses, moment.position) if paused else None
        self.pause_note.setVisible(mark is not None)
        if mark is not None:
            self.pause_note.setText(f"⏸ The question: {mark.question}")

    def _show_seen(self, moment) -> None:
        """The lines the chat user saw during the stop the cursor is in: stepping stop by stop previews every
        template the run uses, even where the bubble is gone by the time the stop is reached."""
        lines = moment.bubble.stop_lines
        span = moment.stop
        self.seen_lines.setVisible(span is not None)
        if span is None:
            return
        if lines.pending:  # (a long stop, its lines listed beside the window: app/loading/span_lines.py)
            self.seen_lines.set_rows([], title=f"During {span.label}: listing the lines the chat showed (a long "
                                               "stop; they follow in a moment)…")
            return
        if not lines:
            self.seen_lines.set_rows([], title=f"During {span.label}, the chat showed no status line.")
            return
        where = span.label if moment.at_stop else f"{span.label} (so far)"
        hidden = max(0, len(lines) - SEEN_LINES_SHOWN + 1) if len(lines) > SEEN_LINES_SHOWN else 0
        head, tail = (lines[:SEEN_LINES_SHOWN - 3], lines[-2:]) if hidden else (lines, [])
        long_lines = any(len(line) > SEEN_LINE_CHARS for line in (*head, *tail))
        hint = " (long ones cut in the middle; hover for them whole)" if long_lines else ""

        def listed(shown) -> list[str]:
            rows = [f"• {shown(line)}" for line in head]
            return rows + [f"… {hidden:,} more …", *(f"• {shown(line)}" for line in tail)] if hidden else rows

        self.seen_lines.set_rows(listed(_cut_middle), listed(str), tip=lambda: plain_tooltip(_joined(lines)),
                                 cut=bool(hidden or long_lines),
                                 title=f"During {where}, the chat user saw {len(lines)} line(s){hint}:")

    @staticmethod
    def _caption(view) -> str:
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
