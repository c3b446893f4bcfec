"""The Events panel (issue 15): every event in order, a type filter, a click moves the cursor."""

from __future__ import annotations

from afp_desktop.core.formats import open_run  # before the session: formats must initialise first
from afp_desktop.app.panels.event_list import EventListPanel
from afp_desktop.app.session import Session
from afp_desktop.core.event_rows import event_row, positions_of, type_counts
from tests.corpus_util import corpus_path


def pause_run():
    return open_run(str(corpus_path("06-pause-resume", "recording.json")))


def test_rows_cover_both_channels_in_axis_order():
    run = pause_run()
    rows = [event_row(run, k) for k in range(len(run.axis.entries))]
    assert [r["position"] for r in rows] == list(range(1, len(run.axis) + 1))
    assert {r["channel"] for r in rows} == {"typed", "domain"}
    counts = dict(type_counts(run))
    assert sum(counts.values()) == len(run.axis) and counts["pause.request"] == 1
    (k,) = positions_of(run, {"pause.request"})
    assert "question=Refund $42.99 for order #123?" in event_row(run, k)["summary"]
    assert positions_of(run, None) == list(range(len(run.axis)))


def test_filter_click_and_follow(qtbot):
    run = pause_run()
    session = Session()
    panel = EventListPanel(session)
    qtbot.addWidget(panel)
    panel.resize(700, 400)
    panel.show()
    session.set_run(run)
    assert panel.model.rowCount() == len(run.axis)
    panel.filter.setCurrentIndex(panel.filter.findData("pause.request"))
    assert panel.model.rowCount() == 1
    index = panel.model.index(0, 2)
    assert panel.model.data(index) == "pause.request"
    panel.table.clicked.emit(index)
    session.flush()
    (k,) = positions_of(run, {"pause.request"})
    assert session.position == k + 1
    panel.filter.setCurrentIndex(0)  # all events: the row of the cursor is the current one
    session.move_to(40, immediate=True)
    assert panel.table.currentIndex().row() == 39
