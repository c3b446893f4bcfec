"""The event list: every event in axis order, filtering by type, the moment's row, and the windowed panel
(clicks and Enter move the cursor right after the event; the big run is not materialised)."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import Qt

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.app.panels.event_list import NOT_YET, EventListPanel
from afp_desktop.app.session import Session
from afp_desktop.core.views.event_list import (
    SUMMARY_CHARS,
    event_cells,
    event_summary,
    event_type,
    filter_entries,
    row_of_moment,
    type_counts,
)
from afp_desktop.core.formats import open_run
from tests.answers_util import RequestsByHand, engine_requests, events_in_the_engine
from tests.corpus_util import SMALL_SCENARIOS, corpus_path

FILES = ("recording.json", "events.ndjson", "trace.json")


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
@pytest.mark.parametrize("name", FILES)
def test_every_event_once_in_axis_order(scenario, name):
    run = open_run(corpus_path(scenario, name))
    entries = run.axis.entries
    assert sorted(i for kind, i in entries if kind == "d") == list(range(len(run.domain_events)))
    assert sorted(j for kind, j in entries if kind == "t") == list(range(len(run.typed_events or [])))
    counts = type_counts(run)
    assert sum(count for _kind, count in counts) == len(entries)
    assert [count for _k, count in counts] == sorted((count for _k, count in counts), reverse=True)
    for kind, count in counts[:4]:
        rows = filter_entries(run, exact_type=kind)
        assert len(rows) == count and rows == sorted(rows)
        assert all(event_type(run, entries[r]) == kind for r in rows)
    for entry in entries:
        summary = event_summary(run, entry)
        assert "\n" not in summary and len(summary) <= SUMMARY_CHARS
        assert "subflowPath:" not in summary and "commitIdxBefore" not in summary


def test_text_filter_is_case_insensitive_and_empty_means_all():
    run = open_run(corpus_path("02-react-two-tools", "events.ndjson"))
    assert filter_entries(run, "") is None and filter_entries(run, "   ") is None
    rows = filter_entries(run, "TOOL_")
    expected = [i for i, e in enumerate(run.axis.entries) if "tool_" in event_type(run, e)]
    assert rows == expected and rows
    both = filter_entries(run, "start", exact_type="agentfootprint.stream.tool_start")
    assert both == filter_entries(run, exact_type="agentfootprint.stream.tool_start")
    assert filter_entries(run, "no such type") == []


def test_summaries_name_the_facts():
    run = open_run(corpus_path("06-pause-resume", "events.ndjson"))
    (pause,) = filter_entries(run, "pause.request")
    summary = event_summary(run, run.axis.entries[pause])
    assert "Refund $42.99 for order #123?" in summary
    trace = open_run(corpus_path("02-react-two-tools", "trace.json"))
    tool_end = filter_entries(trace, exact_type="tool.end")[0]
    assert event_summary(trace, trace.axis.entries[tool_end]).startswith("result: Oslo")


def test_row_of_moment():
    assert row_of_moment(None, 0, 10) is None
    assert row_of_moment(None, 1, 10) == 0
    assert row_of_moment(None, 10, 10) == 9
    rows = [2, 5, 9]
    assert row_of_moment(rows, 2, 10) is None  # entry 2 has not happened at position 2
    assert row_of_moment(rows, 3, 10) == 0
    assert row_of_moment(rows, 9, 10) == 1
    assert row_of_moment(rows, 10, 10) == 2


# ── the panel ─────────────────────────────────────────────────────────────────────────────────────────────


@pytest.fixture
def panel(qtbot):
    session = Session()
    requests = engine_requests(session)
    widget = shown_alone(session, EventListPanel(session, requests))
    qtbot.addWidget(widget)
    widget.resize(900, 400)
    widget.show()
    yield widget
    requests.stop()


def load(panel, scenario="02-react-two-tools", name="recording.json", run=None):
    run = run or open_run(corpus_path(scenario, name))
    panel.session.set_run(run)
    return run


def rows_on_screen(panel) -> range:
    table = panel.table
    top = max(0, table.rowAt(0))
    bottom = table.rowAt(table.viewport().height() - 1)
    return range(top, (panel.model.rowCount() - 1 if bottom < 0 else bottom) + 1)


def wait_for_rows(qtbot, panel) -> None:
    """Until the engine's cells of every row on screen have arrived."""
    model = panel.model
    panel.table.viewport().repaint()  # (a paint asks for the rows on screen)
    qtbot.waitUntil(lambda: all(model.has_cells(model.entry_of(row)) for row in rows_on_screen(panel)),
                    timeout=10_000)


def wait_for_filter(qtbot, panel) -> None:
    qtbot.waitUntil(lambda: panel.count_label.text() != "Filtering…", timeout=10_000)


