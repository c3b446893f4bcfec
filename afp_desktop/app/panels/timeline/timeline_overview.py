"""The timeline's overview: every stop of the run in one strip, the stops in view framed, the cursor marked; a
scroll bar and "Fit all" beside it. A run of thousands of stops shows only a few dozen at a readable size:
this is how one sees where those are, and gets anywhere in one click.

`TimelineOverview` knows nothing of the timeline's drawing: the timeline tells it the stops (a count and a colour per stop, as ARGB),
the x range in view and the cursor's x, and hears `window_requested(centre)` when the strip is clicked or dragged.
"""

from __future__ import annotations

from array import array
from typing import Callable

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QHBoxLayout, QScrollBar, QSizePolicy, QToolButton, QVBoxLayout, QWidget

STRIP_HEIGHT = 22
SCROLL_UNITS = 1000  # scroll bar steps per stop: smooth scrolling through a long run


class OverviewStrip(QWidget):
    window_requested = Signal(float)  # the x (stop number) to centre the view on

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFixedHeight(STRIP_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Every stop of the run; the frame is the part in view. Click or drag to go there.")
        # Opaque: the cursor's line moves at every step, and the panel, the dock and the window under a strip
        # that let them show through would be repainted with it.
        self.setAutoFillBackground(True)
        self.count = 0
        self._rgba_of: Callable[[int], int] | None = None  # stop → its colour as ARGB (QColor.rgba())
        self.window = (0.0, 0.0)
        self.cursor_x: float | None = None
        self.background = QColor("#ffffff")
        self.frame_colour = QColor("#1a73e8")
        self.cursor_colour = QColor("#d93025")
        self._image: QImage | None = None
        self._last_image: QImage | None = None  # shown (stretched) until the new one is drawn
        self._redraw = QTimer(self)  # the stops' image is drawn on its own turn of the event loop: slow on a
        self._redraw.setSingleShot(True)  # long run, it would otherwise add to the paint of the run that grew
        self._redraw.setInterval(0)
        self._redraw.timeout.connect(self._draw_now)

    def set_stops(self, count: int, rgba_of: Callable[[int], int], grown: bool = False) -> None:
        """`rgba_of(i)`: stop i's colour as ARGB. `grown`: the same run with more stops (its last image may stand in
        until the new one is drawn)."""
        self.count, self._rgba_of, self._image = count, rgba_of, None
        if not grown:
            self._last_image = None
        self.update()

    def set_colours(self, background: str, frame: str, cursor: str) -> None:
        self.background, self.frame_colour, self.cursor_colour = QColor(background), QColor(frame), QColor(cursor)
        self._image = self._last_image = None
        self.update()

    def set_window(self, low: float, high: float) -> None:
        if (low, high) != self.window:
            before = self._window_px()
            self.window = (low, high)
            if self._window_px() != before:  # a step of the cursor rarely moves the frame by a pixel
                self.update()

    def set_cursor(self, x: float | None) -> None:
        if x != self.cursor_x:
            before = None if self.cursor_x is None else int(self.x_to_px(self.cursor_x))
            self.cursor_x = x
            now = None if x is None else int(self.x_to_px(x))
            if now != before:
                self.update()

    def _window_px(self) -> tuple[int, int]:
        low, high = self.window
        return int(self.x_to_px(low)), int(self.x_to_px(high))

    # -- geometry: x (stop number, -0.5 .. count-0.5) ↔ pixels ----------------------------------------------
    def x_to_px(self, x: float) -> float:
        return (x + 0.5) / max(self.count, 1) * self.width()

    def px_to_x(self, px: float) -> float:
        return px / max(self.width(), 1) * max(self.count, 1) - 0.5

    # -- painting ----------------------------------------------------------------------------------------
    def _draw_now(self) -> None:
        self._stops_image()
        self.update()

    def _image_to_paint(self) -> QImage:
        """The stops' image, or while a new one waits to be drawn, the last one (a first one is drawn at once)."""
        if self._image is not None and self._image.width() == self.width():
            return self._image
        if self._last_image is None:
            return self._stops_image()
        self._redraw.start()
        return self._last_image

    def _stops_image(self) -> QImage:
        """One tick per stop (several per pixel column on a long run: the column takes the last one's colour)."""
        if self._image is None or self._image.width() != self.width():
            width, height = max(1, self.width()), self.height()
            image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
            image.fill(self.background)
            if self.count and self._rgba_of is not None:
                with QPainter(image) as painter:
                    if self.count >= width:
                        # One pixel per column: a one-row image stretched to the ticks' height (one drawImage call
                        # instead of a fillRect per column, each a call from Python).
                        painter.drawImage(QRectF(0, 5, width, height - 10), self._columns_row(width))
                    else:
                        tick = max(1.0, width / self.count - 1)
                        for i in range(self.count):
                            painter.fillRect(QRectF(int(self.x_to_px(i)), 5, tick, height - 10),
                                             QColor.fromRgba(self._rgba_of(i)))
            self._image = self._last_image = image
        return self._image

    def _columns_row(self, width: int) -> QImage:
        """A row of `width` pixels: each column the colour of the last stop sampled in it (one per column), made
        as one array of pixels: a setPixel per column and a QColor per stop would each be a call into Qt."""
        count, rgba_of = self.count, self._rgba_of
        assert rgba_of is not None
        row = array("I", [self.background.rgba()]) * width
        scale = width / count
        for i in range(0, count, max(1, count // width)):  # (equal columns: the later stop's colour stays)
            row[min(int((i + 0.5) * scale), width - 1)] = rgba_of(i)
        return QImage(row.tobytes(), width, 1, QImage.Format.Format_ARGB32).copy()  # (its own pixels)

    def resizeEvent(self, event) -> None:
        self._image = None
        super().resizeEvent(event)

    def paintEvent(self, event) -> None:
        with QPainter(self) as painter:
            image = self._image_to_paint()
            painter.drawImage(QRectF(0, 0, self.width(), self.height()), image)
            if self.count:
                low, high = self.window
                left, right = self.x_to_px(max(low, -0.5)), self.x_to_px(min(high, self.count - 0.5))
                shade = QColor(self.frame_colour)
                shade.setAlpha(45)
                frame = QRectF(left, 1, max(3.0, right - left), self.height() - 2)
                painter.fillRect(frame, shade)
                painter.setPen(QPen(self.frame_colour, 1.5))
                painter.drawRect(frame)
                if self.cursor_x is not None:
                    px = self.x_to_px(self.cursor_x)
                    painter.setPen(QPen(self.cursor_colour, 2))
                    painter.drawLine(int(px), 0, int(px), self.height())
            painter.setPen(QPen(QColor(128, 128, 128, 110), 1))
            painter.drawRect(self.rect().adjusted(0, 0, -1, -1))

    # -- the mouse -----------------------------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.count:
            self.window_requested.emit(self.px_to_x(event.position().x()))
            event.accept()

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton and self.count:
            self.window_requested.emit(self.px_to_x(event.position().x()))
            event.accept()


class TimelineOverview(QWidget):
    """The strip, a scroll bar under it and a "Fit all" button. `view_requested(low, high)` asks the timeline to
    show that x range."""

    view_requested = Signal(float, float)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.strip = OverviewStrip()
        self.scroll = QScrollBar(Qt.Orientation.Horizontal)
        self.scroll.setToolTip("Scroll through the stops")
        self.fit_button = QToolButton()
        self.fit_button.setText("Fit all")
        self.fit_button.setToolTip("Zoom the timeline out to show every stop")
        self.fit_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(1)
        column.addWidget(self.strip)
        column.addWidget(self.scroll)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addLayout(column, 1)
        row.addWidget(self.fit_button)
        self.strip.window_requested.connect(self._centre_on)
        self.scroll.valueChanged.connect(self._scrolled)
        self.fit_button.clicked.connect(self.fit_all)
        self._syncing = False

    @property
    def count(self) -> int:
        return self.strip.count

    def set_stops(self, count: int, rgba_of: Callable[[int], int], grown: bool = False) -> None:
        self.strip.set_stops(count, rgba_of, grown)

    def set_colours(self, background: str, frame: str, cursor: str) -> None:
        self.strip.set_colours(background, frame, cursor)

    def set_window(self, low: float, high: float) -> None:
        """The timeline's view changed (zoom, pan, the cursor moved it)."""
        self.strip.set_window(low, high)
        width = max(high - low, 1e-9)
        total = self.count + 1.0  # x runs from -1 to count (the plot's limits)
        self._syncing = True
        self.scroll.setRange(0, max(0, int((total - width) * SCROLL_UNITS)))
        self.scroll.setPageStep(max(1, int(width * SCROLL_UNITS)))
        self.scroll.setSingleStep(SCROLL_UNITS)
        self.scroll.setValue(int((low + 1.0) * SCROLL_UNITS))
        self._syncing = False

    def set_cursor(self, x: float | None) -> None:
        self.strip.set_cursor(x)

    def _centre_on(self, x: float) -> None:
        low, high = self.strip.window
        half = (high - low) / 2
        self.view_requested.emit(x - half, x + half)

    def _scrolled(self, value: int) -> None:
        if self._syncing:
            return
        low, high = self.strip.window
        start = value / SCROLL_UNITS - 1.0
        self.view_requested.emit(start, start + (high - low))

    def fit_all(self) -> None:
        if self.count:
            self.view_requested.emit(-1.0, float(self.count))
