"""Trace text and file names are shown as typed, never interpreted as markup.

QLabel text is set with Qt.PlainText (see `plain_label`); tooltips have no such switch — Qt guesses rich text
from the string — so a tooltip carrying trace text or a path goes through `plain_tooltip`.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel

from afp_desktop.app.widgets.visible_text import visible_text


TOOLTIP_CHARS = 50_000  # a tooltip lays out its whole text on hover; the chat lists a stop's lines here


def plain_tooltip(text: str) -> str:
    """A tooltip that shows `text` literally, line breaks kept (an escaped string inside explicit markup), what
    would be misdrawn or drawn as a box as markers (app/widgets/visible_text.py), and at most TOOLTIP_CHARS of it."""
    if len(text) > TOOLTIP_CHARS:
        text = f"{text[:TOOLTIP_CHARS]} … (+{len(text) - TOOLTIP_CHARS:,} more characters)"
    return "<p style='white-space:pre-wrap'>" + html.escape(visible_text(text)) + "</p>"


class TooltipWhenAsked:
    """A widget mixin (before the Qt class) for a tooltip made only when it is about to show: the widget overrides
    `toolTip()` (a long list of steps or lines, costly to make on every change), and the text is handed to Qt as
    the pointer rests on it."""

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            self.setToolTip(self.toolTip())  # type: ignore[attr-defined]
        return super().event(event)  # type: ignore[misc]


LABEL_CHARS = 10_000  # a label lays out its whole text at each width it is asked, in time growing with its length


def label_part(text: str) -> str:
    """`text`, or its first LABEL_CHARS characters and how many more there are (a text box shows long text whole,
    app/widgets/text_box.py)."""
    if not isinstance(text, str) or len(text) <= LABEL_CHARS:
        return text
    return f"{text[:LABEL_CHARS]} … (+{len(text) - LABEL_CHARS:,} more characters)"


class PlainLabel(QLabel):
    """A QLabel whose setText shows trace text safely (app/widgets/visible_text.py), and at most LABEL_CHARS of it.
    A wrapping label remembers its height for each width: layouts ask it again and again while a panel is built,
    and Qt would lay the text out anew each time."""

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        shown = visible_text(label_part(text))
        if shown == self.text() and hasattr(self, "_heights"):
            return  # the same text keeps its measured heights (the chat bubble sets its labels at every move)
        self._heights: dict[int, int] = {}
        super().setText(shown)

    def setFont(self, font) -> None:  # noqa: N802
        self._heights = {}
        super().setFont(font)

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        heights = getattr(self, "_heights", None)
        if heights is None:
            return super().heightForWidth(width)
        height = heights.get(width)
        if height is None:
            height = heights[width] = super().heightForWidth(width)
        return height


def plain_label(text: str = "", *, wrap: bool = True, colour: str | None = None, italic: bool = False,
                muted: bool = False) -> QLabel:
    """A label that never interprets its text as rich text, and shows controls, characters no font draws and lone
    surrogates visibly (app/widgets/visible_text.py). `muted` greys it with the theme's palette."""
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
