"""Whether the window can draw a character as a glyph, or only as an empty box.

Qt draws a character in the application font or, failing that, in a fallback font (the system's, and the
bundled ones app/look/fonts.py registers as substitutes); when none has it, it draws the empty box of glyph 0.
A character is drawable when the application font or one of its fallbacks has it (QFontMetrics.inFontUcs4), or
when laid out alone, as a label lays it out, it gets no glyph 0 (an invisible format character such as a tag
character is drawn as nothing, not as a box). Answers are kept per character, and dropped when the application
font changes or fonts are registered (`forget_answers`).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication, QTextLayout

_answers: dict[str, bool] = {}
_answers_font: str | None = None
_metrics: QFontMetrics | None = None


def _laid_out_without_box(char: str, font: QFont) -> bool:
    layout = QTextLayout(char, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return all(0 not in run.glyphIndexes() for run in layout.glyphRuns())


def forget_answers() -> None:
    """Drop the kept answers: called when fonts join the font database, which may draw what none could."""
    global _answers_font
    _answers.clear()
    _answers_font = None


def _everything_drawable(_char: str) -> bool:
    return True


def drawable_test() -> Callable[[str], bool]:
    """A test of one code point, true when some font of the window draws it, for the fonts as they are now (take
    a new one after the application font changes). Without a QGuiApplication nothing is drawn, and every
    character counts as drawable."""
    global _answers_font, _metrics
    if QGuiApplication.instance() is None:
        return _everything_drawable
    font = QGuiApplication.font()
    key = font.key()
    if key != _answers_font or _metrics is None:
        _answers.clear()
        _answers_font, _metrics = key, QFontMetrics(font)
    metrics = _metrics

    def drawable(char: str) -> bool:
        answer = _answers.get(char)
        if answer is None:
            answer = _answers[char] = metrics.inFontUcs4(ord(char)) or _laid_out_without_box(char, font)
        return answer

    return drawable


def can_draw(char: str) -> bool:
    """Whether some font of the window draws `char` (one code point)."""
    return drawable_test()(char)
