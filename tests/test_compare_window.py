"""The compare window driven through its widgets: marks, the difference list, the word diff, linked cursors."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt, QThread

from afp_desktop.app.compare.compare_window import CompareWindow
from tests.compare_util import REACT, load_json, open_corpus, run_from_trace, trace_with_extra_tool_call
from tests.corpus_util import corpus_path


@pytest.fixture
def window(qtbot):
    win = CompareWindow()
    qtbot.addWidget(win)
    win.resize(1500, 950)
    win.show()
    qtbot.waitExposed(win)
    return win


def _settle(win):
    for pane in (win.pane_a, win.pane_b):
        pane.session.flush()


def _side_b_text(win) -> str:
    """The diff view's text without the struck-out (A only) words: what B holds, as drawn."""
    parts = []
    block = win.diff_view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if not fragment.charFormat().fontStrikeOut():
                parts.append(fragment.text())
            it += 1
        parts.append("\n")
        block = block.next()
    return "".join(parts)


def test_self_compare_shows_no_differences(window):
    window.set_runs(open_corpus(REACT), open_corpus(REACT))
    assert window.comparison.identical
    assert window.difference_rows() == []
    assert window.diff_list.isHidden() and not window.empty_label.isHidden()
    assert "No differences" in window.empty_label.text()
    assert "Identical" in window.totals_label.text()
    assert window.pane_a.marks.marks == {} and window.pane_b.marks.marks == {}


def test_an_extra_tool_call_is_one_added_row_marked_on_b(window, qtbot):
    window.set_runs(open_corpus(REACT), run_from_trace(trace_with_extra_tool_call()))
    rows = window.difference_rows()
    added = [row for row in rows if row.status == "added"]
    assert len(added) == 1 and not [row for row in rows if row.status == "removed"]
    extra = added[0].b
    assert window.comparison.nodes_b[extra]["toolArgs"] == {"city": "Bergen"}
    assert window.pane_b.marks.marks[extra] == "added"
    assert "added" not in window.pane_a.marks.marks.values()
    # Choosing the row selects the step in B, moves B's cursor to it and shows its payloads.
    window.diff_list.setCurrentItem(window.diff_list.topLevelItem(rows.index(added[0])))
    _settle(window)
    assert window.pane_b.session.selected == extra and window.pane_a.session.selected is None
    assert window.pane_b.session.view.current_node == extra
    assert "Bergen" in window.diff_view.toPlainText()


def test_a_changed_pair_shows_a_word_diff(window):
    window.set_runs(open_corpus(REACT), open_corpus(REACT, "trace.redacted.json"))
    rows = window.difference_rows()
    assert rows and all(row.status == "changed" for row in rows)
    tool_row = next(row for row in rows if "toolArgs" in row.fields)
    window.diff_list.setCurrentItem(window.diff_list.topLevelItem(rows.index(tool_row)))
    text = window.diff_view.toPlainText()
    assert "tool arguments" in text and "Oslo" in text and "[redacted]" in text
    assert window.pane_a.session.selected == tool_row.a and window.pane_b.session.selected == tool_row.b


def test_trace_text_is_never_read_as_markup(window):
    trace = load_json(REACT, "trace.json")
    for event in trace["events"]:
        if event.get("type") == "tool.end":
            event["result"] = "<b>bold</b> <img src='x.png'> &amp;"
    window.set_runs(open_corpus(REACT), run_from_trace(trace))
    row = next(row for row in window.difference_rows() if "toolResult" in row.fields)
    window.diff_list.setCurrentItem(window.diff_list.topLevelItem(window.difference_rows().index(row)))
    assert "<b>bold</b> <img src='x.png'> &amp;" in _side_b_text(window)
    assert "<img" not in window.diff_view.toHtml().replace("&lt;img", "")  # escaped by Qt, never an image


def test_linked_cursors_move_together_and_unlink(window):
    a, b = open_corpus(REACT), run_from_trace(trace_with_extra_tool_call())
    window.set_runs(a, b)
    sa, sb = window.pane_a.session, window.pane_b.session
    assert window.linked
    for stop in range(len(sa.stops)):
        sa.move_to_stop(stop)
        _settle(window)
        assert sb.position == window.position_map.a_to_b(sa.position)
    # A's step and B's aligned step are current together.
    sa.activate_node(4)
    _settle(window)
    assert sb.view.current_node == window.comparison.partner_a[4]
    # Moving B moves A back.
    sb.move_to(0)
    _settle(window)
    assert sa.position == window.position_map.b_to_a(0) == 0

    window.link_box.setChecked(False)
    sa.end()
    _settle(window)
    assert sa.position == len(a.axis) and sb.position == 0  # unlinked: B stays
    window.link_box.setChecked(True)  # linking again brings B to A's aligned place
    _settle(window)
    assert sb.position == len(b.axis)


