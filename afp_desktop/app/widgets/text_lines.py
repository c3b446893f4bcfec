"""A line of trace text drawn into a rectangle keeps every glyph's ink.

QPainter.drawText clips the text to the rectangle it is given, and a font's height (ascent + descent) is not where
its ink ends: some fonts at some sizes draw the underscore below the descent, so a row as high as the font cut it
away and `scan_repo` read "scan repo". Two rules, used wherever trace text is drawn into a fixed rectangle:
a row of text is `line_height` high (the line spacing, grown to the lowest ink of the glyphs that reach lowest),
and the text is drawn with UNCLIPPED added to its flags (it is elided to its width beforehand, so only ink
outside the row's height is let through).
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QFontMetricsF

LOW_GLYPHS = "_gjpqy|()[]{},;"  # the glyphs that reach lowest below the baseline in common fonts
UNCLIPPED = Qt.TextFlag.TextDontClip


def line_height(metrics: QFontMetrics | QFontMetricsF) -> int:
    """Pixels from one line's top to the next: the font's line spacing, or more where a glyph's ink reaches lower
    than ascent + descent (a row this high holds every glyph's ink, the underscore's too)."""
    ink_bottom = metrics.ascent() + metrics.tightBoundingRect(LOW_GLYPHS).bottom()
    return max(math.ceil(metrics.lineSpacing()), math.ceil(ink_bottom) + 1)
