"""Scroll bars and tab frames drawn by flat_scroll_bar.py (Fusion's cost ~3 µs per pixel of a bar's length): the
handle is where Fusion puts it and stands out from the groove in both themes, the arrows are drawn, clicks still
land on Fusion's parts, and a tab widget's frame keeps its outline."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLabel, QScrollBar, QStyle, QStyleOptionSlider, QTabWidget

from afp_desktop.app.look import theme
from afp_desktop.app.look.focus_style import FocusRingStyle
from afp_desktop.app.look.style import contrast_ratio

_SC = QStyle.SubControl
_CC = QStyle.ComplexControl.CC_ScrollBar


def shown_bar(qtbot, orientation=Qt.Orientation.Vertical) -> QScrollBar:
    bar = QScrollBar(orientation)
    qtbot.addWidget(bar)
    bar.resize(14, 400) if orientation == Qt.Orientation.Vertical else bar.resize(400, 14)
    bar.setRange(0, 1000)
    bar.setPageStep(250)
    bar.setValue(500)
    bar.show()
    QApplication.processEvents()
    return bar


def rects(bar: QScrollBar):
    option = QStyleOptionSlider()
    bar.initStyleOption(option)
    style = bar.style()
    return {part: style.subControlRect(_CC, option, part, bar)
            for part in (_SC.SC_ScrollBarSlider, _SC.SC_ScrollBarAddLine, _SC.SC_ScrollBarSubLine)}, option


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("orientation", [Qt.Orientation.Vertical, Qt.Orientation.Horizontal])
def test_the_handle_stands_out_from_the_groove_where_fusion_puts_it(qtbot, restore_app_look, mode, orientation):
    theme.apply_theme(QApplication.instance(), mode)
    bar = shown_bar(qtbot, orientation)
    assert isinstance(bar.style(), FocusRingStyle)
    parts, _option = rects(bar)
    image = bar.grab().toImage()
    scale = image.width() / bar.width()
    handle = parts[_SC.SC_ScrollBarSlider]
    inside = QColor(image.pixel(int(handle.center().x() * scale), int(handle.center().y() * scale))).name()
    # the groove: between the sub-line arrow and the handle
    before = parts[_SC.SC_ScrollBarSubLine]
    if orientation == Qt.Orientation.Vertical:
        groove_at = QPoint(handle.center().x(), (before.bottom() + handle.top()) // 2)
    else:
        groove_at = QPoint((before.right() + handle.left()) // 2, handle.center().y())
    groove = QColor(image.pixel(int(groove_at.x() * scale), int(groove_at.y() * scale))).name()
    assert contrast_ratio(inside, groove) >= 3.0, (mode, inside, groove)
    # an arrow is drawn in each arrow's place: some pixel there is the text colour's, not the groove's
    text = bar.palette().color(bar.palette().ColorRole.ButtonText)
    for part in (_SC.SC_ScrollBarSubLine, _SC.SC_ScrollBarAddLine):
        place = parts[part]
        colours = {QColor(image.pixel(int(x * scale), int(y * scale))).name()
                   for x in range(place.left(), place.right() + 1) for y in range(place.top(), place.bottom() + 1)}
        assert any(contrast_ratio(c, groove) >= 3.0 for c in colours), (part, colours)
        assert text.isValid()


def test_clicks_still_land_on_fusions_parts(qtbot):
    bar = shown_bar(qtbot)
    parts, option = rects(bar)
    style = bar.style()
    for part, place in parts.items():
        assert style.hitTestComplexControl(_CC, option, place.center(), bar) == part
    before = bar.value()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=parts[_SC.SC_ScrollBarAddLine].center())
    assert bar.value() == before + bar.singleStep()


def test_the_handle_follows_the_value(qtbot, restore_app_look):
    theme.apply_theme(QApplication.instance(), "light")
    bar = shown_bar(qtbot)

    def drawn_at(value):
        bar.setValue(value)
        parts, _ = rects(bar)
        centre = parts[_SC.SC_ScrollBarSlider].center()
        return centre, bar.grab().toImage()

    top, at_top = drawn_at(0)
    bottom, at_bottom = drawn_at(1000)
    assert bottom.y() > top.y() + 100
    handle = QColor(at_top.pixel(top)).name()
    assert QColor(at_bottom.pixel(bottom)).name() == handle  # the handle moved down
    assert contrast_ratio(QColor(at_bottom.pixel(top)).name(), handle) >= 3.0  # and left the groove behind


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_a_tab_widget_keeps_its_outline(qtbot, restore_app_look, mode):
    theme.apply_theme(QApplication.instance(), mode)
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    tabs.addTab(QLabel("one"), "One")
    tabs.addTab(QLabel("two"), "Two")
    tabs.resize(300, 200)
    tabs.show()
    QApplication.processEvents()
    image = tabs.grab().toImage()
    scale = image.width() / tabs.width()
    window = tabs.palette().color(tabs.palette().ColorRole.Window)
    outline = window.darker(140).name()
    y = int(tabs.height() * 0.7 * scale)
    left_edge = [QColor(image.pixel(x, y)).name() for x in range(0, int(4 * scale))]
    assert outline in left_edge, (mode, left_edge)
