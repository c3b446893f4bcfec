"""Find in run in the window (offscreen, pytest-qt): Ctrl+Shift+F, hits listed and highlighted, Enter/click/↑/↓
moving the one cursor and selecting the node, case and regex toggles, marks on the timeline and graph, the
index built off the UI thread, and a large run."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt, QThread, QTimer
from PySide6.QtGui import QColor, QFontMetricsF
from PySide6.QtWidgets import QApplication

from afp_desktop.app.panels import find_panel as find_module
from afp_desktop.app.panels.find_panel import HIGHLIGHT, HIT_ROLE
from afp_desktop.core.model.timeline import x_of_position
from tests.corpus_util import corpus_path
from tests.test_main_window import open_and_wait, window  # noqa: F401 — the window fixture

SEARCH_TIMEOUT = 60_000


def find(qtbot, window, query: str):  # noqa: F811
    """Ctrl+Shift+F, type the query, wait until the hits are listed."""
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    panel = window.panels["find"]
    assert QApplication.focusWidget() is panel.search_box
    panel.search_box.clear()
    qtbot.keyClicks(panel.search_box, query)
    qtbot.waitUntil(lambda: panel.search_box.text() == query
                    # private: the typing delay: a result shown before it ends is the last query's
                    and not panel._timer.isActive() and not panel.searching and panel.result is not None,
                    timeout=SEARCH_TIMEOUT)
    return panel


def hit_rows(panel):
    return [panel.model.index(r).data(HIT_ROLE) for r in range(panel.model.rowCount())]


def test_ctrl_shift_f_finds_a_tool_and_enter_goes_there(qtbot, window):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    assert not window.docks["find"].isVisible()
    panel = find(qtbot, window, "convert_units")
    assert window.docks["find"].isVisible()
    hits = hit_rows(panel)
    assert "tool name" in [h.where for h in hits]
    assert panel.count_label.text() == f"{len(hits)} matches"
    text = panel.model.index(0).data(Qt.ItemDataRole.DisplayRole)
    assert hits[0].stop_label in text and f"event {hits[0].position}" in text and hits[0].excerpt in text
    qtbot.keyClick(panel.search_box, Qt.Key.Key_Return)
    window.session.flush()
    assert window.session.position == hits[0].position
    assert window.session.selected == hits[0].node and window.canvas.selected == hits[0].node
    assert panel.list.currentIndex().row() == 0


def test_up_and_down_walk_the_hits_and_a_click_goes_to_one(qtbot, window):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "trace.json"))
    panel = find(qtbot, window, "Oslo")
    hits = hit_rows(panel)
    assert len(hits) > 3
    for expected in (0, 1, 2):
        qtbot.keyClick(panel.search_box, Qt.Key.Key_Down)
        window.session.flush()
        assert panel.list.currentIndex().row() == expected
        assert window.session.position == hits[expected].position
    qtbot.keyClick(panel.search_box, Qt.Key.Key_Up)
    window.session.flush()
    assert panel.list.currentIndex().row() == 1 and window.session.position == hits[1].position
    row = len(hits) - 2 if len(hits) < 8 else 5
    panel.list.scrollTo(panel.model.index(row))
    rect = panel.list.visualRect(panel.model.index(row))
    qtbot.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    window.session.flush()
    assert window.session.position == hits[row].position
    assert window.timeline.panel.slider.value() == hits[row].position  # the one cursor: the timeline follows
    # with the focus in the list, its own arrow keys walk the hits too
    qtbot.keyClick(panel.list, Qt.Key.Key_Down)
    window.session.flush()
    assert panel.list.currentIndex().row() == row + 1 and window.session.position == hits[row + 1].position


def test_the_match_is_highlighted_by_painting(qtbot, window):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("12-tool-throws", "events.ndjson"))
    panel = find(qtbot, window, "ECONNREFUSED")
    hit = hit_rows(panel)[0]
    rect = panel.list.visualRect(panel.model.index(0))
    image = panel.list.viewport().grab().toImage()
    amber = HIGHLIGHT["light"]
    columns = sorted({x for x in range(rect.left(), rect.right())
                      for y in range(rect.top(), rect.bottom()) if QColor(image.pixel(x, y)) == amber})
    assert columns, "the match has a highlight behind it"
    metrics = QFontMetricsF(panel.list.font())
    width = metrics.horizontalAdvance(hit.excerpt[hit.match[0]:hit.match[1]])
    assert abs((columns[-1] - columns[0] + 1) - (width + 2)) <= 3
    # nothing else in the row is highlighted: one span only
    assert columns == list(range(columns[0], columns[-1] + 1))


def test_case_and_regex_toggles(qtbot, window):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    panel = find(qtbot, window, "oslo")
    assert panel.model.rowCount() > 0  # case is ignored unless asked
    with qtbot.waitSignal(panel.searched):
        panel.case_button.click()
    assert panel.model.rowCount() == 0 and panel.count_label.text() == "No matches."
    with qtbot.waitSignal(panel.searched):
        panel.case_button.click()
    with qtbot.waitSignal(panel.searched):
        panel.regex_button.click()
    panel.search_box.setText(r"\d+°F")
    with qtbot.waitSignal(panel.searched):
        panel.search()
    hits = hit_rows(panel)
    assert hits and all(h.excerpt[h.match[0]:h.match[1]].endswith("°F") for h in hits)
    panel.search_box.setText("a(b")
    with qtbot.waitSignal(panel.searched):
        panel.search()
    assert panel.count_label.text().startswith("Cannot search: not a valid regular expression")
    assert panel.model.rowCount() == 0


def test_matches_are_marked_on_the_timeline_and_the_graph(qtbot, window):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "trace.json"))
    panel = find(qtbot, window, "Working on")
    result = panel.result
    ends = [s["axisEnd"] for s in window.session.stops]
    xs = window.timeline.panel.search_mark_xs
    assert sorted(xs) == sorted({x_of_position(ends, int(p)) for p in result.positions})
    assert window.canvas.art.search_marks == result.node_set() and result.node_set()
    window.docks["find"].close()  # closing the panel takes the marks away, opening it brings them back
    qtbot.waitUntil(lambda: not window.canvas.art.search_marks)
    assert window.timeline.panel.search_mark_xs == []
    window.docks["find"].show()
    qtbot.waitUntil(lambda: window.canvas.art.search_marks == result.node_set())
    panel.search_box.clear()
    with qtbot.waitSignal(panel.searched):
        panel.search()
    assert window.timeline.panel.search_mark_xs == [] and not window.canvas.art.search_marks


def test_the_index_is_built_off_the_ui_thread_and_follows_the_templates(qtbot, window, monkeypatch):  # noqa: F811
    built_on = []
    from afp_desktop.core.views import search as search_module

    real = search_module.SearchIndex

    class Recording(real):
        def __init__(self, *args, **kwargs):
            if "_content" not in kwargs:  # (with_templates makes its new index with the content it keeps)
                built_on.append(threading.current_thread() is threading.main_thread())
            super().__init__(*args, **kwargs)

        def with_templates(self, *args):
            built_on.append(("status lines only", threading.current_thread() is threading.main_thread()))
            return super().with_templates(*args)

    monkeypatch.setattr(search_module, "SearchIndex", Recording)
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    panel = find(qtbot, window, "Running")
    assert built_on == [False]
    assert panel.model.rowCount() == 0
    templates = dict(window.session.templates, tool="Running {{toolName}} now")
    with qtbot.waitSignal(panel.searched, timeout=SEARCH_TIMEOUT):
        window.session.set_templates(templates)
    assert [h.excerpt for h in hit_rows(panel)] == ["Running get_weather now", "Running convert_units now"]
    assert built_on == [False, ("status lines only", False)]


def test_closing_the_window_stops_an_index_build(qtbot, window, monkeypatch):  # noqa: F811
    """An index build still running when the window is deleted took the whole program down ("QThread: Destroyed
    while thread is still running"): closing the window stops it at its next breathing point."""
    from afp_desktop.core.views import search as search_module
    from tests.long_job import breathe_until_released

    started, release = threading.Event(), threading.Event()
    monkeypatch.setattr(search_module, "SearchIndex", lambda *_args: breathe_until_released(started, release))
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(started.is_set, timeout=5_000)
    threads = window.engine_requests.findChildren(QThread)  # the threads answering its requests
    window.close()
    try:
        assert threads and not any(thread.isRunning() for thread in threads)
    finally:
        release.set()  # (whatever happened, no thread outlives the test's window)
        window.engine_requests.threads.wait(20_000)


def test_a_large_run(qtbot, window):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("15-large-run", "events.ndjson"))
    panel = find(qtbot, window, "shard 2 @")
    hits = panel.result
    assert len(hits) >= 150 and hits.complete
    assert panel.count_label.text() == f"{len(hits):,} matches"
    last = panel.model.rowCount() - 1
    qtbot.keyClick(panel.search_box, Qt.Key.Key_Up)  # from nothing selected, ↑ goes to the last hit
    window.session.flush()
    assert panel.list.currentIndex().row() == last
    assert window.session.position == hit_rows(panel)[last].position
    assert len(window.canvas.art.search_marks) > 100
    # a query with more hits than are listed says so
    panel.search_box.setText("e")
    with qtbot.waitSignal(panel.searched, timeout=SEARCH_TIMEOUT):
        panel.search()
    assert panel.model.rowCount() == find_module.MAX_LISTED
    assert panel.count_label.text().startswith("More than 10,000 matches")


