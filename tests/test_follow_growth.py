"""A followed run grows in place: Session.grow and app/loading/growth.py extend what the window shows instead of
rebuilding it (the scene's items survive, the zoom, selection and cursor stay), and what is shown at rest is
what opening the whole file shows."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTransform

from afp_desktop.core.formats.assemble import run_from_typed
from afp_desktop.core.formats.ndjson import parse_ndjson
from afp_desktop.core.model.layout import layout_step_graph
from afp_desktop.core.views.window_copy import whole_run
from tests.corpus_util import read_bytes

SCENARIO = "04-tool-progress"


@pytest.fixture
def lines():
    return [line + b"\n" for line in read_bytes(SCENARIO, "events.ndjson").split(b"\n") if line.strip()]


def typed_count(window) -> int:
    run = window.session.run
    return len(run.typed_events) if run is not None and run.typed_events is not None else -1


def follow(window, qtbot, path, count: int) -> None:
    window.open_file(path, follow=True)
    qtbot.waitUntil(lambda: window.follow.active and typed_count(window) == count and window.timeline.built,
                    timeout=10_000)
    window.canvas.finish_building()


def grow(window, qtbot, path, data: bytes, count: int) -> None:
    with open(path, "ab") as handle:
        handle.write(data)
    qtbot.waitUntil(lambda: typed_count(window) == count, timeout=5_000)
    window.follow.growth.catch_up(now=True)  # the jobs that run a little later (graph, panels) run now


def test_growth_keeps_the_scene_and_adds_only_the_new_cards(window, qtbot, lines, tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:30]))
    follow(window, qtbot, path, 30)
    canvas, session = window.canvas, window.session
    scene, first_items = canvas.scene(), list(canvas.node_items)
    assert first_items  # the first 30 events already made steps
    loaded = []
    session.run_loaded.connect(loaded.append)
    canvas.setTransform(QTransform.fromScale(0.7, 0.7))
    canvas.show_for_zoom()
    session.select_node(0)

    grow(window, qtbot, path, b"".join(lines[30:]), len(lines))

    assert loaded == []  # a growth, not a new run
    assert canvas.scene() is scene
    assert canvas.node_items[:len(first_items)] == first_items  # the same items, not new ones
    whole = run_from_typed(parse_ndjson(b"".join(lines), "x")[0], "x", "ndjson", [])
    assert whole_run(session.run).stepgraph == whole.stepgraph  # (the copy leaves payloads in the engine)
    assert len(canvas.node_items) == len(whole.stepgraph["nodes"]) > len(first_items)
    layout = layout_step_graph(whole.stepgraph)  # every card where the whole run's layout puts it
    assert [item.boundingRect() for item in canvas.node_items] == \
        [canvas.art.node_bounds(i) for i in range(len(layout.nodes))]
    assert [(b.x, b.y) for b in canvas.graph_layout.nodes] == [(b.x, b.y) for b in layout.nodes]
    assert canvas.zoom_factor() == pytest.approx(0.7)  # the user's zoom stays
    # zoomed in enough to read: the cards are shown, not the far-out overview's blocks over them
    assert not canvas.overview_mode and all(item.isVisible() for item in canvas.node_items)
    assert session.selected == 0 and canvas.selected == 0
    # the timeline and the event list show the grown run
    panel = window.timeline.panel
    assert panel.stops == whole.stops and panel.slider.maximum() == len(whole.axis)
    assert window.panels["events"].model.rowCount() == len(whole.axis.entries)
    assert session.position == len(session.run.axis)  # at the live end it stays at the live end


def test_the_cursor_sticks_to_the_live_end_or_stays_put(window, qtbot, lines, tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:20]))
    follow(window, qtbot, path, 20)
    session = window.session
    for end in (35, 50):
        grow(window, qtbot, path, b"".join(lines[end - 15:end]), end)
        assert session.position == len(session.run.axis)
        assert session.moment.position == session.position
        assert window.timeline.panel.slider.value() == session.position

    session.move_to(7, immediate=True)
    grow(window, qtbot, path, b"".join(lines[50:]), len(lines))
    assert session.position == 7 and session.moment.position == 7
    assert not window.follow.jump_button.isHidden()
    window.follow.jump_button.click()
    assert session.position == len(session.run.axis)


def test_a_chosen_stop_and_the_moment_survive_a_growth(window, qtbot, lines, tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:60]))
    follow(window, qtbot, path, 60)
    session = window.session
    assert len(session.spans) > 2
    session.move_to_stop(1)
    session.flush()
    chosen, position = session.chosen_stop, session.position
    grow(window, qtbot, path, b"".join(lines[60:]), len(lines))
    assert (session.position, session.chosen_stop) == (position, chosen)
    assert session.moment.stop is not None and session.moment.stop.index == chosen


def test_with_folding_on_a_growth_shows_the_graph_anew_keeping_the_zoom(window, qtbot, lines, tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:30]))
    follow(window, qtbot, path, 30)
    window.action("fold").trigger()  # View ▸ Fold similar iterations: the folds may change as the run grows
    assert window.folding.enabled
    canvas = window.canvas
    canvas.setTransform(QTransform.fromScale(0.8, 0.8))
    canvas.show_for_zoom()
    grow(window, qtbot, path, b"".join(lines[30:]), len(lines))
    canvas.finish_building()
    assert canvas.zoom_factor() == pytest.approx(0.8)
    assert len(canvas.node_items) == len(canvas.graph_layout.nodes) > 0
    assert window.session.position == len(window.session.run.axis)


def test_session_grow_publishes_a_pending_move_with_its_chosen_stop(qtbot, lines):
    from afp_desktop.app.session import Session

    events = parse_ndjson(b"".join(lines), "x")[0]
    short, whole = (run_from_typed(events[:n], "x", "ndjson", []) for n in (60, len(events)))
    session = Session()
    grown = []
    session.run_grown.connect(grown.append)
    session.set_run(short, 0)
    session.move_to_stop(2)  # not yet published (coalesced) when the growth arrives
    position = session.position
    session.grow(whole, position)
    assert grown == [whole] and session.run is whole
    assert (session.position, session.chosen_stop) == (position, 2)
    assert session.moment.position == position and session.moment.stop.index == 2
