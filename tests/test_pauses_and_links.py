"""Pauses (question, answer, wait; the chip on the paused tool's card, the timeline marker, the question under
the bubble) and links to a stop (`--at STAGE_ID` resolution, the copied command, the window opening there)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QPoint
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from afp_desktop.app.shell.gui import run_gui
from afp_desktop.app.features.stop_links import copy_link, open_at
from afp_desktop.core.formats import open_run
from afp_desktop.core.views.links import link_command, resolve_stage, shell_quote_path
from afp_desktop.core.views.pause_marks import format_wait, pause_at, pause_marks
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.model.timeline import x_of_position
from tests.corpus_util import corpus_path

QUESTION = "Refund $42.99 for order #123?"
LOAD_TIMEOUT = 30_000


# ── pause facts ───────────────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", ("recording.json", "events.ndjson"))
def test_pause_question_answer_and_wait(name):
    run = open_run(corpus_path("06-pause-resume", name))
    facts = Replay(run).facts
    (mark,) = pause_marks(run, facts.tool_node_by_call)
    assert mark.question == QUESTION and mark.answer == "Approved by Alice" and mark.waited_ms == 2
    assert mark.tool_name == "ask_human"
    node = run.stepgraph["nodes"][mark.node]
    assert node["kind"] == "llm->tool" and "ask_human" in node["label"]
    assert mark.position < mark.resume_position <= len(run.axis)
    assert pause_at([mark], mark.position - 1) is None
    assert pause_at([mark], mark.position) is mark and pause_at([mark], mark.resume_position) is None
    before = mark.tooltip(mark.position)
    assert QUESTION in before and "not given yet" in before and "Alice" not in before
    after = mark.tooltip(mark.resume_position)
    assert "Answer: Approved by Alice" in after and "Waited 2 ms" in after


CHECK_IN = "Deploy build 481 to production?"


def check_in_pause_file(tmp_path) -> str:
    """06-pause-resume with its pause asked the way a tool's check-in asks: the question in `prompt`, with the
    evidence beside it."""
    lines = corpus_path("06-pause-resume", "events.ndjson").read_text().splitlines()
    asked = {"kind": "checkin", "toolCallId": "tc-ask", "toolName": "ask_human", "prompt": CHECK_IN,
             "evidence": {"build": 481, "tests": "passed"}}
    out = []
    for line in lines:
        if '"agentfootprint.pause.request"' in line:
            event = json.loads(line)
            event["payload"]["questionPayload"] = asked
            line = json.dumps(event)
        out.append(line)
    path = tmp_path / "checkin.ndjson"
    path.write_text("\n".join(out) + "\n")
    return str(path)


def test_a_check_in_pause_asks_its_prompt_as_text(tmp_path):
    from afp_desktop.core.model.pause_question import question_in

    run = open_run(check_in_pause_file(tmp_path))
    (mark,) = pause_marks(run, Replay(run).facts.tool_node_by_call)
    assert mark.question == CHECK_IN and "{" not in mark.tooltip(mark.position)
    assert question_in({"request": {"question": "Go?"}}) == "Go?"  # asked inside a request object
    assert question_in({"severity": "high"}) == {"severity": "high"}  # no question: the payload, shown as JSON
    assert question_in(None) is None


def test_runs_without_pauses_and_traces_have_none():
    assert pause_marks(open_run(corpus_path("02-react-two-tools", "recording.json"))) == []
    assert pause_marks(open_run(corpus_path("06-pause-resume", "trace.json"))) == []  # no typed events


def test_format_wait():
    assert format_wait(2) == "2 ms"
    assert format_wait(1500) == "1.5 s"
    assert format_wait(125_000) == "2 min 5 s"
    assert format_wait(3 * 3600_000 + 60_000) == "3 h 1 min"


# ── links ─────────────────────────────────────────────────────────────────────────────────────────────────


def _run_and_spans(name="recording.json", scenario="02-react-two-tools"):
    run = open_run(corpus_path(scenario, name))
    return run, Replay(run).spans


def test_resolve_exact_enclosing_and_nearest():
    run, spans = _run_and_spans()
    ids = run.stage_ids_on_axis()
    exact = resolve_stage("call-llm#40", spans, ids)
    assert exact.exact and spans[exact.stop].label == "LLM turn 2" and "call-llm#40" in exact.message
    inside = resolve_stage("context#6", spans, ids)  # not a stop: its first event is inside Iteration 1's span
    assert not inside.exact and spans[inside.stop].label == "Iteration 1" and "not a stop" in inside.message
    first = ids.index("context#6") + 1
    assert spans[inside.stop].start < first <= spans[inside.stop].end
    nearest = resolve_stage("sf-messages#24", spans, ids)  # no such id: the same stage, nearest counter
    assert spans[nearest.stop].label == "Messages 2" and "nearest" in nearest.message
    nothing = resolve_stage("no-such-stage", spans, ids)
    assert nothing.stop == 0 and "no-such-stage" in nothing.message
    assert resolve_stage("x", [], []).stop is None


@pytest.mark.parametrize("name", ("recording.json", "events.ndjson", "trace.json"))
def test_every_stop_links_back_to_itself(name):
    run, spans = _run_and_spans(name)
    ids = run.stage_ids_on_axis()
    for span in spans:
        rid = span.stop.get("runtimeStageId")
        if rid:
            resolved = resolve_stage(rid, spans, ids)
            assert resolved.exact and spans[resolved.stop].stop.get("runtimeStageId") == rid


def words_in_bash(command: str) -> list[str]:
    """The arguments a real POSIX shell passes for `command` (its program swapped for printf)."""
    program, _, rest = command.partition(" ")
    assert program == "afp-desktop"
    out = subprocess.run(["bash", "-c", "printf '%s\\0' " + rest], capture_output=True, check=True,
                         env={"HOME": "/nowhere", "PATH": os.environ.get("PATH", "")}).stdout
    return out.decode("utf-8").split("\0")[:-1]


@pytest.mark.parametrize("path", ["/tmp/run.json", "/tmp/a b/it's \"odd\" $HOME `x` \\.json", "/tmp/ünï/ç.ndjson"])
def test_link_command_survives_the_shell(path):
    command = link_command(path, "sf-tools#11")
    assert command.startswith('afp-desktop "')
    assert words_in_bash(command) == [path, "--at", "sf-tools#11"]
    odd = link_command(path, "step a/b#3", "conv 1")
    assert words_in_bash(odd) == [path, "--conversation", "conv 1", "--at", "step a/b#3"]
    assert shell_quote_path("a$b") == '"a\\$b"'


# ── the window ────────────────────────────────────────────────────────────────────────────────────────────


def open_and_wait(qtbot, window, path, at=None):
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        if at is None:
            window.open_file(path)
        else:
            open_at(window, str(path), at)
    window.session.flush()


def test_pause_marked_in_graph_timeline_and_bubble(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("06-pause-resume", "recording.json"))
    session, canvas = window.session, window.canvas
    (mark,) = window.features["pauses"].marks
    session.move_to(mark.position - 1, immediate=True)
    assert canvas.art.pauses == {}
    bubble = window.panels["chat"]
    assert not bubble.pause_note.isVisibleTo(bubble)
    session.move_to(mark.position, immediate=True)
    assert canvas.art.pauses == {mark.node: QUESTION}
    assert QUESTION in canvas.node_items[mark.node].toolTip()
    assert bubble.status_text() == "Waiting on you: stage requested pause"  # the library's exact line stays
    assert bubble.pause_note.isVisibleTo(bubble) and QUESTION in bubble.pause_note.text()
    pauses = window.features["pauses"]
    qtbot.waitUntil(lambda: len(pauses.shown) == 1)  # the timeline is built after the load
    ((x, tip),) = pauses.shown
    assert "not given yet" in tip
    assert x == pytest.approx(x_of_position(window.timeline.panel.ends, mark.position))
    session.move_to(mark.resume_position, immediate=True)
    ((_x, tip),) = pauses.shown
    assert "Approved by Alice" in tip and "Waited 2 ms" in tip
    assert not bubble.pause_note.isVisibleTo(bubble)
    assert canvas.art.pauses == {mark.node: QUESTION}  # the chip stays on the card once it happened


def test_open_at_a_stage(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "recording.json"), at="tool-calls#44")
    session = window.session
    assert session.spans[session.stop_index].label == "Tool call 2"
    assert session.position == session.spans[session.stop_index].end
    qtbot.waitUntil(lambda: "Tool call 2" in window.statusBar().currentMessage())
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "events.ndjson"), at="no-such#1")
    qtbot.waitUntil(lambda: "nearest stop" in window.statusBar().currentMessage())


def test_at_from_the_command_line(qtbot, tmp_path, capsys):
    out = tmp_path / "at.png"
    assert run_gui(str(corpus_path("02-react-two-tools", "recording.json")), screenshot=str(out),
                   at="call-llm#62") == 0
    assert out.exists()
    assert "LLM turn 3 (stage call-llm#62)" in capsys.readouterr().err


def test_cli_rejects_at_without_a_file(capsys):
    from afp_desktop.cli import main

    assert main(["--at", "x#1"]) == 2
    assert "--at goes with one FILE" in capsys.readouterr().err
    assert main([str(corpus_path("02-react-two-tools", "events.ndjson")), "--at", "x#1", "--stop", "2",
                 "--screenshot", "x.png"]) == 2


def test_cli_at_with_a_screenshot(qtbot, tmp_path, capsys):
    from afp_desktop.cli import main

    out = tmp_path / "cli-at.png"
    assert main([str(corpus_path("02-react-two-tools", "events.ndjson")), "--at", "tool-calls#22",
                 "--screenshot", str(out)]) == 0
    assert out.exists()
    assert "Tool call 1 (stage tool-calls#22)" in capsys.readouterr().err


def test_copy_link_to_this_stop(qtbot, window):
    path = corpus_path("02-react-two-tools", "recording.json")
    open_and_wait(qtbot, window, path)
    session = window.session
    index = next(i for i, span in enumerate(session.spans) if span.label == "Tool call 1")
    session.move_to_stop(index)
    session.flush()
    QGuiApplication.clipboard().setText("before")
    window.action("copy_link").trigger()
    text = QGuiApplication.clipboard().text()
    assert shlex.split(text) == ["afp-desktop", str(path.resolve()), "--at", "tool-calls#22"]
    session.move_to_stop(0)
    session.flush()
    QGuiApplication.clipboard().setText("before")
    assert copy_link(window) is None  # Run start has no stage id
    assert QGuiApplication.clipboard().text() == "before"
    assert "no stage id" in window.statusBar().currentMessage()


def test_timeline_context_menu_copies_the_stop_under_the_mouse(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "recording.json"))
    timeline = window.timeline.panel
    index = next(i for i, label in enumerate(timeline.labels) if label == "LLM turn 1")
    low, high = timeline.view_range()
    assert low <= index <= high
    pos = timeline.canvas.point_of(index + 0.2).toPoint()
    timeline.canvas.customContextMenuRequested.emit(QPoint(pos.x(), pos.y()))
    menu = window.features["stop_links"].timeline_menu
    (action,) = menu.actions()
    assert action.text() == "Copy link to LLM turn 1" and action.isEnabled()
    action.trigger()
    menu.close()
    assert QGuiApplication.clipboard().text().endswith("--at call-llm#18")
    QApplication.processEvents()


# ── hostile ids and paths ─────────────────────────────────────────────────────────────────────────────────

_shell_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1,
                      max_size=40)


@settings(max_examples=25, deadline=None)  # (each example runs bash)
@given(path=_shell_text, stage=_shell_text)
def test_any_path_and_stage_id_survive_the_shell(path, stage):
    assert words_in_bash(link_command(path, stage)) == [path, "--at", stage]


@settings(max_examples=200, deadline=None)
@given(stage=st.text(max_size=30))
def test_any_stage_id_resolves_to_a_stop(stage):
    resolved = resolve_stage(stage, _SPANS, _IDS)
    assert resolved.stop is not None and 0 <= resolved.stop < len(_SPANS) and resolved.message


_RUN, _SPANS = _run_and_spans()
_IDS = _RUN.stage_ids_on_axis()
