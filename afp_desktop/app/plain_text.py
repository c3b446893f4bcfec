"""Trace text and file names are shown as typed, never interpreted as markup.

QLabel text is set with Qt.PlainText (see `plain_label`); tooltips have no such switch — Qt guesses rich text
from the string — so a tooltip carrying trace text or a path goes through `plain_tooltip`.
"""

from __future__ import annotations

import html


def plain_tooltip(text: str) -> str:
    """A tooltip that shows `text` literally, line breaks kept (an escaped string inside explicit markup)."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"
