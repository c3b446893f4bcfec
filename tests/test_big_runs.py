"""Finding one's way in a long run (pytest-qt, offscreen): the timeline overview, its scroll bar and "Fit all",
Go to (Ctrl+G), centre on the cursor (C), the graph minimap, the graph made in slices while the window stays
usable, and the window's projections computed in the loader thread."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QScrollArea

from afp_desktop.engine.service import load_run
from afp_desktop.app.shell.main_window import MainWindow
from tests.corpus_util import corpus_path
from tests.paint_util import LayoutRequests, serve_waiting, window_painted

LARGE = "15-large-run"


@pytest.fixture(scope="module")
def large_run():
    return load_run(str(corpus_path(LARGE, "recording.json")))


@pytest.fixture
def window(qtbot, large_run):
    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: win.timeline.built)  # the plots are built after the first frame, as at start-up
    win.session.set_run(large_run)
    win.session.flush()
    qtbot.waitUntil(lambda: not win.canvas.building, timeout=20_000)
    # the timeline's plots are built after the first frame and shown on the next event-loop turn
    qtbot.waitUntil(lambda: win.timeline.built and win.timeline.panel.isVisible(), timeout=10_000)
    yield win
    win.loader.abandon()
    win.loader.wait()


def _plot_range(window) -> tuple[float, float]:
    return window.timeline.panel.view_range()


def test_the_loader_thread_computes_what_the_window_shows(large_run, window):
    views = large_run.views
    assert views is not None, "load_run hands the window the run's prepared views"
    assert views.graph_layout is not None and views.folded_graph is not None  # (this graph is not shown folded)
    assert window.session.replay.facts is large_run.replay_facts
    assert window.session.replay.bubbles is views.bubble_model
    assert window.session.spans is views.stop_spans
    assert not window.folding.enabled  # unfolded, the canvas shows the layout the loader thread made
    assert window.canvas.graph_layout is views.graph_layout


def test_the_overview_shows_each_stop_in_its_marker_s_colour(window):
    """The strip is drawn from one colour per sampled stop (not from the markers' whole styles): the same colours."""
    timeline, strip = window.timeline.panel, window.timeline.panel.overview.strip
    sampled: set[bool] = set()
    for theme, window_width in (("light", 1400), ("dark", 1400), ("light", 700)):  # (700: fewer columns than stops)
        window.apply_theme(theme)
        window.resize(window_width, 900)
        QApplication.processEvents()
        # private: the stops' picture alone, without the frame, cursor and border painted over it
        image = strip._stops_image()
        count, width = strip.count, image.width()
        sampled.add(count >= width)
        last_in_column: dict[int, int] = {}
        if count >= width:  # a pixel column per stop sampled
            for i in range(0, count, max(1, count // width)):
                last_in_column[min(width - 1, int((i + 0.5) * width / count))] = i
        else:  # a tick per stop
            for i in range(count):
                last_in_column[int(strip.x_to_px(i))] = i
        kinds = {timeline.canvas.style(i)[0].name() for i in last_in_column.values()}
        assert len(kinds) >= 3, "stops of several kinds, several colours"
        for px, i in last_in_column.items():
            assert QColor(image.pixel(px, image.height() // 2)) == timeline.canvas.style(i)[0], (theme, px, i)
    assert sampled == {True, False}, "both ways of drawing the strip"


def test_the_overview_drawn_after_its_run_is_closed_draws_that_run_s_stops(qtbot, window):
    """What bench/fuzz_actions.py found: a resize asks the strip for a new image on the next turn, and when the
    run was closed meanwhile, drawing it read stops the timeline no longer had (IndexError in a timer's slot)."""
    strip = window.timeline.panel.overview.strip
    strip.repaint()  # (an image drawn at this width first: under load the window may not have painted it yet)
    assert strip._image is not None  # private: the image drawn and the redraw timer are what this checks
    window.resize(1100, 900)  # a new width: the new image is drawn a turn later (the last one stands in)
    strip.repaint()
    assert strip._redraw.isActive()  # private: as above
    window.close_run()
    # (its slot has run then: pytest-qt fails the test on an exception in it)
    qtbot.waitUntil(lambda: not strip._redraw.isActive(), timeout=2_000)  # private: as above
    assert strip._image is not None and strip._image.width() == strip.width()  # private: as above


def test_overview_frames_the_stops_in_view_and_moves_the_view(qtbot, window):
    overview, stops = window.timeline.panel.overview, window.session.stops
    assert overview.isVisible() and overview.count == len(stops) > 1000
    low, high = _plot_range(window)
    assert high - low < 200  # a long run opens on a readable window of stops
    first, last = window.timeline.panel.canvas.in_view()  # only the stops in view are drawn
    assert first <= max(low, 0) and last >= min(high, len(stops) - 1) and last - first <= high - low + 2
    assert overview.strip.window == pytest.approx((low, high))
    # A click at 90 % of the strip centres the view there.
    strip = overview.strip
    qtbot.mouseClick(strip, Qt.MouseButton.LeftButton, pos=QPoint(int(strip.width() * 0.9), strip.height() // 2))
    low, high = _plot_range(window)
    assert low < strip.px_to_x(strip.width() * 0.9) < high
    assert (low + high) / 2 == pytest.approx(len(stops) * 0.9, abs=len(stops) * 0.02)
    assert overview.strip.window == pytest.approx((low, high))
    # The scroll bar follows the view and moves it.
    bar = overview.scroll
    assert bar.value() == pytest.approx((low + 1) * 1000, abs=2)
    bar.setValue(bar.minimum())
    low, _high = _plot_range(window)
    assert low == pytest.approx(-1.0, abs=0.01)
    # Fit all: every stop in view; the markers become ticks and the labels thin out without overlapping.
    overview.fit_button.click()
    low, high = _plot_range(window)
    assert low <= 0 and high >= len(stops) - 1
    canvas = window.timeline.panel.canvas
    assert canvas.in_view() == (0, len(stops) - 1)  # every stop in view: every stop drawn
    assert canvas.px_per_stop() < 2  # (a tick per stop)
    labelled, _ticks = canvas.labelled_stops()
    assert 2 <= len(labelled) < 40
    window.grab()


def test_the_cursor_stays_in_view(qtbot, window):
    session = window.session
    session.move_to_stop(10)
    session.flush()
    session.move_to_stop(len(session.stops) - 20)
    session.flush()
    x = window.timeline.panel.cursor_x
    low, high = _plot_range(window)
    assert low <= x <= high
    assert window.timeline.panel.overview.strip.cursor_x == pytest.approx(x)


def test_go_to_box(qtbot, window):
    box, session = window.go_to_box, window.session
    assert not box.isVisible()
    window.action("go_to").trigger()
    assert box.isVisible() and QApplication.focusWidget() is box.field
    qtbot.keyClicks(box.field, "stop 700")
    qtbot.keyClick(box.field, Qt.Key.Key_Return)
    session.flush()
    assert not box.isVisible()
    assert session.position == session.spans[699].end and session.chosen_stop == 699
    assert "Stop 700" in window.statusBar().currentMessage()
    # A text that leads nowhere is said in the box, which stays open.
    window.action("go_to").trigger()
    box.field.setText("stop 999999")
    qtbot.keyClick(box.field, Qt.Key.Key_Return)
    assert box.isVisible() and "stops run from 1 to" in box.message.text()
    # An iteration selects its first step and moves to when it appeared.
    box.field.setText("iteration 40")
    qtbot.keyClick(box.field, Qt.Key.Key_Return)
    session.flush()
    node = session.run.step_fold.nodes[session.selected]
    assert node.get("iterationIndex") == 40
    assert session.moment.nodes_started == session.selected + 1
    # C centres the graph, but typed in the box it is a letter like any other.
    box.field.clear()
    qtbot.keyClicks(box.field, "Cc")
    assert box.field.text() == "Cc"
    qtbot.keyClick(box.field, Qt.Key.Key_Escape)
    assert not box.isVisible()


def test_centre_on_the_cursor(qtbot, window):
    canvas, session = window.canvas, window.session
    session.move_to_stop(len(session.stops) * 2 // 3)
    session.flush()
    current = canvas.current
    assert current is not None
    canvas.verticalScrollBar().setValue(0)
    canvas.horizontalScrollBar().setValue(0)
    window.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_C)
    centre = canvas.art.node_bounds(current).center()
    seen = canvas.visible_scene_rect()
    assert seen.contains(centre)
    assert abs(seen.center().y() - centre.y()) < 30
    canvas.verticalScrollBar().setValue(0)
    window.minimap.centre_button.click()
    assert abs(canvas.visible_scene_rect().center().y() - centre.y()) < 30


def test_the_minimap_paints_every_pixel_so_the_graph_under_it_is_not_drawn_again(qtbot, window):
    from PySide6.QtCore import Qt

    from tests.paint_util import PaintCount

    minimap = window.minimap
    assert minimap.testAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
    image = minimap.grab().toImage()
    corners = [image.pixelColor(x, y) for x in (2, image.width() - 3) for y in (2, image.height() - 3)]
    assert all(colour.alpha() == 255 for colour in corners)
    window.session.move_to_stop(3)
    window.session.flush()
    window_painted(qtbot, window)
    graph = PaintCount(window.canvas.viewport())
    for stop in (4, 5, 6):
        window.session.move_to_stop(stop)
        window.session.flush()  # (the move published, as the next turn of the event loop would)
        window_painted(qtbot, window)
        # private: what the map drew against what a fresh paint would draw
        assert minimap._cursor_drawn == minimap._cursor_marks()
    assert graph.count <= 3  # the cards that changed, not the map's corner once more for each


def test_the_minimap_is_repainted_when_its_cursor_moves_a_pixel_and_only_then(qtbot, window):
    from tests.paint_util import PaintCount

    minimap, session = window.minimap, window.session
    session.move_to_stop(0)
    session.flush()
    window_painted(qtbot, window)
    painted, moved = PaintCount(minimap), 0
    for stop in range(1, 120):
        before = minimap._cursor_marks()  # private: the cursor marks a fresh paint would draw
        session.move_to_stop(stop)
        session.flush()
        window_painted(qtbot, window)
        moved += minimap._cursor_marks() != before  # private: as above
        # What the map shows is what a fresh paint would show: its dot and veil where the cursor is now.
        assert minimap._cursor_drawn == minimap._cursor_marks(), stop  # private: as above
    assert 0 < painted.count <= moved + 2  # (a scroll of the graph repaints it too)
    assert moved < 100  # the squashed map moves its dot a pixel every few steps, not at each


def test_minimap_shows_where_one_is_and_goes_there(qtbot, window):
    minimap, canvas = window.minimap, window.canvas
    assert minimap.isVisible() and minimap.centre_button.isVisible()
    viewport = canvas.viewport().geometry()
    assert viewport.contains(minimap.geometry())  # inside the view, clear of the scroll bars
    canvas.verticalScrollBar().setValue(0)
    assert minimap.view_rect().top() <= 2
    qtbot.mouseClick(minimap, Qt.MouseButton.LeftButton, pos=QPoint(minimap.width() // 2, minimap.height() - 3))
    layout = canvas.graph_layout
    assert canvas.visible_scene_rect().bottom() > layout.height * 0.95
    assert minimap.view_rect().bottom() > minimap.height() * 0.9
    minimap.grab()


class PaintedRegions(QObject):
    """The regions Qt painted of one widget, paint by paint."""

    def __init__(self, widget) -> None:
        super().__init__(widget)
        self.regions: list[list[QRect]] = []
        widget.installEventFilter(self)

    def eventFilter(self, _watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint:
            self.regions.append(list(event.region()))
        return False


def _on_screen(window) -> QImage:
    """The window's pixels as Qt last put them on the screen (the offscreen screen's backing store), not a fresh
    rendering of it as QWidget.grab() would make."""
    return window.screen().grabWindow(window.winId()).toImage()


def test_a_scroll_of_the_graph_moves_its_pixels_and_the_widgets_over_it_stay_in_their_corners(qtbot, window):
    """The minimap, its button and the hidden-steps chip float over the graph as children of its viewport: a
    scroll moves the graph's pixels and draws only the strip that came into view (as siblings over the viewport
    they made Qt draw all of it again at every scroll). What the screen shows is what a whole repaint shows."""
    canvas, minimap, chip = window.canvas, window.minimap, window.features["framework"].chip
    chip.show_count(3)
    bar = canvas.verticalScrollBar()
    assert bar.maximum() > 400
    bar.setValue(bar.maximum() // 2)
    window_painted(qtbot, window)
    overlays = (minimap, minimap.centre_button, chip)
    assert all(widget.isVisible() for widget in overlays)
    placed = [widget.geometry() for widget in overlays]
    viewport = canvas.viewport()
    painted = PaintedRegions(viewport)
    before = _on_screen(window)
    for step in (40, -90, 25):
        bar.setValue(bar.value() + step)
        window_painted(qtbot, window)
        assert [widget.geometry() for widget in overlays] == placed, step
        assert painted.regions, step
        area = sum(r.width() * r.height() for region in painted.regions for r in region)
        assert area < 0.3 * viewport.width() * viewport.height(), step  # the strip and the overlays' old places
        shown = _on_screen(window)
        assert shown != before, step  # (the screen's own pixels are read: the scroll is on them)
        viewport.repaint()
        for widget in overlays:
            widget.repaint()
        assert _on_screen(window) == shown, step
        painted.regions.clear()
        before = shown


def test_the_widgets_over_the_graph_keep_their_corners_when_the_view_is_resized(qtbot, window):
    canvas, minimap, chip = window.canvas, window.minimap, window.features["framework"].chip
    chip.show_count(3)
    for width, height in ((1100, 800), (1500, 950), (900, 700)):
        window.resize(width, height)
        QApplication.processEvents()
        view = canvas.viewport().rect()
        gap, button = 10, minimap.centre_button  # (the corners' margin)
        assert minimap.pos() == QPoint(view.right() - minimap.width() - gap, view.bottom() - minimap.height() - gap)
        assert button.pos() == QPoint(view.right() - button.width() - gap, view.top() + gap), (width, height)
        assert chip.pos() == QPoint(view.left() + gap, view.bottom() - chip.height() - gap), (width, height)


def test_the_overview_colours_each_stop_by_its_kind_whatever_the_file_puts_there(window):
    """The strip works a kind's colour out once; a kind the file made a list, a number or nothing is muted."""
    from afp_desktop.core.views.timeline_series import milestone_kind

    panel = window.timeline.panel
    palette = panel.theme_palette
    stops = [{"meta": {"kind": "llm-turn"}}, {"meta": {"kind": "tool-call"}}, {"meta": {"kind": ["llm-turn"]}},
             {"meta": {"kind": 3}}, {"meta": {"kind": {"a": 1}}}, {"meta": "llm-turn"}, {},
             {"meta": {"kind": "llm-turn"}},
             {"meta": {"kind": "iteration"}}]
    # private: the colour per stop the overview is drawn from, for hostile kinds
    rgba = panel._overview_rgba([milestone_kind(stop) for stop in stops])
    muted = QColor(palette.text_muted).rgba()
    expected = [QColor(palette.kind("user->llm").accent).rgba(), QColor(palette.kind("llm->tool").accent).rgba(),
                muted, muted, muted, muted, muted, QColor(palette.kind("user->llm").accent).rgba(),
                QColor(palette.kind("subflow").accent).rgba()]
    assert [rgba(i) for i in range(len(stops))] == expected
    assert [rgba(i) for i in reversed(range(len(stops)))] == expected[::-1]  # (asked again, in any order)


def test_no_card_is_cut_off_at_the_right_edge(window):
    canvas = window.canvas
    right = max(box.x + box.w for box in canvas.graph_layout.nodes)
    assert canvas.mapFromScene(QPointF(right, 0)).x() <= canvas.viewport().width()


def test_a_big_graph_is_usable_while_it_is_still_being_made(qtbot, large_run, monkeypatch):
    from afp_desktop.app.panels.graph.scene_builder import SceneBuilder

    build_slice = SceneBuilder.make_slice
    # Slices of 64 cards, however fast the machine: the scene is surely still being made after the first one.
    monkeypatch.setattr(SceneBuilder, "make_slice",
                        lambda self, budget=0.0, **kw: build_slice(self, budget if budget is None else 0.0, **kw))
    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    assert not win.folding.enabled  # 1,056 steps: not folded until asked; big enough to be made in slices
    win.session.set_run(large_run)
    canvas = win.canvas
    assert canvas.building and len(canvas.node_items) < len(large_run.step_fold.nodes)  # (slices of 64 cards)
    win.session.move_to_stop(len(win.session.stops) - 1)  # scrub before the scene is complete
    win.session.flush()
    assert canvas.current is not None
    qtbot.waitUntil(lambda: not canvas.building, timeout=20_000)
    started = win.session.moment.nodes_started
    assert [item.isVisible() and item.fade == 1.0 for item in canvas.node_items[:started]] == [True] * started
    assert len(canvas.node_items) == len(large_run.step_fold.nodes)


def test_a_big_graphs_first_slice_is_the_view_it_starts_on_edges_and_all(qtbot, large_run):
    """The scene's first slice makes the cards of the rows in view (and a little below), each with the edges and
    brackets it closes, whatever the machine's speed: what the first paint shows is whole; the rest comes on
    later turns, cards always the first steps' (node_items[i] is step i's card)."""
    win = MainWindow(restore_layout=False)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    canvas = win.canvas
    canvas.set_graph(large_run.stepgraph)
    layout = canvas.graph_layout
    view = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    in_view = {box.index for box in layout.nodes if box.y < view.bottom() and box.y + box.h > view.top()
               and box.x < view.right() and box.right > view.left()}
    made = len(canvas.node_items)
    assert in_view and max(in_view) < made < len(layout.nodes) // 4, (made, sorted(in_view)[-3:])
    assert [item.index for item in canvas.node_items] == list(range(made))
    joined = [item.route for item in canvas.edge_items]
    assert joined and all(max(route.source, route.target) < made for route in joined)
    wanted = [r for r in layout.edges if max(r.source, r.target) < made]
    assert {id(r) for r in joined} <= {id(r) for r in wanted} and len(joined) >= len({
        (r.kind, r.source, r.target, tuple(r.points), r.label) for r in wanted})
    canvas.finish_building()
    assert [item.index for item in canvas.node_items] == list(range(len(layout.nodes)))
    assert len(canvas.group_items) == len(layout.groups)


def test_similar_iterations_are_folded_and_a_click_expands_them(qtbot, window, large_run):
    canvas, folding, session = window.canvas, window.folding, window.session
    assert not folding.enabled and not window.action("fold").isChecked()  # 1,056 steps: folded when asked
    window.action("fold").trigger()
    assert folding.enabled and window.action("fold").isChecked()
    total = len(large_run.step_fold.nodes)
    assert len(canvas.graph_layout.nodes) < 40 < total  # 150 iterations: one chip stands for 147 of them
    fold = folding.folds[0]
    chip = folding.fmap.to_shown(fold.start)
    assert canvas.art.nodes[chip]["label"] == f"Iterations {fold.first}–{fold.last}"
    # The moment maps onto the folded graph: inside the fold, the chip is the cursor's step.
    session.move_to(large_run.axis.position_of_domain(large_run.step_fold.node_created_at[fold.start + 40]) + 1,
                    immediate=True)
    assert canvas.current == chip
    assert canvas.happened[:chip + 1] == [True] * (chip + 1) and not any(canvas.happened[chip + 1:])
    # After the fold, a step keeps its place: selecting it rings the card shown for it.
    last = total - 1
    session.select_node(last)
    assert canvas.selected == folding.fmap.to_shown(last) == len(canvas.graph_layout.nodes) - 1
    # A click on a card that is not a chip is the run's own step.
    with qtbot.waitSignal(session.selection_changed):
        folding.activate(folding.fmap.to_shown(fold.end + 2))
    assert session.selected == fold.end + 2
    # A click on the chip expands it: every step is drawn again, the cursor's step ringed.
    folding.activate(chip)
    assert folding.fmap is None and len(canvas.graph_layout.nodes) == total
    assert canvas.current == session.moment.current_node
    # Off and on again from the View menu.
    window.action("fold").trigger()
    window.action("fold").trigger()
    assert len(canvas.graph_layout.nodes) == total  # the expanded fold stays expanded for this run
    window.grab()


def test_a_graph_of_thousands_of_steps_is_folded_from_the_start(qtbot, window):
    from types import SimpleNamespace

    from afp_desktop.app.features.graph_folding import AUTO_FOLD_STEPS
    from afp_desktop.core.views.synthetic import synthetic_step_graph

    window.folding.choice = None
    graph = synthetic_step_graph(800, 3)
    assert len(graph["nodes"]) > AUTO_FOLD_STEPS

    class _Run:  # what GraphFolding reads of a run: a graph with no events behind it, its views not prepared
        stepgraph = graph
        domain_events: list = []
        step_fold = SimpleNamespace(internal_at=None, node_created_at=[])
        views = None

    window.folding.show_run(_Run())
    assert window.folding.enabled and window.action("fold").isChecked()
    assert len(window.canvas.graph_layout.nodes) < len(graph["nodes"]) / 10


@pytest.mark.parametrize("count", [7, 300, 5000, 7008])
def test_the_overview_strip_draws_a_tick_in_its_stop_s_colour(qtbot, count):
    """A tick per stop, or on a long run one per pixel column in the colour of the last stop sampled there (drawn
    as one row of pixels stretched: a rectangle per column cost ~8 ms of the pass that first painted the run)."""
    from PySide6.QtGui import QColor

    from afp_desktop.app.panels.timeline.timeline_overview import OverviewStrip

    strip = OverviewStrip()
    qtbot.addWidget(strip)
    strip.resize(1200, strip.height())
    palette = [QColor("#1f77b4"), QColor("#d62728"), QColor("#2ca02c"), QColor("#9467bd"), QColor("#8c564b")]
    strip.set_colours("#ffffff", "#000000", "#ff0000")
    strip.set_stops(count, lambda i: palette[(i * 7 + i // 3) % len(palette)].rgba())
    # private: the stops' picture alone, without the frame, cursor and border painted over it
    image = strip._stops_image()
    width, height = image.width(), image.height()
    expected: dict[int, QColor] = {}
    if count >= width:
        for i in range(0, count, max(1, count // width)):
            expected[min(width - 1, int((i + 0.5) * width / count))] = palette[(i * 7 + i // 3) % len(palette)]
    else:
        for i in range(count):
            expected[int(strip.x_to_px(i))] = palette[(i * 7 + i // 3) % len(palette)]
    columns = range(width) if count >= width else sorted(expected)  # (a few stops: wider ticks, checked at their start)
    for px in columns:
        for y in (5, height // 2, height - 6):
            want = expected.get(px, QColor("#ffffff"))
            assert QColor(image.pixel(px, y)) == want, (px, y)
        assert QColor(image.pixel(px, 2)) == QColor("#ffffff")  # (above the ticks)


def test_stepping_through_a_long_run_never_lays_the_main_window_out(qtbot, window):
    """The timeline's readouts, the header's figures and the inspector's ids change at every step without laying
    out the timeline, its dock and the main window (app/widgets/steady_label.py, layout_stop.py)."""
    session = window.session
    session.move_to_stop(1)
    session.flush()
    window_painted(qtbot, window)  # (its layouts and paints done)
    requests = LayoutRequests(window)
    timeline = LayoutRequests(window.timeline.panel)
    labels, readouts = [], []
    for stop in range(2, 40):  # steps closer together than a pause (the heavy panels follow once they pause)
        session.move_to_stop(stop)
        session.flush()  # (the move published, as the next turn of the event loop would)
        serve_waiting()  # (the layouts the move asked for, as the event loop would serve them)
        labels.append(window.timeline.panel.position_label.toolTip())
        readouts.append(window.features["iteration_bands"].bands.readout.text())
    assert len(set(labels)) == len(labels), "each step shows its own stop"
    assert len(set(readouts)) == len(readouts)
    # (a readout longer than any before grows its label: a layout, now and then; the inspector's header changes height
    # between kinds of steps: a layout then. New texts alone — the header's figures, the ids — lay nothing out.)
    assert requests.count < len(labels) // 2 and timeline.count <= 4, (requests.count, timeline.count)


def test_stepping_repaints_the_timelines_readouts_not_the_dock_under_them(qtbot, window):
    """The readouts and the slider fill their own background: a new text repaints them alone, not the timeline
    panel, its dock (which draws its title bar in Python's style proxy) and the main window beneath them."""
    from tests.paint_util import PaintCount

    from tests.inspector_reading import inspector_answered

    session = window.session
    session.move_to_stop(1)
    session.flush()
    inspector_answered(qtbot, window)
    window_painted(qtbot, window)
    dock, readout = PaintCount(window.docks["timeline"]), PaintCount(window.features["iteration_bands"].bands.readout)
    for stop in range(2, 20):
        session.move_to_stop(stop)
        session.flush()  # (the move published, as the next turn of the event loop would)
        inspector_answered(qtbot, window)  # (its answer drawn at each step, however late it comes)
        window_painted(qtbot, window)
    assert readout.count >= 5, "the readout was repainted with each new text"
    # (not at every step: 18 steps; a layout of the main window — the inspector's header changing height between kinds
    # of steps, how often depending on which answers are drawn in which turn — may repaint the dock a few times)
    assert dock.count <= 4, f"the dock under it was repainted {dock.count} times"


def test_the_chat_bubbles_scroll_bar_changing_does_not_repaint_the_dock_under_it(qtbot, window):
    """The chat's scroll bar fills its own background, so its change repaints the bar, not the chat's dock and
    the main window beneath it."""
    from tests.paint_util import PaintCount

    window.resizeDocks([window.docks["chat"]], [160], Qt.Orientation.Vertical)  # (short: the content scrolls)
    session = window.session
    session.move_to_stop(5)
    session.flush()
    window_painted(qtbot, window)
    bar = window.docks["chat"].findChild(QScrollArea).verticalScrollBar()
    qtbot.waitUntil(bar.isVisible, timeout=3000)
    dock, painted = PaintCount(window.docks["chat"]), PaintCount(bar)
    chat = window.docks["chat"].widget()
    heights = set()
    for stop in range(6, 30):
        session.move_to_stop(stop)
        session.flush()
        # private: the chat keeps its tallest height while one scrubs: let it fit this stop, as a new run does
        chat._settle()
        window_painted(qtbot, window)
        heights.add(chat.seen_lines.parentWidget().height())  # the chat's column
    assert len(heights) > 1, "(the content's height changed from stop to stop)"
    assert painted.count >= 1, "(the bar changed with the content)"
    assert dock.count <= 1, f"the chat's dock was repainted {dock.count} times"


def test_dropping_a_scrolled_graph_does_not_place_the_minimap_of_no_graph(qtbot, window):
    """What bench/fuzz_actions.py found: the canvas's clear() drops its layout, then gives the view an empty scene;
    the view scrolls back before graph_changed hides the map, and placing the map then asked the dropped layout for
    its size (AttributeError in Qt's scrollContentsBy, every time a scrolled big graph was closed)."""
    canvas = window.canvas
    qtbot.waitUntil(window.minimap.isVisible, timeout=5_000)
    canvas.verticalScrollBar().setValue(canvas.verticalScrollBar().maximum())  # scrolled: the new scene scrolls back
    assert canvas.verticalScrollBar().value() > 0
    canvas.clear("closed")  # (pytest-qt fails the test on an exception in a Python override of a Qt method)
    serve_waiting()
    assert not window.minimap.isVisible()
