"""Trace text drawn into a row keeps every glyph's ink: in some fonts at some sizes the underscore is drawn below
the font's descent, and a row as high as the font (clipped to it) cut it away, so `scan_repo` read "scan repo"."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetrics, QImage, QPainter

from afp_desktop.app.look.fonts import load_bundled_fonts
from afp_desktop.app.panels.stop_lines import StopLines
from afp_desktop.app.widgets.copy_id import IdLabel
from afp_desktop.app.widgets.text_lines import line_height

INK = 160  # a pixel darker than this lightness is ink


def _darkness(image: QImage) -> int:
    return sum(255 - QColor(image.pixel(x, y)).lightness()
               for y in range(image.height()) for x in range(image.width()))


def _underscore_ink(font: QFont) -> int:
    """The darkness of one underscore drawn with nothing clipping it."""
    image = QImage(60, 60, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    with QPainter(image) as painter:
        painter.setFont(font)
        painter.setPen(QColor("black"))
        painter.drawText(20, 30, "_")
    return _darkness(image)


def _ink_in_row(font: QFont, height: int) -> float:
    """The underscore's ink drawn into a row `height` high, clipped to it."""
    image = QImage(60, 60, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    with QPainter(image) as painter:
        painter.setFont(font)
        painter.setPen(QColor("black"))
        painter.drawText(QRect(20, 20, 30, height), int(Qt.AlignmentFlag.AlignLeft), "_")
    return _darkness(image)


def _clips_underscore(font: QFont) -> bool:
    """A row as high as the font's line spacing, clipped to it, loses the underscore's ink."""
    return _ink_in_row(font, QFontMetrics(font).lineSpacing()) < _underscore_ink(font) * 0.9


def _low_underscore_font() -> QFont:
    """A font whose underscore reaches below its line spacing at some pixel size (the bundled DejaVu Sans does at
    10 px, so one is found on every machine)."""
    families = load_bundled_fonts()
    for family in [*families, *QFontDatabase.families()]:
        for size in range(7, 24):
            font = QFont(family)
            font.setPixelSize(size)
            if _clips_underscore(font):
                return font
    pytest.skip("no installed font draws its underscore below its line spacing")


def _ink_difference(a: QImage, b: QImage) -> int:
    assert a.size() == b.size()
    return sum(abs(QColor(a.pixel(x, y)).lightness() - QColor(b.pixel(x, y)).lightness())
               for y in range(a.height()) for x in range(a.width()))


def _stop_lines(qtbot, font: QFont, rows: list[str]) -> QImage:
    widget = StopLines()
    qtbot.addWidget(widget)
    widget.setFont(font)
    widget.set_colours("#ffffff", "#000000")
    widget.resize(300, 10)
    widget.set_rows(rows)
    return widget.grab().toImage()


def test_the_line_height_holds_the_underscore(qapp):
    font = _low_underscore_font()
    assert _ink_in_row(font, line_height(QFontMetrics(font))) >= _underscore_ink(font) * 0.9


@pytest.mark.parametrize("rows", [["scan_"], ["scan_", "next line"], ["first", "scan_"]])
def test_the_lines_the_user_saw_show_every_underscore(qtbot, rows):
    """The same rows with a space for the underscore (last on its line: nothing after it moves) differ by an
    underscore's whole ink."""
    font = _low_underscore_font()
    with_underscore = _stop_lines(qtbot, font, rows)
    with_space = _stop_lines(qtbot, font, [row.replace("_", " ") for row in rows])
    assert _ink_difference(with_underscore, with_space) >= _underscore_ink(font) * 0.9


def test_an_id_shows_its_underscores(qtbot):
    """An id squeezed to its minimum height shows its underscore as a tall one does (in the label's own colours)."""
    font = _low_underscore_font()

    def underscore_ink(height_of) -> int:
        images = []
        for text in ("call_", "call "):
            field = IdLabel(text)
            qtbot.addWidget(field)
            field.setFont(font)
            field.resize(200, height_of(field))
            images.append(field.grab().toImage())
        return _ink_difference(*images)

    roomy = underscore_ink(lambda field: 3 * field.fontMetrics().lineSpacing())
    assert roomy > 0
    assert underscore_ink(lambda field: field.minimumSizeHint().height()) >= roomy * 0.9