def test_click_and_enter_move_the_cursor_right_after_the_event(qtbot, panel):
    run = load(panel)
    table, model = panel.table, panel.model
    assert model.rowCount() == len(run.axis.entries)
    assert model.moment_row == len(run.axis.entries) - 1  # opened at the end
    wait_for_rows(qtbot, panel)
    rect = table.visualRect(model.index(0, 2))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    panel.session.flush()
    assert panel.session.position == 1 and model.moment_row == 0
    table.setFocus()
    table.setCurrentIndex(model.index(40, 0))
    qtbot.keyClick(table, Qt.Key.Key_Return)
    panel.session.flush()
    assert panel.session.position == 41 and model.moment_row == 40


def test_moment_row_is_highlighted_and_followed(qtbot, panel):
    run = load(panel)
    session, model, table = panel.session, panel.model, panel.table
    session.move_to(3, immediate=True)
    assert model.moment_row == 2
    assert model.data(model.index(2, 0), Qt.ItemDataRole.BackgroundRole) is not None
    assert model.data(model.index(3, 0), Qt.ItemDataRole.BackgroundRole) is None
    assert model.data(model.index(5, 0), Qt.ItemDataRole.ForegroundRole) is not None  # not happened yet
    assert model.data(model.index(1, 0), Qt.ItemDataRole.ForegroundRole) is None
    session.move_to(len(run.axis.entries) - 2, immediate=True)
    row = model.moment_row
    assert table.viewport().rect().intersects(table.visualRect(model.index(row, 0)))  # kept in view


def test_filter_by_type_then_click(qtbot, panel):
    run = load(panel)
    combo = panel.type_combo
    qtbot.waitUntil(lambda: panel.types is not None)
    index = combo.findData("tool.end")
    assert index > 0
    combo.setCurrentIndex(index)
    expected = [i for i, e in enumerate(run.axis.entries) if event_type(run, e) == "tool.end"]
    wait_for_filter(qtbot, panel)
    assert panel.model.rowCount() == len(expected) == 2
    wait_for_rows(qtbot, panel)
    assert panel.model.cells(1)[2] == "tool.end"
    panel.table.clicked.emit(panel.model.index(1, 0))
    panel.session.flush()
    assert panel.session.position == expected[1] + 1
    assert panel.model.moment_row == 1
    combo.setCurrentIndex(0)
    panel.filter_edit.setText("LLM_END")
    panel.apply_filter()  # (the text filter waits for a pause in typing)
    wait_for_filter(qtbot, panel)
    assert panel.model.rowCount() == Counter(event_type(run, e) for e in run.axis.entries)[
        "agentfootprint.stream.llm_end"]
    assert "match the filter" in panel.count_label.text()


