"""A visible keyboard focus ring on every widget: Fusion, with a 2 px ring in the focus colour drawn
around the focused button, tool button, combo box, slider, check box, tab and current item-view cell.

The ring shows only once the keyboard moved the focus (Tab, a shortcut), the way browsers' :focus-visible
does: a mouse click on a button does not leave a ring behind it. Fusion alone draws a faint dotted rectangle
that is invisible on most of our colours.

Every other widget the keyboard reaches (the graph, the timeline's plots, a text box, a list) draws no ring of
its own: a focus frame (Qt's QFocusFrame, painted with the same ring) follows the keyboard focus onto it. Lists
and tables give Tab back to the window (it moves the focus on, not from cell to cell), so Tab never gets stuck.

Check boxes and radio buttons also get an outline in the muted text colour (unless the keyboard focus highlights
them already): Fusion outlines them in a darker
shade of the window, which on the dark theme is nearly black on nearly black (an unchecked box vanished), and
on the light theme falls short of the 3:1 that a control's edge needs.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractButton, QAbstractItemView, QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QFocusFrame,
    QLineEdit, QProxyStyle, QStyle, QStyleFactory, QTabBar, QWidget,
)

from afp_desktop.app.widgets.flat_scroll_bar import paint_scroll_bar, paint_tab_frame
from afp_desktop.app.look.theme import FOCUS_RING

RING_WIDTH = 2
_S = QStyle
_RINGED_COMPLEX = (_S.ComplexControl.CC_ToolButton, _S.ComplexControl.CC_ComboBox, _S.ComplexControl.CC_Slider,
                   _S.ComplexControl.CC_SpinBox)


def focus_visible(option, widget: QWidget | None) -> bool:
    if not option.state & _S.StateFlag.State_HasFocus:
        return False
    if widget is None:
        return True
    window = widget.window()
    return window is not None and window.testAttribute(Qt.WidgetAttribute.WA_KeyboardFocusChange)


def paint_ring(painter: QPainter, rect: QRect, dark: bool) -> None:
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    pen = QPen(QColor(FOCUS_RING[dark]), RING_WIDTH)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(rect.adjusted(1, 1, -1, -1), 3, 3)
    painter.restore()


def paint_indicator_edge(painter: QPainter, option, round_: bool) -> None:
    """A 1 px edge around a check box's or radio button's indicator, in the palette's muted text colour."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(option.palette.color(option.palette.ColorRole.PlaceholderText), 1))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    rect = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)
    if round_:
        painter.drawEllipse(rect.adjusted(0.5, 0.5, -0.5, -0.5))
    else:
        painter.drawRoundedRect(rect, 1, 1)
    painter.restore()


def _dark(option) -> bool:
    return option.palette.color(option.palette.ColorRole.Window).lightness() < 128


class FocusRingStyle(QProxyStyle):
    def __init__(self) -> None:
        super().__init__(QStyleFactory.create("Fusion"))

    def name(self) -> str:
        """The base style's name ("fusion"): a proxy style has none of its own."""
        return self.baseStyle().name()

    def drawPrimitive(self, element, option, painter, widget=None) -> None:  # noqa: N802 - Qt's name
        if element == _S.PrimitiveElement.PE_FrameFocusRect:  # check box and tab labels, item-view cells
            if focus_visible(option, widget):
                paint_ring(painter, option.rect, _dark(option))
            return
        if element == _S.PrimitiveElement.PE_FrameTabWidget:
            paint_tab_frame(option, painter)  # (Fusion's is slow, and the inspector's tabs repaint it often)
            return
        super().drawPrimitive(element, option, painter, widget)
        if element in (_S.PrimitiveElement.PE_IndicatorCheckBox, _S.PrimitiveElement.PE_IndicatorRadioButton) \
                and option.state & _S.StateFlag.State_Enabled and not focus_visible(option, widget):
            paint_indicator_edge(painter, option, element == _S.PrimitiveElement.PE_IndicatorRadioButton)
        if element == _S.PrimitiveElement.PE_PanelLineEdit and focus_visible(option, widget):
            paint_ring(painter, option.rect, _dark(option))  # (Fusion's own 1 px highlight is faint)

    def polish(self, target):  # noqa: ANN201 - Qt's name; a widget, a palette (returned polished) or the app
        polished = super().polish(target)
        if isinstance(target, QAbstractItemView):
            target.setTabKeyNavigation(False)  # (Tab leaves a list or table; arrows move within it)
        return polished

    def drawControl(self, element, option, painter, widget=None) -> None:  # noqa: N802
        if element == _S.ControlElement.CE_FocusFrame:
            paint_ring(painter, option.rect, _dark(option))
            return
        super().drawControl(element, option, painter, widget)
        if element in (_S.ControlElement.CE_PushButton, _S.ControlElement.CE_TabBarTabLabel) \
                and focus_visible(option, widget):
            paint_ring(painter, option.rect, _dark(option))

    def drawComplexControl(self, control, option, painter, widget=None) -> None:  # noqa: N802
        if control == _S.ComplexControl.CC_ScrollBar:
            paint_scroll_bar(self, option, painter, widget)  # (Fusion's costs grow with the bar's length)
            return
        super().drawComplexControl(control, option, painter, widget)
        if control in _RINGED_COMPLEX and focus_visible(option, widget):
            paint_ring(painter, option.rect, _dark(option))


RINGED_BY_THE_STYLE = (QAbstractButton, QComboBox, QAbstractSlider, QAbstractSpinBox, QLineEdit, QTabBar)


class KeyboardFocusFrame(QObject):
    """Puts a focus frame around the focused widget when the keyboard moved the focus there and the widget draws
    no ring of its own (RINGED_BY_THE_STYLE do). One per application."""

    def __init__(self, app: QApplication):
        super().__init__(app)
        self.frame: QFocusFrame | None = None
        app.focusChanged.connect(self._focus_changed)

    def _live_frame(self) -> QFocusFrame | None:
        """The frame, unless it went with its window (a frame is a child of the window it is in)."""
        if self.frame is not None and not shiboken6.isValid(self.frame):
            self.frame = None
        return self.frame

    def framed(self) -> QWidget | None:
        """The widget the frame is around now (None: none)."""
        frame = self._live_frame()
        return frame.widget() if frame is not None else None

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        window = new.window() if new is not None else None
        wanted = (new is not None and window is not None and not isinstance(new, RINGED_BY_THE_STYLE)
                  and window.testAttribute(Qt.WidgetAttribute.WA_KeyboardFocusChange))
        frame = self._live_frame()
        if not wanted:
            if frame is not None:
                frame.setWidget(None)
            return
        if frame is None or frame.window() is not window:
            if frame is not None:
                frame.setWidget(None)
                frame.deleteLater()
            frame = self.frame = QFocusFrame(window)  # (a frame lives in one window: made again in another)
        frame.setWidget(new)


def follow_keyboard_focus(app: QApplication) -> KeyboardFocusFrame:
    """The application's keyboard focus frame (made once)."""
    found = app.findChild(KeyboardFocusFrame)
    return found if isinstance(found, KeyboardFocusFrame) else KeyboardFocusFrame(app)
