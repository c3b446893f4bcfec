"""State at the cursor from the commit log: the fold agrees with footprintjs' stateAt port at every stop,
entered / changed / left are what two folds differ by, each key's writer is the last commit that wrote it, and
the Context tab shows them, jumps to the writer's stop, and says plainly when a file has no commit log."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.app.panels.context_panel import READING, WRITER_COLUMN, ContextPanel
from afp_desktop.app.session import Session
from afp_desktop.core.views.context_state import (
    CHANGED,
    ENTERED,
    LEFT,
    SAME,
    ContextStates,
    context_at,
    stop_of_commit,
)
from afp_desktop.core.formats import open_run
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.library.stops import PATH_DELIMITER, state_at
from tests.answers_util import RequestsByHand, engine_requests, events_in_the_engine
from tests.corpus_util import SMALL_SCENARIOS, corpus_path


def _keys_written(bundle) -> set[str]:
    return {str(row.get("path", "")).split(PATH_DELIMITER)[0] for row in bundle.get("trace") or []}


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_state_at_every_stop_agrees_with_state_at(scenario):
    run = open_run(corpus_path(scenario, "recording.json"))
    states = ContextStates(run)
    assert states.available
    replay = Replay(run)
    spans = replay.spans
    for span in spans:
        previous = spans[span.index - 1] if span.index else None
        view = context_at(states, span.end, span.stop, True, span.start, previous.stop if previous else None)
        if view.note:  # an earlier leg of a resumed run: nothing recorded there
            assert run.axis.legs > 1 and not view.rows
            continue
        expected = state_at(run.snapshot, view.commit)["state"]
        shown = {row.key for row in view.rows if row.status != LEFT}
        assert shown == set(expected)
        if view.previous_commit is not None:
            before = state_at(run.snapshot, view.previous_commit)["state"]
            for row in view.rows:
                if row.status == ENTERED:
                    assert row.key not in before and row.key in expected
                elif row.status == LEFT:
                    assert row.key in before and row.key not in expected
                elif row.status == CHANGED:
                    assert before[row.key] != expected[row.key]
                else:
                    assert before[row.key] == expected[row.key]
        for row in view.rows:
            writer = row.writer
            if writer is None:
                assert not any(row.key in _keys_written(b) for b in run.commit_log[:view.commit + 1])
                continue
            assert writer.commit <= view.commit and row.key in _keys_written(run.commit_log[writer.commit])
            assert not any(row.key in _keys_written(b) for b in run.commit_log[writer.commit + 1:view.commit + 1])
            assert writer.stage_id == run.commit_log[writer.commit].get("runtimeStageId")


def test_a_commit_stop_pins_its_own_commit():
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    states = ContextStates(run)
    spans = Replay(run).spans
    llm_turn = next(span for span in spans if span.label == "LLM turn 1")
    route = spans[llm_turn.index + 1]
    assert route.label == "Route 1" and route.end == llm_turn.end  # two stops at one position
    at_turn = context_at(states, llm_turn.end, llm_turn.stop, True)
    at_route = context_at(states, route.end, route.stop, True)
    assert at_turn.commit == llm_turn.stop["lastCommitIdx"] != at_route.commit == route.stop["lastCommitIdx"]
    between = context_at(states, llm_turn.end - 1, llm_turn.stop, False)
    assert between.commit == states.commit_at(llm_turn.end - 1)


def test_changes_since_the_previous_stop():
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    states = ContextStates(run)
    spans = Replay(run).spans
    tool_call = next(span for span in spans if span.label == "Tool call 1")
    view = context_at(states, tool_call.end, tool_call.stop, True, tool_call.start, spans[tool_call.index - 1].stop)
    by_key = {row.key: row for row in view.rows}
    assert by_key["history"].status == CHANGED and by_key["history"].writer.stage == "ToolCalls"
    assert by_key["userMessage"].status == SAME
    assert view.counts()[ENTERED] == 2
    end = spans[-1]
    last = context_at(states, end.end, end.stop, True, end.start, spans[-2].stop)
    assert last.commit == len(run.commit_log) - 1


def test_files_without_a_commit_log_say_so():
    for name in ("events.ndjson", "trace.json"):
        states = ContextStates(open_run(corpus_path("02-react-two-tools", name)))
        assert not states.available and "no commit log" in states.reason


def test_a_resumed_run_covers_only_its_last_leg():
    run = open_run(corpus_path("06-pause-resume", "recording.json"))
    states = ContextStates(run)
    first = states.first_recorded_position()
    assert 0 < first < len(run.axis)
    assert states.commit_at(first - 1) is None
    early = states.view(states.commit_at(1), None)
    assert early.rows == () and "resumed leg" in early.note
    assert states.view(states.commit_at(len(run.axis)), None).rows


def test_stop_of_commit():
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    stops = run.stops
    for commit in range(len(run.commit_log)):
        index = stop_of_commit(stops, commit)
        assert index is not None
        stop = stops[index]
        assert (0 if stop["kind"] == "start" else stop["commitIdx"]) <= commit <= stop["lastCommitIdx"]
    derived = open_run(corpus_path("02-react-two-tools", "trace.json")).stops
    assert stop_of_commit(derived, 3) is None


def test_fold_cache_gives_the_same_states():
    run = open_run(corpus_path("14-context-injections", "recording.json"))
    states = ContextStates(run)
    for commit in (40, 10, 55, 11, 3, 61, 20, 0, -1, 30, 61):
        assert states.state_through(commit) == state_at(run.snapshot, commit)["state"] if commit >= 0 \
            else states.state_through(commit) == (run.snapshot.get("initialState") or {})


# ── the panel ─────────────────────────────────────────────────────────────────────────────────────────────


@pytest.fixture
def panel(qtbot):
    session = Session()
    requests = engine_requests(session)
    widget = shown_alone(session, ContextPanel(session, requests))
    qtbot.addWidget(widget)
    widget.resize(600, 500)
    widget.show()
    yield widget
    requests.stop()


def wait_for_state(qtbot, panel) -> None:
    """Until the engine's answer for the moment asked last is shown."""
    qtbot.waitUntil(lambda: panel.note.text() != READING and panel.answer is not None, timeout=10_000)