def test_clicking_a_card_selects_its_partner(window, qtbot):
    window.set_runs(open_corpus(REACT), open_corpus("12-tool-throws"))
    canvas = window.pane_a.canvas
    index = 9  # tool → llm #2, changed (another tool result and tokens)
    box = canvas.graph_layout.nodes[index]
    canvas.centerOn(QPointF(box.cx, box.cy))
    point = canvas.mapFromScene(QPointF(box.cx, box.cy))
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=point)
    _settle(window)
    partner = window.comparison.partner_a[index]
    assert window.pane_b.session.selected == partner
    assert window.pane_b.session.view.current_node == partner
    current = window.diff_list.currentItem()
    assert current is not None and "tool → llm #2" in current.text(1)
    assert "tool result" in window.diff_view.toPlainText()


def test_file_menu_compare_with_opens_the_window(qtbot, monkeypatch):
    from PySide6.QtWidgets import QApplication, QFileDialog

    from afp_desktop.app.compare.compare_window import CompareWindow as Window
    from afp_desktop.app.shell.main_window import MainWindow

    main = MainWindow(restore_layout=False)
    qtbot.addWidget(main)
    main.session.set_run(open_corpus(REACT))
    other = str(corpus_path("12-tool-throws", "trace.json"))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (other, "")))
    action = main.action("compare")
    action.trigger()
    compare = next(w for w in QApplication.topLevelWidgets() if isinstance(w, Window) and w.isVisible())
    qtbot.waitUntil(lambda: compare.comparison is not None, timeout=10000)
    assert compare.pane_a.session.run is main.session.run
    assert compare.comparison.to_json()["added"] == ["step-tool-start-tool-calls#22-tc-db",
                                                     "step-tool-start-tool-calls#44-tc-w2"]
    compare.close()


def test_open_paths_loads_and_compares_off_the_ui_thread(window, qtbot, tmp_path):
    a, b = corpus_path(REACT, "trace.json"), corpus_path(REACT, "trace.redacted.json")
    window.open_paths(str(a), str(b))
    qtbot.waitUntil(lambda: window.comparison is not None, timeout=15000)
    assert window.comparison.to_json()["added"] == [] and window.pane_b.session.run.redaction == "pii"
    missing = tmp_path / "gone.json"
    window.open_paths(str(a), str(missing))
    qtbot.waitUntil(lambda: "gone.json" in window.totals_label.text(), timeout=15000)
    assert window.totals_label.text().startswith("Could not compare")


def test_closing_the_window_stops_a_comparison_under_way(window, qtbot, monkeypatch):
    """Closing waited for the whole alignment of two long runs (2–3 s for the 1,000-iteration ones, more in a
    slow hour; past 10 s the window was deleted with its thread running, which takes the program down): the
    comparison now stops at its next breathing point."""
    import threading
    import time

    from afp_desktop.core.views import compare_answer
    from tests.long_job import breathe_until_released

    started, release = threading.Event(), threading.Event()
    monkeypatch.setattr(compare_answer, "compare_runs", lambda *_runs: breathe_until_released(started, release))
    window.open_paths(str(corpus_path(REACT, "trace.json")), str(corpus_path(REACT, "trace.redacted.json")))
    assert qtbot.waitUntil(started.is_set, timeout=15_000) is None
    workers = window.findChildren(QThread)  # the thread of the engine's request (the runs were loaded here)
    assert workers
    began = time.monotonic()
    try:
        window.close()
        assert time.monotonic() - began < 5
        assert not any(worker.isRunning() for worker in workers)
    finally:
        release.set()  # (whatever happened, no thread outlives the test's window)
        for worker in workers:
            worker.wait(20_000)


def test_a_long_alignment_breathes(monkeypatch):
    """compare_runs has breathing points along its alignment: a thread running it can be stopped."""
    from afp_desktop.core.breathing import breathing
    from afp_desktop.core.views.compare import compare_runs

    breaths = []
    a, b = open_corpus(REACT, "trace.json"), run_from_trace(trace_with_extra_tool_call())
    with breathing(lambda: breaths.append(1)):
        compare_runs(a, b)
    assert len(breaths) >= 2


def test_dark_theme_reaches_the_graphs_and_the_diff(window):
    from afp_desktop.app.look.style import palette_for

    window.set_runs(open_corpus(REACT), open_corpus("12-tool-throws"))
    window.diff_list.setCurrentItem(window.diff_list.topLevelItem(0))
    window.apply_theme("dark")
    assert window.pane_a.canvas.palette == palette_for("dark") == window.pane_b.canvas.palette
    formats = set()
    block = window.diff_view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            formats.add(it.fragment().charFormat().background().color().name())
            it += 1
        block = block.next()
    assert "#1f4d2c" in formats and "#ffd7d5" not in formats  # redrawn with the dark colours


