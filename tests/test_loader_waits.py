"""The loader thread's waits (app/loader.py): a part handed to the window is waited for at the next breathing
point where Python runs, not while C that lets go of Python runs beside the window's work."""

from __future__ import annotations

import threading
import time

from afp_desktop.app import loader as loader_module
from afp_desktop.app.loader import _LoadThread, beside_the_window
from afp_desktop.core.breathing import breathe, letting_go


def test_beside_the_window_calls_before_python_only_outside_letting_go(qapp):
    calls: list[str] = []
    with beside_the_window(before_python=lambda: calls.append("python")):
        with letting_go():
            breathe()
            breathe()
        assert calls == []
        breathe()
    assert calls == ["python"]


def test_a_part_handed_over_is_waited_for_at_the_next_python_breath_not_at_once(qapp, monkeypatch):
    monkeypatch.setattr(loader_module, "PREFIX_WAIT_S", 5.0)
    thread = _LoadThread("nowhere")
    handed: list = []
    thread.prefix.connect(handed.append)
    started = time.monotonic()
    thread._show_prefix("a part")
    assert time.monotonic() - started < 1.0, "handing it over does not wait"
    with beside_the_window(before_python=thread._wait_for_prefix):
        with letting_go():
            breathe()
        assert time.monotonic() - started < 1.0, "nor does C that lets go of Python"
        threading.Timer(0.3, thread.shown.set).start()
        breathe()
        waited = time.monotonic() - started
    assert 0.25 <= waited < 4.0, "the first Python breath waits until the window has shown it"
    again = time.monotonic()
    thread._wait_for_prefix()
    assert time.monotonic() - again < 0.1, "waited for once"