def test_panel_lists_keys_and_jumps_to_the_writer(qtbot, panel):
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    session = panel.session
    session.set_run(run)
    index = next(i for i, span in enumerate(session.spans) if span.label == "Tool call 1")
    session.move_to_stop(index)
    session.flush()
    wait_for_state(qtbot, panel)
    table = panel.table
    keys = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert "history" in keys and "2 entered, 2 changed, 0 left" in panel.note.text()
    row = keys.index("history")
    assert table.item(row, 1).text() == "~ changed"
    assert table.item(row, WRITER_COLUMN).text() == "ToolCalls"
    panel.changed_only.setChecked(True)
    assert table.rowCount() == 4
    panel.changed_only.setChecked(False)
    # a key written long ago: its writer's stop is earlier
    row = keys.index("maxIterations")
    commit = table.item(row, WRITER_COLUMN).data(Qt.ItemDataRole.UserRole)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualRect(table.model().index(row, WRITER_COLUMN)).center())
    session.flush()
    wait_for_state(qtbot, panel)
    stop = session.spans[session.stop_index].stop
    assert session.stop_index < index
    assert (0 if stop["kind"] == "start" else stop["commitIdx"]) <= commit <= stop["lastCommitIdx"]
    table.setCurrentCell(0, 0)
    assert panel.detail.toPlainText().startswith(table.item(0, 0).text())
    qtbot.waitUntil(lambda: not panel.detail.toPlainText().endswith("Reading…"))
    key, status = table.item(0, 0).text(), table.item(0, 1).text()
    commit = panel.view.commit if status != "− left" else panel.view.previous_commit
    assert panel.detail.toPlainText().endswith("\n\n" + ContextStates(run).value_text(key, commit))


def test_panel_says_when_there_is_no_commit_log(qtbot, panel):
    panel.session.set_run(open_run(corpus_path("02-react-two-tools", "events.ndjson")))
    qtbot.waitUntil(lambda: "no commit log" in panel.note.text())
    assert "no commit log" in panel.note.text() and not panel.table.isEnabled()
    assert panel.table.rowCount() == 0


