"""The milestone timeline: labels, the stop↔position mapping, thinning ticks, inner-stop placement, per-stop
figures, and the panel itself following the session (mouse, slider, play, drill)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QWheelEvent
from PySide6.QtTest import QTest

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.app.panels.timeline.ticks import nice_step
from afp_desktop.app.panels.timeline.timeline import VEIL_OFFSET, TimelinePanel
from afp_desktop.app.panels.timeline.timeline_canvas import LABEL_GAP_PX, SIDE_PX, TimelineCanvas, tick_font
from afp_desktop.core.model.timeline import (
    has_usable_stops,
    ordinal_labels,
    place_inner_stops,
    stop_figures,
    x_of_position,
)
from afp_desktop.app.pacing.scheduler import ManualClock, TurnQueue
from afp_desktop.app.session import Session
from afp_desktop.core.formats import open_run
from afp_desktop.core.library.stops import drill
from afp_desktop.core.model.summary import summarize
from tests.corpus_util import corpus_path
from tests.paint_util import PaintCount, paint_waiting


@pytest.fixture(scope="module")
def react():
    return open_run(corpus_path("02-react-two-tools", "recording.json"))


@pytest.fixture(scope="module")
def single():
    return open_run(corpus_path("01-llmcall-single", "recording.json"))


@pytest.fixture(scope="module")
def large():
    return open_run(corpus_path("15-large-run", "recording.json"))


# --- the model ------------------------------------------------------------------------------------------------

def test_ordinal_labels_number_only_repeated_labels():
    stops = [{"label": "Run start"}, {"label": "LLM turn"}, {"label": "Route"}, {"label": "LLM turn"},
             {"label": "Run end"}]
    assert ordinal_labels(stops) == ["Run start", "LLM turn 1", "Route", "LLM turn 2", "Run end"]


def test_ordinal_labels_of_a_real_run(react):
    labels = ordinal_labels(react.stops)
    assert labels[0] == "Run start" and labels[-1] == "Run end"
    assert "LLM turn 3" in labels and "Iteration 2" in labels
    assert len(set(labels)) == len(labels)


def test_x_of_position_puts_stops_on_integers(react):
    ends = [s["axisEnd"] for s in react.stops]
    for i, end in enumerate(ends):
        x = x_of_position(ends, end, preferred=i)
        assert x == i
    assert x_of_position(ends, 0) == -0.5  # before the first stop
    # Between two stops the cursor sits proportionally between them, never outside.
    for position in range(len(react.axis) + 1):
        x = x_of_position(ends, position)
        assert -0.5 <= x <= len(ends) - 1
    assert x_of_position(ends, ends[-1]) == len(ends) - 1


def test_x_of_position_with_shared_positions_takes_the_last_unless_chosen():
    ends = [3, 10, 10, 20]
    assert x_of_position(ends, 10) == 2
    assert x_of_position(ends, 10, preferred=1) == 1
    assert x_of_position(ends, 15) == 2.5


def test_nice_steps():
    assert [nice_step(v) for v in (0.2, 1, 1.5, 3, 7, 12, 40, 130)] == [1, 1, 2, 5, 10, 20, 50, 200]


@pytest.mark.parametrize("width", [300, 700, 1200, 1900])
def test_tick_labels_never_overlap_on_the_large_run(qtbot, large, width):
    canvas = TimelineCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(width + 2 * SIDE_PX, 200)
    labels = ordinal_labels(large.stops)
    canvas.set_stops(len(labels), lambda _i: (QColor("red"), "o"), labels, None)
    canvas.set_limits(-1.0, float(len(labels)), 4.0)
    metrics = QFontMetricsF(tick_font())
    for low, high in ((-0.5, len(labels) - 0.5), (100, 180), (500, 512)):
        canvas.set_x_range(low, high)
        assert canvas.x_range() == (low, high)
        majors, minors = canvas.labelled_stops()
        assert majors and not set(majors) & set(minors)
        strings = [labels[i] for i in majors]
        px_per_stop = width / (high - low)
        for a, b, sa, sb in zip(majors, majors[1:], strings, strings[1:]):
            gap = (b - a) * px_per_stop
            assert gap >= (metrics.horizontalAdvance(sa) + metrics.horizontalAdvance(sb)) / 2 + LABEL_GAP_PX / 2


def test_inner_stops_are_placed_on_their_own_events(single):
    ids = single.stage_ids_on_axis()
    mount = single.stops[1]
    inner = drill(single.snapshot, mount)
    placed = place_inner_stops(ids, mount, inner)
    assert [s["label"] for s in placed] == ["Start", "System prompt", "Messages", "LLM turn", "End"]
    for stop in placed[1:-1]:
        assert not stop.get("approximate")
        assert ids[stop["axisStart"]] == stop["runtimeStageId"]  # the stage's first event, exactly
    ends = [s["axisEnd"] for s in placed]
    assert ends == sorted(ends)
    assert all(mount["axisStart"] <= s["axisStart"] <= s["axisEnd"] <= mount["axisEnd"] for s in placed)
    assert placed[-1]["axisEnd"] == mount["axisEnd"]


def test_inner_stops_without_events_are_spread_and_marked(single):
    ids = single.stage_ids_on_axis()
    mount = single.stops[1]
    inner = [dict(s) for s in drill(single.snapshot, mount)]
    inner[2]["runtimeStageId"] = "sf-llm-call/not-in-the-file#99"
    placed = place_inner_stops(ids, mount, inner)
    spread = placed[2]
    assert spread["approximate"] is True
    assert placed[1]["axisStart"] < spread["axisStart"] < placed[3]["axisStart"]
    assert sum(1 for s in placed if s.get("approximate")) == 1


def test_stop_figures_add_up_to_the_run_totals(react, large):
    for run in (react, large):
        figures = stop_figures(run, run.stops)
        summary = summarize(run)
        assert sum(figures.tokens_in) == summary.tokens_in
        assert sum(figures.tokens_out) == summary.tokens_out
        tools = [n for n in run.stepgraph["nodes"] if n["kind"] == "llm->tool"]
        assert sum(figures.tool_ms) == sum(n["endOffsetMs"] - n["startOffsetMs"] for n in tools)
    figures = stop_figures(react, react.stops)
    kinds = [(s.get("meta") or {}).get("kind") for s in react.stops]
    assert {kinds[i] for i, v in enumerate(figures.tokens_in) if v} == {"llm-turn"}
    assert {kinds[i] for i, v in enumerate(figures.tool_ms) if v} == {"tool-call"}


def test_usable_stops():
    assert not has_usable_stops([{"kind": "start"}, {"kind": "end"}])
    assert has_usable_stops([{"kind": "start"}, {"kind": "commit"}, {"kind": "end"}])


# --- the panel --------------------------------------------------------------------------------------------------

@pytest.fixture
def panel(qtbot):
    session = Session()
    widget = shown_alone(session, TimelinePanel(session))
    qtbot.addWidget(widget)
    widget.resize(1200, 300)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _agree(panel: TimelinePanel) -> None:
    """The panel shows exactly the session's moment: slider, cursor line, current stop and position text."""
    session = panel.session
    session.flush()
    moment = session.moment
    position = moment.position
    ends = [span.end for span in session.spans]
    assert panel.slider.value() == position
    at = moment.stop.index if moment.stop is not None and moment.at_stop else None
    assert panel.cursor_x == pytest.approx(x_of_position(ends, position, at))
    assert panel.current_stop == session.stop_index == (moment.stop.index if moment.stop is not None else None)
    if panel.current_stop is not None:
        assert panel.position_label.toolTip().endswith(moment.describe())
        if moment.at_stop:
            assert moment.describe().startswith(f"Stop {session.stop_index + 1} of {len(ends)}")
        else:
            assert moment.describe().startswith(f"in {panel.labels[session.stop_index]} · ")