def test_closing_the_run_clears_the_panel(qtbot, window):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    panel = find(qtbot, window, "Oslo")
    assert panel.model.rowCount()
    window.close_run()
    assert panel.model.rowCount() == 0 and panel.result is None
    assert not panel.search_box.isEnabled()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshot_of_the_find_panel(qtbot, window, theme, tmp_path):  # noqa: F811
    window.apply_theme(theme)
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    panel = find(qtbot, window, "Oslo")
    qtbot.keyClick(panel.search_box, Qt.Key.Key_Down)
    image = window.docks["find"].grab().toImage()
    assert image.width() > 200 and image.height() > 200
    image.save(str(tmp_path / f"find-{theme}.png"))


# ── searches run off the UI thread, bounded ──────────────────────────────────────────────────────────────


def _hold_searches(monkeypatch, panel, holding: int = 1):
    """Search indexes answer their first `holding` searches only once `release` is set; records the thread
    each search ran on. (Off the UI thread only: on it, holding would hang the test instead of failing it.)"""
    from afp_desktop.core.views.search import SearchIndex

    started, release, threads = threading.Event(), threading.Event(), []
    real = SearchIndex.find

    def held(index, query, **options):
        on_ui_thread = threading.current_thread() is threading.main_thread()
        threads.append("UI" if on_ui_thread else "worker")
        if not on_ui_thread and len(threads) <= holding:
            started.set()
            release.wait(30)
        return real(index, query, **options)

    monkeypatch.setattr(SearchIndex, "find", held)
    return started, release, threads


