"""A big Trace's payloads (kept as bytes) are checked by the engine once its run is shown (app/loading/left_out.py,
the "left_out" request): the loader leaves the check out, the banner says what it finds when it is done, and a check
of a run no longer shown never speaks of the run shown now."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QCoreApplication

from afp_desktop.engine.service import load_run
from afp_desktop.core.formats import lazy_trace
from afp_desktop.core.jsonx import lazyjson
from tests.corpus_util import corpus_path, read_bytes

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
    assert window.left_out.asked_about is None, "(asked after the run's first paints, not in the same turn)"
    qtbot.waitUntil(lambda: run.payloads_checked, timeout=10_000)
    assert run.payload_problems == []
    assert not any("not valid JSON" in text for text in window.banner.texts)


def test_a_check_of_a_run_no_longer_shown_is_not_said_of_the_next(qtbot, window, lazy, tmp_path, monkeypatch):
    started, proceed = threading.Event(), threading.Event()
    checked_on: list = []
    usual = lazyjson.LazyJSON.problem

    def held_problem(self):  # the first run's check is held until the next file is shown
        checked_on.append(threading.current_thread() is threading.main_thread())
        started.set()
        proceed.wait(10)
        return usual(self)

    monkeypatch.setattr(lazyjson.LazyJSON, "problem", held_problem)
    reported: list = []
    window.left_out.checked.connect(reported.append)
    open_and_wait(qtbot, window, trace_file(tmp_path, "broken.json", damaged=True))
    broken_run = window.session.run
    qtbot.waitUntil(started.is_set, timeout=10_000)  # (asked once the first paints are done)
    open_and_wait(qtbot, window, trace_file(tmp_path, "clean.json", damaged=False))
    proceed.set()
    clean_run = window.session.run
    qtbot.waitUntil(lambda: reported == [clean_run], timeout=10_000)
    qtbot.waitUntil(window.engine_requests.threads.idle, timeout=10_000)
    QCoreApplication.sendPostedEvents()  # the first check has ended: what it sent, if anything, is here now
    assert broken_run not in reported and reported == [clean_run]
    assert not any("not valid JSON" in text for text in window.banner.texts)
    assert checked_on and not any(checked_on)  # (the engine checked: never on the window's thread)


def test_a_damaged_payload_found_by_the_engine_is_said_in_the_banner(qtbot, window, lazy, tmp_path):
    open_and_wait(qtbot, window, trace_file(tmp_path, "broken.json", damaged=True))
    run = window.session.run
    qtbot.waitUntil(lambda: run.payloads_checked, timeout=10_000)
    assert run.payload_problems
    qtbot.waitUntil(lambda: any("not valid JSON" in text for text in window.banner.texts), timeout=10_000)


# -- a folded graph's whole layout ---------------------------------------------------------------------------

LARGE = "15-large-run"


def test_a_graph_shown_folded_is_loaded_without_its_whole_layout():
    path = str(corpus_path(LARGE, "trace.json"))
    steps = len(load_run(path).stepgraph["nodes"])  # (1,056: folded by a window that folds above 1,000)
    folded = load_run(path, fold_above=steps - 1)
    assert folded.views.folded_graph is not None and folded.views.graph_layout is None
    for unfolded in (load_run(path), load_run(path, fold_above=steps)):  # never folded, or not this graph
        assert unfolded.views.graph_layout is not None


def open_folded(qtbot, window):
    """The large run opened by a window whose user asked for folding: its loader leaves the whole layout out."""
    window.folding.set_enabled(True)
    open_and_wait(qtbot, window, corpus_path(LARGE, "trace.json"))
    run = window.session.run
    assert run.views.graph_layout is None
    assert window.canvas.graph_layout is run.views.folded_graph.layout  # (drawn: the folded graph's own layout)
    return run


def test_unfolded_before_its_whole_layout_is_made_the_graph_is_laid_out_then(qtbot, window):
    run = open_folded(qtbot, window)
    window.action("fold").trigger()  # (at once: the engine is asked 400 ms after the run is shown)
    assert window.left_out.asked_about is None
    assert window.canvas.graph_layout is run.views.graph_layout
    assert len(window.canvas.graph_layout.nodes) == len(run.stepgraph["nodes"])


def test_a_folded_graphs_whole_layout_is_made_only_when_it_is_unfolded(qtbot, window, lazy, monkeypatch):
    """Nothing lays the whole graph out beside the window while it is shown folded (a thread of the window's process
    doing so held Python's lock against the window); unfolded, the window lays it out then."""
    from afp_desktop.core.views import prepared_views

    steps = len(load_run(str(corpus_path(LARGE, "trace.json"))).stepgraph["nodes"])
    made: list = []  # the whole graph's layouts made (the folded graph's own is made with the run)
    usual = prepared_views.layout_step_graph
    monkeypatch.setattr(prepared_views, "layout_step_graph",
                        lambda graph: made.extend([1] if len(graph["nodes"]) == steps else []) or usual(graph))
    with qtbot.waitSignal(window.left_out.checked, timeout=30_000):  # (what was left out is known)
        run = open_folded(qtbot, window)
    assert made == [] and run.views.graph_layout is None
    window.action("fold").trigger()  # View ▸ Fold similar iterations, off
    assert made == [1] and window.canvas.graph_layout is run.views.graph_layout
    assert len(run.views.graph_layout.nodes) == len(run.stepgraph["nodes"])
