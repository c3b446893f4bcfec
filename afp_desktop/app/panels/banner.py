"""The two strips above the graph: the banner (what this file cannot show, load problems, settings trouble) and
the summary (who ran, which models, how many calls and tokens, how long, how many errors).

Everything here may come from a trace, so every label is plain text: a tool result reading "<b>" stays "<b>".
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QToolButton, QVBoxLayout, QWidget,
)

from afp_desktop.app.panels.notice_words import BannerMessage, by_severity, message_for
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.app.look.theme import ERROR_TEXT, NOTE_TEXT, is_dark_palette
from afp_desktop.core.model.summary import RunSummary

FINDING_TEXT = ("#6a32a8", "#c9a6ff")  # the findings count (light, dark): the findings' purple, readable as text
LEVEL_MARK = {"error": "✖", "warning": "⚠", "info": "ℹ"}
LEVEL_STYLE = {  # (light background, light border, dark background, dark border)
    "error": ("#fde7e7", "#d33a3a", "#4a1f1f", "#e06464"),
    "warning": ("#fff4d6", "#d9a400", "#43381a", "#d9a400"),
    "info": ("#e8f0fe", "#7d9ad8", "#1f2c46", "#6f9bff"),
}


def plain_label(text: str = "", wrap: bool = False) -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ElidedLabel(QLabel):
    """One line of plain text ending in "…" when it is narrower than its text; `full_text` is the whole."""

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._full = ""
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        self._full = text
        self.updateGeometry()
        self._elide()

    def full_text(self) -> str:
        return self._full

    def sizeHint(self) -> QSize:  # noqa: N802
        metrics = self.fontMetrics()
        return QSize(metrics.horizontalAdvance(self._full) + 4, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(min(self.sizeHint().width(), self.fontMetrics().horizontalAdvance("M…") * 3),
                     super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(self.width(), 1))
        if shown != super().text():
            super().setText(shown)


class BannerLine(QFrame):
    """One message: a mark, the plain sentence (elided to one line), "Details" when there is more to say (the
    exact text appears under it, and is the sentence's tooltip), and ✕ to dismiss it."""

    dismissed = Signal(object)  # the message it says now
    action_asked = Signal(object)  # the message whose action button was clicked

    def __init__(self, message: BannerMessage, dark: bool, parent: QWidget | None = None):
        super().__init__(parent)
        self.level = message.level
        self.setObjectName("bannerLine")
        light_bg, light_border, dark_bg, dark_border = LEVEL_STYLE.get(message.level, LEVEL_STYLE["info"])
        background, border = (dark_bg, dark_border) if dark else (light_bg, light_border)
        self.setStyleSheet(f"#bannerLine {{ background: {background}; border-left: 4px solid {border}; }}")
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 2, 4, 2)
        column.setSpacing(0)
        row = QHBoxLayout()
        row.setSpacing(6)
        column.addLayout(row)  # first, so every widget added below is a child (never a window of its own)
        mark = QLabel(LEVEL_MARK.get(message.level, "ℹ"))
        mark.setStyleSheet(f"color: {border}; font-weight: bold;")
        row.addWidget(mark)
        self.label = ElidedLabel()
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.label, 1)
        self.details_button = _small_button("Details", "Show what exactly the file says")
        self.details_button.setCheckable(True)
        row.addWidget(self.details_button)
        self.action_button = _small_button("", "")
        self.action_button.clicked.connect(lambda: self.action_asked.emit(self.message))
        row.addWidget(self.action_button)
        self.more_button = _small_button("", "Show every message")  # the first line's; BannerRow sets it
        row.addWidget(self.more_button)
        self.more_button.setVisible(False)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        close.clicked.connect(self.dismiss)
        row.addWidget(close)
        self.detail = plain_label(wrap=True)
        self.detail.setContentsMargins(22, 0, 0, 2)
        column.addWidget(self.detail)
        self.detail.setVisible(False)
        self.details_button.toggled.connect(self.detail.setVisible)
        self.say(message)

    def dismiss(self) -> None:
        self.dismissed.emit(self.message)

    def say(self, message: BannerMessage) -> None:
        """Show `message`, of this line's level, in place (its Details stay open if they are)."""
        self.message, self.text = message, message.detail
        self.label.setText(message.sentence)
        self.label.setToolTip(plain_tooltip(message.detail) if message.has_detail else "")
        self.detail.setText(message.detail)
        if not message.has_detail:
            self.details_button.setChecked(False)
        self.details_button.setVisible(message.has_detail)
        self.action_button.setText(message.action or "")
        self.action_button.setVisible(message.action is not None)