def test_keys_step_the_run_last_moved(window, qtbot):
    window.set_runs(open_corpus(REACT), open_corpus(REACT))
    sa, sb = window.pane_a.session, window.pane_b.session
    sa.home()
    _settle(window)
    window.diff_view.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_Right)
    _settle(window)
    assert sa.stop_index == 0 and sb.position == sa.position > 0
    qtbot.mouseClick(window.pane_b.next_button, Qt.MouseButton.LeftButton)  # B becomes the run the keys step
    _settle(window)
    qtbot.keyClick(window, Qt.Key.Key_Right)
    _settle(window)
    assert sb.stop_index == 2 and sa.position == sb.position
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert not window.linked


def test_compare_flag_renders_a_screenshot(qtbot, tmp_path, capsys):
    from PySide6.QtGui import QImage

    from afp_desktop import cli

    out = tmp_path / "compare.png"
    a, b = corpus_path(REACT, "trace.json"), corpus_path("12-tool-throws", "trace.json")
    assert cli.main([str(a), str(b), "--compare", "--screenshot", str(out)]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1600, 1000)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert cli.main([str(a), str(broken), "--compare", "--screenshot", str(tmp_path / "no.png")]) == 2
    err = capsys.readouterr().err
    assert "broken.json" in err and "Traceback" not in err
    assert not (tmp_path / "no.png").exists()


def test_the_merged_graph_marks_both_runs_and_chooses_rows(window, qtbot):
    window.set_runs(open_corpus(REACT), open_corpus("12-tool-throws"))
    window.views.setCurrentIndex(1)
    canvas = window.merged_canvas
    statuses = window.merged_marks.marks
    assert sorted(statuses.values()).count("added") == 2 and sorted(statuses.values()).count("removed") == 2
    number = next(k for k, row in enumerate(window.comparison.rows) if row.status == "added")
    box = canvas.graph_layout.nodes[number]
    canvas.centerOn(QPointF(box.cx, box.cy))
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=canvas.mapFromScene(QPointF(box.cx, box.cy)))
    _settle(window)
    row = window.comparison.rows[number]
    assert window.pane_b.session.selected == row.b and window.pane_a.session.selected is None
    assert "query_db" in window.diff_list.currentItem().text(2)
    assert "select 1" in window.diff_view.toPlainText()


def test_either_run_can_be_unlinked_alone(window):
    """B stops following A while A still follows B; the window's box says the two are no longer both linked."""
    a, b = open_corpus(REACT), run_from_trace(trace_with_extra_tool_call())
    window.set_runs(a, b)
    sa, sb = window.pane_a.session, window.pane_b.session
    window.pane_b.follow_box.setChecked(False)
    assert not window.linked and window.pane_a.follow_box.isChecked()
    sb.move_to(0)
    _settle(window)
    sa.end()
    _settle(window)
    assert sa.position == len(a.axis) and sb.position == 0  # A moved; B did not follow
    sb.move_to(len(b.axis) // 2)
    _settle(window)
    assert sa.position == window.position_map.b_to_a(len(b.axis) // 2)  # B moved; A follows it
    window.pane_b.follow_box.setChecked(True)  # linking B again brings it to A's aligned place
    _settle(window)
    assert window.linked and sb.position == window.position_map.a_to_b(sa.position)


def test_a_long_difference_list_is_filled_a_piece_per_turn(window, qtbot, monkeypatch):
    """Two long runs differ in thousands of rows: the first are listed at once, the rest a turn at a time, and
    the list ends the same as one filled at once."""
    import afp_desktop.app.compare.compare_window as compare_module

    redacted = run_from_trace(load_json("15-large-run", "trace.redacted.json"))
    monkeypatch.setattr(compare_module, "LIST_FIRST_ROWS", 10**9)  # all at once
    window.set_runs(open_corpus("15-large-run"), redacted)
    at_once = window.difference_rows()
    assert len(at_once) > 2
    monkeypatch.setattr(compare_module, "LIST_FIRST_ROWS", 1)
    monkeypatch.setattr(compare_module, "LIST_ROWS_PER_TURN", 1)
    window.set_runs(open_corpus("15-large-run"), redacted)
    assert window.diff_list.topLevelItemCount() == 1
    qtbot.waitUntil(lambda: window.diff_list.topLevelItemCount() == len(at_once), timeout=30_000)
    assert window.difference_rows() == at_once
