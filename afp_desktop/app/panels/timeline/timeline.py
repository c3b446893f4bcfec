"""The milestone timeline: the run's stops on a horizontal axis, the cursor, a slider over single events,
play/pause, per-stop figures (tokens per LLM turn, tool time) and drilling into a mount stop.

The panel follows the session (moment_changed, stops_changed, run_loaded/closed) and moves the cursor only
through it; it never talks to another panel. x is the stop number (see core/timeline.py); the slider is the
axis position, one step per event.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from typing import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from afp_desktop.app.pacing import scheduler
from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.panels.timeline.culled_bars import CulledBars
from afp_desktop.app.panels.timeline.event_slider import EventSlider
from afp_desktop.app.panels.timeline.plot_cache import cache_pixels
from afp_desktop.app.panels.timeline.timeline_markers import StopMarkers
from afp_desktop.app.panels.timeline.timeline_known import Column, KnownColumns
from afp_desktop.app.panels.timeline.timeline_overview import TimelineOverview
from afp_desktop.app.panels.timeline.timeline_veil import Veil
from afp_desktop.app.widgets.steady_label import SteadyLabel
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.model.replay import ACTIVE
from afp_desktop.core.model.timeline import KnownFigure, stop_at_x, x_of_position
from afp_desktop.core.views.timeline_series import TimelineSeries, drilled_series, run_timeline_series
from afp_desktop.app.look.style import GraphPalette, palette_for
from afp_desktop.app.session import SPEEDS

AXIS_SIDE_WIDTH = 58
ERROR_RED = "#d03a3a"
INITIAL_STOPS_SHOWN = 80        # a long run opens on a readable window around the cursor; zoom out to see all
VEIL_OFFSET = 0.35              # the veil over "not yet" starts just past the current marker and its bar           # both plots reserve the same side room so their x positions line up
TICK_FONT_PX = 11
LABEL_GAP_PX = 16
# The first part of a big file, or a run shown whole with this many stops, gets its stops a turn after the other
# panels (app/pacing/scheduler.py: not in the turn of their first paint).
DEFERRED_STOPS = 2000
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
        self._metrics = QFontMetricsF(_tick_font())
        self.labels = labels
        self._widths = [None] * len(labels)  # measured when first in view: a long run has thousands
        self.picture = None
        self.update()

    def _widest(self, first: int, last: int) -> float:
        """The widest label of stops first..last (a sample of 200 of them when more are in view)."""
        step = max(1, (last - first + 1) // 200)
        widest = 0.0
        for i in range(first, last + 1, step):
            width = self._widths[i]
            if width is None:
                width = self._widths[i] = self._metrics.horizontalAdvance(self.labels[i])
            widest = max(widest, width)
        return widest

    def tickValues(self, minVal, maxVal, size):
        if not self.labels or size <= 0 or maxVal <= minVal:
            return []
        first, last = max(0, math.ceil(minVal)), min(len(self.labels) - 1, math.floor(maxVal))
        if last < first:
            return []
        px_per_stop = size / (maxVal - minVal)
        widest = self._widest(first, last)
        step = _nice_step((widest + LABEL_GAP_PX) / px_per_stop)
        major = list(range(first + (-first) % step, last + 1, step))
        self._major = set(major)
        levels = [(float(step), [float(v) for v in major])]
        if step > 1 and px_per_stop >= 5:  # unlabelled ticks for every stop while they are far enough apart
            levels.append((1.0, [float(v) for v in range(first, last + 1) if v not in self._major]))
        return levels

    def boundingRect(self):
        # A pixel more around: its pixels are cached (plot_cache.py), and the cache is cut to the bounds, which
        # pyqtgraph draws the axis line's last pixel outside of.
        return super().boundingRect().adjusted(-1, -1, 1, 1)

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


class TimelinePanel(QWidget, PanelDefaults):
    """Session-following timeline. Public for the window and tests: `drill_into(i)`, and the read-outs
    `current_stop`, `cursor_x`, `slider`, `position_label`. Play, speed and drilling out are the session's."""

    speed_changed = Signal(float)
    playing_changed = Signal(bool)
    # Its stops were laid out anew (a run shown, a drill in or out): what is drawn over them follows this, not
    # the session's run_loaded, since a big run's stops come a turn after it (DEFERRED_STOPS).
    stops_shown = Signal()

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.theme_palette: GraphPalette = palette_for("light")
        self.stops: list[dict] = []
        self._stops_pending = None  # a run whose stops are shown on the next turn (see _on_run_loaded)
        self.labels: list[str] = []
        self.ends: list[int] = []
        self.current_stop: int | None = None
        self.error_positions: list[float] = []  # x of each error marker
        self._errors: list = []  # the run's errors (a cross for those known at the cursor)
        self._errors_drawn = -1
        self._stop_of_node: tuple = (None, {})  # (figures, node → the stop its figures are summed on)
        self._drillable: list[bool] = []
        self.series: TimelineSeries | None = None  # what the plots show of the stops (core/views/timeline_series)
        self._colours: dict[str, QColor] = {}  # one QColor per colour name: thousands of stops share a few
        self._build()
        self.run_closed()
        self.set_theme("light")  # (the window's theme follows: its plots are never left uncoloured)

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
        self.back_button.clicked.connect(lambda: self.session.drill_out(len(self.session.breadcrumb) - 2))
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
        # Every stop in one strip, the part in view framed; a scroll bar and "Fit all" (timeline_overview).
        self.overview = TimelineOverview()
        self.overview.view_requested.connect(self.show_range)
        self.stop_plot.vb.sigXRangeChanged.connect(lambda *_: self._sync_overview())
        layout.addWidget(self.overview)

        controls = QHBoxLayout()
        self.play_button = QToolButton()
        self.play_button.setToolTip("Play or pause (Space)")
        self.play_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.play_button.setMinimumWidth(74)
        self.play_button.clicked.connect(self.session.toggle_play)
        self.speed_combo = QComboBox()
        self.speed_combo.setToolTip("Playback speed, in stops per second")
        self.speed_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for speed in SPEEDS:
            self.speed_combo.addItem(f"{speed:g}×", speed)
        self.speed_combo.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_combo.currentIndexChanged.connect(lambda i: self.session.set_speed(SPEEDS[i]))
        self.slider = EventSlider()  # (repainted when its handle moves a pixel, not at every value)
        self.slider.setToolTip("One step per event")
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the window's keys step; the slider is for the mouse
        self.slider.valueChanged.connect(self._on_slider)
        # Opaque, as the readouts (steady_label.py): what a move changes (the slider, a button enabled or not)
        # repaints alone, not the dock beneath it. (A button fills with the panel's colour, not its own.)
        for changing in (self.slider, self.drill_button, self.back_button):
            changing.setBackgroundRole(QPalette.ColorRole.Window)
            changing.setAutoFillBackground(True)
        # (its text changes at every move: a SteadyLabel's change never lays the window out again)
        self.position_label = SteadyLabel(width=self.fontMetrics().horizontalAdvance("M" * 34))
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
        for side in ("left", "right"):  # blank: they keep the stops in line with the bars' axes below
            axis = plot.getAxis(side)
            axis.setWidth(AXIS_SIDE_WIDTH)
            axis.setStyle(showValues=False, tickLength=0)
            axis.setPen(pg.mkPen(None))
            # Never painted: pyqtgraph redraws an axis's ticks whenever its view's range changes, and these two
            # would be redrawn at each cursor move that scrolls the stops, for nothing shown.
            axis.setFlag(axis.GraphicsItemFlag.ItemHasNoContents, True)
        self.markers = StopMarkers(tooltip=lambda i: plain_tooltip(self._tooltip(i)))
        plot.addItem(self.markers)
        cache_pixels(self.markers, plot.vb)
        cache_pixels(plot.getAxis("bottom"))  # (an axis draws itself anew when its range changes)
        # Errors: a red cross above the axis where each became known (the veil covers those still to come).
        self.error_markers = pg.ScatterPlotItem(hoverable=True, tip=lambda x, y, data: plain_tooltip(data),
                                                pxMode=True)
        self.error_markers.setZValue(5)
        plot.addItem(self.error_markers)
        # Not yet happened: a veil over the stops after the cursor (above the markers, under the cursor line).
        self.future = Veil(plot.vb)
        self.future.setZValue(10)
        plot.addItem(self.future, ignoreBounds=True)
        # Search matches (find_panel.py): small amber triangles above the stops they fall in.
        self.search_marks = pg.ScatterPlotItem(pxMode=True, symbol="t", size=8, pen=pg.mkPen("#5c4300"),
                                               brush=pg.mkBrush("#ffb300"))
        self.search_marks.setZValue(5)
        plot.addItem(self.search_marks)
        self._search_positions: list[int] = []
        self.cursor_line = pg.InfiniteLine(angle=90, movable=True)
        self.cursor_line.setZValue(20)
        self.cursor_line.sigDragged.connect(self._on_line_dragged)
        self.cursor_line.sigPositionChangeFinished.connect(self._on_line_dragged)
        plot.addItem(self.cursor_line)
        plot.scene().sigMouseClicked.connect(self._on_plot_clicked)

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
        self.token_in_bars = CulledBars(x=[], height=[], width=0.6)
        self.token_out_bars = CulledBars(x=[], height=[], width=0.6)
        plot.addItem(self.token_in_bars)
        plot.addItem(self.token_out_bars)
        for bars in (self.token_in_bars, self.token_out_bars):
            cache_pixels(bars, plot.vb)
        cache_pixels(left)
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
        # taller panel moves the fixed-height bar plot down without resizing it).
        plot.vb.sigResized.connect(self._sync_tool_view)
        plot.vb.geometryChanged.connect(self._sync_tool_view)
        plot.geometryChanged.connect(self._sync_tool_view)
        self.tool_bars = CulledBars(x=[], height=[], width=0.6)
        self.tool_view.addItem(self.tool_bars)
        cache_pixels(self.tool_bars, self.tool_view)
        cache_pixels(right)
        self.tool_future = Veil(self.tool_view)
        self.tool_future.setZValue(10)
        self.tool_view.addItem(self.tool_future, ignoreBounds=True)
        self.bar_future = Veil(plot.vb)
        self.bar_future.setZValue(10)
        plot.addItem(self.bar_future, ignoreBounds=True)
        # Over the stops not wholly known at the cursor (and over the veil): only what is known there.
        self.known_columns = KnownColumns(plot.vb)

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
        self.future.set_brush(pg.mkBrush(shade))  # the stops to come show through, dimmed
        for region in (self.bar_future, self.tool_future):  # their figures are not known yet: hidden
            region.set_brush(pg.mkBrush(QColor(pal.background)))
        self.cursor_line.setPen(pg.mkPen(pal.cursor, width=2))
        self.cursor_line.setHoverPen(pg.mkPen(pal.cursor, width=4))
        self.overview.set_colours(pal.background, pal.selection, pal.cursor)
        self._draw_stops()
        kinds = self.series.kinds if self.series is not None else []
        self.overview.set_stops(len(self.stops), self._overview_rgba(kinds))
        if self.session.moment is not None and self.stops:
            self._draw_known_bars(self.session.moment)

    def _overview_rgba(self, kinds: list[str | None]) -> Callable[[int], int]:
        """Stop i's marker colour as ARGB, for the overview strip (one stop per pixel column: not its whole style),
        given each stop's milestone kind. Bound to `kinds`: the strip draws a turn later, when the timeline may show
        other stops or none. Each kind's colour is worked out once, not once per stop: a long run has thousands of
        stops and a handful of kinds."""
        by_kind: dict[str | None, int] = {}

        def rgba(i: int) -> int:
            kind = kinds[i]
            value = by_kind.get(kind)
            if value is None:
                value = by_kind[kind] = self._colour(self._kind_colour(kind)).rgba()
            return value

        return rgba

    def _colour(self, name: str) -> QColor:
        colour = self._colours.get(name)
        if colour is None:
            colour = self._colours[name] = QColor(name)
        return colour

    def _kind_colour(self, kind: str | None) -> str:
        if kind in MILESTONE_COLOUR_KIND:
            return self.theme_palette.kind(MILESTONE_COLOUR_KIND[kind]).accent
        return self.theme_palette.text_muted

    # ------------------------------------------------------------------------------------ session events
    # ------------------------------------------------------------------------ the panel's calls (panel.py)
    def run_loaded(self, run) -> None:
        self.show_run(run)

    def run_grown(self, _run) -> None:
        self.grow()

    def show_playing(self, playing: bool) -> None:
        self._update_play_button()
        self.playing_changed.emit(playing)

    def show_run(self, run) -> None:
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(run.axis))
        self.slider.setEnabled(True)
        self.slider.blockSignals(False)
        self.play_button.setEnabled(True)
        if run.still_reading or len(run.stops) >= DEFERRED_STOPS:
            # The first part of a big file, or a run of thousands of stops: its stops follow a turn later, so that
            # laying them out and painting them (and the overview's image of them) does not add to every other
            # panel's first paint in one long freeze. Another run's stops go at once: they
            # would contradict the rest.
            if self.stops:
                self._clear_stops(keep_plots=True)
            self._stops_pending = run
            scheduler.later(self, "stops", self._show_pending_stops)  # (not with the paint: scheduler.py)
            return
        self.stops_changed()

    def _show_pending_stops(self) -> None:
        run, self._stops_pending = self._stops_pending, None
        if run is not None and run is self.session.run and not self.stops:
            self.stops_changed()

    def run_closed(self) -> None:
        self._clear_stops()
        self.slider.setEnabled(False)
        self.play_button.setEnabled(False)
        self._set_crumbs()
        self.note.setText("Open a trace file to see its milestones here.")

    def _clear_stops(self, keep_plots: bool = False) -> None:
        """No stops shown (the bands and pause marks that follow them go too). `keep_plots`: a run's stops follow
        a turn later, so the plots stay, emptied, instead of being hidden and shown again (hiding and showing
        them would lay the timeline out twice in the turn that draws the stops, and flicker)."""
        self._stops_pending = None
        self.stops, self.labels, self.ends, self.series = [], [], [], None
        self.current_stop = None
        self.error_markers.setData([])
        self.error_positions = []
        if keep_plots and self.plots.isVisibleTo(self):
            self.overview.set_stops(0, lambda _i: 0)
            self.markers.set_stops(0, self._marker_style, QColor(self.theme_palette.background))
            self.stop_axis.set_labels([])
            self.search_marks.setData(x=[], y=[])
            for bars in (self.token_in_bars, self.token_out_bars, self.tool_bars):
                bars.setOpts(x=[], y0=0, height=[], width=0.6)
            self.bar_plot.setYRange(0, 1, padding=0)  # (no scale of the other run's tokens and tool time)
            self.tool_view.setYRange(0, 1, padding=0)
            self._bars_drawn = None
        else:
            self.plots.setVisible(False)
            self.overview.setVisible(False)
        self.drill_button.setEnabled(False)
        self.back_button.setVisible(False)
        self.note.setText("")
        self.position_label.setText("")
        self.stops_shown.emit()

    def grow(self) -> None:
        """The run grew (File ▸ Follow, app/loading/growth.py): extend the slider and the stops shown, keeping the range
        looked at (the moment that follows keeps the cursor in view). A drilled level keeps its stops."""
        run = self.session.run
        if run is None:
            return
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(run.axis))
        self.slider.blockSignals(False)
        if len(self.session.breadcrumb) == 1 and self.stops is not run.stops:
            low, high = self.stop_plot.vb.viewRange()[0]
            untouched = abs((high - low) - (min(max(len(self.stops), 1), INITIAL_STOPS_SHOWN) + 1.0)) < 1e-6
            self._show_stops(run, grown=True)
            if untouched:  # the user did not zoom the stops: as many as fit the first view, around the cursor
                self._initial_range()
            self._draw_bars()

    def stops_changed(self) -> None:
        run = self.session.run
        if run is None:
            return
        self._show_stops(run)
        self._initial_range()
        self._draw_bars()
        if self.session.moment is not None:
            self.moment(self.session.moment)
        self.stops_shown.emit()

    def _initial_range(self) -> None:
        count = max(len(self.stops), 1)
        shown = min(count, INITIAL_STOPS_SHOWN)
        centre = self.session.stop_index or 0
        # A stop's margin on each side, so the first and last labels have room to be drawn.
        low = max(-1.0, min(centre - shown / 2, count - shown))
        self.stop_plot.setXRange(low, low + shown + 1.0, padding=0)

    def _show_stops(self, run, grown: bool = False) -> None:
        self.stops = self.session.stops
        if self.stops is run.stops:  # the run's own stops: prepared in the loader thread
            self.series = run_timeline_series(run)
        else:
            self.series = drilled_series(run, self.stops, self.session.spans,
                                         [self.session.can_drill(i) for i in range(len(self.stops))])
        self.labels, self.ends, self._drillable = self.series.labels, self.series.ends, self.series.drillable
        self._set_crumbs()
        self.back_button.setVisible(len(self.session.breadcrumb) > 1)
        self._set_note()
        # Only start and end: a stop axis would be two dots. The slider (one step per event) does the work.
        self.plots.setVisible(self.series.usable)
        self.overview.setVisible(self.plots.isVisibleTo(self))
        self.overview.set_stops(len(self.stops), self._overview_rgba(self.series.kinds), grown=grown)
        self.stop_axis.set_labels(self.labels)
        self._draw_stops()
        self._draw_search_marks()
        self._draw_figures()
        count = max(len(self.stops), 1)
        self.stop_plot.setLimits(xMin=-1.0, xMax=count, minXRange=min(4.0, count + 1))
        self._bars_drawn = None

    def _set_note(self) -> None:
        crumbs = self.session.breadcrumb
        where = f"inside {crumbs[-1]}" if len(crumbs) > 1 else "in this file"
        if not self.stops:
            self.note.setText(f"No milestone stops {where}: the slider and Shift+←/→ move one event at a time.")
        elif not self.series.usable:
            self.note.setText(f"No milestones between start and end {where}: the slider and Shift+←/→ move one "
                              "event at a time.")
        elif any(stop.get("approximate") for stop in self.stops):
            self.note.setText("Some stops inside this subflow have no event of their own in the file; they are "
                              "spread within its events (hover a marker to see which).")
        elif self.stops and self.stops[0].get("derived"):
            run = self.session.run
            reason = run.stops_notice.code if run.stops_notice is not None else None
            why = ("the commit log covers only the last leg of the run" if reason == "stops-derived-legs"
                   else "the commit log has no top-level milestones" if run.has_commit_log
                   else "its commit log is read with the rest of the file" if run.positions_differ
                   else "no commit log in this file")
            self.note.setText(f"Stops derived from the events ({why}).")
        else:
            self.note.setText("Double-click a square marker to see the stops inside it." if any(self._drillable)
                              else "")

    def moment(self, moment) -> None:
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
            region.set_region(x + VEIL_OFFSET, count + 1)
        self._keep_in_view(x)
        self._draw_known_errors()
        self._draw_known_bars(moment)
        self._apply_view_now()
        self.overview.set_cursor(x)
        self.drill_button.setEnabled(self.current_stop is not None and self.current_stop < len(self._drillable)
                                     and self._drillable[self.current_stop])
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

    def show_range(self, low: float, high: float) -> None:
        """Show stops low..high (x), kept inside the run; the overview, its scroll bar and "Fit all" ask this."""
        count = max(len(self.stops), 1)
        width = min(high - low, count + 1.0)
        low = max(-1.0, min(low, count - width))
        self.stop_plot.setXRange(low, low + width, padding=0)
        self._apply_view_now()

    def _apply_view_now(self) -> None:
        """pyqtgraph applies a new range to its items during the next paint (ViewBox.prepareForPaint): they move
        in that paint, which asks for a second one, so a move would cost two paints of the timeline. Applied now,
        the one paint shows it."""
        for view in (self.stop_plot.vb, self.bar_plot.vb, self.tool_view):
            view.updateMatrix()

    def _sync_overview(self) -> None:
        low, high = self.stop_plot.vb.viewRange()[0]
        self.overview.set_window(low, high)
        self._draw_bars()

    def _keep_in_view(self, x: float) -> None:
        low, high = self.stop_plot.vb.viewRange()[0]
        if low <= x <= high:
            return
        width = high - low
        self.stop_plot.setXRange(x - width / 2, x + width / 2, padding=0)

    def set_search_marks(self, positions) -> None:
        """Mark the axis positions of search matches (an empty list clears them)."""
        self._search_positions = list(positions)
        self._draw_search_marks()

    def _draw_search_marks(self) -> None:
        xs = sorted({x_of_position(self.ends, p) for p in self._search_positions}) if self.ends else []
        self.search_marks.setData(x=xs, y=[0.55] * len(xs))

    # -------------------------------------------------------------------------------------------- drawing
    def _draw_stops(self) -> None:
        # Only the stops in view are painted (timeline_markers), each styled when first painted.
        self.markers.set_stops(len(self.stops), self._marker_style, QColor(self.theme_palette.background))
        self._draw_errors()

    def _draw_errors(self) -> None:
        replay = self.session.replay
        self._errors = list(replay.facts.errors) if replay is not None and self.stops else []
        self._errors_drawn = -1
        self._draw_known_errors()

    def _draw_known_errors(self) -> None:
        """A red cross for each error known at the cursor: one still to come is not drawn (not even veiled)."""
        errors = [error for error in self._errors if error.position <= self.session.position]
        if len(errors) == self._errors_drawn:
            return
        self._errors_drawn = len(errors)
        self.error_positions = [x_of_position(self.ends, error.position) for error in errors]
        self.error_markers.setData(x=self.error_positions, y=[0.55] * len(errors), size=13, symbol="x",
                                   brush=pg.mkBrush(ERROR_RED), pen=pg.mkPen(ERROR_RED, width=1),
                                   data=[f"Error at event {e.position}: {e.message}" for e in errors])

    def _marker_style(self, i: int) -> tuple[QColor, str]:
        series = self.series
        return self._colour(self._kind_colour(series.kinds[i])), series.symbols[i]

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

    @property
    def _figures(self):
        """The figures the bars show (None: no bars)."""
        series = self.series
        return series.figures if series is not None and series.has_bars and self.stops else None

    def _draw_figures(self) -> None:
        series = self.series
        self._bars_drawn = None  # drawn once the view's range is set
        show = series is not None and series.has_bars
        self.bar_plot.setVisible(show)
        if not show:
            return
        self.bar_plot.setYRange(0, series.token_top, padding=0)
        self.tool_view.setYRange(0, series.tool_top, padding=0)
        self.bar_plot.getAxis("right").setVisible(series.figures.has_tool_time)

    def _draw_bars(self) -> None:
        """Bars for the stops in view and a view's width either side: pyqtgraph draws every bar it is given on
        every repaint, and a long run has thousands."""
        series = self.series
        if self._figures is None:
            return
        low, high = self.stop_plot.vb.viewRange()[0]
        width = max(high - low, 1.0)
        drawn = self._bars_drawn
        if drawn is not None and drawn[0] <= low and high <= drawn[1] \
                and min(drawn[1], len(self.stops)) - max(drawn[0], 0) <= 4 * width + 8:
            return  # drawn already, and not many more than are needed
        first = max(0, int(low - width))
        last = min(len(self.stops), int(high + width) + 1)
        self._bars_drawn = (first - 0.5 if first else float("-inf"),
                            last - 0.5 if last < len(self.stops) else float("inf"))
        pal = self.theme_palette
        xs, tokens_in = series.x[first:last], series.tokens_in[first:last]
        llm = QColor(pal.kind("user->llm").accent)
        llm_light = QColor(llm)
        llm_light.setAlpha(120)
        self.token_in_bars.setOpts(x=xs, height=tokens_in, width=0.6, brush=llm, pen=pg.mkPen(None))
        self.token_out_bars.setOpts(x=xs, y0=tokens_in, height=series.tokens_out[first:last], width=0.6,
                                    brush=llm_light, pen=pg.mkPen(None))
        self.tool_bars.setOpts(x=xs, height=series.tool_ms[first:last], width=0.6,
                               brush=pal.kind("llm->tool").accent, pen=pg.mkPen(None))

    # ------------------------------------------------------------------------ what is known at the cursor
    def _partial_stops(self, moment, figures) -> list[int]:
        """The stops whose bars are not wholly known at the moment: the one the cursor is in, and any whose call
        is still running."""
        count = len(self.stops)
        partial = set()
        current = bisect_left(self.ends, moment.position)
        if current < count:
            partial.add(current)
        if figures.nodes is not None:
            if self._stop_of_node[0] is not figures:
                self._stop_of_node = (figures, {n: i for i, nodes in enumerate(figures.nodes) for n in nodes})
            stop_of = self._stop_of_node[1]
            if not moment.facts.over_at(moment.position):
                partial.update(stop_of[n] for n in moment.facts.open_nodes(moment.n_domain) if n in stop_of)
        return sorted(i for i in partial if i < count)

    def known_figure(self, i: int):
        """Stop i's figures as known at the cursor (KnownFigure): what its column shows."""
        figures, moment, run = self._figures, self.session.moment, self.session.run
        if figures is None or moment is None or run is None or figures.nodes is None:
            return None if figures is None else KnownFigure(figures.tokens_in[i], figures.tokens_out[i],
                                                            figures.tool_ms[i], False, False)
        facts, n_domain, position = moment.facts, moment.n_domain, moment.position
        # (at the end of a finished run no call is running: one the fold never closed is over, its time unknown)
        return figures.known(i, run.step_fold.nodes, facts.nodes_started(n_domain),
                             lambda n: facts.node_state(n, n_domain, position) != ACTIVE)

    def _draw_known_bars(self, moment) -> None:
        """Columns over the stops not wholly known at the cursor, drawn over the veil: only what is known there
        (timeline_known.py). Tool time is drawn in the token view, scaled to the tool axis: the tool view lies
        under the token view's veil."""
        figures = self._figures
        if figures is None:
            self.known_columns.clear()
            return
        pal = self.theme_palette
        llm = QColor(pal.kind("user->llm").accent)
        llm_light = QColor(llm)
        llm_light.setAlpha(120)
        tool = QColor(pal.kind("llm->tool").accent)
        low, high = self.bar_plot.vb.viewRange()[1]
        tool_low, tool_high = self.tool_view.viewRange()[1]
        scale = (high - low) / (tool_high - tool_low) if tool_high > tool_low else 0.0
        argb = QColor.NameFormat.HexArgb
        columns, tool_running = [], False
        for i in self._partial_stops(moment, figures):
            known = self.known_figure(i)
            if not (known.tokens_in or known.tokens_out or known.tool_ms or known.llm_running or known.tool_running
                    or figures.tokens_in[i] or figures.tokens_out[i] or figures.tool_ms[i]):
                continue  # (nothing drawn there, known or not)
            segments = ((0.0, known.tool_ms * scale, tool.name(argb)), (0.0, known.tokens_in, llm.name(argb)),
                        (known.tokens_in, known.tokens_out, llm_light.name(argb)))
            columns.append(Column(float(i), segments, known.llm_running or known.tool_running))
            tool_running = tool_running or known.tool_running
        self.known_columns.show(tuple(columns), QColor(pal.background), tool if tool_running else llm)

    @property
    def running_stops(self) -> list[float]:
        """x of the stops with a call running at the cursor (drawn as outlined stubs)."""
        return sorted(column.x for column in self.known_columns.columns if column.running)

    def shown_figure(self, i: int) -> tuple[float, float, float] | None:
        """What stop i's bars show at the cursor: (tokens in, tokens out, tool ms), or None when the veil over
        the stops to come hides them."""
        figures = self._figures
        if figures is None:
            return None
        if any(column.x == i for column in self.known_columns.columns):  # (drawn over the veil)
            figure = self.known_figure(i)
            return figure.tokens_in, figure.tokens_out, figure.tool_ms
        if i - 0.3 >= self.bar_future.start:
            return None
        return figures.tokens_in[i], figures.tokens_out[i], figures.tool_ms[i]

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
                button.clicked.connect(lambda _checked=False, d=depth: self.session.drill_out(d))
                self.crumb_bar.addWidget(button)
        self.crumb_bar.addSpacing(18)

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

    # --------------------------------------------------------------------------------------------- play
    def show_speed(self, speed: float) -> None:
        self.speed_combo.blockSignals(True)
        self.speed_combo.setCurrentIndex(SPEEDS.index(speed))
        self.speed_combo.blockSignals(False)
        self.speed_changed.emit(speed)

    def _update_play_button(self) -> None:
        self.play_button.setText("❚❚ Pause" if self.session.playing else "▶ Play")
