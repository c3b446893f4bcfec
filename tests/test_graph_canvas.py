"""The step-graph canvas: clicks, cursor dimming/hiding, scrolling to the current step, zoom, messages, palettes."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QWheelEvent
from PySide6.QtWidgets import QApplication

from afp_desktop.app.panels.graph.card_text import card_lines, format_duration
from afp_desktop.app.panels.graph.graph_canvas import GraphCanvas
from afp_desktop.app.look.style import palette_for, contrast_ratio
from tests.corpus_util import load_json


@pytest.fixture
def canvas(qtbot):
    view = GraphCanvas()
    qtbot.addWidget(view)
    view.resize(900, 650)
    view.show()
    qtbot.waitExposed(view)
    return view


def _graph(name: str) -> dict:
    return load_json(name, "ref.stepgraph.json")


def _view_point(canvas: GraphCanvas, index: int) -> QPoint:
    box = canvas.graph_layout.nodes[index]
    canvas.centerOn(QPointF(box.cx, box.cy))
    return canvas.mapFromScene(QPointF(box.cx, box.cy))


def _fully_visible(canvas: GraphCanvas, index: int) -> bool:
    box = canvas.graph_layout.nodes[index]
    top_left = canvas.mapFromScene(QPointF(box.x, box.y))
    bottom_right = canvas.mapFromScene(QPointF(box.right, box.bottom))
    area = canvas.viewport().rect()
    return area.contains(top_left) and area.contains(bottom_right)


@pytest.mark.parametrize("name, index", [("02-react-two-tools", 5), ("15-large-run", 1001), ("15-large-run", 0)])
def test_click_on_card_emits_its_index(canvas, qtbot, name, index):
    canvas.set_graph(_graph(name))
    point = _view_point(canvas, index)
    with qtbot.waitSignal(canvas.node_activated, timeout=2000) as signal:
        qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert signal.args == [index]
    assert canvas.selected == index and canvas.art.selected == index


def test_a_new_graph_opens_at_its_top_left(canvas, qtbot):
    canvas.set_graph(_graph("15-large-run"))
    canvas.verticalScrollBar().setValue(5000)
    canvas.set_graph(_graph("15-large-run"))
    QApplication.sendPostedEvents()  # Qt lays the scroll bars out on a layout request it posts, and re-centres then
    corner = canvas.mapToScene(0, 0)  # the graph's top-left corner is in view (a narrow graph sits centred)
    assert corner.y() == 0 and corner.x() <= 0


def test_click_on_empty_space_emits_nothing(canvas, qtbot):
    canvas.set_graph(_graph("02-react-two-tools"))
    box = canvas.graph_layout.nodes[4]
    empty = canvas.mapFromScene(QPointF(box.x - 8, box.bottom + 10))  # the gutter left of the LLM column
    with qtbot.assertNotEmitted(canvas.node_activated):
        qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=empty)


def test_cursor_state_dims_then_hides_future_steps(canvas):
    graph = _graph("02-react-two-tools")
    canvas.set_graph(graph)
    happened = [i < 6 for i in range(len(graph["nodes"]))]
    canvas.set_cursor_state(happened, 5)
    dim = canvas.palette.dim_opacity
    for i, item in enumerate(canvas.node_items):
        assert item.isVisible()
        assert item.fade == pytest.approx(1.0 if i < 6 else dim)
    for item in canvas.edge_items:
        expected = 1.0 if item.route.source < 6 and item.route.target < 6 else dim
        assert item.opacity() == pytest.approx(expected)
    assert canvas.art.current == 5

    canvas.set_future_mode("hide")
    assert [item.isVisible() for item in canvas.node_items] == happened
    assert all(item.isVisible() == (item.route.target < 6) for item in canvas.edge_items)

    canvas.set_cursor_state(None, None)  # everything has happened
    assert all(item.isVisible() and item.fade == 1.0 for item in canvas.node_items)
    assert all(item.isVisible() and item.opacity() == 1.0 for item in canvas.edge_items)
    assert canvas.art.current is None
    with pytest.raises(ValueError):
        canvas.set_future_mode("blink")


def test_hidden_card_cannot_be_clicked(canvas, qtbot):
    graph = _graph("02-react-two-tools")
    canvas.set_graph(graph)
    canvas.set_future_mode("hide")
    canvas.set_cursor_state([i < 4 for i in range(len(graph["nodes"]))], 3)
    point = _view_point(canvas, 9)
    with qtbot.assertNotEmitted(canvas.node_activated):
        qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_current_node_is_scrolled_into_view_without_jumping(canvas):
    graph = _graph("15-large-run")
    canvas.set_graph(graph)
    assert not _fully_visible(canvas, 1000)
    happened = [i <= 1000 for i in range(len(graph["nodes"]))]
    canvas.set_cursor_state(happened, 1000)
    assert _fully_visible(canvas, 1000)

    scroll = canvas.horizontalScrollBar().value(), canvas.verticalScrollBar().value()
    neighbour = 1001 if _fully_visible(canvas, 1001) else 999
    assert _fully_visible(canvas, neighbour)
    canvas.set_cursor_state(happened, neighbour)  # already on screen: the view stays put
    assert (canvas.horizontalScrollBar().value(), canvas.verticalScrollBar().value()) == scroll


def test_zoom_buttons_fit_and_reset(canvas):
    canvas.set_graph(_graph("15-large-run"))
    assert canvas.zoom_factor() == pytest.approx(1.0)
    canvas.zoom_in()
    assert canvas.zoom_factor() > 1.0
    canvas.zoom_out()
    canvas.zoom_out()
    assert canvas.zoom_factor() < 1.0
    canvas.fit_to_window()
    whole = canvas.mapFromScene(canvas.sceneRect()).boundingRect()
    assert canvas.zoom_factor() < 0.1
    assert canvas.viewport().rect().adjusted(-2, -2, 2, 2).contains(whole)
    canvas.grab()  # paints at the plain-block level of detail without trouble
    canvas.reset_zoom()
    assert canvas.zoom_factor() == pytest.approx(1.0)


def test_fit_does_not_blow_up_a_small_graph(canvas):
    canvas.set_graph(_graph("01-llmcall-single"))
    canvas.fit_to_window()
    assert 1.0 <= canvas.zoom_factor() <= 1.5


def test_wheel_zooms_around_the_mouse(canvas):
    canvas.set_graph(_graph("15-large-run"))
    at = QPoint(300, 200)
    before = canvas.mapToScene(at)
    event = QWheelEvent(QPointF(at), QPointF(canvas.viewport().mapToGlobal(at)), QPoint(0, 0), QPoint(0, 240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(canvas.viewport(), event)
    assert canvas.zoom_factor() > 1.3
    after = canvas.mapToScene(at)
    assert abs(after.x() - before.x()) < 2 and abs(after.y() - before.y()) < 2


def test_clear_shows_a_message_instead_of_a_graph(canvas):
    canvas.set_graph(_graph("02-react-two-tools"))
    background = canvas.grab().toImage()
    canvas.clear("This file has no steps to show.")
    assert canvas.message == "This file has no steps to show."
    assert canvas.scene().items() == [] and canvas.node_items == []
    image = canvas.viewport().grab().toImage()
    centre_row = [QColor(image.pixel(x, image.height() // 2)) for x in range(image.width())]
    assert any(c != QColor(canvas.palette.background) for c in centre_row)  # the text is drawn there
    canvas.set_graph(_graph("02-react-two-tools"))
    assert canvas.message is None and len(canvas.node_items) == 16
    assert background.size().isValid()


def test_selection_and_palette(canvas):
    canvas.set_graph(_graph("07-flow-sequence"))
    canvas.set_selected(4)
    assert canvas.selected == 4 and canvas.art.selected == 4
    canvas.set_selected(999)  # out of range: nothing selected
    assert canvas.selected is None
    canvas.set_palette(palette_for("dark"))
    assert canvas.backgroundBrush().color() == QColor(palette_for("dark").background)
    assert canvas.art.palette is palette_for("dark")
    canvas.grab()


def test_a_palette_change_repaints_every_card_already_painted(canvas, qtbot):
    """Each card is cached as a pixmap once painted: a new palette (a theme switch) must paint each again, or the
    cards painted before the switch keep the old theme's colours beside new ones (seen on a screenshot)."""
    canvas.set_graph(_graph("02-react-two-tools"))
    qtbot.waitUntil(lambda: not canvas.building)
    painted: list[int] = []
    paint_node = canvas.art.paint_node

    def recording(painter, index, detailed):
        painted.append(index)
        return paint_node(painter, index, detailed)

    canvas.art.paint_node = recording
    canvas.grab()
    first = set(painted)
    assert len(first) > 5
    painted.clear()
    canvas.grab()
    assert not painted  # (cached: a repaint of the view does not paint the cards again)
    canvas.set_palette(palette_for("dark"))
    canvas.grab()
    assert set(painted) >= first


