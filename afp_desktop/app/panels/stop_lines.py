"""The status lines the chat user saw during the stop at the cursor: one row each, cut in the middle to the panel.

This list changes on every move of the cursor, so it is not a word-wrapped, selectable QLabel: Qt lays such a
label's text document out several times per change (its size hints, each width asked, its paint). Here each
line is one row, its middle elided to the width (a streaming line is the whole answer so far: its start and
newest words tell lines apart), the height is the number of rows, and a change of text is a repaint only. The
whole lines are in the tooltip and on the clipboard (right-click ▸ Copy).
Trace text is drawn as plain text (QPainter.drawText interprets no markup), bidi controls made visible, in rows
that hold every glyph's ink (app/widgets/text_lines.py: an underscore below the font's descent stays drawn).

The title above the lines ("During LLM turn 4, the chat user saw 65 line(s):") is drawn by the same widget, and
the widget keeps the tallest height it has needed while one scrubs (`settle()` lets it shrink: a new run, a new
width): a separate wrapped label and a list of changing height would relay the chat out at every step.
It paints every pixel, so its repaint is not also the chat's beneath it.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette
from PySide6.QtWidgets import QMenu, QSizePolicy, QWidget

from afp_desktop.app.widgets.plain_text import TooltipWhenAsked
from afp_desktop.app.widgets.text_lines import UNCLIPPED, line_height
from afp_desktop.app.widgets.visible_text import visible_text

PADDING = 6
RADIUS = 6
TITLE_GAP = 10  # between the title and the lines (the chat's spacing between rows)
TITLE_FLAGS = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap | UNCLIPPED
COPY = "Copy these lines"


class StopLines(TooltipWhenAsked, QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._rows: list[str] = []  # as drawn (before eliding)
        self._title = ""  # as drawn (bidi controls made visible)
        self._title_height: tuple[int, str, int] | None = None  # (width, title, its wrapped height)
        self._tallest = 0  # the tallest height needed since the last settle()
        self._copied = ""  # the same rows with every line whole
        self._tip: Callable[[], str] | None = None  # makes the tooltip: every line of the stop, whole
        self._cut = False  # some rows are cut or left out whatever the width
        self._elided: tuple[int, list[str]] | None = None  # (width, the rows elided to it): a repaint reuses them
        self._line_px: int | None = None  # a row's height in the present font (line_height)
        self._fill, self._ink = QColor("#f6f7f9"), QColor("#30384a")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)  # (its width is the panel's)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.setAccessibleName("Lines the chat showed during the stop")
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self._fit_height()

    def set_colours(self, fill: str, ink: str) -> None:
        self._fill, self._ink = QColor(fill), QColor(ink)
        self.update()

    def set_rows(self, rows: list[str], whole: list[str] | None = None, tip: Callable[[], str] | None = None,
                 cut: bool = False, title: str | None = None) -> None:
        """`rows` as listed; `whole`: the same rows with no line cut (what Copy puts on the clipboard); `tip()`
        makes the tooltip, shown when a row is cut (`cut`, or elided at the present width); `title`: the line
        above them (None: unchanged)."""
        shown = [visible_text(row) for row in rows]
        self._copied = "\n".join(whole if whole is not None else rows)
        self._tip, self._cut = tip, cut
        title = self._title if title is None else visible_text(title)
        if shown != self._rows or title != self._title:
            self._rows, self._elided, self._title = shown, None, title
            self._fit_height()
            self.setAccessibleDescription(self.accessible_text())  # (a screen reader's: the widget is painted)
            self.update()

    def title(self) -> str:
        return self._title

    def text(self) -> str:
        """The rows as listed, one per line (before they are cut to the width)."""
        return "\n".join(self._rows)

    def accessible_text(self) -> str:
        return "\n".join([self._title, *self._rows]) if self._title else self.text()

    def toolTip(self) -> str:  # noqa: N802 - Qt's name (made when asked: the stop may have thousands of lines)
        if self._tip is None or not (self._cut or self.elided_rows() != self._rows):
            return ""
        return self._tip()

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self._copied)

    def _menu(self, where) -> None:
        menu = QMenu(self)
        menu.addAction(COPY, self.copy).setEnabled(bool(self._copied))
        menu.exec(self.mapToGlobal(where))

    def _row_height(self) -> int:
        if self._line_px is None:
            self._line_px = line_height(self.fontMetrics())
        return self._line_px

    def _title_px(self) -> int:
        """The title's height wrapped to the present width (0: no title)."""
        if not self._title:
            return 0
        width = max(1, self.width())
        if self._title_height is None or self._title_height[:2] != (width, self._title):
            box = self.fontMetrics().boundingRect(QRect(0, 0, width, 100_000), int(TITLE_FLAGS), self._title)
            self._title_height = (width, self._title, box.height())
        return self._title_height[2]

    def _box_px(self) -> int:
        return len(self._rows) * self._row_height() + 2 * PADDING if self._rows else 0

    def _fit_height(self) -> None:
        title, box = self._title_px(), self._box_px()
        self._tallest = max(self._tallest, title + (TITLE_GAP if title and box else 0) + box)
        if self.minimumHeight() != self._tallest or self.maximumHeight() != self._tallest:
            self.setFixedHeight(self._tallest)  # (only growing asks for a new layout)

    def settle(self) -> None:
        """Fit the height to what is shown now (it may shrink)."""
        self._tallest = 0
        self._fit_height()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if event.oldSize().width() != self.width():
            self.settle()  # the title wraps anew

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(200, self.minimumHeight())  # (its fixed height)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(40, self.sizeHint().height())

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self._elided, self._title_height, self._line_px = None, None, None
            self.settle()

    def elided_rows(self) -> list[str]:
        """Each row as drawn at the present width."""
        metrics, width = self.fontMetrics(), max(1, self.width() - 2 * PADDING)
        if self._elided is None or self._elided[0] != width:
            self._elided = (width, [metrics.elidedText(row, Qt.TextElideMode.ElideMiddle, width) for row in self._rows])
        return self._elided[1]

    def paintEvent(self, _event) -> None:  # noqa: N802
        with QPainter(self) as painter:
            palette = self.palette()
            painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.Window))  # (opaque: every pixel)
            title = self._title_px()
            if title:
                painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))  # (as a muted label)
                painter.drawText(QRect(0, 0, self.width(), title), int(TITLE_FLAGS), self._title)
            if not self._rows:
                return
            top = title + TITLE_GAP if title else 0
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._fill)
            painter.drawRoundedRect(QRect(0, top, self.width(), self._box_px()), RADIUS, RADIUS)
            painter.setPen(self._ink)
            step, width = self._row_height(), max(1, self.width() - 2 * PADDING)
            flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine | UNCLIPPED
            for number, row in enumerate(self.elided_rows()):
                painter.drawText(QRect(PADDING, top + PADDING + number * step, width, step), int(flags), row)
