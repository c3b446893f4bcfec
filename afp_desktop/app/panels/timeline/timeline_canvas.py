"""The timeline's drawing: the stops on their axis and, under them, each stop's bars, painted with QPainter.

One widget, two strips sharing one x axis (x is the stop number: stop i at x = i):
- the stop strip: iteration bands and their labels, a marker per stop (a one-pixel tick each when zoomed far
  out), the stop axis with labels that thin out so they never overlap, and the marks laid over it (errors,
  search matches, pauses, retries, findings: `set_marks`, one layer per kind);
- the bar strip (`bars_height` px, none when the stops have no figures): tokens in and out per stop on the left
  axis, tool time on the right one, and over the stops not wholly known at the cursor the columns of what is
  known there (`set_known_columns`).

What a move of the cursor changes (the cursor line, the veil over what has not happened yet, the known columns,
the marks known so far) is drawn over a picture of the rest, made once per view, size, data and theme: a move
paints that picture and a few shapes. Only the stops in view are drawn, whatever the run's length.

The mouse: a wheel zooms around the pointer, a drag pans, a drag of the cursor line moves the cursor stop by stop,
a click goes to the nearest stop (or, on an iteration's label, to its first stop), a double-click asks to drill
in. The widget says what the mouse asked through its signals; it moves nothing itself.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from afp_desktop.app.panels.timeline.ticks import compact_number, stop_ticks, value_ticks
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.model.plot_scale import plotted
from afp_desktop.core.model.timeline import stop_at_x

SIDE_PX = 58            # each side's room for the bars' axes; the stop strip keeps it too, so the x positions agree
AXIS_PX = 22            # the stop axis under the stop strip: its ticks and labels
TICK_FONT_PX = 11
LABEL_GAP_PX = 16
AXIS_LABEL_CHARS = 40   # a stop's label on the axis is cut to this many characters (its tooltip says it whole)
BAR_WIDTH = 0.6         # of a stop's width
COVER_WIDTH = 0.66      # a known column covers the true bar and a little more
RUNNING_STUB = 0.25     # a running call's stub, this share of the bar strip's height
BARS_TOP_PAD, BARS_BOTTOM_PAD = 4, 6
DEFAULT_BARS_PX = 84     # the bar strip's height (the timeline's host makes it lower in a low dock)
MIN_STOP_STRIP_PX = 24  # the stop strip keeps this much (its markers and the marks above and below them) …
MIN_BARS_PX = 28        # … and a bar strip that would be lower than this is left out: nothing is drawn over another
FULL_MARKER_PX = 11.0   # a round marker's diameter at full size; drillable squares are a little larger
SHRINK_BELOW_PX = 16.0  # under this many pixels per stop, markers shrink so neighbours stay apart
TICK_BELOW_PX = 2.0     # under this, one tick per stop
CURSOR_GRAB_PX = 5      # how near the cursor line a press grabs it
DRAG_START_PX = 3       # a press that moves less than this is a click
ZOOM_PER_NOTCH = 0.85   # a wheel notch shows this share of the stops it showed
MARK_HIT_PX = 7
BAND_LABEL_MIN_PX = 80  # a band this wide on screen gets its label
MIN_LABELLED_HEIGHT = 56  # a stop strip lower than this has no band labels: they would sit on the markers


@dataclass(frozen=True)
class Mark:
    """A mark over the stop strip: at `x`, at height `y` (-1 the strip's bottom, 1 its top), a `symbol` ("x", "t"
    a triangle pointing down, "d" a diamond, "pause", "retry"), `size` px, its tooltip `tip`."""

    x: float
    y: float
    symbol: str
    colour: str
    size: float
    tip: str
    filled: bool = True


@dataclass(frozen=True)
class Band:
    """An iteration's shading from `x0` to `x1`; its label (when it has room) goes to stop `first` on a click."""

    x0: float
    x1: float
    colour: QColor
    label: str
    tip: str
    first: int


