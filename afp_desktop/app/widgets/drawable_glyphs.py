"""Whether the window can draw a character as a glyph, or only as an empty box.

Qt draws a character in the application font or, failing that, in a fallback font (the system's, and the
bundled ones app/look/fonts.py registers as substitutes); when none has it, it draws the empty box of glyph 0.
A character is laid out alone in the application font, as a label would lay it out, and is drawable unless a
glyph 0 comes back. Answers are kept per character, and dropped when the application font changes or fonts are
registered (`forget_answers`).
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication, QTextLayout

_answers: dict[str, bool] = {}
_answers_font: str | None = None


def _laid_out_without_box(char: str, font) -> bool:
    layout = QTextLayout(char, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return all(0 not in run.glyphIndexes() for run in layout.glyphRuns())


def forget_answers() -> None:
    """Drop the kept answers: called when fonts join the font database, which may draw what none could."""
    _answers.clear()


def can_draw(char: str) -> bool:
    """Whether some font the window uses has a glyph for `char` (one code point). Without a QGuiApplication
    nothing is drawn, and every character counts as drawable."""
    global _answers_font
    if QGuiApplication.instance() is None:
        return True
    font = QGuiApplication.font()
    key = font.key()
    if key != _answers_font:
        _answers.clear()
        _answers_font = key
    answer = _answers.get(char)
    if answer is None:
        answer = _answers[char] = _laid_out_without_box(char, font)
    return answer
