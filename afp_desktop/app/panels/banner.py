"""The two strips above the graph: the banner (what this file cannot show, load problems, settings trouble) and
the summary (who ran, which models, how many calls and tokens, how long, how many errors).

Everything here may come from a trace, so every label is plain text: a tool result reading "<b>" stays "<b>".
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QToolButton, QVBoxLayout, QWidget,
)

from afp_desktop.app.plain_text import plain_tooltip
from afp_desktop.app.theme import ERROR_TEXT, is_dark_palette
from afp_desktop.core.views.summary import RunSummary

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


class BannerLine(QFrame):
    dismissed = Signal()

    def __init__(self, text: str, level: str, dark: bool, parent: QWidget | None = None):
        super().__init__(parent)
        self.text, self.level = text, level
        self.setObjectName("bannerLine")
        light_bg, light_border, dark_bg, dark_border = LEVEL_STYLE.get(level, LEVEL_STYLE["info"])
        background, border = (dark_bg, dark_border) if dark else (light_bg, light_border)
        self.setStyleSheet(f"#bannerLine {{ background: {background}; border-left: 4px solid {border}; }}")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 3, 4, 3)
        mark = QLabel(LEVEL_MARK.get(level, "ℹ"))
        mark.setStyleSheet(f"color: {border}; font-weight: bold;")
        row.addWidget(mark, 0, Qt.AlignmentFlag.AlignTop)
        self.label = plain_label(text, wrap=True)
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        row.addWidget(self.label, 1)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        close.clicked.connect(self.dismissed.emit)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)


class BannerRow(QWidget):
    """One line per message, warning/info/error styled, each dismissable; hidden when empty."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.dark = False
        self._messages: list[tuple[str, str]] = []
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(1)
        self.setVisible(False)

    @property
    def lines(self) -> list[BannerLine]:
        return [self._layout.itemAt(i).widget() for i in range(self._layout.count())]

    @property
    def texts(self) -> list[str]:
        return [line.text for line in self.lines]

    def set_messages(self, messages: list[tuple[str, str]]) -> None:
        """messages: (text, level) with level 'error' | 'warning' | 'info'. The same list again (a followed
        run that grew) changes nothing: no rebuild, and dismissed lines stay dismissed."""
        if list(messages) == getattr(self, "_given", None):
            return
        self._given = list(messages)
        self._messages = list(messages)
        self._rebuild()

    def add_message(self, text: str, level: str = "warning") -> None:
        self._messages.insert(0, (text, level))
        self._rebuild()

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self._rebuild()

    def _rebuild(self) -> None:
        while self._layout.count():
            widget = self._layout.takeAt(0).widget()
            widget.setParent(None)
            widget.deleteLater()
        for text, level in self._messages:
            line = BannerLine(text, level, self.dark)
            line.dismissed.connect(lambda m=(text, level): self._dismiss(m))
            self._layout.addWidget(line)
        self.setVisible(bool(self._messages))

    def _dismiss(self, message: tuple[str, str]) -> None:
        if message in self._messages:
            self._messages.remove(message)
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


class SummaryStrip(QFrame):
    """Name in bold, then the figures on one line, then the error count (red when there are any): a button that
    jumps to the first error, its tooltip listing them all."""

    error_clicked = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("summaryStrip")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 4, 10, 4)
        row.setSpacing(14)
        self.name = plain_label()
        font = self.name.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.name.setFont(font)
        self.figures = plain_label()
        self.figures.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # elide, not grow
        self.errors = QPushButton()
        self.errors.setFlat(True)
        self.errors.setCursor(Qt.CursorShape.PointingHandCursor)
        self.errors.clicked.connect(self.error_clicked)
        row.addWidget(self.name)
        row.addWidget(self.figures, 1)
        row.addWidget(self.errors)
        self.setVisible(False)

    def show_summary(self, summary: RunSummary, format_name: str, file_name: str, errors=()) -> None:
        """`errors`: the run's errors (core.replay.RunError) — their count replaces the summary's."""
        self.name.setText(summary.name or file_name)
        self.name.setToolTip(plain_tooltip(file_name))
        parts = summary_parts(summary, format_name)
        self.figures.setText("  ·  ".join(parts))
        self.figures.setToolTip(plain_tooltip("\n".join(parts)))
        count = len(errors) if errors else summary.errors
        self.errors.setText("no errors" if not count else _count(count, "error"))
        red = ERROR_TEXT[is_dark_palette()]  # (#d33a3a was 3.2:1 on the dark window)
        self.errors.setStyleSheet(f"QPushButton {{ color: {red}; font-weight: bold; border: none; }}" if count
                                  else "QPushButton { border: none; }")
        self.errors.setEnabled(bool(errors))
        listed = [f"{i + 1}. at event {e.position}: {e.message}" for i, e in enumerate(list(errors)[:20])]
        if len(errors) > 20:
            listed.append(f"… and {len(errors) - 20} more")
        self.errors.setToolTip(plain_tooltip("Click to go to the first error.\n" + "\n".join(listed))
                               if errors else "")
        self.setVisible(True)

    def clear(self) -> None:
        self.setVisible(False)

    @property
    def text(self) -> str:
        return " · ".join(label.text() for label in (self.name, self.figures, self.errors))
