"""The garbage collector runs on the window's thread only: a collection on another thread may free a Qt object's
wrapper there, and Qt's destructor taking its locks off the window's thread while the window holds Python's lock
deadlocks both (a test run hung so: a request thread's collection freed a menu while the window painted). Threads
of the window's process that compute hold the collector off while they work, and leave nothing frozen."""

from __future__ import annotations

import gc

from afp_desktop.app.loading.in_process import ThreadRequests
from afp_desktop.engine.collector import collector_paused


def test_a_request_answered_in_the_windows_process_runs_with_the_collector_off(qtbot, monkeypatch):
    requests = ThreadRequests()
    seen: list[bool] = []
    monkeypatch.setattr(requests.engine, "adopt", lambda _run: None)
    monkeypatch.setattr(requests.engine, "answer", lambda _kind, _args: seen.append(gc.isenabled()) or "answer")
    replies: list[str] = []
    requests.replied.connect(lambda _id, kind, _value: replies.append(kind))
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    requests.request("find", "find", {}, object())
    qtbot.waitUntil(lambda: replies == ["answer"], timeout=10_000)
    qtbot.waitUntil(requests.idle, timeout=10_000)
    assert seen == [False] and gc.isenabled() and gc.get_freeze_count() <= frozen  # (nothing frozen by it)


def test_a_pause_that_freezes_overlapping_one_that_does_not_freezes_once_at_the_end():
    frozen = gc.get_freeze_count()
    with collector_paused(freeze=False):
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled() and gc.get_freeze_count() == frozen
    assert gc.isenabled() and gc.get_freeze_count() > frozen  # (what was made meanwhile is frozen, once)
