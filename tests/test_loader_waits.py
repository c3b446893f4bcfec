"""The loader thread's waits (app/loading/loader.py): a part handed to the window is waited for at the next breathing
point where Python runs, not while C that lets go of Python runs beside the window's work."""

from __future__ import annotations

import threading
import time

from afp_desktop.app.loading import loader as loader_module
from afp_desktop.app.loading.loader import _LoadThread, beside_the_window
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


def test_a_load_that_fails_right_after_a_part_waits_for_it_to_be_shown_first(qtbot, monkeypatch):
    """A file broken after its head fails with no breath between the part handed over and the failure: the part is
    still shown before the failure is told (the window shows it, then takes it away and says why)."""
    monkeypatch.setattr(loader_module, "PREFIX_WAIT_S", 5.0)
    order: list[str] = []

    def failing_load(path, progress, cancelled, conversation, show_prefix, fold_above):
        show_prefix("a part")
        raise loader_module.LoadError(path, "broken")

    monkeypatch.setattr(loader_module, "load_run", failing_load)
    thread = _LoadThread("broken.json")
    thread.prefix.connect(lambda run: (order.append("part"), threading.Timer(0.3, thread.shown.set).start()))
    thread.failed.connect(lambda message: order.append("failed"))
    started = time.monotonic()
    with qtbot.waitSignal(thread.failed, timeout=10_000):
        thread.start()
    thread.wait(5_000)
    assert order == ["part", "failed"] and time.monotonic() - started >= 0.25