def _small_button(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button


class BannerRow(QWidget):
    """The messages above the graph, most severe first, collapsed to one line with "+N more" that expands
    them. A message with a code replaces an earlier one with the same code (a second failed open replaces
    the first). Each line is dismissable; the row hides when empty. A message's action button: action_asked."""

    action_asked = Signal(object)  # the BannerMessage whose action was clicked

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.dark = False
        self.expanded = False
        self._messages: list[BannerMessage] = []
        self._dismissed_codes: set[str] = set()
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(1)
        self.setVisible(False)

    @property
    def lines(self) -> list[BannerLine]:
        """Every line, most severe first (the collapsed row shows only the first; the others are made when first
        asked for, or shown)."""
        if len(self._made) < len(self._messages):
            self._rebuild(made_at_least=len(self._messages))
        return self._made

    @property
    def _made(self) -> list[BannerLine]:
        return [self._layout.itemAt(i).widget() for i in range(self._layout.count())]

    @property
    def texts(self) -> list[str]:
        """The messages' exact texts, in the order they were given."""
        return [m.detail for m in self._messages]

    @property
    def sentences(self) -> list[str]:
        return [message.sentence for message in by_severity(self._messages)]

    def set_messages(self, messages) -> None:
        """messages: BannerMessage, or (text, level) with level 'error' | 'warning' | 'info'. The same list again
        (a followed run that grew) changes nothing: no rebuild, and dismissed lines stay dismissed."""
        if list(messages) == getattr(self, "_given", None):
            return
        self._given = list(messages)
        self._dismissed_codes: set[str] = set()
        self._messages = [m if isinstance(m, BannerMessage) else message_for(None, *m) for m in messages]
        self._rebuild()

    def add_message(self, message, level: str = "warning") -> None:
        """Add a message (a BannerMessage or a text) on top; one with a code replaces its earlier self."""
        if not isinstance(message, BannerMessage):
            message = message_for(None, message, level)
        if message.code is not None:
            self._messages = [m for m in self._messages if m.code != message.code]
        self._messages.insert(0, message)
        self._rebuild()

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        if expanded and len(self._made) < len(self._messages):
            self._rebuild()
        self._show_lines()

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self._rebuild(keep=False)  # (a line's colours are set when it is made)

    def _rebuild(self, keep: bool = True, made_at_least: int = 0) -> None:
        """One line per message, most severe first. A line of the same level and code as one shown is kept and says
        its message's words (`keep`): each line made anew is a set of widgets to build and lay out, and a big file's
        load changes the lines' words often. Collapsed, only the first line is made (and those made already): the
        others wait until they are shown, so they cost nothing in the window's turn until then."""
        lines, ordered = self._made, by_severity(self._messages)
        wanted = len(ordered) if self.expanded else min(len(ordered), 1)
        ordered = ordered[:max(wanted, made_at_least, min(len(lines), len(ordered)))]
        if keep and [(m.level, m.code) for m in ordered] == [(line.level, line.message.code) for line in lines]:
            # Only the words changed (a run read further: "its first 16,000 events are shown"): the layout is left
            # alone. Made anew, the lines would lay the window out again and the graph would be drawn whole again.
            for line, message in zip(lines, ordered):
                line.say(message)
            self._show_lines()  # (the lines not made yet may have changed in number: "+N more")
            return
        spare: dict[tuple, list[BannerLine]] = {}
        while self._layout.count():
            line = self._layout.takeAt(0).widget()
            spare.setdefault((line.level, line.message.code) if keep else None, []).append(line)
        for message in ordered:
            kept = spare.get((message.level, message.code))
            if kept:
                line = kept.pop(0)
                line.say(message)
            else:
                line = BannerLine(message, self.dark)
                line.dismissed.connect(self._dismiss)
                line.action_asked.connect(self.action_asked)
                line.more_button.clicked.connect(lambda: self.set_expanded(not self.expanded))  # (the first's shows)
            self._layout.addWidget(line)
        for line in (line for left in spare.values() for line in left):
            line.setParent(None)
            line.deleteLater()
        self._show_lines()
        self.setVisible(bool(self._messages))

    def _show_lines(self) -> None:
        lines, count = self._made, len(self._messages)
        for i, line in enumerate(lines):
            line.setVisible(i == 0 or self.expanded)
            line.more_button.setVisible(i == 0 and count > 1)
        if lines:
            lines[0].more_button.setText("Show less" if self.expanded else f"+{count - 1} more")

    def shows(self, code: str) -> bool:
        """A message with this code is in the banner (shown, or under "+N more")."""
        return any(m.code == code for m in self._messages)

    def was_dismissed(self, code: str) -> bool:
        """The person closed the message with this code since the banner's messages were last set."""
        return code in self._dismissed_codes

    def remove_code(self, code: str) -> None:
        """Take away the message with this code, if there is one."""
        if any(m.code == code for m in self._messages):
            self._messages = [m for m in self._messages if m.code != code]
            self._rebuild()

    def _dismiss(self, message: BannerMessage) -> None:
        if message in self._messages:
            self._messages.remove(message)
            if message.code is not None:
                self._dismissed_codes.add(message.code)
            self._rebuild()


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def format_duration(ms: int | None) -> str:
    if ms is None:
        return "duration unknown"
    if ms < 1000:
        return f"{ms} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s"


def summary_parts(summary: RunSummary, format_name: str) -> list[str]:
    models = ", ".join(summary.models) if summary.models else "no model named"
    return [
        format_name,
        f"model{'s' if len(summary.models) > 1 else ''}: {models}",
        _count(summary.llm_calls, "LLM call"),
        _count(summary.tool_calls, "tool call"),
        f"tokens {summary.tokens_in:,} in / {summary.tokens_out:,} out",
        format_duration(summary.duration_ms),
    ]


def _of(known: int, whole: int) -> str:
    return f"{known:,}" if known == whole else f"{known:,} of {whole:,}"


def known_parts(known: RunSummary, whole: RunSummary, format_name: str) -> list[str]:
    """The figures as known at the cursor, each with the whole file's beside it where that is more ("3 of 12 LLM
    calls"): the same as summary_parts(whole) once everything has happened."""
    if _figures(known) == _figures(whole):
        return summary_parts(whole, format_name)
    models = ", ".join(known.models) if known.models else "no model named yet"
    duration = format_duration(known.duration_ms) if known.duration_ms is not None else "no time yet"
    if known.duration_ms != whole.duration_ms and whole.duration_ms is not None:
        duration += f" of {format_duration(whole.duration_ms)}"
    return [
        format_name,
        f"model{'s' if len(known.models) > 1 else ''}: {models}",
        f"{_of(known.llm_calls, whole.llm_calls)} LLM call{'' if whole.llm_calls == 1 else 's'}",
        f"{_of(known.tool_calls, whole.tool_calls)} tool call{'' if whole.tool_calls == 1 else 's'}",
        f"tokens {_of(known.tokens_in, whole.tokens_in)} in / {_of(known.tokens_out, whole.tokens_out)} out",
        duration,
    ]


def _figures(summary: RunSummary) -> tuple:
    return (summary.models, summary.llm_calls, summary.tool_calls, summary.tokens_in, summary.tokens_out,
            summary.duration_ms)


def errors_words(known: int, whole: int) -> str:
    """The error count at the cursor, the file's beside it while some are still to come."""
    if not whole:
        return "no errors"
    if not known:
        return f"no errors yet ({whole:,} in the file)"
    return _count(known, "error") if known == whole else f"{known:,} of {_count(whole, 'error')}"


class SummaryStrip(QFrame):
    """Name in bold, then the figures on one line, then the error count (red when there are any): a button that
    jumps to the first error, its tooltip listing them all. Figures and count are as known at the cursor, the whole
    file's beside them while some are still to come ("3 of 12 LLM calls"; app/features/run_facts_header.py)."""

    error_clicked = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("summaryStrip")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 4, 10, 4)
        row.setSpacing(14)
        # A narrow window elides the name and the figures (the tooltips hold them whole).
        self.name = ElidedLabel()
        font = self.name.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.name.setFont(font)
        self.figures = ElidedLabel()
        self.figures.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.errors = QPushButton()
        self.errors.setFlat(True)
        self.errors.setCursor(Qt.CursorShape.PointingHandCursor)
        self.errors.clicked.connect(self.error_clicked)
        # "cost so far $0.0123": the LLM calls ended at the cursor, at the user's prices (app/features/price_table.py)
        self.cost = QLabel()
        self.cost.setTextFormat(Qt.TextFormat.PlainText)
        self.cost.setVisible(False)
        # The library's own cost estimate and a limit once hit; how the run ended (app/run_facts_header.py).
        self.library_cost = QLabel()
        self.library_cost.setTextFormat(Qt.TextFormat.PlainText)
        self.library_cost.setVisible(False)
        self.run_end = QLabel()
        self.run_end.setObjectName("runEnd")
        self.run_end.setTextFormat(Qt.TextFormat.PlainText)
        self.run_end.setVisible(False)
        row.addWidget(self.name)
        row.addWidget(self.figures, 1)
        row.addWidget(self.cost)
        self.findings = QPushButton()  # "3 findings" known at the cursor: opens the Findings panel
        self.findings.setObjectName("findingsCount")
        self.findings.setFlat(True)
        self.findings.setCursor(Qt.CursorShape.PointingHandCursor)
        self.findings.setVisible(False)
        row.addWidget(self.library_cost)
        row.addWidget(self.run_end)
        row.addWidget(self.findings)
        row.addWidget(self.errors)
        self._whole: RunSummary | None = None  # the whole file's figures
        self._format = ""
        self._errors: list = []  # the run's errors (core.replay.RunError), in order
        self._known: RunSummary | None = None  # as known at the cursor (None: shown whole)
        self._errors_known: int | None = None
        self._where = ""
        self.setVisible(False)

    def show_summary(self, summary: RunSummary, format_name: str, file_name: str, errors=()) -> None:
        """The whole file's figures; `errors`: the run's errors (core.replay.RunError) — their count replaces the
        summary's. Until `show_known` says otherwise, everything is shown as known."""
        self.name.setText(summary.name or file_name)
        self.name.setToolTip(plain_tooltip(file_name))
        self._whole, self._format, self._errors = summary, format_name, list(errors)
        self._show_figures()
        self.setVisible(True)

    def show_known(self, known: RunSummary | None, errors_known: int | None = None, where: str = "") -> None:
        """The figures as known at the cursor (None: the whole file's) and how many errors had happened by then;
        `where` names the cursor's moment in the tooltip ("event 40 of 120")."""
        self._known, self._errors_known, self._where = known, errors_known, where
        self._show_figures()

    def _show_figures(self) -> None:
        whole, known = self._whole, self._known
        if whole is None:
            return
        whole_parts = summary_parts(whole, self._format)
        parts = whole_parts if known is None else known_parts(known, whole, self._format)
        text = "  ·  ".join(parts)
        if text != self.figures.full_text():  # (a new text lays the header out again: not when it is the same)
            self.figures.setText(text)
        tip = "\n".join(parts)
        if parts != whole_parts:
            tip = f"As known at the cursor ({self._where or 'its moment'}):\n{tip}\n\nThe whole file:\n" \
                + "\n".join(whole_parts[1:])
        self.figures.setToolTip(plain_tooltip(tip))
        errors = self._errors
        count = len(errors) if errors else whole.errors
        shown = count if self._errors_known is None else min(self._errors_known, count)
        self.errors.setText(errors_words(shown, count))
        red = ERROR_TEXT[is_dark_palette()]  # (a colour per theme: each ≥ 4.5:1 on its window, look/theme.py)
        style = f"QPushButton {{ color: {red}; font-weight: bold; border: none; }}" if shown \
            else "QPushButton { border: none; }"
        if self.errors.styleSheet() != style:  # (a new style sheet restyles the button: not at every move)
            self.errors.setStyleSheet(style)
        self.errors.setEnabled(bool(errors))
        # (the errors known at the cursor, each with its message; those still to come only counted)
        listed = [f"{i + 1}. at event {e.position}: {e.message}" for i, e in enumerate(errors[:min(shown, 20)])]
        if shown > 20:
            listed.append(f"… and {shown - 20} more")
        if count > shown:
            listed.append(f"{count - shown:,} more later in the file")
        self.errors.setToolTip(plain_tooltip("Click to go to the first error.\n" + "\n".join(listed))
                               if errors else "")

    def clear(self) -> None:
        self._whole, self._known, self._errors_known, self._errors = None, None, None, []
        self.setVisible(False)

    def show_cost(self, text: str, tooltip: str = "") -> None:
        """The cost known at the cursor ("" hides it: no price table)."""
        self.cost.setText(text)
        self.cost.setToolTip(plain_tooltip(tooltip) if tooltip else "")
        self.cost.setVisible(bool(text))

    def show_library_cost(self, text: str, tooltip: str = "") -> None:
        """The library's cost estimate known at the cursor, and a limit once hit ("" hides it)."""
        self.library_cost.setText(text)
        self.library_cost.setToolTip(plain_tooltip(tooltip) if tooltip else "")
        self.library_cost.setVisible(bool(text))

    def show_end(self, text: str, tooltip: str = "", tone: str = "") -> None:
        """How the run ended as known at the cursor ("running" until then); `tone` "bad" is red, "done" plain,
        "note" amber; "" hides it (no run)."""
        self.run_end.setText(text)
        self.run_end.setToolTip(plain_tooltip(tooltip) if tooltip else "")
        colour = {"bad": ERROR_TEXT[is_dark_palette()], "note": NOTE_TEXT[is_dark_palette()]}
        self.run_end.setStyleSheet(f"QLabel#runEnd {{ color: {colour[tone]}; font-weight: bold; }}" if tone in colour
                                   else "QLabel#runEnd { font-weight: bold; }" if tone == "done" else "")
        self.run_end.setVisible(bool(text))

    def show_findings(self, known: int, tooltip: str = "") -> None:
        """How many findings are known at the cursor (0 hides the count)."""
        self.findings.setText(_count(known, "finding"))
        self.findings.setToolTip(plain_tooltip(tooltip) if tooltip else "")
        self.findings.setStyleSheet("QPushButton#findingsCount { color: %s; font-weight: bold; border: none; }"
                                    % FINDING_TEXT[is_dark_palette()])
        self.findings.setVisible(known > 0)

    @property
    def text(self) -> str:
        extra = tuple(label.text() for label in (self.cost, self.library_cost, self.run_end, self.findings)
                      if label.text() and not label.isHidden())
        return " · ".join((self.name.full_text(), self.figures.full_text(), *extra, self.errors.text()))