def test_panel_follows_the_cursor(panel, react):
    panel.session.set_run(react)
    _agree(panel)
    assert panel.current_stop == len(react.stops) - 1
    assert panel.position_label.toolTip() == "Stop 22 of 22 · Run end · event 155/155"
    panel.session.move_to_stop(5)
    _agree(panel)
    assert panel.cursor_x == 5
    assert panel.position_label.toolTip().startswith("Stop 6 of 22 · LLM turn 1 · event 41/155")
    panel.session.next_stop()  # Route 1 shares LLM turn 1's position: → still visits it
    _agree(panel)
    assert panel.current_stop == 6 and panel.session.position == 41
    panel.session.step_events(3)
    _agree(panel)
    assert 6 < panel.cursor_x < 7
    # between stops the cursor is IN the next stop's span: the events that lead to "Tool call 1"
    assert panel.position_label.toolTip() == "in Tool call 1 · event 44/155"


def test_empty_panel_says_what_to_do(panel):
    assert not panel.canvas.isVisible()
    assert "Open a trace file" in panel.note.text()
    assert not panel.play_button.isEnabled()


def test_slider_click_moves_the_cursor(panel, react):
    panel.session.set_run(react)
    slider = panel.slider
    before = panel.session.position
    QTest.mouseClick(slider, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(slider.width() // 4, slider.height() // 2))
    panel.session.flush()
    assert panel.session.position != before
    assert panel.session.position == slider.value()
    _agree(panel)


def _point_of(panel, x: float) -> QPoint:
    return panel.canvas.point_of(x).toPoint()


def test_click_on_a_stop_moves_there(panel, react):
    panel.session.set_run(react)
    QTest.mouseClick(panel.canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point_of(panel, 8.2))
    panel.session.flush()
    assert panel.session.position == react.stops[8]["axisEnd"]
    assert panel.current_stop == 8
    _agree(panel)


def test_dragging_the_cursor_line_snaps_to_stops(panel, react):
    panel.session.set_run(react)
    panel.session.move_to_stop(3)
    panel.session.flush()
    canvas = panel.canvas
    QTest.mousePress(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point_of(panel, 3))
    for x in (4.0, 6.0, 9.0, 11.4):
        QTest.mouseMove(canvas, _point_of(panel, x))
    assert panel.cursor_x == 11  # snapped while dragging
    QTest.mouseRelease(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point_of(panel, 11.4))
    panel.session.flush()
    assert panel.session.position == react.stops[11]["axisEnd"]
    assert panel.current_stop == 11
    _agree(panel)


def test_a_drag_away_from_the_cursor_pans_and_a_wheel_zooms_around_the_pointer(panel, large):
    panel.session.set_run(large)
    panel.session.move_to_stop(200)
    panel.session.flush()
    canvas = panel.canvas
    low, high = panel.view_range()
    position = panel.session.position
    QTest.mousePress(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point_of(panel, 190))
    QTest.mouseMove(canvas, _point_of(panel, 180))
    QTest.mouseRelease(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point_of(panel, 180))
    after = panel.view_range()
    assert after[0] == pytest.approx(low + 10, abs=0.2) and after[1] - after[0] == pytest.approx(high - low)
    assert panel.session.position == position, "a pan is not a click: the cursor stays"
    anchor = 205.0
    at = canvas.point_of(anchor)
    before_px = canvas.px_of(anchor)
    wheel = QWheelEvent(at, canvas.mapToGlobal(at), QPoint(0, 0), QPoint(0, 240), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    canvas.wheelEvent(wheel)
    zoomed = panel.view_range()
    assert zoomed[1] - zoomed[0] < after[1] - after[0], "zoomed in"
    assert canvas.px_of(anchor) == pytest.approx(before_px, abs=0.5), "around the pointer"


def test_play_walks_the_stops(qtbot, react):
    clock = ManualClock()  # (play is paced by the scheduler's clock: advanced here by hand)
    session = Session(clock=clock, queue=TurnQueue(clock))
    panel = shown_alone(session, TimelinePanel(session))
    qtbot.addWidget(panel)
    session.set_run(react)
    session.move_to_stop(2)
    clock.advance(0)
    session.set_speed(4.0)
    session.toggle_play()
    assert session.playing and panel.play_button.text().endswith("Pause")
    clock.advance(2 * 250)  # two steps at 4×
    assert session.stop_index == 4 and panel.current_stop == 4
    session.toggle_play()
    assert not session.playing
    stopped_at = session.position
    clock.advance(10_000)
    assert session.position == stopped_at


def test_play_stops_at_the_end(qtbot, panel, single):
    panel.session.set_run(single)
    panel.session.move_to_stop(1)
    panel.session.set_speed(4.0)
    panel.session.toggle_play()
    qtbot.waitUntil(lambda: not panel.session.playing, timeout=3000)
    assert panel.session.position == len(single.axis)


def test_drill_into_a_mount_and_back_out(panel, single):
    session = panel.session
    session.set_run(single)
    # private: which stops the timeline offers to drill into
    assert panel._drillable == [False, True, False]
    assert panel.drill_into(1)
    session.flush()
    assert session.breadcrumb == ["Run", "Iteration"]
    assert panel.labels == ["Start", "System prompt", "Messages", "LLM turn", "End"]
    assert panel.back_button.isVisible()
    session.move_to_stop(3)
    _agree(panel)
    assert panel.position_label.toolTip().startswith("Stop 4 of 5 · LLM turn")
    session.next_stop()
    session.previous_stop()
    session.flush()
    assert session.stop_index == 3  # keys walk the inner stops
    panel.session.drill_out(0)
    assert session.stops is single.stops
    assert panel.labels == ["Run start", "Iteration", "Run end"]
    assert not panel.back_button.isVisible()
    _agree(panel)


def test_double_click_drills_in(panel, single):
    panel.session.set_run(single)
    QTest.mouseDClick(panel.canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _point_of(panel, 1))
    assert panel.session.breadcrumb == ["Run", "Iteration"]


def test_a_mount_without_inner_milestones_shows_the_stages_it_ran(panel, react):
    panel.session.set_run(react)
    height = panel.canvas.height()
    # private: which stops the timeline offers to drill into
    offered = [i for i, square in enumerate(panel._drillable) if square]
    assert offered and "Double-click a square marker" in panel.note.text()
    for i in offered:  # every square marker offered opens onto stops of its own
        assert panel.drill_into(i), panel.labels
        assert len(panel.labels) > 2 and len(panel.session.breadcrumb) == 2
        panel.session.drill_out(0)
    assert panel.drill_into(1)  # the injection engine holds no milestone: its own stages instead
    assert panel.labels == ["Start", "Gather", "Evaluate", "Route", "Delta", "End"]
    assert panel.session.breadcrumb == ["Run", "Iteration 1"]
    assert "no milestones" not in panel.note.text()
    assert panel.canvas.isVisible() and panel.canvas.height() == height  # the panel does not jump
    panel.session.drill_out(0)


def test_a_mount_that_ran_no_stage_is_not_offered():
    from afp_desktop.core.model.timeline import inner_stops

    mount = {"kind": "mount", "runtimeStageId": "sf-empty#3"}
    ran_nothing = {"subflowResults": {"sf-empty#3": {"treeContext": {"history": [{"stage": "", "trace": []}]}}}}
    assert inner_stops(ran_nothing, mount) is None
    assert inner_stops({"subflowResults": {}}, mount) is None


def test_file_with_only_bookends_uses_single_events(qtbot, panel, tmp_path):
    # A stream whose stages are none of the milestone stages: only the bookends remain.
    lines = [json.dumps({"type": "agentfootprint.custom.step", "payload": {"i": i},
                         "meta": {"wallClockMs": 1000 + i, "runOffsetMs": i, "runtimeStageId": f"work#{i % 3}",
                                  "subflowPath": [], "compositionPath": [], "runId": "run-1"}})
             for i in range(30)]
    path = tmp_path / "plain.ndjson"
    path.write_text("\n".join(lines) + "\n")
    run = open_run(path)
    assert [s["kind"] for s in run.stops] == ["start", "end"]
    panel.session.set_run(run)
    assert "one event at a time" in panel.note.text()
    panel.session.move_to(10)
    panel.session.flush()
    panel.session.set_speed(4.0)
    panel.session.toggle_play()
    qtbot.waitUntil(lambda: panel.session.position >= 12, timeout=2000)
    panel.session.stop_playing()
    _agree(panel)


def test_large_run_opens_on_a_readable_window(panel, large):
    panel.session.set_run(large)
    low, high = panel.view_range()
    assert high - low <= 82
    assert low <= panel.cursor_x <= high
    panel.session.move_to_stop(10)
    panel.session.flush()
    low, high = panel.view_range()
    assert low <= 10 <= high  # the view follows the cursor
    _agree(panel)


def test_a_run_of_thousands_of_stops_gets_them_a_turn_after_the_other_panels(qtbot, panel, react, single,
                                                                             monkeypatch):
    """Laying out and painting 7,008 stops (and the overview's image of them) added ~50 ms to the first paint of
    every other panel: shown whole, such a run's stops come a turn later. Another run's stops are not left there
    meanwhile: they go at once."""
    from afp_desktop.app.panels.timeline import timeline as timeline_module

    monkeypatch.setattr(timeline_module, "DEFERRED_STOPS", len(react.stops))
    panel.session.set_run(react)
    assert panel.stops == [], "not in the same turn as the other panels"
    qtbot.waitUntil(lambda: len(panel.stops) == len(react.stops))
    _agree(panel)
    panel.session.close_run()
    panel.session.set_run(single)  # fewer stops than the threshold: at once
    assert len(panel.stops) == len(single.stops)
    monkeypatch.setattr(timeline_module, "DEFERRED_STOPS", 1)
    panel.session.set_run(react)  # another run's stops are shown: they go at once, never left there for a turn
    assert panel.stops == [] and panel.canvas.count == 0 and panel.canvas.labelled_stops() == ([], [])
    assert panel.overview.strip.count == 0
    assert panel.canvas.isVisible(), "left in place for the stops that follow (not hidden, then shown again)"
    qtbot.waitUntil(lambda: len(panel.stops) == len(react.stops))
    _agree(panel)
    assert panel.canvas.count == len(react.stops) and panel.overview.strip.count == len(react.stops)


def test_a_move_that_scrolls_the_timeline_paints_it_once(panel, large, qtbot):
    panel.session.set_run(large)
    panel.session.flush()
    paint_waiting(panel)
    paints = PaintCount(panel.canvas)
    count = len(large.stops)
    for index in (0, count // 2, count - 1, count // 3):
        low, high = panel.view_range()
        panel.session.move_to_stop(index)
        panel.session.flush()
        assert not low <= panel.cursor_x <= high, "each move scrolls the timeline"
        paints.count = 0
        paint_waiting(panel)
        paint_waiting(panel)  # (what that paint asked for)
        assert paints.count == 1, f"the move to stop {index} painted the timeline {paints.count} times"


def _image(widget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())[
        :, :image.width() * 4].reshape(image.height(), image.width(), 4).astype(np.int16).copy()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_veil_covers_what_has_not_happened_yet(panel, react, theme):
    """Past the cursor the stops show through a shade of the background; the bars there are hidden whole."""
    panel.set_theme(theme)  # (as the window's timeline host does)
    panel.session.set_run(react)
    canvas = panel.canvas
    background = QColor(panel.theme_palette.background)
    bg = np.array([background.blue(), background.green(), background.red()], np.int16)  # (BGRA in memory)
    count = len(react.stops)
    for index in (0, 5, count - 1):
        panel.session.move_to_stop(index)
        panel.session.flush()
        assert canvas.veil_start == pytest.approx(panel.cursor_x + VEIL_OFFSET)
        image = _image(canvas)
        bars = canvas.bar_rect()
        veil_px = int(canvas.px_of(canvas.veil_start)) + 2
        right = int(bars.right()) - 1
        if veil_px < right:
            hidden = image[int(bars.top()) + 1:int(bars.bottom()) - 1, veil_px:right, :3]
            assert (hidden == bg).all(), "no bar shows past the cursor"
        stop = index + 1
        if stop < count:  # a stop to come: its marker shows through, nearer the background than its colour
            point = canvas.point_of(stop).toPoint()
            colour, _symbol = canvas.style(stop)
            seen = image[point.y(), point.x(), :3]
            own = np.array([colour.blue(), colour.green(), colour.red()], np.int16)
            assert np.abs(seen - bg).sum() < np.abs(own - bg).sum() and (seen != bg).any()


def test_a_move_that_does_not_scroll_paints_over_the_picture_it_has(panel, react, qtbot):
    """What a move does not change (markers, labels, bars, bands, axes) is one picture, drawn again only when the
    view, the size, the data or the theme change: a step of one stop paints the picture and the few shapes over
    it."""
    panel.session.set_run(react)
    panel.session.move_to_stop(3)
    panel.session.flush()
    paint_waiting(panel)
    canvas = panel.canvas
    pictures, view = canvas.pictures, panel.view_range()
    for index in range(4, 10):
        paints = canvas.paints
        panel.session.move_to_stop(index)
        panel.session.flush()
        paint_waiting(panel)
        assert canvas.paints == paints + 1, "the move was painted"
    assert panel.view_range() == view and canvas.pictures == pictures


def test_the_slider_is_repainted_when_its_handle_moves_not_at_every_value(panel, large, qtbot):
    """Its value is the cursor's position at every move; on a long run the handle moves a pixel only every
    few events, and only then is it painted again, where the value puts it."""
    panel.session.set_run(large)
    panel.session.move_to(10)
    panel.session.flush()
    paint_waiting(panel)
    slider = panel.slider
    paints = PaintCount(slider)
    handles = []
    for position in range(11, 60):
        panel.session.move_to(position)
        panel.session.flush()
        paint_waiting(panel)  # (each move painted: a handle that moved, or a slider repainted at every value)
        assert slider.value() == position
        handles.append(slider.handle_rect().x())
    moved = sum(1 for a, b in zip(handles, handles[1:]) if a != b)
    assert 0 < moved < len(handles) - 1, "(the run is long enough for several events to a pixel)"
    assert paints.count <= moved + 2
    paint_waiting(panel)
    assert slider.painted_handle == slider.handle_rect(), "the handle on screen is where the value puts it"


def test_the_picture_shows_what_drawing_it_afresh_shows(panel, large, react, qtbot):
    """After moves that scroll, zooms, a new theme and a new run, the timeline looks as it does when its picture
    is drawn anew: nothing of an old view, scale, theme or run is left on screen."""
    session, count = panel.session, len(large.stops)
    session.set_run(large)
    session.flush()
    paint_waiting(panel)
    canvas = panel.canvas

    def moves(*stops):
        def act():
            for stop in stops:
                session.move_to_stop(stop)
                session.flush()
                paint_waiting(panel)
        return act

    steps = [moves(10, 11, 12), moves(count // 2, count // 2 + 1, 3), moves(count - 1, 40),
             lambda: panel.show_range(0, count), moves(count // 3, count // 3 + 7),
             lambda: panel.show_range(100.3, 161.7), moves(130, 131, 400),
             lambda: panel.set_theme("dark"), moves(401, 900),
             lambda: session.set_run(react), moves(3, 4), lambda: session.set_run(large), moves(5, count - 2)]
    for number, step in enumerate(steps):
        step()
        session.flush()
        paint_waiting(panel)
        shown = _image(canvas)
        canvas.set_colours(canvas.colours)  # (the same colours: the picture drawn anew)
        fresh = _image(canvas)
        assert (shown == fresh).all(), (number, np.argwhere(shown != fresh)[:5].tolist())


def test_only_the_stops_in_view_are_drawn(panel, large, monkeypatch):
    """A long run's thousands of stops cost nothing while out of view: a stop is styled when first drawn."""
    styled = []
    real_style = TimelineCanvas.style
    monkeypatch.setattr(TimelineCanvas, "style", lambda self, i: styled.append(i) or real_style(self, i))
    panel.session.set_run(large)
    for stop in (len(large.stops) // 2, 10):
        panel.session.move_to_stop(stop)  # (each scrolls the timeline: its picture is drawn again)
        panel.session.flush()
        styled.clear()
        panel.canvas.grab()
        low, high = panel.view_range()
        assert styled and all(low - 1 <= i <= high + 1 for i in styled), (min(styled), max(styled), low, high)


def test_hovering_says_what_is_under_the_pointer_in_plain_text(panel, react, qtbot):
    """A mark's tooltip first, else the nearest stop's; the run's text is shown as text, never as markup."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QToolTip

    from afp_desktop.app.panels.timeline.timeline_canvas import Mark
    from afp_desktop.app.widgets.plain_text import plain_tooltip

    panel.resize(1000, 320)
    panel.show()
    qtbot.waitExposed(panel)
    panel.session.set_run(react)
    canvas = panel.canvas
    assert canvas.tooltip_at(canvas.point_of(3.2)).startswith(f"Stop 4 of {len(react.stops)}: {panel.labels[3]}")
    hostile = "<b>not bold</b> <img src=x>"
    canvas.set_marks("hostile", [Mark(3.0, 0.55, "d", "#7b3fb5", 9, hostile)])
    over = canvas.point_of(3.0, 0.55)
    assert canvas.tooltip_at(over) == hostile
    assert canvas.tooltip_at(canvas.point_of(3.0, -0.9)).startswith("Stop 4 of")  # (away from the mark)
    canvas.event(QHelpEvent(QEvent.Type.ToolTip, over.toPoint(), canvas.mapToGlobal(over.toPoint())))
    assert QToolTip.text() == plain_tooltip(hostile)
    QToolTip.hideText()


def test_a_low_timeline_leaves_its_bars_out_rather_than_drawing_over_its_stops(qtbot):
    canvas = TimelineCanvas()
    qtbot.addWidget(canvas)
    canvas.set_stops(10, lambda _i: (QColor("red"), "o"), [f"s{i}" for i in range(10)], None)
    canvas.set_bars(([5.0] * 10, [1.0] * 10, [0.0] * 10), 10.0, 1.0, False)
    for height in (400, 200, 140, 110, 90, 70, 56):
        canvas.resize(800, height)
        stops, bars = canvas.stop_rect(), canvas.bar_rect()
        assert stops.height() >= 20, height
        if canvas.has_bars:
            assert stops.bottom() < bars.top() and bars.bottom() <= height and bars.height() >= 18, height
        else:
            assert bars.isEmpty() and stops.bottom() <= height, height
    canvas.resize(800, 400)
    assert canvas.bars_px() == canvas.bars_height
    canvas.resize(800, 56)
    assert not canvas.has_bars


def test_a_long_stop_label_is_cut_on_the_axis_and_said_whole_in_its_tooltip(qtbot):
    """A label comes from the file (a stage's name): one of thousands of characters is cut on the axis, so that
    measuring and drawing the labels in view stays cheap and the others keep their room."""
    from afp_desktop.app.panels.timeline.timeline_canvas import AXIS_LABEL_CHARS

    long_label = "Stage " + "x" * 20_000
    labels = ["Run start", long_label, "Run end"]
    canvas = TimelineCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(900, 200)
    canvas.set_stops(3, lambda _i: (QColor("red"), "o"), labels, lambda i: labels[i])
    canvas.set_limits(-1.0, 3.0, 3.0)
    canvas.set_x_range(-1.0, 3.0)
    majors, _minor = canvas.labelled_stops()
    widest = QFontMetricsF(tick_font()).horizontalAdvance("Stage " + "x" * (AXIS_LABEL_CHARS - 7) + "…")
    assert widest + LABEL_GAP_PX < 2 * canvas.px_per_stop()  # (room for every other label once it is cut)
    assert majors == [0, 2], "the long label took the room of all the others"
    canvas.grab()  # (drawn)
    assert canvas.tooltip_at(canvas.point_of(1)) == long_label