def test_a_search_runs_off_the_ui_thread_and_the_window_answers_meanwhile(qtbot, window, monkeypatch):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    panel = find(qtbot, window, "Oslo")
    started, release, threads = _hold_searches(monkeypatch, panel)
    try:
        panel.search_box.setText("convert_units")
        panel.search()
        qtbot.waitUntil(started.is_set, timeout=10_000)
        assert threads == ["worker"]
        assert panel.searching and panel.count_label.text() == "Searching…"
        with qtbot.waitCallback() as answered:  # the window's event loop runs while the search does
            QTimer.singleShot(0, answered)
        window.session.move_to(2)
        window.session.flush()
        assert window.session.position == 2 and panel.searching
    finally:
        release.set()
    qtbot.waitUntil(lambda: not panel.searching, timeout=SEARCH_TIMEOUT)
    assert "tool name" in [h.where for h in hit_rows(panel)]
    assert panel.count_label.text() == f"{panel.model.rowCount()} matches"


def test_a_newer_query_drops_the_search_under_way(qtbot, window, monkeypatch):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    panel = find(qtbot, window, "Oslo")
    started, release, threads = _hold_searches(monkeypatch, panel)
    try:
        panel.search_box.setText("get_weather")
        panel.search()
        qtbot.waitUntil(started.is_set, timeout=10_000)
        panel.search_box.setText("convert_units")
        with qtbot.waitSignal(panel.searched, timeout=SEARCH_TIMEOUT):
            panel.search()
    finally:
        release.set()
    assert panel.requests.threads.wait(20_000)
    QApplication.processEvents()  # (the dropped search's answer, had it sent one, is delivered here)
    excerpts = [h.excerpt for h in hit_rows(panel)]
    assert excerpts and all("convert_units" in e for e in excerpts) and threads == ["worker", "worker"]
    assert not panel.searching


