"""A run the window no longer shows is freed: the window receives runs with the garbage collector held off and
freezes them out of its way (engine/collector.py), so a cycle through a run (its replay facts, its bubble model)
would keep every run ever opened — and every part of a big file shown while it was read — alive for as long as the
window was open. The window holds a run's copy (core/views/window_copy.py), which has no cycle and no events: it is
freed as soon as nothing shown holds it. What a closed run freed is given back to the system
(app/loading/memory_back.py)."""

from __future__ import annotations

import threading
import weakref

import pytest

from afp_desktop.app.loading import loader as loader_module
from afp_desktop.core.formats import prefixes
from tests.corpus_util import corpus_path, read_bytes
from tests.paint_util import window_painted

LOAD_TIMEOUT = 60_000
FREED_TIMEOUT = 10_000


def open_and_settle(qtbot, window, path) -> weakref.ref:
    got: list = []
    window.loader.loaded.connect(got.append)
    window.open_file(path)
    qtbot.waitUntil(lambda: bool(got), timeout=LOAD_TIMEOUT)
    window.loader.loaded.disconnect(got.append)
    ref = weakref.ref(got.pop())
    qtbot.waitUntil(lambda: window.follow.growth.idle and not window.canvas.building, timeout=LOAD_TIMEOUT)
    window.session.flush()  # (its first moment published and settled)
    scheduler = window.session.scheduler
    qtbot.waitUntil(lambda: not len(scheduler.queue) and not scheduler.settle_waiting, timeout=LOAD_TIMEOUT)
    window_painted(qtbot, window)
    return ref


@pytest.mark.parametrize("name", ["trace.json", "events.ndjson", "recording.json"])
def test_a_run_replaced_by_another_is_freed(qtbot, window, name):
    first = open_and_settle(qtbot, window, corpus_path("02-react-two-tools", name))
    assert first() is window.session.run
    window.session.move_to_stop(2)  # (a moment, the inspector, the bubble: what a user does)
    window.session.flush()
    window_painted(qtbot, window)
    second = open_and_settle(qtbot, window, corpus_path("07-flow-sequence", "trace.json"))
    qtbot.waitUntil(lambda: first() is None, timeout=FREED_TIMEOUT)
    assert second() is window.session.run and len(second().axis) > 0


@pytest.mark.parametrize("scenario, name", [("06-pause-resume", "events.ndjson"),
                                            ("02-react-two-tools", "trace.json")])  # (framework steps hidden)
def test_a_closed_run_is_freed(qtbot, window, scenario, name):
    first = open_and_settle(qtbot, window, corpus_path(scenario, name))
    window.close_run()
    qtbot.waitUntil(lambda: first() is None, timeout=FREED_TIMEOUT)


def show_in_parts(monkeypatch) -> None:
    """Big-file handling for a corpus file: its first events shown first, then the run growing."""
    monkeypatch.setattr(prefixes, "MIN_BYTES", 0)
    monkeypatch.setattr(prefixes, "FIRST_EVENTS", 300)
    monkeypatch.setattr(prefixes, "GROWTH", 2)
    monkeypatch.setattr(prefixes, "LAST_FRACTION", 0.95)
    monkeypatch.setattr(prefixes, "MIN_REST_S", 0.0)  # every part, however soon the rest is read
    monkeypatch.setattr(loader_module, "PREFIX_SETTLE_MS", 10)


def test_a_closed_run_that_was_shown_in_parts_is_freed(qtbot, window, monkeypatch):
    """What grew last was kept for the graph (app/loading/growth.py) until another run was opened, and the hidden
    framework steps' description (app/features/framework_toggle.py) held the run: closing it freed nothing."""
    show_in_parts(monkeypatch)
    whole = open_and_settle(qtbot, window, corpus_path("15-large-run", "trace.json"))
    assert window.folding.hide_framework
    window.close_run()
    qtbot.waitUntil(lambda: whole() is None, timeout=FREED_TIMEOUT)


def test_the_parts_of_a_big_file_shown_while_it_was_read_are_freed(qtbot, window, monkeypatch):
    show_in_parts(monkeypatch)
    parts: list = []
    window.loader.prefix.connect(lambda run: parts.append(weakref.ref(run)))
    whole = open_and_settle(qtbot, window, corpus_path("15-large-run", "events.ndjson"))
    assert len(parts) >= 2 and whole() is window.session.run
    qtbot.waitUntil(lambda: [part() for part in parts] == [None] * len(parts), timeout=FREED_TIMEOUT)


