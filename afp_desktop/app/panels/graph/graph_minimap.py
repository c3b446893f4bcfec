"""A minimap of the step graph in the canvas's bottom-right corner, and the "centre on the cursor" button.

The map shows every card as a block (drawn once per graph into an image), the part of the graph in view as a
frame, and the step at the cursor as a dot; a click or drag on it scrolls the canvas there. On a run of hundreds
of iterations the graph is thousands of pixels tall: the map is how one sees where one is.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QToolButton, QWidget

MAX_W, MAX_H, MIN_SIDE, SQUASHED_W = 130, 240, 36, 96
MARGIN = 10


class GraphMinimap(QWidget):
    """Child of a GraphCanvas; follows its scrolling and its cursor."""

    def __init__(self, canvas):
        super().__init__(canvas.viewport())  # (over the view, yet not overlapping it: see GraphCanvas.pin_overlay)
        self.canvas = canvas
        self._image: QImage | None = None
        self._cursor_drawn: tuple | None = None  # the cursor's dot and veil as last painted
        self._sx = self._sy = 1.0  # map pixels per scene pixel; a run of hundreds of iterations is squashed
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Minimap of the graph: click or drag to go there")
        # Opaque (it paints every pixel): its cursor moves at every step, and a map that let the graph show through
        # would make the graph under it be drawn again with it each time.
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self.centre_button = QToolButton(canvas.viewport())
        self.centre_button.setText("◎ Cursor")
        self.centre_button.setToolTip("Centre the graph on the step at the cursor (C)")
        self.centre_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.centre_button.clicked.connect(canvas.centre_on_cursor)
        for bar in (canvas.horizontalScrollBar(), canvas.verticalScrollBar()):
            bar.valueChanged.connect(self.update)
            bar.rangeChanged.connect(lambda *_: self.update())
        canvas.graph_changed.connect(self.refresh)
        canvas.pin_overlay(self, self._place)  # (kept in its corner as the view scrolls and is resized)
        self.refresh()

    # -- content -------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """The graph changed (or the palette): draw its blocks again and place the map."""
        self._image = None
        layout = self.canvas.graph_layout
        shown = layout is not None and bool(layout.nodes)
        self.setVisible(shown)
        self.centre_button.setVisible(shown)
        if shown:
            self._place()
        self.update()

    def _size(self) -> tuple[int, int]:
        """The map keeps the graph's proportions while they fit; a graph far taller than wide (a long run) is
        squashed vertically instead of becoming a one-pixel sliver."""
        layout = self.canvas.graph_layout
        width, height = max(layout.width, 1.0), max(layout.height, 1.0)
        if height / width > MAX_H / MIN_SIDE:  # a long run: squashed to a readable strip
            w, h = SQUASHED_W, MAX_H
        else:
            scale = min(MAX_W / width, MAX_H / height)
            w, h = max(MIN_SIDE, int(width * scale)), max(MIN_SIDE, int(height * scale))
        self._sx, self._sy = (w - 2) / width, (h - 2) / height
        return w, h

    def _place(self) -> None:
        if self.canvas.graph_layout is None:
            return  # (the graph is being dropped: the emptied view scrolls before graph_changed hides the map)
        width, height = self._size()
        self.canvas.reserve(right=width + MARGIN)  # "fit width" leaves the map's column clear of cards
        viewport = self.canvas.viewport().rect()
        self.setGeometry(viewport.right() - width - MARGIN, viewport.bottom() - height - MARGIN, width, height)
        hint = self.centre_button.sizeHint()
        self.centre_button.setGeometry(viewport.right() - hint.width() - MARGIN, viewport.top() + MARGIN,
                                       hint.width(), hint.height())
        self.raise_()
        self.centre_button.raise_()

    def _blocks(self) -> QImage:
        if self._image is not None and self._image.size() != self.size():
            self._image = None  # (it must cover the map: the map is opaque)
        if self._image is None:
            image = QImage(self.width(), self.height(), QImage.Format.Format_ARGB32_Premultiplied)
            palette = self.canvas.palette
            image.fill(QColor(palette.background))
            with QPainter(image) as painter:
                sx, sy = self._sx, self._sy
                by_colour: dict[str, list[QRectF]] = {}
                for box in self.canvas.graph_layout.nodes:
                    by_colour.setdefault(palette.kind(box.kind).accent, []).append(
                        QRectF(1 + box.x * sx, 1 + box.y * sy, max(1.0, box.w * sx), max(1.0, box.h * sy)))
                painter.setPen(Qt.PenStyle.NoPen)
                for colour, rects in by_colour.items():
                    painter.setBrush(QColor(colour))
                    painter.drawRects(rects)
            self._image = image
        return self._image

    # -- painting ----------------------------------------------------------------------------------------
    def follow_cursor(self) -> None:
        """The cursor moved: repaint if its dot or veil moved a pixel. (On a long run the map is squashed to
        several steps a pixel row, so most steps change nothing on it.)"""
        if self._cursor_marks() != self._cursor_drawn:
            self.update()

    def _cursor_marks(self) -> tuple[QPointF, int] | None:
        """Where the cursor's dot is drawn and the row its veil begins at, whole pixels (what follow_cursor
        compares, so the painting is the same whether or not a step was skipped)."""
        layout, current = self.canvas.graph_layout, self.canvas.current
        if layout is None or current is None or current >= len(layout.nodes):
            return None
        box = layout.nodes[current]
        dot = self.map_point(box.cx, box.cy)
        return QPointF(round(dot.x()), round(dot.y())), round(self.map_point(0, box.y + box.h).y())

    def paintEvent(self, event) -> None:
        with QPainter(self) as painter:
            if self.canvas.graph_layout is None:
                painter.fillRect(self.rect(), QColor(self.canvas.palette.background))
                return
            painter.drawImage(0, 0, self._blocks())
            palette = self.canvas.palette
            painter.setPen(QPen(QColor(palette.card_border), 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
            seen = self.view_rect()
            painter.setPen(QPen(QColor(palette.selection), 1.5))
            fill = QColor(palette.selection)
            fill.setAlpha(40)
            painter.setBrush(fill)
            painter.drawRect(seen.adjusted(0, 0, -1, -1) if seen.width() > 2 else seen)
            marks = self._cursor_drawn = self._cursor_marks()
            if marks is not None:
                dot, below = marks
                # Below the cursor's row the run has not happened yet: veiled, as the graph dims it.
                veil = QColor(palette.background)
                veil.setAlpha(150)
                painter.fillRect(QRectF(1, below, self.width() - 2, self.height() - 1 - below), veil)
                painter.setPen(QPen(QColor("#ffffff"), 1))
                painter.setBrush(QColor(palette.cursor))
                painter.drawEllipse(dot, 3.5, 3.5)

    def map_point(self, x: float, y: float) -> QPointF:
        return QPointF(1 + x * self._sx, 1 + y * self._sy)

    def view_rect(self) -> QRectF:
        """The part of the graph in view, in map pixels."""
        seen = self.canvas.visible_scene_rect()
        top_left = self.map_point(seen.x(), seen.y())
        return QRectF(top_left.x(), top_left.y(), max(2.0, seen.width() * self._sx),
                      max(2.0, seen.height() * self._sy))

    # -- the mouse -----------------------------------------------------------------------------------------
    def _go(self, pos) -> None:
        self.canvas.centerOn(QPointF((pos.x() - 1) / (self._sx or 1.0), (pos.y() - 1) / (self._sy or 1.0)))

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._go(event.position())
            event.accept()

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._go(event.position())
            event.accept()
