"""The milestone timeline: the run's stops on a horizontal axis, the cursor, a slider over single events,
play/pause, per-stop figures (tokens per LLM turn, tool time) and drilling into a mount stop.

The panel follows the session (moment_changed, stops_changed, run_loaded/closed) and moves the cursor only
through it; it never talks to another panel. x is the stop number (see core/timeline.py); the slider is the
axis position, one step per event.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPalette
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
from afp_desktop.app.panels.timeline.event_slider import EventSlider
from afp_desktop.app.panels.timeline.timeline_canvas import Colours, Column, Mark, TimelineCanvas
from afp_desktop.app.panels.timeline.timeline_overview import TimelineOverview
from afp_desktop.app.widgets.steady_label import SteadyLabel
from afp_desktop.core.model.replay import ACTIVE
from afp_desktop.core.model.timeline import KnownFigure, x_of_position
from afp_desktop.core.views.timeline_series import TimelineSeries, drilled_series, run_timeline_series
from afp_desktop.app.look.style import GraphPalette, palette_for
from afp_desktop.app.session import SPEEDS

ERROR_RED = "#d03a3a"
SEARCH_AMBER = "#ffb300"
INITIAL_STOPS_SHOWN = 80        # a long run opens on a readable window around the cursor; zoom out to see all
VEIL_OFFSET = 0.35              # the veil over "not yet" starts just past the current marker and its bar
MARKS_ABOVE_Y = 0.55            # errors and search matches sit above the stop markers
# The first part of a big file, or a run shown whole with this many stops, gets its stops a turn after the other
# panels (app/pacing/scheduler.py: not in the turn of their first paint).
DEFERRED_STOPS = 2000
MILESTONE_COLOUR_KIND = {       # a stop's milestone kind → the graph card kind whose hue it borrows
    "llm-turn": "user->llm", "tool-call": "llm->tool", "iteration": "subflow",
    "slot": "fork-branch", "decision": "decision-branch",
}


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
        self._search_positions: list[int] = []
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

        self.canvas = TimelineCanvas()
        self.canvas.setMinimumHeight(180)
        self.canvas.stop_clicked.connect(self._go_to_stop)
        self.canvas.cursor_dragged.connect(self._go_to_stop)
        self.canvas.stop_double_clicked.connect(self.drill_into)
        self.canvas.range_changed.connect(lambda *_: self._sync_overview())
        layout.addWidget(self.canvas, 1)
        # Every stop in one strip, the part in view framed; a scroll bar and "Fit all" (timeline_overview).
        self.overview = TimelineOverview()
        self.overview.view_requested.connect(self.show_range)
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

    # ---------------------------------------------------------------------------------------------- theme
    def set_theme(self, theme: str) -> None:
        """'light' or 'dark': the timeline's colours follow the graph's palette."""
        self.theme_palette = palette_for(theme)
        pal = self.theme_palette
        self.canvas.set_colours(Colours(
            background=QColor(pal.background), text=QColor(pal.text), text_muted=QColor(pal.text_muted),
            axis=QColor(pal.bracket), cursor=QColor(pal.cursor), tokens=QColor(pal.kind("user->llm").accent),
            tool=QColor(pal.kind("llm->tool").accent)))
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
        self.error_positions = []
        self._errors, self._errors_drawn = [], -1
        for layer in ("errors", "search"):
            self.canvas.set_marks(layer, [])
        self.canvas.set_known_columns((), False)
        if keep_plots and self.canvas.isVisibleTo(self):
            self.overview.set_stops(0, lambda _i: 0)
            self.canvas.set_stops(0, self._marker_style, [], None)
            self.canvas.set_bars(None, 1.0, 1.0, False)  # (no scale of the other run's tokens and tool time)
        else:
            self.canvas.setVisible(False)
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
            low, high = self.canvas.x_range()
            untouched = abs((high - low) - (min(max(len(self.stops), 1), INITIAL_STOPS_SHOWN) + 1.0)) < 1e-6
            self._show_stops(run, grown=True)
            if untouched:  # the user did not zoom the stops: as many as fit the first view, around the cursor
                self._initial_range()

    def stops_changed(self) -> None:
        run = self.session.run
        if run is None:
            return
        self._show_stops(run)
        self._initial_range()
        if self.session.moment is not None:
            self.moment(self.session.moment)
        self.stops_shown.emit()

    def _initial_range(self) -> None:
        count = max(len(self.stops), 1)
        shown = min(count, INITIAL_STOPS_SHOWN)
        centre = self.session.stop_index or 0
        # A stop's margin on each side, so the first and last labels have room to be drawn.
        low = max(-1.0, min(centre - shown / 2, count - shown))
        self.canvas.set_x_range(low, low + shown + 1.0)

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
        self.canvas.setVisible(self.series.usable)
        self.overview.setVisible(self.canvas.isVisibleTo(self))
        self.overview.set_stops(len(self.stops), self._overview_rgba(self.series.kinds), grown=grown)
        self._draw_stops()
        self._draw_search_marks()
        self._draw_figures()
        count = max(len(self.stops), 1)
        self.canvas.set_limits(-1.0, float(count), min(4.0, count + 1))

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
        self.canvas.set_cursor(x, x + VEIL_OFFSET)
        self._keep_in_view(x)
        self._draw_known_errors()
        self._draw_known_bars(moment)
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
        self.canvas.set_x_range(low, low + width)

    def view_range(self) -> tuple[float, float]:
        """The stops in view (x from low to high)."""
        return self.canvas.x_range()

    def _sync_overview(self) -> None:
        low, high = self.canvas.x_range()
        self.overview.set_window(low, high)

    def _keep_in_view(self, x: float) -> None:
        low, high = self.canvas.x_range()
        if low <= x <= high:
            return
        width = high - low
        self.canvas.set_x_range(x - width / 2, x + width / 2)

    def set_search_marks(self, positions) -> None:
        """Mark the axis positions of search matches (an empty list clears them)."""
        self._search_positions = list(positions)
        self._draw_search_marks()

    def _draw_search_marks(self) -> None:
        xs = sorted({x_of_position(self.ends, p) for p in self._search_positions}) if self.ends else []
        self.canvas.set_marks("search", [Mark(x, MARKS_ABOVE_Y, "t", SEARCH_AMBER, 8, "A search match")
                                         for x in xs])

    @property
    def search_mark_xs(self) -> list[float]:
        """The x of each search match's mark."""
        return [mark.x for mark in self.canvas.marks("search")]

    # -------------------------------------------------------------------------------------------- drawing
    def _draw_stops(self) -> None:
        # Only the stops in view are painted (timeline_canvas), each styled when first painted.
        self.canvas.set_stops(len(self.stops), self._marker_style, self.labels, self._tooltip)
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
        self.canvas.set_marks("errors", [
            Mark(x, MARKS_ABOVE_Y, "x", ERROR_RED, 13, f"Error at event {e.position}: {e.message}")
            for x, e in zip(self.error_positions, errors)])

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
        if series is None or not series.has_bars:
            self.canvas.set_bars(None, 1.0, 1.0, False)
            return
        self.canvas.set_bars((series.tokens_in, series.tokens_out, series.tool_ms), series.token_top,
                             series.tool_top, series.figures.has_tool_time)

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
        (a call's tokens and a tool's time once it has ended, an outlined stub for a call still running). Bars of
        every stop are drawn at their true heights; the veil hides the stops to come whole; only these few columns
        change with a move."""
        figures = self._figures
        if figures is None:
            self.canvas.set_known_columns((), False)
            return
        columns, tool_running = [], False
        for i in self._partial_stops(moment, figures):
            known = self.known_figure(i)
            if not (known.tokens_in or known.tokens_out or known.tool_ms or known.llm_running or known.tool_running
                    or figures.tokens_in[i] or figures.tokens_out[i] or figures.tool_ms[i]):
                continue  # (nothing drawn there, known or not)
            columns.append(Column(float(i), known.tokens_in, known.tokens_out, known.tool_ms,
                                  known.llm_running or known.tool_running))
            tool_running = tool_running or known.tool_running
        self.canvas.set_known_columns(tuple(columns), tool_running)

    @property
    def running_stops(self) -> list[float]:
        """x of the stops with a call running at the cursor (drawn as outlined stubs)."""
        return sorted(column.x for column in self.canvas.columns if column.running)

    def shown_figure(self, i: int) -> tuple[float, float, float] | None:
        """What stop i's bars show at the cursor: (tokens in, tokens out, tool ms), or None when the veil over
        the stops to come hides them."""
        figures = self._figures
        if figures is None:
            return None
        if any(column.x == i for column in self.canvas.columns):  # (drawn over the veil)
            figure = self.known_figure(i)
            return figure.tokens_in, figure.tokens_out, figure.tool_ms
        if i - 0.3 >= self.canvas.veil_start:
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
        x = self.canvas.cursor_x
        return float(x) if x is not None else 0.0

    # ------------------------------------------------------------------------------------------ the mouse
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
