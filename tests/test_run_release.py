"""A run the window no longer shows is freed: the loader freezes what it built out of the garbage collector's
way (engine/collector.py), so a cycle through a run (its replay facts, its bubble model) kept every run ever opened —
and every part of a big file shown while it was read — alive for as long as the window was open. A run no longer
shown is freed beside the window, a piece at a time (app/loading/run_disposal.py): freeing the big corpus recording in
one go froze the window ~115 ms."""

from __future__ import annotations

import threading
import weakref

import pytest

from afp_desktop.app.loading import loader as loader_module
from afp_desktop.core.formats import open_run, prefixes
from afp_desktop.core.views.window_copy import whole_run
from tests.corpus_util import corpus_path
from tests.paint_util import window_painted

LOAD_TIMEOUT = 60_000
FREED_TIMEOUT = 10_000


def freed_where(value) -> list[str]:
    """Fills with the name of the thread `value` is freed on."""
    where: list[str] = []
    weakref.finalize(value, lambda: where.append(threading.current_thread().name))
    return where


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
    where = freed_where(first())
    window.session.move_to_stop(2)  # (a moment, the inspector, the bubble: what a user does)
    window.session.flush()
    window_painted(qtbot, window)
    second = open_and_settle(qtbot, window, corpus_path("07-flow-sequence", "trace.json"))
    qtbot.waitUntil(lambda: first() is None, timeout=FREED_TIMEOUT)
    assert where == ["afp-free-run"], "not freed beside the window"
    assert second() is window.session.run and len(second().axis) > 0


@pytest.mark.parametrize("scenario, name", [("06-pause-resume", "events.ndjson"),
                                            ("02-react-two-tools", "trace.json")])  # (framework steps hidden)
def test_a_closed_run_is_freed(qtbot, window, scenario, name):
    first = open_and_settle(qtbot, window, corpus_path(scenario, name))
    where = freed_where(first())
    window.close_run()
    qtbot.waitUntil(lambda: first() is None, timeout=FREED_TIMEOUT)
    assert where == ["afp-free-run"]


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


def test_a_replaced_run_still_held_elsewhere_is_left_whole(qtbot, window):
    """A run someone still holds when it is handed over (a panel not yet switched, a compare) is looked at again
    later, and at last only let go of: nothing in it changes."""
    path = corpus_path("02-react-two-tools", "recording.json")
    disposal = window.session.disposal
    # private: the disposal's pace, quicker for the test
    disposal._timer.setInterval(20)
    held = open_and_settle(qtbot, window, path)()
    fresh = open_run(path)
    open_and_settle(qtbot, window, corpus_path("07-flow-sequence", "trace.json"))
    # private: the disposal's state: nothing held, the run being freed
    qtbot.waitUntil(lambda: not disposal._held and disposal.freeing is not None
                    and not disposal.freeing.is_alive(), timeout=FREED_TIMEOUT)
    assert whole_run(held).step_fold.graph() == fresh.step_fold.graph()
    assert list(held.axis.entries) == list(fresh.axis.entries)
    assert list(held.axis.commit_before) == fresh.axis.commit_before
    assert held.stops == fresh.stops
    assert whole_run(held).commit_log == fresh.commit_log and whole_run(held).typed_events == fresh.typed_events


def test_what_a_closed_run_freed_is_given_back_to_the_system(qtbot, window, monkeypatch):
    """glibc keeps freed memory for its own reuse: once a run is taken apart, the freeing thread asks it to give
    that back (the window held 608 MB after closing the 448 MB recording; 471 MB now)."""
    from afp_desktop.app.loading import run_disposal

    asked: list[str] = []
    monkeypatch.setattr(run_disposal, "give_memory_back", lambda: asked.append(threading.current_thread().name))
    first = open_and_settle(qtbot, window, corpus_path("06-pause-resume", "events.ndjson"))
    window.close_run()
    qtbot.waitUntil(lambda: first() is None and bool(asked), timeout=FREED_TIMEOUT)
    assert set(asked) == {"afp-free-run"}  # (after each batch the thread freed)


def test_giving_memory_back_asks_the_c_library_where_it_can():
    import sys

    from afp_desktop.app.loading import run_disposal

    run_disposal.give_memory_back()
    # private: whether the C library's trim was found
    assert bool(run_disposal._trim) == sys.platform.startswith("linux")  # (glibc on the Linux this is built on)


def test_what_a_replaced_run_freed_is_left_for_the_next_run(qtbot, window, monkeypatch):
    """A run replaced by another: the new one reuses what the old one freed, and asking glibc to give it back
    meanwhile held up the window (its allocations wait for the trim)."""
    from afp_desktop.app.loading import run_disposal

    asked: list[str] = []
    monkeypatch.setattr(run_disposal, "give_memory_back", lambda: asked.append(threading.current_thread().name))
    first = open_and_settle(qtbot, window, corpus_path("06-pause-resume", "events.ndjson"))
    open_and_settle(qtbot, window, corpus_path("07-flow-sequence", "trace.json"))
    qtbot.waitUntil(lambda: first() is None, timeout=FREED_TIMEOUT)
    disposal = window.session.disposal
    # private: nothing left to hand over, and every thread that freed a run has ended (a trim comes at its end)
    qtbot.waitUntil(lambda: not disposal._held and not any(thread.name == "afp-free-run"
                                                          for thread in threading.enumerate()), timeout=FREED_TIMEOUT)
    assert asked == []


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