def test_panel_waits_until_shown(qtbot, panel):
    panel.hide()
    panel.session.set_run(open_run(corpus_path("02-react-two-tools", "recording.json")))
    panel.session.flush()
    assert panel.view is None  # nothing folded while hidden
    panel.show()
    qtbot.waitUntil(lambda: panel.view is not None)  # asked for when painted
    assert panel.table.rowCount() > 0


# ── the engine's answers ──────────────────────────────────────────────────────────────────────────────────


def test_the_tab_shows_a_run_whose_events_live_in_the_engine(qtbot, panel):
    """The window's thread never reads the run's events: the keys at the cursor and a key's whole value are the
    engine's answers (here the in-process engine's thread reads them; a read on the window's thread raises)."""
    real = open_run(corpus_path("02-react-two-tools", "recording.json"))
    session = panel.session
    session.set_run(events_in_the_engine(real))
    index = next(i for i, span in enumerate(session.spans) if span.label == "Tool call 1")
    session.move_to_stop(index)
    session.flush()
    assert panel.note.text() == READING  # nothing folded here: the engine has not answered yet
    wait_for_state(qtbot, panel)
    span = session.spans[index]
    expected = context_at(ContextStates(real), session.position, span.stop, True,
                          session.spans[index - 1].end, session.spans[index - 1].stop)
    table = panel.table
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == [row.key for row in expected.rows]
    assert "2 entered, 2 changed, 0 left" in panel.note.text()
    table.setCurrentCell(0, 0)
    qtbot.waitUntil(lambda: not panel.detail.toPlainText().endswith("Reading…"), timeout=10_000)
    assert panel.detail.toPlainText().endswith(
        "\n\n" + ContextStates(real).value_text(expected.rows[0].key, expected.commit))


def test_an_answer_about_an_earlier_moment_is_dropped(qtbot):
    """Answers delivered out of order (the cursor moved on, the run was replaced): only the newest ask's is shown,
    and "Reading…" until it comes."""
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    session = Session()
    requests = RequestsByHand(run)
    panel = shown_alone(session, ContextPanel(session, requests))
    qtbot.addWidget(panel)
    panel.resize(600, 500)
    panel.show()
    session.set_run(run)
    first = next(i for i, span in enumerate(session.spans) if span.label == "Tool call 1")
    session.move_to_stop(first)
    session.flush()
    session.move_to_stop(0)
    session.flush()
    older, newer = requests.of_kind("context")[-2:]
    assert requests.asked[older][2]["position"] != requests.asked[newer][2]["position"]
    assert panel.note.text() == READING
    requests.answer(newer)
    shown = [panel.table.item(r, 0).text() for r in range(panel.table.rowCount())], panel.note.text()
    requests.answer(older)  # (late: the cursor moved on)
    assert panel.view.commit == requests.engine.answer("context", requests.asked[newer][2]).view.commit
    assert ([panel.table.item(r, 0).text() for r in range(panel.table.rowCount())], panel.note.text()) == shown
    assert "2 entered, 2 changed, 0 left" not in panel.note.text()  # (what the older answer would say)
    panel.table.setCurrentCell(0, 0)
    panel.table.setCurrentCell(1, 0)
    first_key, second_key = requests.of_kind("context_value")[-2:]
    requests.answer(second_key)
    requests.answer(first_key)  # (late: another key was chosen)
    assert panel.detail.toPlainText().startswith(panel.table.item(1, 0).text() + " ")
    assert panel.detail.toPlainText().endswith(requests.engine.answer("context_value", requests.asked[second_key][2]))
    session.move_to_stop(first)
    session.flush()
    asked_about_the_first_run = requests.of_kind("context")[-1]
    session.set_run(open_run(corpus_path("06-pause-resume", "recording.json")))
    session.flush()
    requests.answer(asked_about_the_first_run)  # (about the run shown before)
    assert panel.note.text() == READING and panel.view is None