def test_the_copies_of_a_followed_run_are_freed_as_it_grows(qtbot, window, tmp_path):
    """Each growth of a followed file is the grown run's copy; the copy shown before it is let go of."""
    lines = [line + b"\n" for line in read_bytes("04-tool-progress", "events.ndjson").split(b"\n") if line.strip()]
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:25]))
    window.open_file(str(path), follow=True)
    qtbot.waitUntil(lambda: window.follow.active and len(window.session.run.typed_events) == 25, timeout=LOAD_TIMEOUT)
    shown: list = []
    window.follow.published.connect(lambda run: shown.append(weakref.ref(run)))
    for end in (35, 45, len(lines)):
        with open(path, "ab") as out:
            out.write(b"".join(lines[end - 10 if end != len(lines) else 45:end]))
        qtbot.waitUntil(lambda end=end: len(window.session.run.typed_events) == end, timeout=LOAD_TIMEOUT)
    assert len(shown) >= 3
    window.follow.growth.catch_up(now=True)
    qtbot.waitUntil(lambda: [copy() for copy in shown[:-1]] == [None] * (len(shown) - 1), timeout=FREED_TIMEOUT)
    assert shown[-1]() is window.session.run


def test_what_a_closed_run_freed_is_given_back_to_the_system(qtbot, window, monkeypatch):
    """glibc keeps freed memory for its own reuse: once a run is closed, a thread asks it to give that back."""
    from afp_desktop.app.loading import memory_back

    asked: list[str] = []
    monkeypatch.setattr(memory_back, "give_memory_back", lambda: asked.append(threading.current_thread().name))
    first = open_and_settle(qtbot, window, corpus_path("06-pause-resume", "events.ndjson"))
    window.close_run()
    qtbot.waitUntil(lambda: first() is None and bool(asked), timeout=FREED_TIMEOUT)
    assert asked == ["afp-give-back"]


def test_giving_memory_back_asks_the_c_library_where_it_can():
    import sys

    from afp_desktop.app.loading import memory_back

    memory_back.give_memory_back()
    # private: whether the C library's trim was found
    assert bool(memory_back._trim) == sys.platform.startswith("linux")  # (glibc on the Linux this is built on)


def test_what_a_replaced_run_freed_is_left_for_the_next_run(qtbot, window, monkeypatch):
    """A run replaced by another: the new one reuses what the old one freed, and asking glibc to give it back
    meanwhile held up the window (its allocations wait for the trim)."""
    from afp_desktop.app.loading import memory_back

    asked: list[str] = []
    monkeypatch.setattr(memory_back, "give_memory_back", lambda: asked.append(threading.current_thread().name))
    first = open_and_settle(qtbot, window, corpus_path("06-pause-resume", "events.ndjson"))
    open_and_settle(qtbot, window, corpus_path("07-flow-sequence", "trace.json"))
    qtbot.waitUntil(lambda: first() is None, timeout=FREED_TIMEOUT)
    assert asked == [] and window.session.memory_given_back is None


def test_a_run_forgotten_while_a_request_about_it_runs_is_let_go_of_once_it_ends(qtbot, monkeypatch):
    """Requests answered in the window's process (in_process.ThreadRequests) adopt the run they are about; a run
    closed while one ran stayed with their engine until the next request, about another run, came."""
    from afp_desktop.app.loading.in_process import ThreadRequests
    from tests.long_job import breathe_until_released

    class Run:  # (stands for a run: only its lifetime matters)
        domain_events: list = []

    started, release = threading.Event(), threading.Event()
    requests = ThreadRequests()
    monkeypatch.setattr(requests.engine, "answer", lambda _kind, _args: breathe_until_released(started, release))
    run = Run()
    gone = weakref.ref(run)
    replies: list[str] = []
    requests.replied.connect(lambda _id, kind, _value: replies.append(kind))
    requests.request("find", "find", {}, run)
    del run
    qtbot.waitUntil(started.is_set, timeout=FREED_TIMEOUT)
    requests.forget()
    qtbot.waitUntil(lambda: replies == ["superseded"], timeout=FREED_TIMEOUT)
    qtbot.waitUntil(lambda: gone() is None, timeout=FREED_TIMEOUT)
    release.set()
    qtbot.waitUntil(requests.idle, timeout=FREED_TIMEOUT)  # (deleted with a thread still running, it takes the test down)
