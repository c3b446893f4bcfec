"""Ids shown with a copy button: `id_field(value, what)` is a row's value — the id as plain text, elided
in the middle when the row is narrow (the full id in its tooltip) — and a small "Copy <what>" tool button that puts
the exact id on the clipboard as plain text and says so in the window's status bar ("Copied stage id
call-llm#18").

Ids come from the trace: untrusted. They are shown through `visible_text` (bidi controls as markers, line breaks as
␤), never as rich text, and copied exactly as the file holds them.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout, QLabel, QMainWindow, QSizePolicy, QToolButton, QToolTip, QWidget,
)

from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.app.widgets.text_lines import UNCLIPPED, line_height
from afp_desktop.app.widgets.visible_text import visible_text

MESSAGE_CHARS = 100      # an id longer than this is shortened (in the middle) in the status bar message
MESSAGE_MS = 6000
MIN_ID_CHARS = 10        # a narrow row still shows this many characters of an id before eliding


def shown_id(value: str) -> str:
    """An id as one displayable line: bidi controls visible, line breaks as ␤ (the copy keeps them)."""
    return visible_text(value).replace("\r\n", "\u2424").replace("\n", "\u2424").replace("\r", "\u240d")


def shortened(text: str, limit: int = MESSAGE_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return text[:half] + "…" + text[-half:]


def copy_icon(colour, size: int = 12, ratio: float = 1.0) -> QPixmap:
    """Two overlapping sheets outlined in `colour` (the theme's button text), crisp at `size` px × `ratio`."""
    pixmap = QPixmap(int(size * ratio), int(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    with QPainter(pixmap) as painter:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(colour, 1.0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        sheet = round(size * 0.62)  # each sheet's side; the front one sits down-left of the back one
        shift = size - 1 - sheet
        back = QRectF(shift + 0.5, 0.5, sheet, sheet)
        front = QRectF(0.5, shift + 0.5, sheet, sheet)
        painter.drawRoundedRect(back, 1.5, 1.5)
        # The front sheet hides the back one where they overlap: clear it, then outline it.
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Clear)
        painter.fillRect(front.adjusted(-1, -1, 1, 1), Qt.GlobalColor.transparent)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
        painter.drawRoundedRect(front, 1.5, 1.5)
    return pixmap


_ICONS: dict[tuple[int, int], QIcon] = {}  # (colour, size) → the icon: the inspector makes buttons on every move


def _icon_for(rgba: int, size: int) -> QIcon:
    icon = _ICONS.get((rgba, size))
    if icon is None:
        icon = QIcon()
        for ratio in (1.0, 2.0):
            icon.addPixmap(copy_icon(QColor.fromRgba(rgba), size, ratio))
        _ICONS[(rgba, size)] = icon
    return icon


def status_bar_of(widget: QWidget):
    """The status bar of the main window `widget` sits in (docked or floating), else None."""
    node = widget
    while node is not None:
        if isinstance(node, QMainWindow):
            return node.statusBar()
        node = node.parentWidget()
    return None


class CopyIdButton(QToolButton):
    """A small tool button that copies one id; Tab reaches it, Space presses it."""

    copied = Signal(str)  # the confirmation shown ("Copied stage id call-llm#18")

    def __init__(self, value: str, what: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAutoRaise(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.set_value(value, what)
        side = max(16, self.fontMetrics().height() + 1)  # as tall as a line of text: rows keep their height
        self.setFixedSize(side + 4, side)
        self.setIconSize(QSize(side - 6, side - 6))  # room inside for the focus ring
        self._paint_icon()
        self.clicked.connect(self.copy)

    def set_value(self, value: str, what: str) -> None:
        self.value, self.what = value, what
        self.setToolTip(f"Copy {what}")            # (our words only: no trace text, so no rich-text guess)
        self.setAccessibleName(f"Copy {what}")
        self.setAccessibleDescription(f"Copies {shown_id(value)} to the clipboard")

    def _paint_icon(self) -> None:
        self.setIcon(_icon_for(self.palette().color(QPalette.ColorRole.ButtonText).rgba(), self.iconSize().width()))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # a theme switch: the icon takes the new text colour
            self._paint_icon()

    def copy(self) -> str:
        """Put the exact id on the clipboard (plain text only) and confirm it; returns the confirmation."""
        QGuiApplication.clipboard().setText(self.value)
        message = f"Copied {self.what} {shortened(shown_id(self.value))}"
        bar = status_bar_of(self)
        if bar is not None:
            bar.showMessage(message, MESSAGE_MS)
        if self.isVisible():  # a confirmation where the user looks, too (our words only)
            QToolTip.showText(self.mapToGlobal(self.rect().bottomLeft()), "Copied", self, self.rect(), 1500)
        self.copied.emit(message)
        return message


class IdLabel(QLabel):
    """An id as plain text on one line, elided in the middle when the row is too narrow for it; the tooltip holds
    the whole id. `text()` is the displayable form of the whole id (what screen readers read)."""

    def __init__(self, value: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        self.set_value(value)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def set_value(self, value: str) -> None:
        self.setText(shown_id(value))
        self.setToolTip(plain_tooltip(visible_text(value if len(value) < 2000 else shortened(value, 2000))))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        metrics, whole = self.fontMetrics(), self.sizeHint().width()
        if len(self.text()) <= MIN_ID_CHARS:  # a short id is never elided ("45" must not become "…")
            return QSize(whole, line_height(metrics))
        # (not averageCharWidth: a CJK fallback font makes that wider than most whole ids)
        return QSize(min(whole, metrics.horizontalAdvance("0" * MIN_ID_CHARS)), line_height(metrics))

    def elided(self) -> str:
        margins = self.contentsMargins()
        width = self.width() - margins.left() - margins.right()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideMiddle, width)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        with QPainter(self) as painter:
            painter.setPen(self.palette().color(self.foregroundRole()))
            painter.setFont(self.font())
            rect = self.contentsRect()
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | UNCLIPPED),
                             self.elided())


class IdField(QWidget):
    """The id, then its copy button, left-aligned in the row."""

    def __init__(self, value: str, what: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = IdLabel(value)
        self.button = CopyIdButton(value, what)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.label, 0)
        layout.addWidget(self.button, 0)
        layout.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.value = value

    def text(self) -> str:
        """The id as in the file (what the button copies), like a label's text for a reader of the row."""
        return self.value

    def set_value(self, value: str, what: str) -> None:
        """Show another id in this field (the inspector keeps its header's widgets from step to step)."""
        self.value = value
        self.label.set_value(value)
        self.button.set_value(value, what)


def id_field(value: str, what: str) -> IdField:
    return IdField(value, what)


class IdPair(QWidget):
    """Two ids on one row ("tool-calls#22 ⧉   event 45 ⧉"), the second with its own muted caption; when the row is
    too narrow for both whole, the second goes on a line of its own rather than cutting either."""

    GAP = 16  # between the first id's button and the second's caption

    def __init__(self, first, second_label: str, second, parent: QWidget | None = None):
        super().__init__(parent)
        self.fields = [IdField(first.value, first.what, self), IdField(second.value, second.what, self)]
        self.caption = QLabel(second_label, self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(self._line_height())

    def text(self) -> str:
        return f"{self.fields[0].text()}  {self.caption.text()} {self.fields[1].text()}"

    def set_values(self, first, second_label: str, second) -> None:
        self.fields[0].set_value(first.value, first.what)
        self.caption.setText(second_label)
        self.fields[1].set_value(second.value, second.what)
        self.updateGeometry()
        self._place()

    def _widths(self) -> tuple[int, int, int]:
        return (self.fields[0].sizeHint().width(), self.caption.sizeHint().width(), self.fields[1].sizeHint().width())

    def _line_height(self) -> int:
        return max(self.fields[0].sizeHint().height(), self.caption.sizeHint().height())

    def one_line(self, width: int) -> bool:
        first, caption, second = self._widths()
        return width >= first + self.GAP + caption + 6 + second

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        first, caption, second = self._widths()
        return QSize(first + self.GAP + caption + 6 + second, self._line_height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        first = self.fields[0].minimumSizeHint().width()
        second = self.caption.sizeHint().width() + 6 + self.fields[1].minimumSizeHint().width()
        return QSize(max(first, second), self._line_height())

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:  # a child's wish changed (its font, its text): place again
            self.updateGeometry()
            self._place()
        return super().event(event)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place()

    def _place(self) -> None:
        width, line = self.width(), self._line_height()
        height = line if self.one_line(width) else 2 * line + 2
        if self.height() != height:  # (the height follows the width only: this settles at once)
            self.setFixedHeight(height)
        first, caption, second = self._widths()
        if self.one_line(width):
            self.fields[0].setGeometry(0, 0, first, line)
            x, y = first + self.GAP, 0
        else:
            self.fields[0].setGeometry(0, 0, width, line)
            x, y = 0, line + 2
        self.caption.setGeometry(x, y, caption, line)
        x += caption + 6
        self.fields[1].setGeometry(x, y, max(0, width - x), line)
