"""A big Trace's payloads (kept as bytes) are checked beside the window once its run is shown
(app/payload_check.py): the loader leaves the check out, the banner says what it finds when it is done, and a
check of a run no longer shown stops and never speaks of the run shown now."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QObject
from shiboken6 import isValid

from afp_desktop.app.loader import load_run
from afp_desktop.app.payload_check import PayloadCheck
from afp_desktop.core.formats import lazy_trace
from afp_desktop.core.jsonx import lazyjson
from tests.corpus_util import read_bytes

SCENARIO = "02-react-two-tools"
LOAD_TIMEOUT = 30_000


@pytest.fixture
def lazy(monkeypatch):
    """Small Traces read as a large one is: payloads kept as bytes, checked after loading."""
    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)


def trace_file(tmp_path, name: str, damaged: bool):
    data = read_bytes(SCENARIO, "trace.json")
    if damaged:
        data = data.replace(b'"payload": {', b'"payload": {"oops": nul,', 1)
    path = tmp_path / name
    path.write_bytes(data)
    return path


def open_and_wait(qtbot, window, path) -> None:
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(str(path))
    window.session.flush()


def test_the_loader_leaves_the_check_out_and_the_command_line_makes_it(lazy, tmp_path):
    path = trace_file(tmp_path, "broken.json", damaged=True)
    run = load_run(str(path))
    assert not run.payloads_checked
    assert not any(n.code == "unreadable-payloads" for n in run.all_notices(check_payloads=False))
    assert not run.payloads_checked  # (asking without checking checks nothing)
    assert any(n.code == "unreadable-payloads" for n in run.all_notices())  # (the command line's way)
    assert run.payloads_checked


def test_the_window_shows_the_run_then_checks_its_payloads(qtbot, window, lazy, tmp_path):
    open_and_wait(qtbot, window, trace_file(tmp_path, "clean.json", damaged=False))
    run = window.session.run
    assert window.payload_check.thread is None, "(begun after the run's first paints, not in the same turn)"
    qtbot.waitUntil(lambda: run.payloads_checked, timeout=10_000)
    assert run.payload_problems == []
    assert not any("not valid JSON" in text for text in window.banner.texts)


def test_a_check_of_a_run_no_longer_shown_stops_and_is_not_said_of_the_next(qtbot, window, lazy, tmp_path,
                                                                            monkeypatch):
    started, proceed = threading.Event(), threading.Event()
    usual = lazyjson.LazyJSON.problem

    def held_problem(self):  # the first run's check is held until the next file is shown
        started.set()
        proceed.wait(10)
        return usual(self)

    monkeypatch.setattr(lazyjson.LazyJSON, "problem", held_problem)
    reported: list = []
    window.payload_check.checked.connect(reported.append)
    open_and_wait(qtbot, window, trace_file(tmp_path, "broken.json", damaged=True))
    broken_run = window.session.run
    qtbot.waitUntil(started.is_set, timeout=10_000)  # (the check begins once the first paints are done)
    check = window.payload_check.thread
    open_and_wait(qtbot, window, trace_file(tmp_path, "clean.json", damaged=False))
    proceed.set()
    check.join(10)
    assert not check.is_alive()  # (stopped at its next breathing point, or done and silent)
    clean_run = window.session.run
    qtbot.waitUntil(lambda: reported == [clean_run], timeout=10_000)
    qtbot.wait(100)
    assert broken_run not in reported and reported == [clean_run]
    assert not any("not valid JSON" in text for text in window.banner.texts)


def test_a_check_that_ends_after_its_window_is_gone_says_nothing_and_raises_nothing(qtbot, lazy, tmp_path,
                                                                                     monkeypatch):
    """What CI's warnings showed: a check ending after the window was closed and deleted raised "Signal source
    has been deleted" in its thread."""
    started, proceed = threading.Event(), threading.Event()
    usual = lazyjson.LazyJSON.problem

    def held_problem(self):  # the check is held until its owner is deleted
        started.set()
        proceed.wait(10)
        return usual(self)

    monkeypatch.setattr(lazyjson.LazyJSON, "problem", held_problem)
    raised: list = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    owner = QObject()
    check = PayloadCheck(owner)
    check.start(load_run(str(trace_file(tmp_path, "broken.json", damaged=True))))
    qtbot.waitUntil(started.is_set, timeout=10_000)  # (the check begins once the first paints are done)
    thread = check.thread
    del check
    owner.deleteLater()  # (the window closed: it and the check are deleted, the thread goes on)
    qtbot.waitUntil(lambda: not isValid(owner), timeout=5_000)
    proceed.set()
    thread.join(10)
    assert not thread.is_alive() and raised == []