@dataclass(frozen=True)
class Column:
    """One stop's bars as known at the cursor (its tokens and tool time, in the run's own numbers), drawn over the
    veil; `running` draws a call's outlined stub."""

    x: float
    tokens_in: float
    tokens_out: float
    tool_ms: float
    running: bool


@dataclass
class Colours:
    background: QColor
    text: QColor
    text_muted: QColor
    axis: QColor
    cursor: QColor
    tokens: QColor
    tool: QColor

    @property
    def tokens_out(self) -> QColor:
        """Tokens out: the tokens' colour, lighter (drawn on the tokens in)."""
        light = QColor(self.tokens)
        light.setAlpha(120)
        return light


_PATHS: dict[str, QPainterPath] = {}


def _symbol_path(symbol: str) -> QPainterPath:
    """A mark's shape in a unit square centred on 0 (scaled by its size), made once per symbol."""
    path = _PATHS.get(symbol)
    if path is None:
        path = _PATHS[symbol] = _make_symbol_path(symbol)
    return path


def _make_symbol_path(symbol: str) -> QPainterPath:
    path = QPainterPath()
    if symbol == "x":
        for a, b in (((-0.5, -0.5), (0.5, 0.5)), ((-0.5, 0.5), (0.5, -0.5))):
            path.moveTo(*a)
            path.lineTo(*b)
    elif symbol == "t":
        path.addPolygon(QPolygonF([QPointF(-0.5, -0.4), QPointF(0.5, -0.4), QPointF(0.0, 0.5)]))
        path.closeSubpath()
    elif symbol == "d":
        path.addPolygon(QPolygonF([QPointF(0, -0.5), QPointF(0.5, 0), QPointF(0, 0.5), QPointF(-0.5, 0)]))
        path.closeSubpath()
    elif symbol == "pause":
        path.addRect(-0.4, -0.5, 0.28, 1.0)
        path.addRect(0.12, -0.5, 0.28, 1.0)
    elif symbol == "retry":
        path.arcMoveTo(-0.4, -0.4, 0.8, 0.8, 60)
        path.arcTo(-0.4, -0.4, 0.8, 0.8, 60, 300)
        path.moveTo(0.2, -0.5)
        path.lineTo(0.45, -0.3)
        path.lineTo(0.12, -0.18)
    else:
        path.addEllipse(QPointF(0, 0), 0.5, 0.5)
    return path


def tick_font() -> QFont:
    font = QFont()
    font.setPixelSize(TICK_FONT_PX)
    return font


