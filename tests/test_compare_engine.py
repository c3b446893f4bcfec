"""File ▸ Compare with… asks the engine holding run A for the comparison ("compare_with", engine/service.py): the
engine reads run B itself and sends what the compare window shows (core/views/compare_answer.py), never a run's
events; the window never unpacks its copies for it. A newer comparison supersedes an older one, and a window closed
while the engine compares gets no answer. (pytest-qt, real windows; through the real engine process where named,
requests held at their first breathing point with engine_link.HOLD_REQUESTS.)"""

from __future__ import annotations

import pickle
import threading

import pytest
from PySide6.QtWidgets import QApplication, QFileDialog

from afp_desktop.app.compare import compare_window as compare_module
from afp_desktop.app.compare.compare_window import CompareWindow
from afp_desktop.app.loading import engine_link, left_out
from afp_desktop.app.loading.engine_requests import EngineRequests
from afp_desktop.core.views import compare_answer
from afp_desktop.core.views.compare import compare_runs
from afp_desktop.core.views.compare_answer import shown_values
from tests.compare_util import REACT, open_corpus
from tests.corpus_util import corpus_path
from tests.inspector_reading import inspector_answered
from tests.test_engine_process import LOAD_TIMEOUT

PAUSE = "06-pause-resume"
THROWS = "12-tool-throws"


def _open(qtbot, window, scenario: str, monkeypatch):
    """Open the corpus file of `scenario` in the main window; then none of its own requests is under way (what the
    loader left out is not asked within the test)."""
    monkeypatch.setattr(left_out, "START_AFTER_MS", 60_000)
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT) as loaded:
        window.open_file(str(corpus_path(scenario, "trace.json")))
    run = loaded.args[0]
    assert window.session.run is run
    inspector_answered(qtbot, window)
    assert not window.engine_requests.pending
    return run


def _compare_with(window, monkeypatch, scenario: str) -> CompareWindow:
    """File ▸ Compare with… the corpus file of `scenario`: the compare window it opens."""
    other = str(corpus_path(scenario, "trace.json"))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (other, "")))
    window.action("compare").trigger()
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, CompareWindow) and w.isVisible())


def _compared(qtbot, compare: CompareWindow) -> None:
    """Until the comparison is shown (or the window says it could not compare: then fail with its words)."""
    qtbot.waitUntil(lambda: compare.comparison is not None or "Could not" in compare.totals_label.text(),
                    timeout=LOAD_TIMEOUT)
    assert compare.comparison is not None, compare.totals_label.text()


def _asked_kinds(monkeypatch) -> list[str]:
    kinds: list[str] = []
    request = EngineRequests.request

    def recording(self, tag, kind, args, on_answer, on_failed):
        kinds.append(kind)
        return request(self, tag, kind, args, on_answer, on_failed)

    monkeypatch.setattr(EngineRequests, "request", recording)
    return kinds


def _same_as_the_core(shown, a: str, b: str) -> None:
    """The comparison shown is compare_runs' of the two corpus runs opened with the core directly."""
    expected = compare_runs(open_corpus(a), open_corpus(b))
    assert shown.rows == expected.rows and shown.partner_a == expected.partner_a
    assert shown.partner_b == expected.partner_b
    assert shown.totals() == expected.totals() and shown.to_json() == expected.to_json()


@pytest.fixture
def closed_afterwards():
    """The compare windows a test opened are closed at its end (their loads and requests stopped)."""
    yield
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, CompareWindow) and widget.isVisible():
            widget.close()


def test_comparing_asks_the_engine_and_never_unpacks_a_copy_in_the_compare_window(qtbot, window, monkeypatch,
                                                                                  closed_afterwards):
    _open(qtbot, window, REACT, monkeypatch)

    def unpacked(_run):
        raise AssertionError("the compare window unpacked a run's copy")

    monkeypatch.setattr(compare_module, "whole_run", unpacked, raising=False)
    kinds = _asked_kinds(monkeypatch)
    threads: list[threading.Thread] = []
    real = compare_answer.compare_runs
    monkeypatch.setattr(compare_answer, "compare_runs",
                        lambda a, b: (threads.append(threading.current_thread()), real(a, b))[1])
    compare = _compare_with(window, monkeypatch, THROWS)
    _compared(qtbot, compare)
    assert kinds == ["compare_with"]
    assert threads and threading.main_thread() not in threads
    assert compare.pane_a.session.run is window.session.run
    _same_as_the_core(compare.comparison, REACT, THROWS)
    assert compare.merged_canvas.graph_layout is not None
    assert len(compare.merged_canvas.graph_layout.nodes) == len(compare.comparison.rows)


