"""A run the window no longer shows is freed: the loader freezes what it built out of the garbage collector's
way (gcpause.py), so a cycle through a run (its replay facts, its bubble model) kept every run ever opened —
and every part of a big file shown while it was read — alive for as long as the window was open."""

from __future__ import annotations

import weakref

import pytest

from afp_desktop.app import loader as loader_module
from afp_desktop.core.formats import prefixes
from tests.corpus_util import corpus_path

LOAD_TIMEOUT = 60_000


def open_and_settle(qtbot, window, path) -> weakref.ref:
    got: list = []
    window.loader.loaded.connect(got.append)
    window.open_file(path)
    qtbot.waitUntil(lambda: bool(got), timeout=LOAD_TIMEOUT)
    window.loader.loaded.disconnect(got.append)
    ref = weakref.ref(got.pop())
    qtbot.waitUntil(lambda: window.follow.growth.idle and not window.canvas.building, timeout=LOAD_TIMEOUT)
    qtbot.wait(50)
    return ref


@pytest.mark.parametrize("name", ["trace.json", "events.ndjson", "recording.json"])
def test_a_run_replaced_by_another_is_freed(qtbot, window, name):
    first = open_and_settle(qtbot, window, corpus_path("02-react-two-tools", name))
    assert first() is window.session.run
    window.session.move_to_stop(2)  # (a moment, the inspector, the bubble: what a user does)
    window.session.flush()
    qtbot.wait(50)
    open_and_settle(qtbot, window, corpus_path("07-flow-sequence", "trace.json"))
    assert first() is None, "the first run is still alive"


def test_a_closed_run_is_freed(qtbot, window):
    first = open_and_settle(qtbot, window, corpus_path("06-pause-resume", "events.ndjson"))
    window.close_run()
    qtbot.wait(50)
    assert first() is None


def test_the_parts_of_a_big_file_shown_while_it_was_read_are_freed(qtbot, window, monkeypatch):
    monkeypatch.setattr(prefixes, "MIN_BYTES", 0)
    monkeypatch.setattr(prefixes, "FIRST_EVENTS", 300)
    monkeypatch.setattr(prefixes, "GROWTH", 2)
    monkeypatch.setattr(prefixes, "LAST_FRACTION", 0.95)
    monkeypatch.setattr(loader_module, "PREFIX_SETTLE_MS", 10)
    parts: list = []
    window.loader.prefix.connect(lambda run: parts.append(weakref.ref(run)))
    whole = open_and_settle(qtbot, window, corpus_path("15-large-run", "events.ndjson"))
    assert len(parts) >= 2 and whole() is window.session.run
    qtbot.wait(100)
    assert [part() for part in parts] == [None] * len(parts)
