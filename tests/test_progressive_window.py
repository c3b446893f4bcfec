"""Progressive display in the window (pytest-qt, offscreen): a big file shows its first events while it is
read, the user can move through them before the load has finished, and the whole run then takes their place
in the same scene, keeping the cursor where the user put it."""

from __future__ import annotations

import inspect
import lzma

import pytest
from PySide6.QtWidgets import QApplication

from afp_desktop.app.loading import loader as loader_module
from afp_desktop.core.formats import prefixes
from tests.corpus_util import corpus_path, read_bytes
from tests.inspector_reading import read

LOAD_TIMEOUT = 60_000


@pytest.fixture
def slow_prefixes(monkeypatch):
    """Prefixes from the 300th event, doubling; the loader waits 600 ms after showing each, so a test can act
    while the file is still being read."""
    monkeypatch.setattr(prefixes, "MIN_BYTES", 0)
    monkeypatch.setattr(prefixes, "FIRST_EVENTS", 300)
    monkeypatch.setattr(prefixes, "GROWTH", 2)
    monkeypatch.setattr(prefixes, "LAST_FRACTION", 0.95)
    monkeypatch.setattr(prefixes, "MIN_REST_S", 0.0)  # every part, however soon the rest is read
    monkeypatch.setattr(loader_module, "PREFIX_HOLD_MS", 600)


