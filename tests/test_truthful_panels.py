"""Each panel renders the moment it is given, and the defects of "Truthful time travel" stay gone: the bubble
lists the lines seen during a stop, the card of a working tool is drawn active, the inspector says what is not
known yet, errors get a badge, a marker, a message under the bubble, a clickable count and a banner."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from afp_desktop.core.formats import open_run
from afp_desktop.core.model.replay import ACTIVE, Replay
from afp_desktop.core.views.window_copy import whole_run
from tests.corpus_util import corpus_path
from tests.inspector_reading import read

LOAD_TIMEOUT = 30_000
SAMPLE = "sample_traces/tool-progress.recording.json"


def open_and_wait(qtbot, window, path) -> None:
    with qtbot.waitSignal(window.loader.loaded, timeout=LOAD_TIMEOUT):
        window.open_file(str(path))
    window.session.flush()


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(QApplication.focusWidget() or window, key, modifier)
    window.session.flush()


def test_stepping_stop_by_stop_previews_every_line_the_user_saw(qtbot, window):
    open_and_wait(qtbot, window, SAMPLE)
    chat = window.panels["chat"]
    press(qtbot, window, Qt.Key.Key_Home)
    seen: list[str] = []
    for _ in range(len(window.session.spans)):
        press(qtbot, window, Qt.Key.Key_Right)
        moment = window.session.moment
        assert chat.view is moment.bubble  # the panel renders the moment it was given
        if moment.bubble.stop_lines:
            shown = chat.seen_lines.text().split("\n")
            assert shown == [f"• {line}" for line in moment.bubble.stop_lines]
            assert chat.seen_lines.isVisibleTo(chat) and moment.stop.label in chat.seen_lines.title()
        seen += moment.bubble.stop_lines
    assert {"Thinking…", "Working on `scan_repo`…", "Cloning acme/api…", "Working on `walk_graph`…"} <= set(seen)


def test_editing_a_template_updates_the_lines_of_the_stop(qtbot, window):
    open_and_wait(qtbot, window, SAMPLE)
    session = window.session
    tool_call = next(span for span in session.spans if span.label == "Tool call 1")
    session.move_to_stop(tool_call.index)
    session.flush()
    templates = dict(session.templates)
    templates["tool"] = "Busy with {{toolName}}"
    session.set_templates(templates)
    assert "• Busy with scan_repo" in window.panels["chat"].seen_lines.text()


def test_the_working_tools_card_is_drawn_active_while_the_bubble_says_so(qtbot, window):
    open_and_wait(qtbot, window, "sample_traces/tool-progress.events.ndjson")
    run = window.session.run
    j = next(j for j, e in enumerate(whole_run(run).typed_events) if e["type"] == "agentfootprint.stream.tool_start")
    window.session.move_to(run.axis.typed_after[j], immediate=True)
    chat, canvas = window.panels["chat"], window.canvas
    assert chat.status_text() == "Working on `scan_repo`…"
    node = canvas.current
    assert run.step_fold.nodes[node]["toolName"] == "scan_repo"
    assert node in canvas.art.active and canvas.happened[node]
    assert window.session.moment.node_state(node) == ACTIVE


def test_the_inspector_says_what_is_not_known_yet(qtbot, window):
    open_and_wait(qtbot, window, SAMPLE)
    session, run = window.session, window.session.run
    inspector = window.panels["inspector"]
    llm = next(i for i, n in enumerate(run.step_fold.nodes) if n["kind"] == "user->llm")
    start = run.axis.domain_after[run.step_fold.node_created_at[llm]]
    session.select_node(llm)
    session.move_to(start, immediate=True)
    read(qtbot, inspector)
    assert "tokens" not in inspector.node and "endOffsetMs" not in inspector.node
    assert "not known yet" in inspector.note.text()
    assert not any(inspector.fields.itemAt(r, inspector.fields.ItemRole.LabelRole).widget().text() in
                   ("tokens", "stop reason") for r in range(inspector.fields.rowCount()))
    session.move_to(len(run.axis), immediate=True)
    read(qtbot, inspector)
    assert "tokens" in inspector.node and not inspector.note.isVisible()


def test_a_failed_run_shows_its_error_everywhere(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("21-stream-error", "recording.json"))
    session, run = window.session, window.session.run
    error = Replay(run).facts.errors[0]
    # the banner says the run failed and why, not "never reached its end"
    assert any(text.startswith("The run failed: ") for text in window.banner.texts)
    assert not any("never reached its end" in text for text in window.banner.texts)
    # the header's count is a button with the errors in its tooltip; it jumps to the first error
    button = window.summary.errors
    assert button.text() == "1 error" and button.isEnabled() and "reach the AI model" in button.toolTip()
    session.move_to(0, immediate=True)
    assert not window.canvas.art.errors and window.panels["chat"].view.error is None
    button.click()
    session.flush()
    assert session.position == error.position and session.selected == error.node
    assert window.canvas.art.errors == {error.node: error.message}
    chat = window.panels["chat"]
    assert chat.error_note.isVisibleTo(chat) and error.message in chat.error_note.text()
    assert chat.status_text() is not None  # the library's line stays exactly what it was (streaming)
    assert len(window.timeline.panel.error_positions) == 1


def test_a_trace_of_a_failed_run_counts_its_error(qtbot, window):
    open_and_wait(qtbot, window, corpus_path("21-stream-error", "trace.json"))
    assert window.summary.errors.text() == "1 error"
    assert any(text.startswith("The run failed: socket hang up") for text in window.banner.texts)


def test_the_ring_sits_on_the_slot_chip_at_a_system_prompt_stop(qtbot, window):
    open_and_wait(qtbot, window, SAMPLE)
    session, run = window.session, window.session.run
    for span in session.spans:
        if span.label.startswith(("System prompt", "Messages", "Tools ")) or span.label == "Tools":
            session.move_to_stop(span.index)
            session.flush()
            node = run.step_fold.nodes[window.canvas.current]
            assert node["kind"] == "fork-branch"
            assert node["label"].lower() == span.label.rsplit(" ", 1)[0].lower() or \
                node["label"].lower() == span.label.lower()


def test_a_warning_shows_once_among_the_banners(qtbot, window, tmp_path):
    """A Trace whose llm.end carries no usage: the StepGraph note was shown twice."""
    import json

    trace = json.loads(corpus_path("01-llmcall-single", "trace.json").read_bytes())
    for event in trace["events"]:
        if event["type"] == "llm.end":
            del event["usage"]
    path = tmp_path / "no-usage.trace.json"
    path.write_text(json.dumps(trace))
    open_and_wait(qtbot, window, path)
    texts = window.banner.texts
    assert len(texts) == len(set(texts))
    assert any("usage" in text for text in texts)


def test_the_slider_keeps_its_length_whatever_the_text_beside_it(qtbot, window):
    open_and_wait(qtbot, window, SAMPLE)
    widths = set()
    for position in (0, 5, 41, 60, len(window.session.run.axis)):
        window.session.move_to(position, immediate=True)
        QApplication.sendPostedEvents()  # the layout requests the new texts made, served
        widths.add(window.timeline.panel.slider.width())
    assert len(widths) == 1


def test_the_core_moment_and_the_command_line_agree():
    run = open_run(corpus_path("21-stream-error", "events.ndjson"))
    replay = Replay(run)
    moment = replay.moment(len(run.axis))
    view = moment.as_json()
    assert view["errors"][0]["kind"] == "fatal"
    # the failed call is the step the moment is about; the run is over, so it is no longer in progress
    assert view["graph"]["current"] in view["graph"]["done"] and view["graph"]["active"] == []


def test_a_card_shows_tokens_and_time_only_once_its_step_has_ended(qtbot, window):
    """The graph never shows what was not known then: an LLM call in progress has no token count on its card."""
    from PySide6.QtCore import QRectF

    open_and_wait(qtbot, window, SAMPLE)
    session, run, art = window.session, window.session.run, window.canvas.art
    llm = next(i for i, n in enumerate(run.step_fold.nodes) if n["kind"] == "user->llm")
    box = art.layout.nodes[llm]
    rect = QRectF(box.x, box.y, box.w, box.h)
    session.move_to(run.axis.domain_after[run.step_fold.node_created_at[llm]], immediate=True)
    assert window.session.moment.node_state(llm) == ACTIVE
    # private: the texts a card paints (its picture cannot be read back as text)
    title, _corner, _detail, footer, duration = art._texts_for(llm, rect)
    assert footer == "" and duration == ""
    session.move_to(len(run.axis), immediate=True)
    _title, _corner, _detail, footer, _duration = art._texts_for(llm, rect)  # private: as above
    assert "in" in footer and "out" in footer  # "10 in · 6 out"


def test_a_failed_step_reads_failed_not_in_progress():
    from afp_desktop.core.views.inspect import inspect_node

    run = open_run(corpus_path("21-stream-error", "recording.json"))
    replay = Replay(run)
    error = replay.facts.errors[0]
    model = inspect_node(run, replay.facts, error.node, len(run.axis))
    step = next(section for section in model["sections"] if section.get("title") == "Step")
    assert {"label": "state", "value": "failed (it never ended)"} in step["rows"]
    before = inspect_node(run, replay.facts, error.node, error.position - 1)
    step = next(section for section in before["sections"] if section.get("title") == "Step")
    assert {"label": "state", "value": "in progress"} in step["rows"]  # before the failure was known


def test_a_step_a_failed_trace_never_ended_is_not_said_done_at_the_end():
    """A Trace cut short by a failure: its last LLM call never ended. At the run's end the graph draws it finished
    (nothing runs after the end), but the inspector's state says it never ended, as its timing does."""
    from afp_desktop.core.views.inspect import inspect_node
    from afp_desktop.engine.service import load_run

    run = load_run(str(corpus_path("23-abort-mid-stream", "trace.json")))
    facts = run.replay_facts
    never = [i for i, end in enumerate(facts.ended) if end is None and run.stepgraph["nodes"][i]["kind"] != "run"]
    assert never
    for index in never:
        model = inspect_node(run, facts, index)
        step = next(section for section in model["sections"] if section.get("title") == "Step")
        state = next(row["value"] for row in step["rows"] if row["label"] == "state")
        assert state in ("failed (it never ended)", "cut short: it never ended (the run failed)"), state