def test_through_the_engine_process_the_comparison_is_the_cores(qtbot, engine_window, monkeypatch,
                                                                closed_afterwards):
    from afp_desktop.core.views.window_copy import Packed

    window = engine_window
    _open(qtbot, window, REACT, monkeypatch)

    def unpacked(_packed):
        raise AssertionError("a run's copy was unpacked in the window's process")

    monkeypatch.setattr(Packed, "unpacked", unpacked)
    kinds = _asked_kinds(monkeypatch)
    compare = _compare_with(window, monkeypatch, PAUSE)
    _compared(qtbot, compare)
    assert "compare_with" in kinds
    _same_as_the_core(compare.comparison, REACT, PAUSE)
    totals = compare.comparison.totals()
    assert f"{totals['aligned']:,} aligned" in compare.totals_label.text()
    assert compare.pane_b.session.run.path == str(corpus_path(PAUSE, "trace.json"))


def test_the_answer_holds_no_run_and_only_the_values_shown():
    a, b = open_corpus("15-large-run"), open_corpus("15-large-run", "trace.redacted.json")
    answer = compare_answer.compare_answer(a, b)
    data = pickle.dumps(answer, protocol=5)
    assert b"LazyJSON" not in data and b"PackedBytes" not in data and b"EventsInTheEngine" not in data
    assert b"nodes_a" not in data  # (the steps are the window's: joined there)
    comparison = compare_runs(a, b)
    assert (answer.values_a, answer.values_b) == shown_values(comparison)
    joined = answer.joined(a.stepgraph, b.stepgraph)
    assert joined.to_json() == comparison.to_json()
    for row in comparison.rows_with("same"):
        assert set(answer.values_a[row.a]) <= {"tokens", "durationMs", "error"}
    with pytest.raises(ValueError, match="changed since it was opened"):
        answer.joined(open_corpus(REACT).stepgraph, b.stepgraph)


def test_a_newer_comparison_supersedes_one_the_engine_is_making(qtbot, engine_window, monkeypatch,
                                                                closed_afterwards):
    window = engine_window
    run_a = _open(qtbot, window, REACT, monkeypatch)
    replies: list[str] = []
    window.loader.loads.replied.connect(lambda _id, kind, _value: replies.append(kind))
    compare = CompareWindow()
    qtbot.addWidget(compare)
    compare.show()
    shown: list = []
    set_runs = compare.set_runs
    monkeypatch.setattr(compare, "set_runs", lambda a, b, c=None: (shown.append(b.path), set_runs(a, b, c)))
    monkeypatch.setattr(engine_link, "HOLD_REQUESTS", True)
    with qtbot.waitSignal(window.loader.loads.held, timeout=LOAD_TIMEOUT):  # the first, held in the engine
        compare.open_paths(run_a.path, str(corpus_path(PAUSE, "trace.json")), run_a=run_a,
                           loads_a=window.loader.loads)
    assert compare.totals_label.text() == "Comparing…"  # (the comparison is the request held)
    monkeypatch.setattr(engine_link, "HOLD_REQUESTS", False)
    compare.open_paths(run_a.path, str(corpus_path(THROWS, "trace.json")), run_a=run_a, loads_a=window.loader.loads)
    assert compare.totals_label.text() == "Loading…"
    qtbot.waitUntil(lambda: compare.totals_label.text() == "Comparing…", timeout=LOAD_TIMEOUT)  # the second, queued
    window.loader.loads.go_on()
    qtbot.waitUntil(lambda: compare.comparison is not None, timeout=LOAD_TIMEOUT)
    qtbot.waitUntil(lambda: len(replies) == 2, timeout=LOAD_TIMEOUT)
    assert replies == ["superseded", "answer"]  # (the first stopped at its next breathing point)
    assert shown == [str(corpus_path(THROWS, "trace.json"))]
    _same_as_the_core(compare.comparison, REACT, THROWS)


def test_closing_the_window_while_the_engine_compares_drops_the_answer(qtbot, engine_window, monkeypatch):
    window = engine_window
    _open(qtbot, window, REACT, monkeypatch)
    replies: list[str] = []
    window.loader.loads.replied.connect(lambda _id, kind, _value: replies.append(kind))
    monkeypatch.setattr(engine_link, "HOLD_REQUESTS", True)
    with qtbot.waitSignal(window.loader.loads.held, timeout=LOAD_TIMEOUT):
        compare = _compare_with(window, monkeypatch, THROWS)
    monkeypatch.setattr(engine_link, "HOLD_REQUESTS", False)
    assert compare.totals_label.text() == "Comparing…"  # (the comparison is the request held)
    gone: list = []
    compare.destroyed.connect(lambda *_: gone.append(True))
    compare.close()  # (deleted on close: an answer reaching it would raise)
    qtbot.waitUntil(lambda: bool(gone), timeout=LOAD_TIMEOUT)
    window.loader.loads.go_on()
    qtbot.waitUntil(lambda: bool(replies), timeout=LOAD_TIMEOUT)
    answered: list = []  # the engine, still holding run A, answers the main window's next request
    window.engine_requests.request("test", "left_out", {}, answered.append, answered.append)
    qtbot.waitUntil(lambda: bool(answered), timeout=LOAD_TIMEOUT)
    assert isinstance(answered[0], dict) and window.isVisible()