class TimelineCanvas(QWidget):
    range_changed = Signal(float, float)   # the stops in view changed (low, high)
    stop_clicked = Signal(int)
    stop_double_clicked = Signal(int)
    cursor_dragged = Signal(int)           # the cursor line dragged onto this stop
    band_clicked = Signal(int)             # an iteration's label clicked: its first stop

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self.setMouseTracking(True)
        self._font = tick_font()
        self._metrics = QFontMetricsF(self._font)
        self.colours = Colours(*(QColor(name) for name in ("#ffffff", "#202020", "#707070", "#a0a0a0", "#d03a3a",
                                                           "#3d6fd6", "#2e9d5b")))
        self.low, self.high = -1.0, 1.0
        self._x_min, self._x_max, self._min_range = -1.0, 1.0, 1.0
        # the stops
        self.count = 0
        self._style: Callable[[int], tuple[QColor, str]] | None = None
        self._styles: list[tuple[QColor, str] | None] = []
        self._labels: list[str] = []
        self._label_widths: list[float | None] = []
        self._tooltip: Callable[[int], str] | None = None
        # the bars
        self.bars_height = DEFAULT_BARS_PX
        self._bars: tuple[Sequence[float], Sequence[float], Sequence[float]] | None = None  # in, out, tool
        self.token_top, self.tool_top = 1.0, 1.0
        self.tool_axis = False
        # what a move changes
        self.cursor_x: float | None = None
        self.veil_start = math.inf
        self.columns: tuple[Column, ...] = ()
        self._tool_running = False
        self._marks: dict[str, list[Mark]] = {}
        self._mark_xs: dict[str, list[float]] = {}
        self.bands: list[Band] = []
        # the picture of what a move does not change
        self._picture: QPixmap | None = None
        self._picture_key: tuple | None = None
        self._version = 0
        self.paints = 0  # how many times it was painted, and its picture drawn (tests)
        self.pictures = 0
        # the mouse
        self._press: QPointF | None = None
        self._pressed_range = (0.0, 0.0)
        self._dragging_cursor = False
        self._panning = False

    # ----------------------------------------------------------------------------------------------- state
    def _changed(self) -> None:
        """What the picture shows changed: drawn anew at the next paint."""
        self._version += 1
        self.update()

    def set_colours(self, colours: Colours) -> None:
        self.colours = colours
        self._styles = [None] * self.count
        self._changed()

    def set_limits(self, x_min: float, x_max: float, min_range: float) -> None:
        self._x_min, self._x_max, self._min_range = x_min, x_max, min_range
        self.set_x_range(self.low, self.high)

    def x_range(self) -> tuple[float, float]:
        return self.low, self.high

    def set_x_range(self, low: float, high: float) -> None:
        """Show stops low..high, kept within the limits (its width at least the least range, at most the whole)."""
        whole = self._x_max - self._x_min
        width = min(max(high - low, self._min_range), whole) if whole > 0 else max(high - low, 1e-9)
        low = max(self._x_min, min(low, self._x_max - width))
        high = low + width
        if (low, high) == (self.low, self.high):
            return
        self.low, self.high = low, high
        self.update()
        self.range_changed.emit(low, high)

    def set_stops(self, count: int, style: Callable[[int], tuple[QColor, str]], labels: Sequence[str],
                  tooltip: Callable[[int], str] | None) -> None:
        """`count` stops; `style(i)` is stop i's (colour, symbol): "o" circle, "s" square (drillable), "d" diamond
        (start and end), asked when it is first drawn; `labels` name them on the axis; `tooltip(i)` is a stop's
        hover text."""
        self.count, self._style, self._tooltip = count, style, tooltip
        self._styles = [None] * count
        self._labels = [label if len(label) <= AXIS_LABEL_CHARS else label[:AXIS_LABEL_CHARS - 1] + "…"
                        for label in labels]
        self._label_widths = [None] * len(self._labels)
        self._changed()

    def style(self, i: int) -> tuple[QColor, str]:
        style = self._styles[i]
        if style is None:
            assert self._style is not None
            style = self._styles[i] = self._style(i)
        return style

    def set_bars(self, bars: tuple[Sequence[float], Sequence[float], Sequence[float]] | None, token_top: float,
                 tool_top: float, tool_axis: bool) -> None:
        """Each stop's (tokens in, tokens out, tool ms), drawable (plot_scale.py), and the tops of their axes;
        None: no bars."""
        self._bars, self.token_top, self.tool_top, self.tool_axis = bars, token_top, tool_top, tool_axis
        self._changed()

    @property
    def has_bars(self) -> bool:
        return self.bars_px() > 0

    def bars_px(self) -> int:
        """The bar strip's height as drawn: `bars_height`, less where the canvas is too low to hold it under the stop
        strip and its axis; none when that leaves it too low to read (or there are no bars)."""
        if self._bars is None:
            return 0
        bars = min(self.bars_height, self.height() - AXIS_PX - MIN_STOP_STRIP_PX)
        return bars if bars >= MIN_BARS_PX else 0

    def set_bars_height(self, height: int) -> None:
        if height != self.bars_height:
            self.bars_height = height
            self._changed()

    def set_bands(self, bands: list[Band]) -> None:
        self.bands = bands
        self._changed()

    def set_cursor(self, x: float | None, veil_start: float) -> None:
        if (x, veil_start) != (self.cursor_x, self.veil_start):
            self.cursor_x, self.veil_start = x, veil_start
            self.update()

    def set_known_columns(self, columns: tuple[Column, ...], tool_running: bool) -> None:
        """The columns over the stops not wholly known at the cursor; `tool_running`: a running stub is a tool's
        (in the tool's colour), else an LLM call's."""
        if (columns, tool_running) != (self.columns, self._tool_running):
            self.columns, self._tool_running = columns, tool_running
            self.update()

    def set_marks(self, layer: str, marks: list[Mark]) -> None:
        """The marks of one layer (drawn in the order the layers were first set), replacing its last ones."""
        marks = sorted(marks, key=lambda mark: mark.x)
        if marks == self._marks.get(layer):
            return
        self._marks[layer] = marks
        self._mark_xs[layer] = [mark.x for mark in marks]
        self.update()

    def marks(self, layer: str) -> list[Mark]:
        return list(self._marks.get(layer, ()))

    # -------------------------------------------------------------------------------------------- geometry
    def plot_rect(self) -> QRectF:
        """Where stops are drawn, across both strips."""
        return QRectF(SIDE_PX, 0, max(1.0, self.width() - 2 * SIDE_PX), self.height())

    def stop_rect(self) -> QRectF:
        """The stop strip's drawing area (its axis below it)."""
        bars = self.bars_px()
        return QRectF(SIDE_PX, 0, max(1.0, self.width() - 2 * SIDE_PX), max(1.0, self.height() - bars - AXIS_PX))

    def bar_rect(self) -> QRectF:
        """The bar strip's drawing area (empty when there are no bars)."""
        if not self.has_bars:
            return QRectF()
        bars = self.bars_px()
        top = self.height() - bars + BARS_TOP_PAD
        return QRectF(SIDE_PX, top, max(1.0, self.width() - 2 * SIDE_PX), max(1.0, bars - BARS_TOP_PAD - BARS_BOTTOM_PAD))

    def px_per_stop(self) -> float:
        return self.plot_rect().width() / max(self.high - self.low, 1e-9)

    def px_of(self, x: float) -> float:
        return SIDE_PX + (x - self.low) * self.px_per_stop()

    def x_of(self, px: float) -> float:
        return self.low + (px - SIDE_PX) / self.px_per_stop()

    def _y_of(self, y: float) -> float:
        """Height -1..1 in the stop strip → pixels."""
        rect = self.stop_rect()
        return rect.top() + (1.0 - y) / 2.0 * rect.height()

    def point_of(self, x: float, y: float = 0.0) -> QPointF:
        """The pixel of stop x at height y (-1..1) of the stop strip."""
        return QPointF(self.px_of(x), self._y_of(y))

    def stop_at(self, pos: QPointF) -> int | None:
        """The stop nearest to a point of the stop strip (None elsewhere, or with no stops)."""
        if not self.count or not self.stop_rect().contains(pos):
            return None
        return stop_at_x(self.x_of(pos.x()), self.count)

    def in_view(self) -> tuple[int, int]:
        """The first and last stop (partly) in view; last < first when none is."""
        return max(0, math.floor(self.low)), min(self.count - 1, math.ceil(self.high))

    def marker_size(self) -> float:
        return FULL_MARKER_PX * min(1.0, max(0.3, round(self.px_per_stop() / SHRINK_BELOW_PX, 1)))

    def labelled_bands(self) -> list[Band]:
        """The bands in view wide enough on screen to carry their label (none in a low strip)."""
        if self.stop_rect().height() < MIN_LABELLED_HEIGHT:
            return []
        px = self.px_per_stop()
        return [band for band in self._bands_in_view()
                if band.x1 > self.low and (band.x1 - band.x0) * px >= BAND_LABEL_MIN_PX]

    def _bands_in_view(self) -> list[Band]:
        """The bands that may reach into the view (they are in order of x0)."""
        firsts = [band.x0 for band in self.bands]
        return self.bands[max(0, bisect_left(firsts, self.low) - 1):bisect_right(firsts, self.high + 1)]

    def _band_label_rect(self, band: Band) -> QRectF:
        left = max(self.px_of(band.x0), SIDE_PX) + 3
        return QRectF(left, self.stop_rect().top() + 1, self._metrics.horizontalAdvance(band.label) + 2,
                      self._metrics.height())

    # ------------------------------------------------------------------------------------------- painting
    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self.paints += 1
        dpr = self.devicePixelRatioF()
        key = (self.width(), self.height(), dpr, self.low, self.high, self._version)
        if key != self._picture_key or self._picture is None:
            self._picture = self._draw_picture(dpr)
            self._picture_key = key
        with QPainter(self) as painter:
            painter.drawPixmap(0, 0, self._picture)
            painter.setClipRect(self.plot_rect())
            self._paint_veil(painter)
            self._paint_columns(painter)
            self._paint_marks(painter)
            self._paint_cursor(painter)

    def _draw_picture(self, dpr: float) -> QPixmap:
        self.pictures += 1
        picture = QPixmap(max(1, round(self.width() * dpr)), max(1, round(self.height() * dpr)))
        picture.setDevicePixelRatio(dpr)
        picture.fill(self.colours.background)
        with QPainter(picture) as painter:
            painter.setFont(self._font)
            painter.save()
            painter.setClipRect(self.stop_rect())
            self._paint_bands(painter)
            self._paint_stops(painter)
            painter.restore()
            self._paint_stop_axis(painter)
            if self.has_bars:
                self._paint_bars(painter)
                self._paint_value_axes(painter)
        return picture

    def _paint_bands(self, painter: QPainter) -> None:
        rect = self.stop_rect()
        painter.setPen(Qt.PenStyle.NoPen)
        for band in self._bands_in_view():
            left, right = self.px_of(band.x0), self.px_of(band.x1)
            if right >= rect.left() and left <= rect.right():
                painter.fillRect(QRectF(left, rect.top(), right - left, rect.height()), band.colour)
        painter.setPen(self.colours.text_muted)
        for band in self.labelled_bands():
            painter.drawText(self._band_label_rect(band), Qt.AlignmentFlag.AlignLeft, band.label)

    def _paint_stops(self, painter: QPainter) -> None:
        first, last = self.in_view()
        if last < first:
            return
        y = self._y_of(0.0)
        if self.px_per_stop() < TICK_BELOW_PX:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            columns: dict[int, QColor] = {}
            for i in range(first, last + 1):  # (several stops share a column: the later one wins)
                columns[int(self.px_of(i))] = self.style(i)[0]
            by_colour: dict[int, tuple[QColor, list[int]]] = {}
            for x, colour in columns.items():
                by_colour.setdefault(colour.rgba(), (colour, []))[1].append(x)
            for colour, xs in by_colour.values():
                painter.setPen(QPen(colour, 1))
                for x in xs:
                    painter.drawLine(x, int(y - 6), x, int(y + 6))
            return
        size = self.marker_size()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(self.colours.background, 1))
        brushes: dict[int, QBrush] = {}
        for i in range(first, last + 1):
            colour, symbol = self.style(i)
            brush = brushes.get(colour.rgba())
            if brush is None:
                brush = brushes[colour.rgba()] = QBrush(colour)
            painter.setBrush(brush)
            x = self.px_of(i)
            if symbol == "s":
                half = size * 13 / 22
                painter.drawRect(QRectF(x - half, y - half, 2 * half, 2 * half))
            elif symbol == "d":
                half = size / 2 + 1
                painter.drawPolygon(QPolygonF([QPointF(x, y - half), QPointF(x + half, y), QPointF(x, y + half),
                                               QPointF(x - half, y)]))
            else:
                painter.drawEllipse(QPointF(x, y), size / 2, size / 2)

    def _widest_label(self, first: int, last: int) -> float:
        """The widest label of stops first..last (a sample of 200 of them when more are in view)."""
        step = max(1, (last - first + 1) // 200)
        widest = 0.0
        for i in range(first, last + 1, step):
            width = self._label_widths[i]
            if width is None:
                width = self._label_widths[i] = self._metrics.horizontalAdvance(self._labels[i])
            widest = max(widest, width)
        return widest

    def labelled_stops(self) -> tuple[list[int], list[int]]:
        """(the stops labelled on the axis, those with an unlabelled tick) at this zoom."""
        first = max(0, math.ceil(self.low))
        last = min(len(self._labels) - 1, math.floor(self.high))
        if last < first:
            return [], []
        return stop_ticks(first, last, self.px_per_stop(), self._widest_label(first, last), LABEL_GAP_PX)

    def _paint_stop_axis(self, painter: QPainter) -> None:
        rect = self.stop_rect()
        base = rect.bottom()
        painter.setPen(QPen(self.colours.axis, 1))
        painter.drawLine(QPointF(rect.left(), base), QPointF(rect.right(), base))
        major, minor = self.labelled_stops()
        for i in minor:
            x = self.px_of(i)
            painter.drawLine(QPointF(x, base), QPointF(x, base + 3))
        height = self._metrics.height()
        painter.setClipRect(QRectF(0, base, self.width(), AXIS_PX))
        for i in major:
            x = self.px_of(i)
            painter.setPen(QPen(self.colours.axis, 1))
            painter.drawLine(QPointF(x, base), QPointF(x, base + 5))
            width = self._label_widths[i] or self._metrics.horizontalAdvance(self._labels[i])
            painter.setPen(self.colours.text)
            painter.drawText(QRectF(x - width / 2 - 1, base + 5, width + 2, height), Qt.AlignmentFlag.AlignCenter,
                             self._labels[i])
        painter.setClipping(False)

    def _bar_y(self, value: float, top: float) -> float:
        rect = self.bar_rect()
        return rect.bottom() - min(value / top, 1.0) * rect.height() if top > 0 else rect.bottom()

    def _paint_bars(self, painter: QPainter) -> None:
        assert self._bars is not None
        tokens_in, tokens_out, tool_ms = self._bars
        first, last = self.in_view()
        if last < first:
            return
        painter.save()
        painter.setClipRect(self.bar_rect())
        painter.setPen(Qt.PenStyle.NoPen)
        width = max(1.0, BAR_WIDTH * self.px_per_stop())
        bottom = self.bar_rect().bottom()
        for values, base, colour, top in ((tokens_in, None, self.colours.tokens, self.token_top),
                                          (tokens_out, tokens_in, self.colours.tokens_out, self.token_top),
                                          (tool_ms, None, self.colours.tool, self.tool_top)):
            for left, low, high in self._bar_columns(values, base, first, last, width):
                y0 = self._bar_y(low, top) if low else bottom
                y1 = self._bar_y(high, top)
                if y0 - y1 > 0:
                    painter.fillRect(QRectF(left, y1, width, y0 - y1), colour)
        painter.restore()

    def _bar_columns(self, values: Sequence[float], base: Sequence[float] | None, first: int, last: int,
                     width: float):
        """(left px, bottom, top) of each bar to draw among stops first..last; far zoomed out, one per pixel
        column, the tallest of the stops in it (painting thousands of bars would show the same pixels)."""
        px = self.px_per_stop()
        if px >= 1.0:
            for i in range(first, last + 1):
                if values[i] > 0:
                    low = base[i] if base is not None else 0.0
                    yield self.px_of(i) - width / 2, low, low + values[i]
            return
        per_column = max(1, int(1.0 / px))
        for start in range(first, last + 1, per_column):
            end = min(last + 1, start + per_column)
            if base is None:
                high = max(values[start:end])
                if high > 0:
                    yield self.px_of(start) - width / 2, 0.0, high
            else:
                high = max(a + b for a, b in zip(base[start:end], values[start:end]))
                low = min(base[start:end])
                if high > low:
                    yield self.px_of(start) - width / 2, low, high

    def _paint_value_axes(self, painter: QPainter) -> None:
        rect = self.bar_rect()
        sides = [(self.token_top, rect.left(), -1, "tokens", self.colours.tokens)]
        if self.tool_axis:
            sides.append((self.tool_top, rect.right(), 1, "tool ms", self.colours.tool))
        height = self._metrics.height()
        for top, edge, direction, name, colour in sides:
            painter.setPen(QPen(self.colours.axis, 1))
            painter.drawLine(QPointF(edge, rect.top()), QPointF(edge, rect.bottom()))
            for value in value_ticks(top):
                y = self._bar_y(value, top)
                painter.setPen(QPen(self.colours.axis, 1))
                painter.drawLine(QPointF(edge, y), QPointF(edge + 4 * direction, y))
                text = compact_number(value)
                width = self._metrics.horizontalAdvance(text)
                left = edge - 6 - width if direction < 0 else edge + 6
                painter.setPen(self.colours.text_muted)
                painter.drawText(QRectF(left, y - height / 2, width + 1, height), Qt.AlignmentFlag.AlignCenter, text)
            painter.save()  # the axis's name, upright along the outer edge
            painter.setPen(colour)
            outer = 2.0 if direction < 0 else self.width() - 2.0 - height
            painter.translate(outer, rect.center().y())
            painter.rotate(-90 if direction < 0 else 90)
            painter.drawText(QRectF(-rect.height() / 2 - 20, -height if direction > 0 else 0, rect.height() + 40,
                                    height), Qt.AlignmentFlag.AlignCenter, name)
            painter.restore()

    def _paint_veil(self, painter: QPainter) -> None:
        left = max(self.px_of(self.veil_start), SIDE_PX) if math.isfinite(self.veil_start) else math.inf
        right = self.width() - SIDE_PX
        if not left < right:
            return
        shade = QColor(self.colours.background)
        shade.setAlpha(150)  # the stops to come show through, dimmed
        stops = self.stop_rect()
        painter.fillRect(QRectF(left, stops.top(), right - left, stops.height()), shade)
        bars = self.bar_rect()
        if not bars.isEmpty():  # their figures are not known yet: hidden
            painter.fillRect(QRectF(left, bars.top() - 1, right - left, bars.height() + 2), self.colours.background)

    def _paint_columns(self, painter: QPainter) -> None:
        rect = self.bar_rect()
        if rect.isEmpty() or not self.columns:
            return
        px = self.px_per_stop()
        colours = self.colours
        scale = self.token_top / self.tool_top if self.tool_top > 0 else 0.0  # (tool time drawn on the token axis)
        for column in self.columns:
            x = self.px_of(column.x)
            cover = max(2.0, COVER_WIDTH * px)
            painter.fillRect(QRectF(x - cover / 2, rect.top() - 1, cover, rect.height() + 2), colours.background)
            width = max(1.0, BAR_WIDTH * px)
            for y0, height, colour in ((0.0, column.tool_ms * scale, colours.tool),
                                       (0.0, column.tokens_in, colours.tokens),
                                       (column.tokens_in, column.tokens_out, colours.tokens_out)):
                low, high = plotted(y0), plotted(plotted(y0) + plotted(height))
                if high > low:
                    top, bottom = self._bar_y(high, self.token_top), self._bar_y(low, self.token_top)
                    painter.fillRect(QRectF(x - width / 2, top, width, bottom - top), colour)
            if column.running:
                stub = RUNNING_STUB * rect.height()
                painter.setPen(QPen(colours.tool if self._tool_running else colours.tokens, 1.5, Qt.PenStyle.DashLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(QRectF(x - width / 2, rect.bottom() - stub, width, stub))

    def _paint_marks(self, painter: QPainter) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        margin = 1.0 / max(self.px_per_stop(), 1e-9) * 10
        for layer, marks in self._marks.items():
            xs = self._mark_xs[layer]
            for mark in marks[bisect_left(xs, self.low - margin):bisect_right(xs, self.high + margin)]:
                path = _symbol_path(mark.symbol)
                painter.save()
                painter.translate(self.px_of(mark.x), self._y_of(mark.y))
                painter.scale(mark.size, mark.size)
                colour = QColor(mark.colour)
                pen = QPen(colour, (2.0 if mark.symbol in ("retry", "x") else 1.0) / mark.size)
                painter.setPen(pen)
                painter.setBrush(QBrush(colour) if mark.filled and mark.symbol not in ("x", "retry")
                                 else Qt.BrushStyle.NoBrush)
                if mark.symbol == "t":
                    painter.setPen(QPen(QColor("#5c4300"), 1.0 / mark.size))
                painter.drawPath(path)
                painter.restore()

    def _paint_cursor(self, painter: QPainter) -> None:
        if self.cursor_x is None or not self.count:
            return
        x = self.px_of(self.cursor_x)
        painter.setPen(QPen(self.colours.cursor, 4 if self._dragging_cursor else 2))
        painter.drawLine(QPointF(x, 0), QPointF(x, self.height()))

    # --------------------------------------------------------------------------------------------- hover
    def tooltip_at(self, pos: QPointF) -> str:
        """What the pointer is over says, as plain text: a mark, an iteration's label, else the nearest stop (in the
        stop strip)."""
        for layer in reversed(list(self._marks)):
            for mark in self._marks[layer]:
                if abs(self.px_of(mark.x) - pos.x()) <= MARK_HIT_PX and abs(self._y_of(mark.y) - pos.y()) <= MARK_HIT_PX:
                    return mark.tip
        band = self._band_label_at(pos)
        if band is not None:
            return band.tip
        stop = self.stop_at(pos)
        if stop is not None and self._tooltip is not None:
            return self._tooltip(stop)
        return ""

    def _band_label_at(self, pos: QPointF) -> Band | None:
        return next((band for band in self.labelled_bands() if self._band_label_rect(band).contains(pos)), None)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            text = self.tooltip_at(QPointF(event.pos()))
            if text:
                QToolTip.showText(event.globalPos(), plain_tooltip(text), self)  # (the run's text: never markup)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    # --------------------------------------------------------------------------------------------- mouse
    def _near_cursor(self, pos: QPointF) -> bool:
        return self.cursor_x is not None and self.count > 0 and abs(self.px_of(self.cursor_x) - pos.x()) <= CURSOR_GRAB_PX

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        self._press = event.position()
        self._pressed_range = (self.low, self.high)
        self._dragging_cursor = self._near_cursor(event.position())
        self._panning = False
        if self._dragging_cursor:
            self.update()
        event.accept()

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        pos = event.position()
        if self._press is None:
            self.setCursor(Qt.CursorShape.SplitHCursor if self._near_cursor(pos) else Qt.CursorShape.ArrowCursor)
            return
        if self._dragging_cursor:
            stop = stop_at_x(self.x_of(pos.x()), self.count)
            if stop != self.cursor_x:
                self.cursor_x = float(stop)
                self.update()
                self.cursor_dragged.emit(stop)
            return
        moved = pos.x() - self._press.x()
        if self._panning or abs(moved) >= DRAG_START_PX:
            self._panning = True
            low, high = self._pressed_range
            shift = moved / self.px_per_stop() if high > low else 0.0
            self.set_x_range(low - shift, high - shift)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        if event.button() != Qt.MouseButton.LeftButton or self._press is None:
            return super().mouseReleaseEvent(event)
        pos = event.position()
        clicked = not self._panning and not self._dragging_cursor
        if self._dragging_cursor:
            self._dragging_cursor = False
            self.update()
        self._press, self._panning = None, False
        if clicked:
            band = self._band_label_at(pos)
            if band is not None:
                self.band_clicked.emit(band.first)
            else:
                stop = self.stop_at(pos)
                if stop is not None:
                    self.stop_clicked.emit(stop)
        event.accept()

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802
        stop = self.stop_at(event.position()) if event.button() == Qt.MouseButton.LeftButton else None
        if stop is not None:
            self.stop_double_clicked.emit(stop)
            event.accept()
        else:
            super().mouseDoubleClickEvent(event)

    def wheelEvent(self, event) -> None:  # noqa: N802
        notches = event.angleDelta().y() / 120.0
        if not notches:
            return
        factor = ZOOM_PER_NOTCH ** notches
        anchor = self.x_of(event.position().x())
        self.set_x_range(anchor - (anchor - self.low) * factor, anchor + (self.high - anchor) * factor)
        event.accept()

    def changeEvent(self, event) -> None:  # noqa: N802
        if event.type() == QEvent.Type.PaletteChange:
            self._changed()
        super().changeEvent(event)