def first_prefix(qtbot, window, path):
    with qtbot.waitSignal(window.loader.prefix, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    return window.session.run


@pytest.mark.parametrize("name", ["events.ndjson", "trace.json"])
def test_the_first_events_show_and_can_be_scrubbed_before_the_load_ends(qtbot, window, slow_prefixes, name):
    path = corpus_path("15-large-run", name)
    shown = first_prefix(qtbot, window, path)
    assert shown is not None and shown.still_reading and window.loader.busy
    assert window.progress.isVisible(), "the progress bar says the file is still being read"
    assert window.load_label.text() == f"Reading {path.name}… the first {len(shown.axis):,} events are shown"
    assert any(f"first {len(shown.axis):,} events" in text for text in window.banner.texts)
    assert any(text.startswith("Still reading this file") for text in window.banner.texts)
    assert window.session.position == len(shown.axis), "the cursor is at the end of what has arrived"
    assert len(window.session.stops) >= 2 and window.canvas.art is not None
    # the user moves through what has arrived while the rest is read
    window.session.move_to_stop(1)
    window.session.flush()
    moved_to = window.session.position
    assert 0 < moved_to < len(shown.axis)
    assert window.session.moment.position == moved_to
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        pass
    whole = window.session.run
    assert whole is not shown and not whole.still_reading and len(whole.axis) > len(shown.axis)
    assert window.session.position == moved_to, "the whole run keeps the cursor where the user put it"
    assert not window.progress.isVisible()
    assert not any(text.startswith("Still reading") for text in window.banner.texts)
    qtbot.waitUntil(lambda: not window.canvas.building and window.follow.growth.idle, timeout=LOAD_TIMEOUT)
    assert len(window.canvas.graph_layout.nodes) == len(whole.views.graph_layout.nodes)


def test_the_run_grows_in_place_and_ends_where_opening_puts_it(qtbot, window, slow_prefixes):
    path = corpus_path("15-large-run", "events.ndjson")
    first = first_prefix(qtbot, window, path)
    scene = window.canvas.scene()
    grown = []
    window.session.run_grown.connect(grown.append)
    loaded_again = []
    window.session.run_loaded.connect(loaded_again.append)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        pass
    whole = window.session.run
    assert len(grown) >= 2 and grown[-1] is whole, "each later prefix and the whole run grew the run shown"
    sizes = [len(r.axis) for r in grown]
    assert sizes == sorted(sizes) and sizes[0] > len(first.axis)
    assert not loaded_again, "nothing was reloaded from scratch"
    assert window.canvas.scene() is scene, "the same scene, extended"
    assert window.session.position == len(whole.axis), "not moved: at the end, like any opened file"
    assert window.session.chosen_stop == len(window.session.stops) - 1


def test_a_damaged_line_after_the_first_events_takes_the_part_away_and_says_where(qtbot, window, slow_prefixes,
                                                                                   tmp_path):
    lines = [line for line in read_bytes("15-large-run", "events.ndjson").splitlines() if line.strip()]
    bad = len(lines) * 3 // 4
    lines[bad] = b'{"type": "agentfootprint.stream.token", oops}'
    damaged = tmp_path / "damaged.ndjson"
    damaged.write_bytes(b"\n".join(lines) + b"\n")
    first_prefix(qtbot, window, damaged)
    with qtbot.waitSignal(window.loader.failed, timeout=LOAD_TIMEOUT) as failed:
        pass
    assert f"line {bad + 1}" in failed.args[0]
    assert window.session.run is None, "a damaged file is not shown as if it were whole"
    assert f"line {bad + 1}" in window.empty.error.text()


def test_cancel_while_the_first_events_show(qtbot, window, slow_prefixes):
    first_prefix(qtbot, window, corpus_path("15-large-run", "events.ndjson"))
    with qtbot.waitSignal(window.loader.cancelled, timeout=LOAD_TIMEOUT):
        window.cancel_button.click()
    assert window.session.run is None and not window.progress.isVisible()


def test_opening_another_file_drops_the_first_one_s_later_parts(qtbot, window, slow_prefixes):
    first_prefix(qtbot, window, corpus_path("15-large-run", "events.ndjson"))
    small = corpus_path("04-tool-progress", "events.ndjson")
    late = []
    window.session.run_grown.connect(late.append)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(small)
    assert window.loader.wait()  # the first load's thread has ended: whatever it sent is queued
    QApplication.processEvents()  # and delivered (a late part would grow the run shown)
    assert str(window.session.run.path).endswith("04-tool-progress/events.ndjson.xz") or \
        window.session.run.path == str(small)
    assert not late and not window.session.run.still_reading


def test_the_graph_shown_anew_right_after_the_load_is_the_whole_run_s(qtbot, window, slow_prefixes):
    """Folding switched before the growth's graph job has run draws the whole run, not the first part."""
    first_prefix(qtbot, window, corpus_path("15-large-run", "trace.json"))
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        pass
    whole = window.session.run
    folding = window.folding
    folding.set_enabled(not folding.enabled)
    folding.set_enabled(False)
    assert len(window.canvas.art.nodes) == len(whole.stepgraph["nodes"])


def test_the_inspector_shows_nothing_of_the_last_run_then_the_first_part_s_step(qtbot, window, slow_prefixes):
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(corpus_path("02-react-two-tools", "trace.json"))
    inspector = window.panels["inspector"]
    window.session.move_to_stop(3)
    window.session.flush()
    assert inspector.node_index is not None
    shown = first_prefix(qtbot, window, corpus_path("15-large-run", "events.ndjson"))
    assert inspector.node_index is None, "no step of the run that was replaced"
    qtbot.waitUntil(lambda: inspector.node_index is not None, timeout=5_000)  # the settled moment draws it
    assert window.session.run is shown and inspector.node_index == window.session.moment.current_node


def test_a_trace_broken_after_its_head_takes_the_part_away_and_says_where(qtbot, window, slow_prefixes, tmp_path):
    data = bytearray(lzma.open(corpus_path("15-large-run", "trace.json")).read())
    at = len(data) * 3 // 4
    at = data.index(b'"type"', at)  # break a key's quote: no longer JSON from here on
    data[at] = ord("'")
    broken = tmp_path / "broken.json"
    broken.write_bytes(bytes(data))
    shown = first_prefix(qtbot, window, broken)
    assert shown.still_reading and shown.redaction is None, "the head's events, read before the whole file"
    with qtbot.waitSignal(window.loader.failed, timeout=LOAD_TIMEOUT) as failed:
        pass
    line = data[:at].count(b"\n") + 1
    assert "not valid JSON" in failed.args[0] and f"line {line}" in failed.args[0]
    assert window.session.run is None and "not valid JSON" in window.empty.error.text()


def test_reopened_where_the_user_left_it_shows_that_place_from_the_first_part(qtbot, window, slow_prefixes):
    path = corpus_path("15-large-run", "events.ndjson")
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(path)
    window.session.move_to_stop(2)
    window.session.flush()
    left_at = window.session.position
    window.close_run()  # remembers the place
    shown = first_prefix(qtbot, window, path)
    assert left_at < len(shown.axis) and window.session.position == left_at
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        pass
    assert window.session.run is not shown and window.session.position == left_at


def test_the_first_part_s_stops_follow_on_the_next_turn_in_an_empty_timeline(qtbot, window):
    """The first part of a big file: the timeline's stops are laid out and painted on a turn of their own (~30 ms
    less in the first freeze). A big run replacing another: the other's stops (and bands) go at once, and its
    own follow the same way."""
    from afp_desktop.core.formats import open_run
    from afp_desktop.core.formats.prefixes import mark_as_prefix
    from afp_desktop.core.views.orientation import iteration_bands

    qtbot.waitUntil(lambda: window.timeline.built, timeout=10_000)
    timeline = window.timeline.panel
    part = open_run(corpus_path("15-large-run", "trace.json"))
    mark_as_prefix(part)
    window.session.set_run(part, settle_now=False)
    assert timeline.stops == [], "not in the same turn as the other panels"
    assert timeline.slider.maximum() == len(part.axis), "(the slider is there at once)"
    qtbot.waitUntil(lambda: timeline.stops == window.session.stops, timeout=2_000)
    assert len(timeline.stops) > 2
    qtbot.waitUntil(lambda: bool(window.features["iteration_bands"].bands.bands), timeout=2_000)
    other = open_run(corpus_path("02-react-two-tools", "trace.json"))
    mark_as_prefix(other)
    window.session.set_run(other, settle_now=False)
    assert timeline.stops == [] and window.features["iteration_bands"].bands.bands == [], "no other run's stops meanwhile"
    assert timeline.note.text() == "" and timeline.canvas.count == 0 and timeline.overview.strip.count == 0
    assert timeline.canvas.isVisible(), "emptied in place for the stops that follow, not hidden and shown again"
    qtbot.waitUntil(lambda: timeline.stops == window.session.stops, timeout=2_000)
    assert window.features["iteration_bands"].bands.bands == iteration_bands(timeline.stops)
    small = open_run(corpus_path("02-react-two-tools", "trace.json"))
    window.session.set_run(small)
    assert timeline.stops == window.session.stops, "a small whole run: its stops at once"


def plain_recording(tmp_path):
    path = tmp_path / "recording.json"
    path.write_bytes(read_bytes("15-large-run", "recording.json"))  # (plain: its events found from the end)
    return path


def test_a_recording_shows_its_first_events_then_the_whole_run_at_the_same_moment(qtbot, window, slow_prefixes,
                                                                                   tmp_path):
    path = plain_recording(tmp_path)
    shown = first_prefix(qtbot, window, path)
    assert shown.still_reading and shown.positions_differ and window.loader.busy
    assert len(shown.typed_events) == prefixes.FIRST_EVENTS
    assert any(text.startswith("Still reading this recording: the first 300 of its") for text in window.banner.texts)
    assert window.load_label.text() == f"Reading {path.name}… the first 300 typed events are shown"
    assert not any("Only the typed event stream is in this file" in text for text in window.banner.texts), \
        "what is true of the part only is not said of the file"
    assert window.session.position == len(shown.axis)
    qtbot.waitUntil(lambda: window.timeline.built and "Stops derived" in window.timeline.panel.note.text(), timeout=10_000)
    assert window.timeline.panel.note.text() == ("Stops derived from the events (its commit log is read with the rest of "
                                           "the file)."), "not: no commit log in this file"
    window.session.move_to_stop(len(window.session.stops) // 2)
    window.session.flush()
    moved_to = window.session.position
    assert 0 < moved_to < len(shown.axis)
    typed_seen = shown.axis.typed_before[moved_to]
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        pass
    whole = window.session.run
    assert whole is not shown and not whole.still_reading and whole.has_commit_log
    assert whole.axis.typed_before[window.session.position] == typed_seen, "the same typed event has happened"
    assert window.session.moment.position == window.session.position
    assert not any(text.startswith("Still reading") for text in window.banner.texts)
    qtbot.waitUntil(lambda: not window.canvas.building, timeout=LOAD_TIMEOUT)
    assert len(window.canvas.graph_layout.nodes) == len(whole.views.graph_layout.nodes) > \
        len(shown.views.graph_layout.nodes)
    qtbot.waitUntil(lambda: "commit log is read" not in window.timeline.panel.note.text(), timeout=10_000)


def test_a_recording_left_untouched_opens_whole_at_its_end(qtbot, window, slow_prefixes, tmp_path):
    path = plain_recording(tmp_path)
    first_prefix(qtbot, window, path)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        pass
    whole = window.session.run
    assert window.session.position == len(whole.axis) and window.session.chosen_stop == len(window.session.stops) - 1
    # a new graph in the part's place: the inspector follows a turn later, not in the turn of the first paint
    inspector = window.panels["inspector"]
    assert window.session.settle_pending and inspector.node is None
    qtbot.waitUntil(lambda: not window.session.settle_pending, timeout=5_000)
    read(qtbot, inspector)
    assert inspector.node is not None and inspector.node_index == window.session.moment.current_node
    window.session.move_to_stop(3)
    window.session.flush()
    left_at = window.session.position
    window.close_run()  # remembers the place: on the whole run's positions, not the part's
    shown = first_prefix(qtbot, window, path)
    assert window.session.position == len(shown.axis), "the part is not put at a place of another axis"
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        pass
    assert window.session.run is not shown and window.session.position == left_at


def test_a_recording_damaged_before_its_events_shows_them_then_takes_them_away(qtbot, window, slow_prefixes,
                                                                              tmp_path):
    """Its first events are found from the end of the file and shown; the whole read then meets the damage in
    the snapshot: the part goes and the error names the line."""
    data = bytearray(read_bytes("15-large-run", "recording.json"))
    at = data.index(b'"commitLog"')
    data[at] = ord("'")  # a key's quote broken in the snapshot: no longer JSON from there on
    damaged = tmp_path / "recording.json"
    damaged.write_bytes(bytes(data))
    shown = first_prefix(qtbot, window, damaged)
    assert shown.still_reading and shown.positions_differ
    with qtbot.waitSignal(window.loader.failed, timeout=LOAD_TIMEOUT) as failed:
        pass
    line = data[:at].count(b"\n") + 1
    assert "not valid JSON" in failed.args[0] and f"line {line}" in failed.args[0]
    assert window.session.run is None and "not valid JSON" in window.empty.error.text()


@pytest.mark.parametrize("name", ["events.ndjson", "recording.json"])
def test_the_whole_run_takes_the_part_s_place_on_a_turn_of_its_own(qtbot, window, slow_prefixes, name, tmp_path,
                                                                    monkeypatch):
    """Not in the pass of the event loop that received it from the loader thread, where a move of the cursor may
    just have been painted: the two together stalled the window ~100 ms on the 448 MB recording."""
    monkeypatch.setattr(loader_module, "PREFIX_SETTLE_MS", 10)
    path = tmp_path / name
    path.write_bytes(read_bytes("15-large-run", name))
    seen: list[tuple[bool, object]] = []  # at the delivery: (in the arrival's own handler, the run shown)
    # private: the loader's delivery of the whole run, wrapped to count its turn
    deliver = loader_module.RunLoader._deliver

    def watched(loader, thread, run) -> None:
        in_arrival = any(frame.function == "_on_loaded" for frame in inspect.stack(0))
        seen.append((in_arrival, window.session.run))
        deliver(loader, thread, run)

    monkeypatch.setattr(loader_module.RunLoader, "_deliver", watched)
    part = first_prefix(qtbot, window, path)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT) as delivered:
        pass
    assert len(seen) == 1 and not seen[0][0], "delivered in the same pass as it arrived"
    assert seen[0][1] is not delivered.args[0] and seen[0][1] is not None
    assert window.session.run is delivered.args[0] and not window.loader.busy
    assert part.still_reading and not window.session.run.still_reading


def test_the_load_goes_on_once_the_window_has_painted_its_part(qtbot, window, monkeypatch):
    """After showing a part, the loader waits for the window's paint of it (paint_phase's `served`), not for a
    fixed time: with the fixed wait made 30 s long, the load still ends at once, and each part was painted first."""
    monkeypatch.setattr(prefixes, "MIN_BYTES", 0)
    monkeypatch.setattr(prefixes, "FIRST_EVENTS", 300)
    monkeypatch.setattr(prefixes, "GROWTH", 2)
    monkeypatch.setattr(prefixes, "LAST_FRACTION", 0.95)
    monkeypatch.setattr(prefixes, "MIN_REST_S", 0.0)
    monkeypatch.setattr(loader_module, "PREFIX_SETTLE_MS", 30_000)
    monkeypatch.setattr(loader_module, "PREFIX_WAIT_S", 30.0)
    painted, parts = [], []
    window.paint_phase.served.connect(lambda: painted.append(len(parts)))
    window.loader.prefix.connect(lambda run: parts.append(run))
    with qtbot.waitSignal(window.loader.loaded, timeout=15_000):
        window.open_file(corpus_path("15-large-run", "events.ndjson"))
    assert len(parts) >= 2, "(several parts shown)"
    assert all(n in painted for n in range(1, len(parts) + 1)), "each part painted before the load went on"


def test_a_run_that_grows_into_a_folded_graph_is_not_laid_out_whole_on_the_window_s_thread(qtbot, window,
                                                                                             slow_prefixes, monkeypatch):
    """The parts shown unfolded, the whole run folded: the window draws the folded graph's layout, made by the
    loader; the whole graph's (50–260 ms for the 1,000-iteration run) is left to the thread beside the window."""
    from afp_desktop.app.features import graph_folding
    from afp_desktop.app.loading import left_out

    monkeypatch.setattr(left_out, "START_AFTER_MS", 60_000)  # (not begun within this test)
    monkeypatch.setattr(graph_folding, "AUTO_FOLD_STEPS", 400)  # (the whole run's 602 steps fold, its parts not)
    window.folding.choice = None
    shown = first_prefix(qtbot, window, corpus_path("15-large-run", "events.ndjson"))
    assert not window.folding.enabled and len(shown.stepgraph["nodes"]) <= 400
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        pass
    whole = window.session.run
    qtbot.waitUntil(lambda: not window.canvas.building and window.follow.growth.idle, timeout=LOAD_TIMEOUT)
    assert window.canvas.graph_layout is whole.views.folded_graph.layout
    assert whole.views.graph_layout is None
