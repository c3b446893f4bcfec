"""Scroll bars drawn flat (a groove, a rounded handle and two small arrows, in the palette's colours) and the frame
of a tab widget.

Fusion paints a scroll bar with gradients whose cost grows with its length, so the window's long bars would be
much of every repaint, and a repaint is part of every stall while a big file loads. This draws the same parts
where Fusion puts them (its sub-control rectangles are kept, so clicks, hover and the arrows' places do not
change) with a few flat shapes, whose cost does not grow with the length. Fusion's frame around a tab widget's
pages is slow to paint too (the inspector's is painted on every move): it is drawn here the way Fusion draws it.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPalette
from PySide6.QtWidgets import QStyle, QStyleOptionSlider, QWidget

_S = QStyle
_SC = QStyle.SubControl
_CC = QStyle.ComplexControl.CC_ScrollBar
_R = QPalette.ColorRole


def _dark(palette: QPalette) -> bool:
    return palette.color(_R.Window).lightness() < 128


def _handle_colour(option: QStyleOptionSlider, dark: bool) -> QColor:
    """The muted text colour (≥ 3:1 on the groove, as a control's part needs), the text colour under the mouse,
    the selection colour while dragged."""
    palette = option.palette
    if not option.state & _S.StateFlag.State_Enabled:
        return palette.color(_R.Light if dark else _R.Mid)
    active = option.activeSubControls & _SC.SC_ScrollBarSlider
    if active and option.state & _S.StateFlag.State_Sunken:
        return palette.color(_R.Highlight)
    if active and option.state & _S.StateFlag.State_MouseOver:
        return palette.color(_R.ButtonText)
    return palette.color(_R.PlaceholderText)


def _arrow(painter: QPainter, rect: QRectF, direction: str, colour: QColor) -> None:
    """A small filled triangle pointing `direction` ("up", "down", "left", "right") in the middle of `rect`."""
    size = max(2.0, min(rect.width(), rect.height()) / 4)
    c = rect.center()
    points = {
        "up": ((c.x() - size, c.y() + size / 2), (c.x() + size, c.y() + size / 2), (c.x(), c.y() - size / 2)),
        "down": ((c.x() - size, c.y() - size / 2), (c.x() + size, c.y() - size / 2), (c.x(), c.y() + size / 2)),
        "left": ((c.x() + size / 2, c.y() - size), (c.x() + size / 2, c.y() + size), (c.x() - size / 2, c.y())),
        "right": ((c.x() - size / 2, c.y() - size), (c.x() - size / 2, c.y() + size), (c.x() + size / 2, c.y())),
    }[direction]
    path = QPainterPath(QPointF(*points[0]))
    for point in points[1:]:
        path.lineTo(QPointF(*point))
    path.closeSubpath()
    painter.fillPath(path, colour)


def paint_scroll_bar(style: QStyle, option: QStyleOptionSlider, painter: QPainter, widget: QWidget | None) -> None:
    palette = option.palette
    dark = _dark(palette)
    horizontal = option.orientation == Qt.Orientation.Horizontal
    painter.save()
    groove = palette.color(_R.Window).darker(106) if not dark else palette.color(_R.Window).lighter(125)
    painter.fillRect(option.rect, groove)
    edge = palette.color(_R.Mid if not dark else _R.Dark)
    rect = option.rect
    painter.setPen(edge)
    if horizontal:
        painter.drawLine(rect.left(), rect.top(), rect.right(), rect.top())
    else:
        painter.drawLine(rect.left(), rect.top(), rect.left(), rect.bottom())
    enabled = bool(option.state & _S.StateFlag.State_Enabled)
    text = palette.color(QPalette.ColorGroup.Normal if enabled else QPalette.ColorGroup.Disabled, _R.ButtonText)
    arrows = ((_SC.SC_ScrollBarSubLine, "left" if horizontal else "up"),
              (_SC.SC_ScrollBarAddLine, "right" if horizontal else "down"))
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    for control, direction in arrows:
        if option.subControls & control:
            place = QRectF(style.subControlRect(_CC, option, control, widget))
            if option.activeSubControls & control and option.state & _S.StateFlag.State_Sunken:
                painter.fillRect(place, palette.color(_R.Midlight if not dark else _R.Mid))
            _arrow(painter, place, direction, text)
    if option.subControls & _SC.SC_ScrollBarSlider and option.maximum > option.minimum:
        handle = QRectF(style.subControlRect(_CC, option, _SC.SC_ScrollBarSlider, widget))
        handle = handle.adjusted(3, 3, -2.5, -2.5)  # (a slim handle in the groove, clear of its edge line)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_handle_colour(option, dark))
        radius = min(handle.width(), handle.height()) / 2
        painter.drawRoundedRect(handle, radius, radius)
    painter.restore()


def paint_tab_frame(option, painter: QPainter) -> None:
    """The frame around a tab widget's pages, as Fusion draws it (its fill, its outline a shade darker than the
    window, a faint inner line), without its cost."""
    palette = option.palette
    rect = option.rect.adjusted(0, 0, -1, -1)
    painter.save()
    painter.fillRect(rect, palette.color(_R.Button).lighter(104))
    painter.setPen(palette.color(_R.Window).darker(140))
    painter.drawRect(rect.adjusted(0, 0, 0, -1))
    painter.setPen(QColor(255, 255, 255, 30))
    painter.drawRect(rect.adjusted(1, 1, -1, -2))
    shadow = QColor(0, 0, 0, 15)
    painter.setPen(shadow)
    painter.drawLine(option.rect.bottomLeft(), option.rect.bottomRight())
    painter.restore()
