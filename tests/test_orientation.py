"""Orientation: iteration bands over the stops (from the milestone kinds, or the LLM turns of derived stops),
the readout "Iteration 2 · stop 9 of 22", and the bands drawn, labelled and clickable on the timeline."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import QPointF, Qt

from afp_desktop.core.formats import open_run
from afp_desktop.core.views.orientation import band_of_stop, iteration_bands, readout, step_iteration
from tests.corpus_util import SMALL_SCENARIOS, corpus_path
from tests.paint_util import window_painted


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
@pytest.mark.parametrize("name", ("recording.json", "events.ndjson"))
def test_bands_tile_the_stops_between_the_bookends(scenario, name):
    stops = open_run(corpus_path(scenario, name)).stops
    bands = iteration_bands(stops)
    kinds = [(stop.get("meta") or {}).get("kind") for stop in stops]
    starts = [i for i, k in enumerate(kinds) if k == "iteration"] or [i for i, k in enumerate(kinds) if k == "llm-turn"]
    assert [band.first for band in bands] == starts
    assert [band.number for band in bands] == list(range(1, len(bands) + 1))
    for band, following in zip(bands, bands[1:]):
        assert band.last == following.first - 1
    if bands:
        assert bands[-1].last == len(stops) - 2  # up to the stop before Run end
        assert band_of_stop(bands, 0) is None if bands[0].first > 0 else True


def test_readout():
    stops = open_run(corpus_path("02-react-two-tools", "recording.json")).stops
    bands = iteration_bands(stops)
    assert [(b.first, b.last) for b in bands] == [(1, 7), (8, 14), (15, 20)]
    assert readout(bands, 8, 22) == "Iteration 2 · stop 9 of 22"
    assert readout(bands, 0, 22) == "Stop 1 of 22"
    assert readout(bands, 20, 22, at_stop=False) == "Iteration 3 · in stop 21 of 22"
    assert readout(bands, None, 22) == ""
    # inside a stop's span the run went on to iterations no stop marks: the step's iteration is said
    assert readout(bands, 20, 22, at_stop=False, step_iteration=5) == "Iteration 5 · in stop 21 of 22"
    assert readout(bands, 20, 22, at_stop=False, step_iteration=3) == "Iteration 3 · in stop 21 of 22"
    assert readout(bands, 8, 22, step_iteration=1) == "Iteration 2 · stop 9 of 22"  # (its engine has started it)
    derived = iteration_bands(open_run(corpus_path("02-react-two-tools", "events.ndjson")).stops)
    assert [b.label for b in derived] == ["Iteration 1", "Iteration 2", "Iteration 3"]


@given(st.lists(st.sampled_from(["iteration", "llm-turn", "tool", None]), max_size=60), st.booleans())
def test_the_band_of_each_stop_is_the_one_that_holds_it(kinds, ends):
    """(A binary search over the bands, against a scan of them.)"""
    stops = [{"kind": "stop", "meta": {"kind": kind}} for kind in kinds] + ([{"kind": "end"}] if ends else [])
    bands = iteration_bands(stops)
    for index in [None, -1, *range(len(stops) + 2)]:
        holding = [band for band in bands if index is not None and band.first <= index <= band.last]
        assert band_of_stop(bands, index) == (holding[0] if holding else None)


def _tall_timeline(qtbot, window) -> None:
    """Room for band labels above the markers (a short strip shows the shading and the readout only)."""
    from PySide6.QtCore import Qt

    window.resizeDocks([window.docks["timeline"]], [420], Qt.Orientation.Vertical)
    qtbot.waitUntil(lambda: window.timeline.panel.canvas.stop_rect().height() >= 56, timeout=3000)


def test_a_short_strip_shows_no_band_labels_over_the_markers(qtbot, window):
    from PySide6.QtCore import Qt

    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(corpus_path("02-react-two-tools", "recording.json"))
    qtbot.waitUntil(lambda: window.timeline.built, timeout=10_000)  # (the plots follow the run)
    window.resizeDocks([window.docks["timeline"]], [150], Qt.Orientation.Vertical)
    timeline, bands = window.timeline.panel, window.features["iteration_bands"].bands
    qtbot.waitUntil(lambda: timeline.canvas.stop_rect().height() < 56, timeout=3000)
    timeline.show_range(-1, 23)
    assert bands.shown_labels() == [] and bands.readout.text()  # the readout still says where the cursor is


def test_bands_on_the_timeline(qtbot, window):
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(corpus_path("02-react-two-tools", "recording.json"))
    qtbot.waitUntil(lambda: window.timeline.built, timeout=10_000)  # (the plots follow the run)
    session, timeline, bands = window.session, window.timeline.panel, window.features["iteration_bands"].bands
    session.move_to_stop(9)
    session.flush()
    assert bands.readout.text() == "Iteration 2 · stop 10 of 22"
    canvas = timeline.canvas
    assert [(band.x0, band.x1) for band in canvas.bands] == [(0.55, 7.45), (7.55, 14.45), (14.55, 20.45)]
    _tall_timeline(qtbot, window)
    timeline.show_range(-1, 23)
    window_painted(qtbot, window)
    labels = bands.shown_labels()
    assert [band.label for band in labels] == ["Iteration 1", "Iteration 2", "Iteration 3"]
    # a click on "Iteration 3" goes to its first stop (not to the stop nearest the click)
    (drawn,) = [band for band in canvas.labelled_bands() if band.label == "Iteration 3"]
    label_at = QPointF(canvas.px_of(drawn.x0) + 12, canvas.stop_rect().top() + 6)
    assert canvas.tooltip_at(label_at).startswith("Iteration 3: stops 16–21")  # (it says where a click goes)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=label_at.toPoint())
    session.flush()
    assert session.stop_index == 15 and bands.readout.text() == "Iteration 3 · stop 16 of 22"
    window.theme_actions["dark"].trigger()
    assert len(canvas.bands) == 3
    session.close_run()
    assert bands.readout.text() == "" and canvas.bands == []


def test_no_bands_without_iterations(qtbot, window):
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(corpus_path("01-llmcall-single", "events.ndjson"))
    qtbot.waitUntil(lambda: window.timeline.built, timeout=10_000)  # (the plots follow the run)
    window.session.flush()
    bands = window.features["iteration_bands"].bands
    assert len(bands.bands) == len(iteration_bands(window.session.stops))
    assert bands.readout.text() == readout(bands.bands, window.session.stop_index, len(window.session.stops),
                                           window.session.moment.at_stop)


def test_a_long_run_labels_only_what_fits(qtbot, window):
    with qtbot.waitSignal(window.loader.loaded, timeout=60_000):
        window.open_file(corpus_path("15-large-run", "recording.json"))
    qtbot.waitUntil(lambda: window.timeline.built, timeout=10_000)  # (the plots follow the run)
    window.session.flush()
    bands, timeline = window.features["iteration_bands"].bands, window.timeline.panel
    assert len(bands.bands) == len(iteration_bands(window.session.stops)) > 100
    _tall_timeline(qtbot, window)
    timeline.show_range(300, 340)
    shown = bands.shown_labels()
    assert shown and all(band.last >= 299 and band.first <= 341 for band in shown)
    timeline.show_range(-1, len(window.session.stops))
    assert bands.shown_labels() == []  # seven stops are a few pixels wide: no label fits


def test_a_big_runs_bands_and_pause_marks_follow_its_stops_that_come_a_turn_later(qtbot, window, monkeypatch):
    """A run of thousands of stops gets them a turn after the other panels (timeline.DEFERRED_STOPS): what is
    drawn over them waits for them (the 1,000-iteration recording opened with no bands at all)."""
    from afp_desktop.app.panels.timeline import timeline as timeline_module
    from afp_desktop.core.model.timeline import x_of_position

    monkeypatch.setattr(timeline_module, "DEFERRED_STOPS", 1)
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(corpus_path("02-react-two-tools", "recording.json"))
    qtbot.waitUntil(lambda: window.timeline.built and len(window.timeline.panel.stops) == 22, timeout=10_000)
    bands = window.features["iteration_bands"].bands
    qtbot.waitUntil(lambda: len(bands.bands) == 3, timeout=3000)
    assert [band.x0 for band in window.timeline.panel.canvas.bands] == [0.55, 7.55, 14.55]
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(corpus_path("06-pause-resume", "recording.json"))
    qtbot.waitUntil(lambda: len(window.timeline.panel.stops) == len(window.session.stops), timeout=3000)
    (mark,) = window.features["pauses"].marks
    pauses = window.features["pauses"]
    qtbot.waitUntil(lambda: len(pauses.shown) == 1, timeout=3000)
    assert pauses.shown[0][0] == pytest.approx(x_of_position(window.timeline.panel.ends, mark.position))


def test_the_readout_and_the_inspector_agree_on_the_iteration_of_a_second_run_in_one_stream(qtbot, window, tmp_path):
    """Two runs appended in one stream: the second has no stops of its own, its iterations all lie in the first
    run's last stop. The readout said "Iteration 3" there while the step at the cursor (ringed in the graph,
    shown by the inspector) was in iteration 4, 5 or 6."""
    one = corpus_path("02-react-two-tools", "events.ndjson").read_bytes()
    two = tmp_path / "two-runs.ndjson"
    two.write_bytes(one + one)
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(two)
    qtbot.waitUntil(lambda: window.timeline.built, timeout=10_000)  # (the plots follow the run)
    session, run = window.session, window.session.run
    said = set()
    for position in range(session.replay.length + 1):
        session.move_to(position)
        session.flush()
        moment = session.moment
        iteration = step_iteration(run, moment.current_node)
        text = window.features["iteration_bands"].bands.readout.text()
        if iteration is not None and text.startswith("Iteration "):
            number = int(text.split()[1])
            assert number >= iteration, (position, text, iteration)
            said.add(number)
    assert {4, 5, 6} <= said, said
