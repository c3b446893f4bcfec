"""The window tells what a run holds beyond its steps, each fact only from its moment on: the Findings panel, how
the run ended (header and bubble), the library's cost and budget in the header, resilience and findings marked
on the timeline, the thinking stream beside the answer, and a timeline that draws nothing still to come."""

from __future__ import annotations

from PySide6.QtCore import Qt

from afp_desktop.core.views.run_facts import facts_of_run
from tests.facts_run import Stream, facts_stream

LOAD_TIMEOUT = 30_000


def write(tmp_path, stream: Stream, name: str = "run.ndjson"):
    path = tmp_path / name
    path.write_bytes(stream.ndjson())
    return path


def open_and_wait(qtbot, window, path) -> None:
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(str(path))
    window.session.flush()


def move(window, position: int) -> None:
    window.session.move_to(position, immediate=True)
    window.session.flush()


# ── the Findings panel ────────────────────────────────────────────────────────────────────────────────────────


def test_findings_are_listed_known_only_from_their_moment(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    panel = window.panels["findings"]
    findings = facts_of_run(window.session.run).findings.all
    assert [message for _known, message in panel.rows()] == [f.message for f in findings]
    assert all(known for known, _message in panel.rows())  # (opened at its end: every one has happened)
    integrity = next(f for f in findings if f.kind == "integrity.context_error")
    move(window, integrity.position - 1)
    rows = panel.rows()
    assert [known for known, _ in rows] == [f.position < integrity.position for f in findings]
    assert "later" in panel.tree.topLevelItem(findings.index(integrity)).text(0)
    assert f"{sum(f.position < integrity.position for f in findings)} findings known" in panel.summary.text()
    move(window, integrity.position)
    assert dict((m, k) for k, m in panel.rows())[integrity.message]


def test_future_findings_are_hidden_when_future_steps_are_hidden(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    panel = window.panels["findings"]
    first = facts_of_run(window.session.run).findings.all[0]
    move(window, first.position)
    window.action("future_hide").trigger()
    assert [known for known, _ in panel.rows()] == [True]
    window.action("future_dim").trigger()
    assert len(panel.rows()) == len(facts_of_run(window.session.run).findings.all)


def test_a_click_on_a_finding_moves_the_cursor_there_and_selects_its_step(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, write(tmp_path, facts_stream()))
    panel = window.panels["findings"]
    findings = facts_of_run(window.session.run).findings.all
    denied = next(f for f in findings if f.kind == "permission.check")
    move(window, 0)
    window.action("show_findings").trigger()
    assert window.docks["findings"].isVisible()
    item = panel.tree.topLevelItem(findings.index(denied))
    qtbot.waitUntil(lambda: panel.tree.viewport().isVisible() and panel.tree.visualItemRect(item).isValid())
    panel.tree.scrollToItem(item)
    rect = panel.tree.visualItemRect(item)
    qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    window.session.flush()
    assert window.session.position == denied.position
    assert window.session.selected == denied.node
    assert window.session.run.step_fold.nodes[denied.node]["toolName"] == "scan_repo"