def test_a_palette_change_dims_the_steps_not_happened_yet_with_its_own_opacity(canvas, qtbot):
    canvas.set_graph(_graph("02-react-two-tools"))
    qtbot.waitUntil(lambda: not canvas.building)
    count = len(canvas.node_items)
    canvas.set_cursor_state([i < count // 2 for i in range(count)], 0)
    for theme in ("dark", "light"):
        palette = palette_for(theme)
        canvas.set_palette(palette)
        opacities = [item.fade for item in canvas.node_items]
        assert opacities[:count // 2] == [1.0] * (count // 2)
        assert opacities[count // 2:] == pytest.approx([palette.dim_opacity] * (count - count // 2))


def test_a_card_painted_before_a_palette_change_and_out_of_view_is_painted_anew_when_seen(canvas, qtbot):
    canvas.set_graph(_graph("15-large-run"))
    qtbot.waitUntil(lambda: not canvas.building, timeout=10_000)
    painted: list[int] = []
    paint_node = canvas.art.paint_node
    canvas.art.paint_node = lambda painter, index, detailed: painted.append(index) or paint_node(painter, index,
                                                                                                 detailed)
    bar = canvas.verticalScrollBar()
    bar.setValue(bar.maximum())
    canvas.grab()
    below = set(painted)
    bar.setValue(0)
    canvas.grab()
    assert below and below - set(painted[len(below):])  # (cards seen only at the bottom)
    canvas.set_palette(palette_for("dark"))
    canvas.grab()
    painted.clear()
    bar.setValue(bar.maximum())
    canvas.grab()
    assert set(painted) >= below


def test_canvas_handles_a_synthetic_10k_graph(canvas, qtbot):
    from afp_desktop.core.views.synthetic import synthetic_step_graph

    graph = synthetic_step_graph(1430, 3)
    canvas.set_graph(graph)
    # A big scene is made in slices across event-loop turns: the window never waits for all of it at once.
    assert canvas.building and 0 < len(canvas.node_items) < len(graph["nodes"])
    assert canvas.node_at(_view_point(canvas, 0)) == 0  # a card not made yet is still found under the pointer
    qtbot.waitUntil(lambda: not canvas.building, timeout=20_000)
    assert len(canvas.node_items) == len(graph["nodes"])
    canvas.set_cursor_state([i < 5000 for i in range(len(graph["nodes"]))], 4999)
    assert _fully_visible(canvas, 4999)


def test_marks_given_while_a_big_graph_is_built_reach_the_cards_made_later(canvas, qtbot):
    """Search marks, pause chips and fact badges set while the scene is still made in slices were kept only for the
    cards already made: a search answered early marked only part of the graph."""
    from afp_desktop.core.views.synthetic import synthetic_step_graph

    graph = synthetic_step_graph(1430, 3)
    canvas.set_graph(graph)
    last = len(graph["nodes"]) - 1
    assert canvas.building and len(canvas.node_items) <= last
    canvas.set_search_marks([0, last])
    canvas.set_pause_marks({last: "Go on?"})
    canvas.set_fact_badges({last: "2 retries"})
    qtbot.waitUntil(lambda: not canvas.building, timeout=20_000)
    assert canvas.art.search_marks == {0, last}
    assert canvas.art.pauses == {last: "Go on?"} and canvas.art.fact_badges == {last: "2 retries"}
    item = canvas.node_items[last]
    assert item.boundingRect().height() > canvas.art.node_bounds(last).height()  # room for its pause chip


def test_a_big_scene_no_longer_shown_is_emptied_a_slice_per_turn(canvas, qtbot, monkeypatch):
    """Deleting the unfolded 1,000-iteration graph's 13,000 items with their scene froze the window 33 ms."""
    from shiboken6 import isValid

    from afp_desktop.app.panels.graph import scene_retirement
    from afp_desktop.core.views.synthetic import synthetic_step_graph

    monkeypatch.setattr(scene_retirement, "REMOVAL_SLICE", 500)
    canvas.set_graph(synthetic_step_graph(300, 3))
    qtbot.waitUntil(lambda: not canvas.building, timeout=20_000)
    old = canvas.scene()
    made = len(canvas.node_items) + len(canvas.edge_items) + len(canvas.group_items)
    assert made > 2000
    counts: list[int] = []
    times: list[float] = []
    canvas.retirement.timer.timeout.connect(lambda: counts.append(len(old.items()) if isValid(old) else 0))
    canvas.retirement.timer.timeout.connect(lambda: times.append(time.monotonic()))
    canvas.set_graph(_graph("02-react-two-tools"))
    assert isValid(old) and len(old.items()) > made, "not all at once"
    qtbot.waitUntil(lambda: not isValid(old), timeout=10_000)
    assert len(counts) >= made // 500 and all(a - b <= 500 for a, b in zip(counts, counts[1:]))
    # a slice every REMOVAL_GAP_MS, not on every turn: freeing waits for the work due after a new graph (on
    # average: Qt keeps a timer's cadence, so a slice that came late is followed by one sooner)
    assert len(times) > 2
    average_gap = (times[-1] - times[0]) / (len(times) - 1)
    assert average_gap >= 0.75 * scene_retirement.REMOVAL_GAP_MS / 1000
    assert len(canvas.node_items) == len(_graph("02-react-two-tools")["nodes"])
    # a slow machine takes fewer items a turn: a slice ends once it has taken REMOVAL_SLICE_S (checked every 64)
    monkeypatch.setattr(scene_retirement, "REMOVAL_SLICE_S", 0.0)
    canvas.set_graph(synthetic_step_graph(300, 3))
    qtbot.waitUntil(lambda: not canvas.building, timeout=20_000)
    old, counts[:] = canvas.scene(), []
    canvas.set_graph(_graph("02-react-two-tools"))
    qtbot.waitUntil(lambda: not isValid(old), timeout=20_000)
    assert len(counts) >= made // 64 and all(a - b <= 64 for a, b in zip(counts, counts[1:]))
    canvas.clear("Nothing")  # (a cleared graph goes the same way)
    qtbot.waitUntil(lambda: not canvas.retirement.retired, timeout=10_000)
    assert canvas.message == "Nothing"


def test_card_text_is_plain_and_single_line():
    node = {"kind": "llm->user", "label": "llm → user", "assistantText": "<b>bold</b>\nsecond line\x07",
            "iterationIndex": 3, "startOffsetMs": 10, "endOffsetMs": 1510}
    title, corner, detail, footer = card_lines(node)
    assert (title, corner, detail) == ("llm → user", "", "<b>bold</b>")
    assert format_duration(node) == "1.5 s"
    llm = {"kind": "tool->llm", "label": "tool → llm", "llmModel": "m", "tokens": {"in": 3, "out": 4},
           "iterationIndex": 2}
    assert card_lines(llm) == ("tool → llm", "#2", "m", "3 in · 4 out")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_palette_text_contrast(theme):
    palette = palette_for(theme)
    for kind, colours in palette.kinds.items():
        for text in (palette.text, palette.text_muted):
            assert contrast_ratio(text, colours.fill) >= 4.5, (theme, kind, text)
        assert contrast_ratio(colours.accent, palette.background) >= 3.0, (theme, kind)  # non-text contrast
    assert contrast_ratio(palette.edge_label, palette.background) >= 4.5
    assert contrast_ratio(palette.message, palette.background) >= 4.5
    for colour in (palette.edge, palette.cursor, palette.selection):
        assert contrast_ratio(colour, palette.background) >= 3.0
    with pytest.raises(ValueError):
        palette_for("sepia")


def test_far_zoomed_out_the_overview_draws_every_card_in_batches(qtbot, canvas):
    from afp_desktop.core.views.synthetic import synthetic_step_graph

    graph = synthetic_step_graph(300, 3)
    canvas.set_graph(graph)
    assert not canvas.overview_mode
    canvas.fit_to_window()
    assert canvas.overview_mode
    assert not canvas.node_items[0].isVisible()  # the detail layer is hidden: one item paints instead
    happened = [i < 100 for i in range(len(graph["nodes"]))]
    canvas.set_cursor_state(happened, 99)
    # private: the overview's blocks by colour and opacity, counted exactly (not read back from pixels)
    batches = canvas._overview._batched()
    dim = canvas.palette.dim_opacity
    assert sum(len(r) for (colour, opacity), r in batches.items() if opacity == 1.0) == 100
    assert sum(len(r) for (colour, opacity), r in batches.items() if opacity == dim) == len(happened) - 100
    canvas.set_future_mode("hide")
    assert sum(len(r) for r in canvas._overview._batched().values()) == 100  # private: as above
    # clicking a block still finds its step
    box = canvas.graph_layout.nodes[50]
    assert canvas.node_at(canvas.mapFromScene(QPointF(box.cx, box.cy))) == 50
    canvas.reset_zoom()
    assert not canvas.overview_mode and canvas.node_items[0].isVisible()


def test_identical_loop_routes_are_drawn_once(canvas):
    graph = _graph("15-large-run")  # 150 loop-iteration edges on the Run card
    canvas.set_graph(graph)
    loops = [r for r in canvas.graph_layout.edges if r.kind == "loop-iteration"]
    drawn = [item for item in canvas.edge_items if item.route.kind == "loop-iteration"]
    assert len(loops) == 150 and len(drawn) <= 2  # the labelled first one, and one for all the rest