def test_enter_while_a_search_runs_goes_to_its_first_hit(qtbot, window, monkeypatch):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    panel = find(qtbot, window, "Oslo")
    started, release, _threads = _hold_searches(monkeypatch, panel)
    try:
        panel.search_box.setText("convert_units")
        qtbot.keyClick(panel.search_box, Qt.Key.Key_Return)
        qtbot.waitUntil(started.is_set, timeout=10_000)
    finally:
        release.set()
    qtbot.waitUntil(lambda: not panel.searching, timeout=SEARCH_TIMEOUT)
    window.session.flush()
    first = hit_rows(panel)[0]
    assert panel.list.currentIndex().row() == 0 and window.session.position == first.position


@pytest.mark.parametrize("pattern", [r"(a|aa)+$", r"(a+)+$", r"(.*a){25}"])
def test_a_catastrophic_regex_ends_with_hits_or_a_sentence(qtbot, window, monkeypatch, tmp_path, pattern):  # noqa: F811
    from tests.find_util import write_many_calls

    monkeypatch.setattr(find_module, "SEARCH_TIME_LIMIT_S", 0.2)  # (the bound, not what is asserted)
    open_and_wait(qtbot, window, write_many_calls(tmp_path / "small.ndjson", 8, lambda i: "a" * 40 + "!"))
    panel = find(qtbot, window, "probe")
    panel.regex_button.setChecked(True)
    panel.search_box.setText(pattern)
    with qtbot.waitSignal(panel.searched, timeout=SEARCH_TIMEOUT):
        panel.search()
    # private: as in find()
    qtbot.waitUntil(lambda: not panel.searching and not panel._timer.isActive(), timeout=SEARCH_TIMEOUT)
    label = panel.count_label.text()
    assert label.endswith("matches") or label == "No matches." or label.startswith(
        "Cannot search: the search took longer than 0.2 s and was stopped: a regular expression like this one can "
        "try the same text in very many ways"), label


def test_a_pattern_too_complex_is_refused_with_a_sentence(qtbot, window):  # noqa: F811
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    panel = find(qtbot, window, "Oslo")
    panel.regex_button.setChecked(True)
    for pattern, says in [("a{4294967296}", "a repeat count is too large"),
                          ("(" * 2000 + "a" + ")" * 2000, "nests groups too deeply"),
                          ("(a{1000}){1000}", "too large to search")]:
        panel.search_box.setText(pattern)
        with qtbot.waitSignal(panel.searched, timeout=SEARCH_TIMEOUT):
            panel.search()
        assert panel.count_label.text().startswith("Cannot search: ") and says in panel.count_label.text()
        assert panel.model.rowCount() == 0


def test_closing_the_window_stops_a_search_under_way(qtbot, window, monkeypatch):  # noqa: F811
    """A search still running when the window is deleted would take the whole program down, as an index build
    would: closing the window ends it at its next breathing point."""
    from tests.long_job import breathe_until_released

    from afp_desktop.core.problems import LoadCancelled

    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"))
    panel = find(qtbot, window, "Oslo")
    started, release, stopped = threading.Event(), threading.Event(), threading.Event()

    def long_search(*_args, **_options):
        try:
            breathe_until_released(started, release)
        except LoadCancelled:
            stopped.set()
            raise

    from afp_desktop.core.views.search import SearchIndex

    monkeypatch.setattr(SearchIndex, "find", long_search)
    panel.search_box.setText("convert_units")
    panel.search()
    qtbot.waitUntil(started.is_set, timeout=10_000)
    threads = window.engine_requests.findChildren(QThread)  # the threads answering its requests
    window.close()
    try:
        assert threads and not any(thread.isRunning() for thread in threads)
        assert stopped.is_set() and not panel.searching
    finally:
        release.set()  # (whatever happened, no thread outlives the test's window)
        window.engine_requests.threads.wait(20_000)
