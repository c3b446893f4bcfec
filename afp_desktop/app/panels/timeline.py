"""The milestone timeline: the run's stops on a horizontal axis, the cursor, a slider over single events,
play/pause, per-stop figures (tokens per LLM turn, tool time) and drilling into a mount stop.

The panel follows the session (cursor_moved, stops_changed, run_loaded/closed) and moves the cursor only
through it; it never talks to another panel. x is the stop number (see timeline_model); the slider is the
axis position, one step per event.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from afp_desktop.app.panels.pause_marks import PauseMarks
from afp_desktop.app.plain_text import plain_tooltip
from afp_desktop.core.timeline import (
    has_usable_stops,
    ordinal_labels,
    stop_at_x,
    stop_figures,
    x_of_position,
)
from afp_desktop.app.style import GraphPalette, palette_for
from afp_desktop.app.session import SPEEDS

AXIS_SIDE_WIDTH = 58
INITIAL_STOPS_SHOWN = 80        # a long run opens on a readable window around the cursor; zoom out to see all
VEIL_OFFSET = 0.35              # the veil over "not yet" starts just past the current marker and its bar           # both plots reserve the same side room so their x positions line up
TICK_FONT_PX = 11
LABEL_GAP_PX = 16
MILESTONE_COLOUR_KIND = {       # a stop's milestone kind → the graph card kind whose hue it borrows
    "llm-turn": "user->llm", "tool-call": "llm->tool", "iteration": "subflow",
    "slot": "fork-branch", "decision": "decision-branch",
}


def _tick_font() -> QFont:
    font = QFont()
    font.setPixelSize(TICK_FONT_PX)
    return font


class StopAxis(pg.AxisItem):
    """Bottom axis naming the stops; labels thin out (every 2nd, 5th, 10th …) so they never overlap."""

    def __init__(self):
        super().__init__("bottom")
        self.labels: list[str] = []
        self._widths: list[float] = []
        self._major: set[int] = set()
        self.setTickFont(_tick_font())

    def set_labels(self, labels: list[str]) -> None:
        metrics = QFontMetricsF(_tick_font())
        self.labels = labels
        self._widths = [metrics.horizontalAdvance(label) for label in labels]
        self.picture = None
        self.update()

    def tickValues(self, minVal, maxVal, size):
        if not self.labels or size <= 0 or maxVal <= minVal:
            return []
        first, last = max(0, math.ceil(minVal)), min(len(self.labels) - 1, math.floor(maxVal))
        if last < first:
            return []
        px_per_stop = size / (maxVal - minVal)
        widest = max(self._widths[first:last + 1])
        step = _nice_step((widest + LABEL_GAP_PX) / px_per_stop)
        major = list(range(first + (-first) % step, last + 1, step))
        self._major = set(major)
        levels = [(float(step), [float(v) for v in major])]
        if step > 1 and px_per_stop >= 5:  # unlabelled ticks for every stop while they are far enough apart
            levels.append((1.0, [float(v) for v in range(first, last + 1) if v not in self._major]))
        return levels

    def tickStrings(self, values, scale, spacing):
        return [self.labels[int(v)] if int(v) in self._major and 0 <= int(v) < len(self.labels) else ""
                for v in values]


def _nice_step(minimum: float) -> int:
    step = 1
    while step < minimum:
        for factor in (2, 5, 10):
            if step * factor >= minimum or factor == 10:
                candidate = step * factor
                break
        step = candidate
    return step


class TimelinePanel(QWidget):
    """Session-following timeline. Public for the window and tests: `toggle_play()`, `playing`, `speed`,
    `drill_into(i)`, `back_out(depth)`, and the read-outs `current_stop`, `cursor_x`, `slider`, `position_label`."""

    speed_changed = Signal(float)
    playing_changed = Signal(bool)

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.theme_palette: GraphPalette = palette_for("light")
        self.stops: list[dict] = []
        self.labels: list[str] = []
        self.ends: list[int] = []
        self.current_stop: int | None = None
        self._drillable: list[bool] = []
        self._build()
        session.run_loaded.connect(self._on_run_loaded)
        session.run_closed.connect(self._on_run_closed)
        session.stops_changed.connect(self._on_stops_changed)
        session.moment_changed.connect(self._on_moment)
        session.playing_changed.connect(lambda playing: (self._update_play_button(), self.playing_changed.emit(playing)))
        session.speed_changed.connect(self._on_speed)
        self._on_run_closed()

    # ------------------------------------------------------------------------------------------- building
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(3)

        top = QHBoxLayout()
        self.crumb_bar = QHBoxLayout()
        self.crumb_bar.setSpacing(2)
        top.addLayout(self.crumb_bar)
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        top.addWidget(self.note, 1)
        self.back_button = QPushButton("Back out")
        self.back_button.setToolTip("Return to the enclosing stops (Backspace)")
        self.back_button.clicked.connect(lambda: self.back_out(len(self.session.breadcrumb) - 2))
        self.drill_button = QPushButton("Drill in")
        self.drill_button.setToolTip("Open the stops inside the subflow at the cursor (or double-click a square "
                                     "marker)")
        self.drill_button.clicked.connect(self._drill_current)
        for button in (self.back_button, self.drill_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            top.addWidget(button)
        layout.addLayout(top)

        self.plots = pg.GraphicsLayoutWidget()
        self.plots.ci.layout.setSpacing(0)
        self.plots.ci.setContentsMargins(0, 0, 0, 0)
        self.stop_axis = StopAxis()
        self.stop_plot = self.plots.addPlot(row=0, col=0, axisItems={"bottom": self.stop_axis})
        self.bar_plot = self.plots.addPlot(row=1, col=0)
        self._setup_stop_plot()
        self._setup_bar_plot()
        self.plots.setMinimumHeight(180)
        self.plots.viewport().installEventFilter(self)
        layout.addWidget(self.plots, 1)

        controls = QHBoxLayout()
        self.play_button = QToolButton()
        self.play_button.setToolTip("Play or pause (Space)")
        self.play_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.play_button.setMinimumWidth(74)
        self.play_button.clicked.connect(self.toggle_play)
        self.speed_combo = QComboBox()
        self.speed_combo.setToolTip("Playback speed, in stops per second")
        self.speed_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for speed in SPEEDS:
            self.speed_combo.addItem(f"{speed:g}×", speed)
        self.speed_combo.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_combo.currentIndexChanged.connect(lambda i: self.session.set_speed(SPEEDS[i]))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip("One step per event")
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the window's keys step; the slider is for the mouse
        self.slider.valueChanged.connect(self._on_slider)
        self.position_label = QLabel()
        self.position_label.setTextFormat(Qt.TextFormat.PlainText)
        self.position_label.setFixedWidth(self.position_label.fontMetrics().horizontalAdvance("M" * 34))
        for widget in (self.play_button, self.speed_combo):
            controls.addWidget(widget)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.position_label)
        layout.addLayout(controls)
        self._update_play_button()

    def _setup_stop_plot(self) -> None:
        plot = self.stop_plot
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setMouseEnabled(x=True, y=False)
        plot.setYRange(-1, 1, padding=0)
        plot.showAxis("right")
        for side in ("left", "right"):
            axis = plot.getAxis(side)
            axis.setWidth(AXIS_SIDE_WIDTH)
            axis.setStyle(showValues=False, tickLength=0)
            axis.setPen(pg.mkPen(None))
        self.markers = pg.ScatterPlotItem(hoverable=True, tip=lambda x, y, data: plain_tooltip(data), pxMode=True)
        plot.addItem(self.markers)
        # Not yet happened: a veil over the stops after the cursor (above the markers, under the cursor line).
        self.future = pg.LinearRegionItem(movable=False, pen=pg.mkPen(None))
        self.future.setZValue(10)
        plot.addItem(self.future)
        self.cursor_line = pg.InfiniteLine(angle=90, movable=True)
        self.cursor_line.setZValue(20)
        self.cursor_line.sigDragged.connect(self._on_line_dragged)
        self.cursor_line.sigPositionChangeFinished.connect(self._on_line_dragged)
        plot.addItem(self.cursor_line)
        plot.scene().sigMouseClicked.connect(self._on_plot_clicked)
        plot.vb.sigXRangeChanged.connect(lambda *_: self._resize_markers())
        self._marker_scale = 1.0
        self.pause_marks = PauseMarks(plot)  # where the run waited on a person (pause_marks.py)

    def _setup_bar_plot(self) -> None:
        plot = self.bar_plot
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setMouseEnabled(x=True, y=False)
        plot.setXLink(self.stop_plot)
        plot.hideAxis("bottom")
        plot.setFixedHeight(84)
        plot.setContentsMargins(0, 4, 0, 6)  # room for the top and bottom tick labels
        left = plot.getAxis("left")
        left.setWidth(AXIS_SIDE_WIDTH)
        left.setTickFont(_tick_font())
        self.token_in_bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        self.token_out_bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        plot.addItem(self.token_in_bars)
        plot.addItem(self.token_out_bars)
        # Tool time is in milliseconds, not tokens: it gets its own view box and the right-hand axis.
        self.tool_view = pg.ViewBox()
        self.tool_view.setMouseEnabled(x=False, y=False)
        plot.showAxis("right")
        right = plot.getAxis("right")
        right.setWidth(AXIS_SIDE_WIDTH)
        right.setTickFont(_tick_font())
        plot.scene().addItem(self.tool_view)
        right.linkToView(self.tool_view)
        self.tool_view.setXLink(plot)
        # The tool view lies over the token view: it must follow it when it resizes *and* when it only moves (a
        # taller panel moves the fixed-height bar plot down without resizing it; issue 15).
        plot.vb.sigResized.connect(self._sync_tool_view)
        plot.vb.geometryChanged.connect(self._sync_tool_view)
        plot.geometryChanged.connect(self._sync_tool_view)
        self.tool_bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        self.tool_view.addItem(self.tool_bars)
        self.tool_future = pg.LinearRegionItem(movable=False, pen=pg.mkPen(None))
        self.tool_future.setZValue(10)
        self.tool_view.addItem(self.tool_future)
        self.bar_future = pg.LinearRegionItem(movable=False, pen=pg.mkPen(None))
        self.bar_future.setZValue(10)
        plot.addItem(self.bar_future)

    def _sync_tool_view(self) -> None:
        self.tool_view.setGeometry(self.bar_plot.vb.sceneBoundingRect())
        self.tool_view.linkedViewChanged(self.bar_plot.vb, self.tool_view.XAxis)

    # ---------------------------------------------------------------------------------------------- theme
    def set_theme(self, theme: str) -> None:
        """'light' or 'dark': plot colours follow the graph's palette."""
        self.theme_palette = palette_for(theme)
        pal = self.theme_palette
        self.plots.setBackground(pal.background)
        text_pen = pg.mkPen(pal.text_muted)
        self.stop_axis.setTextPen(pg.mkPen(pal.text))
        self.stop_axis.setPen(pg.mkPen(pal.bracket))
        for side in ("left", "right"):
            axis = self.bar_plot.getAxis(side)
            axis.setTextPen(text_pen)
            axis.setPen(pg.mkPen(pal.bracket))
        llm, tool = pal.kind("user->llm").accent, pal.kind("llm->tool").accent
        self.bar_plot.getAxis("left").setLabel("tokens", color=llm)
        self.bar_plot.getAxis("right").setLabel("tool ms", color=tool)
        shade = QColor(pal.background)
        shade.setAlpha(150)
        for region in (self.future, self.bar_future, self.tool_future):
            region.setBrush(pg.mkBrush(shade))
        self.cursor_line.setPen(pg.mkPen(pal.cursor, width=2))
        self.cursor_line.setHoverPen(pg.mkPen(pal.cursor, width=4))
        self.pause_marks.set_colour(pal.kind("llm->tool").accent, pal.text_muted)
        self._draw_stops()

    def _marker_colour(self, stop: dict) -> str:
        kind = (stop.get("meta") or {}).get("kind") if isinstance(stop.get("meta"), dict) else None
        if kind in MILESTONE_COLOUR_KIND:
            return self.theme_palette.kind(MILESTONE_COLOUR_KIND[kind]).accent
        return self.theme_palette.text_muted

    # ------------------------------------------------------------------------------------ session events
    def _on_run_loaded(self, run) -> None:
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(run.axis))
        self.slider.setEnabled(True)
        self.slider.blockSignals(False)
        self.play_button.setEnabled(True)
        self._on_stops_changed()

    def _on_run_closed(self) -> None:
        self.stops, self.labels, self.ends = [], [], []
        self.pause_marks.clear()
        self.current_stop = None
        self.plots.setVisible(False)
        self.slider.setEnabled(False)
        self.play_button.setEnabled(False)
        self.drill_button.setEnabled(False)
        self.back_button.setVisible(False)
        self._set_crumbs()
        self.note.setText("Open a trace file to see its milestones here.")
        self.position_label.setText("")

    def _on_stops_changed(self) -> None:
        run = self.session.run
        if run is None:
            return
        self.stops = self.session.stops
        self.labels = ordinal_labels(self.stops)
        self.ends = [span.end for span in self.session.spans]
        self._drillable = [self.session.can_drill(i) for i in range(len(self.stops))]
        self._set_crumbs()
        self.back_button.setVisible(len(self.session.breadcrumb) > 1)
        self._set_note()
        # Only start and end: a stop axis would be two dots. The slider (one step per event) does the work.
        self.plots.setVisible(has_usable_stops(self.stops))
        self.stop_axis.set_labels(self.labels)
        self._draw_stops()
        self._draw_figures()
        self.pause_marks.show(run, self.ends, clip=len(self.session.breadcrumb) > 1)
        count = max(len(self.stops), 1)
        self.stop_plot.setLimits(xMin=-1.0, xMax=count, minXRange=min(4.0, count + 1))
        shown = min(count, INITIAL_STOPS_SHOWN)
        centre = self.session.stop_index or 0
        # A stop's margin on each side, so the first and last labels have room to be drawn.
        low = max(-1.0, min(centre - shown / 2, count - shown))
        self.stop_plot.setXRange(low, low + shown + 1.0, padding=0)
        if self.session.moment is not None:
            self._on_moment(self.session.moment)

    def _set_note(self) -> None:
        crumbs = self.session.breadcrumb
        where = f"inside {crumbs[-1]}" if len(crumbs) > 1 else "in this file"
        if not self.stops:
            self.note.setText(f"No milestone stops {where}: the slider and Shift+←/→ move one event at a time.")
        elif not has_usable_stops(self.stops):
            self.note.setText(f"No milestones between start and end {where}: the slider and Shift+←/→ move one "
                              "event at a time.")
        elif any(stop.get("approximate") for stop in self.stops):
            self.note.setText("Some stops inside this subflow have no event of their own in the file; they are "
                              "spread within its events (hover a marker to see which).")
        elif self.stops and self.stops[0].get("derived"):
            why = ("the commit log has no top-level milestones" if self.session.run.commit_log
                   else "no commit log in this file")
            self.note.setText(f"Stops derived from the events ({why}).")
        else:
            self.note.setText("Double-click a square marker to see the stops inside it." if any(self._drillable)
                              else "")

    def _on_moment(self, moment) -> None:
        if not self.stops or self.session.run is None:
            self._show_position(moment, None)
            return
        position = moment.position
        span = moment.stop
        x = x_of_position(self.ends, position, span.index if span is not None and moment.at_stop else None)
        inside = span is not None
        self.current_stop = span.index if span is not None else None
        if not self.cursor_line.moving:
            self.cursor_line.blockSignals(True)
            self.cursor_line.setValue(x)
            self.cursor_line.blockSignals(False)
        count = len(self.stops)
        for region in (self.future, self.bar_future, self.tool_future):
            region.setRegion((x + VEIL_OFFSET, count + 1))
        self._keep_in_view(x)
        self.drill_button.setEnabled(self.current_stop is not None and self._drillable[self.current_stop])
        self._show_position(moment, self.current_stop, inside)

    def _show_position(self, moment, index: int | None, inside: bool = True) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(moment.position)
        self.slider.blockSignals(False)
        text = moment.describe()
        if not inside and len(self.session.breadcrumb) > 1:
            text = f"Outside {self.session.breadcrumb[-1]} · {text}"
        metrics = self.position_label.fontMetrics()
        self.position_label.setText(metrics.elidedText(text, Qt.TextElideMode.ElideMiddle,
                                                       self.position_label.width() - 4))
        self.position_label.setToolTip(text)

    def _keep_in_view(self, x: float) -> None:
        low, high = self.stop_plot.vb.viewRange()[0]
        if low <= x <= high:
            return
        width = high - low
        self.stop_plot.setXRange(x - width / 2, x + width / 2, padding=0)

    # -------------------------------------------------------------------------------------------- drawing
    def _marker_scale_now(self) -> float:
        """Markers shrink when zoomed out so neighbours stay apart (1 = full size)."""
        low, high = self.stop_plot.vb.viewRange()[0]
        px_per_stop = self.stop_plot.vb.width() / max(high - low, 1e-9)
        return min(1.0, max(0.3, round(px_per_stop / 16, 1)))

    def _resize_markers(self) -> None:
        if self.stops and self._marker_scale_now() != self._marker_scale:
            self._marker_scale = scale = self._marker_scale_now()
            self.markers.setSize(self._marker_sizes(scale))  # sizes only: no new spots, no new symbols

    def _marker_sizes(self, scale: float) -> list[float]:
        return [(13 if drillable else 11) * scale for drillable in self._drillable]

    def _draw_stops(self) -> None:
        if not self.stops:
            self.markers.setData([])
            return
        self._marker_scale = scale = self._marker_scale_now()
        # One brush per colour and one pen, shared: pyqtgraph then renders each symbol once, not once per stop.
        brushes: dict[int, object] = {}
        brush_list, symbols = [], []
        for i, stop in enumerate(self.stops):
            colour = QColor(self._marker_colour(stop))
            brush = brushes.get(colour.rgba())
            if brush is None:
                brush = brushes[colour.rgba()] = pg.mkBrush(colour)
            brush_list.append(brush)
            bookend = stop.get("kind") in ("start", "end")
            symbols.append("s" if self._drillable[i] else ("d" if bookend else "o"))
        self.markers.setData(x=list(range(len(self.stops))), y=[0] * len(self.stops),
                             size=self._marker_sizes(scale), symbol=symbols, brush=brush_list,
                             pen=pg.mkPen(self.theme_palette.background, width=1),
                             data=[self._tooltip(i) for i in range(len(self.stops))])

    def _tooltip(self, i: int) -> str:
        stop = self.stops[i]
        lines = [f"Stop {i + 1} of {len(self.stops)}: {self.labels[i]}",
                 f"events {stop.get('axisStart', 0):,}–{stop['axisEnd']:,}"]
        if stop.get("approximate"):
            lines.append("Placed approximately: no event of this stage is in the file, so it is spread within "
                         "the subflow's events.")
        if self._drillable[i]:
            lines.append("Double-click to see the stops inside it.")
        return "\n".join(lines)

    def _draw_figures(self) -> None:
        run = self.session.run
        figures = stop_figures(run, self.stops) if run is not None and self.stops else None
        show = figures is not None and (figures.has_tokens or figures.has_tool_time)
        self.bar_plot.setVisible(show)
        if not show:
            return
        pal = self.theme_palette
        xs = list(range(len(self.stops)))
        llm = QColor(pal.kind("user->llm").accent)
        llm_light = QColor(llm)
        llm_light.setAlpha(120)
        self.token_in_bars.setOpts(x=xs, height=figures.tokens_in, width=0.6, brush=llm, pen=pg.mkPen(None))
        self.token_out_bars.setOpts(x=xs, y0=figures.tokens_in, height=figures.tokens_out, width=0.6,
                                    brush=llm_light, pen=pg.mkPen(None))
        self.tool_bars.setOpts(x=xs, height=figures.tool_ms, width=0.6, brush=pal.kind("llm->tool").accent,
                               pen=pg.mkPen(None))
        top_tokens = max((a + b for a, b in zip(figures.tokens_in, figures.tokens_out)), default=0) or 1
        self.bar_plot.setYRange(0, top_tokens * 1.1, padding=0)
        self.tool_view.setYRange(0, (max(figures.tool_ms) or 1) * 1.1, padding=0)
        self.bar_plot.getAxis("right").setVisible(figures.has_tool_time)

    def _set_crumbs(self) -> None:
        while self.crumb_bar.count():
            widget = self.crumb_bar.takeAt(0).widget()
            if widget is not None:
                widget.setParent(None)  # gone now, not at the next event-loop turn
                widget.deleteLater()
        crumbs = self.session.breadcrumb if self.session.run is not None else []
        if len(crumbs) < 2:
            return
        for depth, name in enumerate(crumbs):
            if depth:
                self.crumb_bar.addWidget(QLabel("›"))
            if depth == len(crumbs) - 1:
                label = QLabel(name)
                label.setTextFormat(Qt.TextFormat.PlainText)
                font = label.font()
                font.setBold(True)
                label.setFont(font)
                self.crumb_bar.addWidget(label)
            else:
                button = QToolButton()
                button.setText(name)
                button.setAutoRaise(True)
                button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
                button.clicked.connect(lambda _checked=False, d=depth: self.back_out(d))
                self.crumb_bar.addWidget(button)
        self.crumb_bar.addSpacing(18)

    @property
    def crumb_texts(self) -> list[str]:
        return list(self.session.breadcrumb) if self.session.run is not None else []

    @property
    def cursor_x(self) -> float:
        return float(self.cursor_line.value())

    # ------------------------------------------------------------------------------------------ the mouse
    def _on_line_dragged(self, line) -> None:
        if not self.stops:
            return
        i = stop_at_x(line.value(), len(self.stops))
        if line.value() != i:
            line.blockSignals(True)
            line.setValue(i)  # snap while dragging
            line.blockSignals(False)
        self._go_to_stop(i)

    def _on_plot_clicked(self, event) -> None:
        if not self.stops or event.button() != Qt.MouseButton.LeftButton:
            return
        if not self.stop_plot.vb.sceneBoundingRect().contains(event.scenePos()):
            return
        if event.double():
            return  # handled by eventFilter: the scene loses double-clicks that land on the cursor line
        self._go_to_stop(stop_at_x(self.stop_plot.vb.mapSceneToView(event.scenePos()).x(), len(self.stops)))
        event.accept()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.plots.viewport() and event.type() == QEvent.Type.MouseButtonDblClick and self.stops:
            scene_pos = self.plots.mapToScene(event.position().toPoint())
            if self.stop_plot.vb.sceneBoundingRect().contains(scene_pos):
                i = stop_at_x(self.stop_plot.vb.mapSceneToView(scene_pos).x(), len(self.stops))
                if self.drill_into(i):
                    return True
        return super().eventFilter(watched, event)

    def _on_slider(self, value: int) -> None:
        self.session.move_to(value)

    def _go_to_stop(self, i: int) -> None:
        self.session.move_to_stop(i)

    # -------------------------------------------------------------------------------------------- drill
    def _drill_current(self) -> None:
        if self.current_stop is not None:
            self.drill_into(self.current_stop)

    def drill_into(self, i: int) -> bool:
        """Show the stops inside mount stop i (the session's replay places them); False when it has none."""
        if not 0 <= i < len(self.stops) or not self._drillable[i]:
            return False
        if not self.session.drill_in(i):
            self.note.setText(f"{self.labels[i]} has no milestones inside it to step through.")
            return False
        spans = self.session.spans
        if spans and not spans[0].start <= self.session.position <= spans[-1].end:
            self.session.move_to(spans[0].end)
        return True

    def back_out(self, depth: int = 0) -> None:
        self.session.drill_out(depth)

    # --------------------------------------------------------------------------------------------- play
    @property
    def speed(self) -> float:
        return self.session.speed

    def set_speed(self, speed: float) -> None:
        self.session.set_speed(speed)

    def _on_speed(self, speed: float) -> None:
        self.speed_combo.blockSignals(True)
        self.speed_combo.setCurrentIndex(SPEEDS.index(speed))
        self.speed_combo.blockSignals(False)
        self.speed_changed.emit(speed)

    @property
    def playing(self) -> bool:
        return self.session.playing

    def toggle_play(self) -> None:
        self.session.toggle_play()

    def stop_playing(self) -> None:
        self.session.stop_playing()

    def _update_play_button(self) -> None:
        self.play_button.setText("❚❚ Pause" if self.session.playing else "▶ Play")