def test_trace_text_is_plain(qtbot, panel):
    load(panel)
    model = panel.model
    wait_for_rows(qtbot, panel)
    for row in rows_on_screen(panel):
        for column in range(model.columnCount()):
            assert isinstance(model.data(model.index(row, column)), str)
    tip = model.data(model.index(0, 4), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("<p style='white-space:pre-wrap'>")  # escaped, never read as markup


def test_the_large_run_is_windowed(qtbot, panel):
    run = load(panel, "15-large-run", "events.ndjson")
    model = panel.model
    assert model.rowCount() == len(run.axis.entries) > 7000
    panel.session.move_to(100, immediate=True)
    wait_for_rows(qtbot, panel)
    # private: how many rows were made shows only in the model's cache
    assert 0 < len(model._cells) < 200  # only the rows on screen (and a margin) were asked for
    panel.session.move_to(len(run.axis.entries), immediate=True)
    assert model.moment_row == model.rowCount() - 1


def test_closing_the_run_empties_the_list(qtbot, panel):
    load(panel)
    panel.session.close_run()
    assert panel.model.rowCount() == 0 and not panel.table.isEnabled()


def test_types_are_listed_only_once_shown(qtbot, panel):
    panel.hide()
    load(panel)
    assert panel.types is None and panel.type_combo.count() == 1  # "All types" only: nothing listed yet
    assert panel.model.rowCount() > 0
    assert "event_types" not in panel.requests.waiting_tags()  # nothing asked
    panel.show()
    qtbot.waitUntil(lambda: panel.types is not None)
    assert panel.type_combo.count() > 5 and panel.type_combo.findData("tool.end") > 0


def test_a_list_deleted_before_its_types_are_listed_leaves_no_call_behind(qtbot):
    """What bench/fuzz_actions.py found: the list's first paint asks for its types on the next turn; when the
    window was closed and deleted in between, that call reached a deleted combo box (RuntimeError in a timer's
    slot). The app's timers now go with the widget they call."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from afp_desktop.app.shell.main_window import MainWindow

    window = MainWindow(restore_layout=False)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(corpus_path("02-react-two-tools", "events.ndjson"))
    panel = window.panels["events"]
    assert panel.types is None  # (hidden until asked for: nothing listed yet)
    window.docks["events"].show()
    panel.repaint()  # its first paint, here and now: the types are asked for on the next turn
    assert panel.types is None, "(its types are still to be listed)"
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()  # the next turn, its calls served (pytest-qt fails the test on an exception in one)


# ── the engine's answers ──────────────────────────────────────────────────────────────────────────────────


def test_the_list_shows_a_run_whose_events_live_in_the_engine(qtbot, panel):
    """The window's thread never reads the run's events: the rows, the types and a filter's rows are the engine's
    answers (here the in-process engine's thread reads them; a read on the window's thread raises)."""
    real = open_run(corpus_path("02-react-two-tools", "recording.json"))
    run = load(panel, run=events_in_the_engine(real))
    model = panel.model
    assert model.rowCount() == len(real.axis.entries)
    assert model.cells(0)[2:] == (NOT_YET,) * 3  # nothing read here: the engine has not answered yet
    wait_for_rows(qtbot, panel)
    for row in rows_on_screen(panel):
        assert model.cells(row)[2:] == event_cells(real, row)
    assert "typed and" in panel.count_label.text()
    qtbot.waitUntil(lambda: panel.types is not None)
    assert panel.types == type_counts(real)
    panel.type_combo.setCurrentIndex(panel.type_combo.findData("tool.end"))
    wait_for_filter(qtbot, panel)
    assert list(model.rows) == filter_entries(real, exact_type="tool.end")
    wait_for_rows(qtbot, panel)
    assert [model.cells(row)[2] for row in range(model.rowCount())] == ["tool.end", "tool.end"]
    panel.table.clicked.emit(model.index(1, 0))
    panel.session.flush()
    assert panel.session.position == model.rows[1] + 1 and model.moment_row == 1
    assert panel.session.run is run


def test_a_row_read_off_screen_is_asked_for_and_the_rows_scrolled_to_still_are(qtbot, panel):
    """A cell read away from the rows on screen (a tooltip, a test) is asked for too, and never stops the asking
    for the rows a scroll brings on screen."""
    run = load(panel)
    model = panel.model
    panel.session.move_to(0, immediate=True)
    panel.table.scrollToTop()
    wait_for_rows(qtbot, panel)
    far = len(run.axis.entries) - 1
    assert far not in rows_on_screen(panel) and not model.has_cells(far)
    assert model.cells(far)[2:] == (NOT_YET,) * 3
    qtbot.waitUntil(lambda: model.has_cells(far), timeout=10_000)
    assert model.cells(far)[2:] == event_cells(run, far)
    panel.table.scrollTo(model.index(far - 70, 0))
    wait_for_rows(qtbot, panel)


def test_an_answer_asked_before_a_newer_one_is_dropped(qtbot):
    """Answers delivered out of order (a filter typed over, a run replaced): only the newest ask's is shown."""
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    session = Session()
    requests = RequestsByHand(run)
    panel = shown_alone(session, EventListPanel(session, requests))
    qtbot.addWidget(panel)
    panel.resize(900, 400)
    panel.show()
    session.set_run(run)
    panel.filter_edit.setText("tool_")
    panel.apply_filter()
    panel.filter_edit.setText("llm_end")
    panel.apply_filter()
    older, newer = requests.of_kind("event_filter")
    requests.answer(newer)
    requests.answer(older)  # (late: the filter was typed over)
    assert list(panel.model.rows) == filter_entries(run, "llm_end")
    panel.table.viewport().repaint()
    qtbot.waitUntil(lambda: bool(requests.of_kind("event_rows")))
    asked_about_the_first_run = requests.of_kind("event_rows")[-1]
    entries = requests.asked[asked_about_the_first_run][2]["entries"]
    session.set_run(open_run(corpus_path("06-pause-resume", "recording.json")))
    requests.answer(asked_about_the_first_run)  # (about the run shown before)
    assert entries and not any(panel.model.has_cells(entry) for entry in entries)
    assert panel.model.cells(entries[0])[2:] == (NOT_YET,) * 3


def test_the_list_and_the_context_tab_fill_in_through_the_engine_process(qtbot, engine_window, tmp_path):
    """The answers cross from the engine process (pickled): the rows on screen, the types, a filter's rows and
    the Context tab's keys are the core's."""
    from tests.test_context_state import wait_for_state
    from tests.test_engine_requests import open_through_the_engine
    from tests.test_engine_process import sample

    window = engine_window
    run = open_through_the_engine(qtbot, window, sample(tmp_path, "recording.json"))
    real = open_run(corpus_path("02-react-two-tools", "recording.json"))
    window.docks["events"].show()
    window.docks["events"].raise_()
    panel = window.panels["events"]
    model = panel.model
    wait_for_rows(qtbot, panel)
    for row in rows_on_screen(panel):
        assert model.cells(row)[2:] == event_cells(real, row)
    qtbot.waitUntil(lambda: panel.types is not None, timeout=10_000)
    assert panel.types == type_counts(real)
    panel.type_combo.setCurrentIndex(panel.type_combo.findData("tool.end"))
    wait_for_filter(qtbot, panel)
    assert list(model.rows) == filter_entries(real, exact_type="tool.end")
    context = window.panels["context"]
    window.docks["context"].show()
    window.docks["context"].raise_()
    window.session.move_to_stop(next(i for i, span in enumerate(window.session.spans) if span.label == "Tool call 1"))
    window.session.flush()
    wait_for_state(qtbot, context)
    assert "2 entered, 2 changed, 0 left" in context.note.text() and context.table.rowCount() > 0
    assert window.loader.loads.holds(run)
