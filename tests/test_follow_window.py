"""The window following a file while it is written: File ▸ Follow, the Live indicator, the cursor sticking
to the live end (or staying where it was put), Jump to live, rotation, and a Trace rewritten whole."""

from __future__ import annotations

import os

import pytest

from afp_desktop.core.formats import open_run
from afp_desktop.core.views.window_copy import whole_run
from afp_desktop.core.formats.assemble import run_from_typed
from afp_desktop.core.formats.ndjson import parse_ndjson
from tests.corpus_util import corpus_path, read_bytes

SCENARIO = "04-tool-progress"


@pytest.fixture
def lines():
    return [line + b"\n" for line in read_bytes(SCENARIO, "events.ndjson").split(b"\n") if line.strip()]


def append(path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)


def typed_count(window) -> int:
    run = window.session.run
    return len(run.typed_events) if run is not None and run.typed_events is not None else -1


def test_a_growing_file_is_followed_and_the_cursor_sticks_to_the_live_end(window, qtbot, lines, tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:20]) + lines[20][:30])  # the sink is mid-batch: a cut last line
    window.open_file(path)
    qtbot.waitUntil(lambda: window.follow.active, timeout=10_000)
    assert window.action("follow").isChecked()
    assert not window.follow.indicator.isHidden() and window.follow.indicator.text() == "● Live"
    assert typed_count(window) == 20
    session = window.session

    append(path, lines[20][30:] + b"".join(lines[21:40]))
    qtbot.waitUntil(lambda: typed_count(window) == 40, timeout=5_000)
    assert session.position == len(session.run.axis)  # it was at the end: it stays at the (new) end
    assert window.follow.jump_button.isHidden()

    session.move_to(5, immediate=True)
    append(path, b"".join(lines[40:55]))
    qtbot.waitUntil(lambda: typed_count(window) == 55, timeout=5_000)
    assert session.position == 5  # put somewhere by the user: it stays there while the timeline grows
    assert not window.follow.jump_button.isHidden()
    window.follow.jump_button.click()
    assert session.position == len(session.run.axis)

    os.replace(path, path.with_name("events.ndjson.1"))  # the sink rotates
    path.write_bytes(b"".join(lines[55:]))
    qtbot.waitUntil(lambda: typed_count(window) == len(lines), timeout=5_000)
    assert session.position == len(session.run.axis)
    events = parse_ndjson(b"".join(lines), "x")[0]
    whole = run_from_typed(events, "x", "ndjson", [])
    assert whole_run(session.run).stepgraph == whole.stepgraph  # (the copy leaves payloads in the engine)
    assert session.run.stops == whole.stops
    assert window.follow.indicator.text() == "● Live — run ended"
    # the panels show the grown run (each catches up within a few turns of the event loop): the canvas has every
    # node, the timeline every stop
    qtbot.waitUntil(lambda: len(window.canvas.art.nodes) == len(whole.stepgraph["nodes"]), timeout=5_000)
    assert window.session.stops == whole.stops

    window.action("follow").trigger()  # File ▸ Follow off
    assert not window.follow.active and window.follow.indicator.isHidden()


def test_a_finished_file_is_not_followed_unless_asked(window, qtbot, tmp_path):
    path = tmp_path / "done.ndjson"
    path.write_bytes(read_bytes("02-react-two-tools", "events.ndjson"))
    window.open_file(path)
    # loaded (File ▸ Follow is enabled then), and the check whether the file is still being written has run
    qtbot.waitUntil(lambda: window.session.run is not None and window.action("follow").isEnabled()
                    and not window.follow.growth_check_waiting, timeout=10_000)
    assert not window.follow.active and window.follow.indicator.isHidden()
    assert window.action("follow").isEnabled() and not window.action("follow").isChecked()
    window.action("follow").trigger()
    assert window.follow.active
    window.close_run()
    assert not window.follow.active and not window.action("follow").isEnabled()


def test_follow_flag_and_a_truncated_file_starting_over(window, qtbot, lines, tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:30]))
    window.open_file(path, follow=True)
    qtbot.waitUntil(lambda: window.follow.active and typed_count(window) == 30, timeout=10_000)
    path.write_bytes(b"".join(lines[:4]))  # truncated and rewritten
    qtbot.waitUntil(lambda: typed_count(window) == 4, timeout=5_000)
    assert any(n.code == "restarted" for n in window.session.run.notices)
    assert any("reading it again from the start" in text for text in window.banner.texts)


def test_a_trace_rewritten_whole_is_reloaded_keeping_the_cursor(window, qtbot, tmp_path):
    path = tmp_path / "trace.json"
    path.write_bytes(read_bytes("02-react-two-tools", "trace.json"))
    window.open_file(path, follow=True)
    qtbot.waitUntil(lambda: window.follow.active and window.session.run is not None, timeout=10_000)
    assert window.follow.mode == "reload"
    first = window.session.run
    window.session.move_to(7, immediate=True)
    path.write_bytes(read_bytes("04-tool-progress", "trace.json"))
    qtbot.waitUntil(lambda: window.session.run is not first, timeout=10_000)
    assert window.session.position == 7
    assert whole_run(window.session.run).stepgraph == open_run(corpus_path("04-tool-progress", "trace.json")).stepgraph
    assert window.follow.active


def test_a_followed_run_ends_at_run_end_as_the_finished_file_does(window, qtbot, lines, tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:30]))
    window.open_file(path, follow=True)
    qtbot.waitUntil(lambda: window.follow.active and typed_count(window) == 30, timeout=10_000)
    append(path, b"".join(lines[30:]))
    qtbot.waitUntil(lambda: typed_count(window) == len(lines), timeout=5_000)
    session = window.session
    last = len(session.stops) - 1
    assert session.stops[last]["label"] == "Run end"
    assert session.position == len(session.run.axis) and session.stop_index == last  # not the stop before it
    window.action("reload").trigger()  # F5 keeps the cursor: still at Run end
    qtbot.waitUntil(lambda: not window.loader.busy and typed_count(window) == len(lines), timeout=10_000)
    session.flush()
    assert session.stop_index == len(session.stops) - 1
