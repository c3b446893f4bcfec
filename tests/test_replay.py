"""The replay model (core/replay.py) over every corpus run, at every position: spans tile the axis, stops own the
events that led to them, the bubble's stop lines are the library's status lines of the span, step states only
grow and agree with the bubble, the inspector never shows a fact from after the position, and errors are
reported where they became known."""

from __future__ import annotations

import pytest

from afp_desktop.core.formats import open_run
from afp_desktop.core.model.replay import ACTIVE, DONE, NOT_STARTED, Replay, node_facts
from afp_desktop.core.library.status import DEFAULT_TEMPLATES
from afp_desktop.core.library.stepgraph import build_step_graph_safe
from tests.corpus_util import CUSTOM_TEMPLATES, SCENARIOS, SMALL_SCENARIOS, corpus_path, load_json

from afp_desktop.core.jsonx import jsonio

FILES = ("events.ndjson", "trace.json", "recording.json")
# Single-agent runs: every LLM turn and tool call is a top-level milestone. (Compositions — 07, 09, 10 — nest them.)
SINGLE_AGENT = [s for s in SCENARIOS if s not in ("07-flow-sequence", "09-flow-conditional", "10-flow-loop",
                                                   "01-llmcall-single")]
_cache: dict = {}


def run_of(scenario: str, name: str):
    key = (scenario, name)
    if key not in _cache:
        _cache[key] = open_run(corpus_path(scenario, name)).prepare()
    return _cache[key]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_spans_tile_the_axis(scenario, name):
    run = run_of(scenario, name)
    replay = Replay(run)
    spans = replay.spans
    assert spans[0].start == 0 and spans[-1].end == len(run.axis)
    for before, after in zip(spans, spans[1:]):
        assert before.end == after.start and after.start <= after.end
    for position in range(len(run.axis)):  # every position is in exactly one stop's span
        index = replay.span_index(position)
        span = spans[index]
        assert span.start < position <= span.end or position == 0 == index
        owners = [s.index for s in spans if s.start < position <= s.end]
        assert position == 0 or owners[0] == index
    # the run's very end is its last stop, as opening the finished file shows it (several stops can end there)
    assert replay.span_index(len(run.axis)) == len(spans) - 1 == spans[-1].index
    replay.end()
    assert replay.span_index() == len(spans) - 1


@pytest.mark.parametrize("name", ("events.ndjson", "recording.json"))
@pytest.mark.parametrize("scenario", SINGLE_AGENT)
def test_tool_work_lies_in_tool_call_spans_and_tokens_in_llm_turns(scenario, name):
    run = run_of(scenario, name)
    replay = Replay(run)
    checked = 0
    for j, event in enumerate(run.typed_events):
        if event["type"] == "agentfootprint.error.fatal":
            break  # (23: a token still arrives after the run was aborted; it belongs to the run's end)
        kind = event["type"].removeprefix("agentfootprint.stream.")
        if kind not in ("tool_start", "tool_progress", "token"):
            continue
        span = replay.spans[replay.span_index(run.axis.typed_after[j])]
        expected = "LLM turn" if kind == "token" else "Tool call"
        assert span.label.startswith(expected), (j, kind, span.label)
        assert span.typed[0] < j + 1 <= span.typed[1]
        checked += 1
    assert checked


def _ref_lines(rows: list, typed: tuple[int, int], key: str) -> list[str]:
    lines: list[str] = []
    for row in rows[typed[0] + 1: typed[1] + 1]:
        line = row[key]
        if line is not None and (not lines or lines[-1] != line):
            lines.append(line)
    return lines


@pytest.mark.parametrize("name", ("events.ndjson", "recording.json"))
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stop_lines_are_the_reference_status_lines_of_the_span(scenario, name):
    run = run_of(scenario, name)
    rows = load_json(scenario, "ref.status.json")
    custom = jsonio.loads(CUSTOM_TEMPLATES.read_bytes())
    for templates, key in ((DEFAULT_TEMPLATES, "line_default"), (custom, "line_custom")):
        replay = Replay(run, templates, "Ada")
        seen = []
        for span in replay.spans:
            lines = list(replay.lines_of(span))
            assert lines == _ref_lines(rows, span.typed, key)
            seen += lines
        assert seen or scenario == "01-llmcall-single" and key == "line_custom"


def test_stepping_stop_by_stop_shows_every_line_of_the_sample():
    """Defect 1 of the issue: → from Home visited 22 stops that all said "No status bubble"."""
    run = open_run("sample_traces/tool-progress.recording.json")
    replay = Replay(run)
    replay.home()
    seen = []
    while replay.next_stop():
        moment = replay.moment()
        assert moment.at_stop
        seen += moment.bubble.stop_lines
    assert "Working on `scan_repo`…" in seen and "Cloning acme/api…" in seen and "Thinking…" in seen
    tool_call = next(s for s in replay.spans if s.label == "Tool call 1")
    assert replay.moment(tool_call.end).bubble.stop_lines[0] == "Working on `scan_repo`…"


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_step_states_grow_and_agree_with_the_bubble(scenario, name):
    run = run_of(scenario, name)
    replay = Replay(run)
    facts = replay.facts
    count = len(run.step_fold.nodes)
    previous = [NOT_STARTED] * count
    order = {NOT_STARTED: 0, ACTIVE: 1, DONE: 2}
    for position in range(len(run.axis) + 1):
        moment = replay.moment(position)
        states = [moment.node_state(i) for i in range(count)]
        assert all(order[a] <= order[b] for a, b in zip(previous, states)), position
        previous = states
        assert set(moment.active_nodes) == {i for i, s in enumerate(states) if s == ACTIVE}
        assert moment.done_nodes() == [i for i, s in enumerate(states) if s == DONE]
        state = moment.bubble.state
        if state is None or moment.bubble.derived and state.get("state") == "idle":
            continue
        kind = state.get("state")
        if kind == "tool":
            call_id = state["vars"].get("toolCallId")
            node = facts.tool_node_by_call.get(call_id)
            if node is not None:  # the card of the tool the bubble says is working is drawn active
                assert states[node] == ACTIVE, (position, call_id)
        elif kind in ("thinking", "streaming") and not any(e.kind in ("fatal", "run") for e in moment.errors):
            assert any(run.step_fold.nodes[i]["kind"] in ("user->llm", "tool->llm") for i in moment.active_nodes)


def test_graph_and_bubble_agree_at_the_tool_start():
    """Defect 2: at the event where the bubble says "Working on `scan_repo`…", the card was dimmed."""
    run = open_run("sample_traces/tool-progress.events.ndjson")
    replay = Replay(run)
    j = next(j for j, e in enumerate(run.typed_events) if e["type"] == "agentfootprint.stream.tool_start")
    moment = replay.moment(run.axis.typed_after[j])
    assert moment.bubble.line == "Working on `scan_repo`…"
    node = moment.current_node
    assert run.step_fold.nodes[node]["toolName"] == "scan_repo"
    assert moment.node_state(node) == ACTIVE


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("scenario", ["02-react-two-tools", "04-tool-progress", "06-pause-resume", "12-tool-throws",
                                      "07-flow-sequence", "21-stream-error"])
def test_the_inspector_never_shows_a_fact_from_after_the_position(scenario, name):
    run = run_of(scenario, name)
    replay = Replay(run)
    facts = replay.facts
    for position in range(len(run.axis) + 1):
        n_domain = facts.effective_domain[position]
        prefix, _note = build_step_graph_safe(run.domain_events[:n_domain])
        for index in range(len(facts.nodes)):
            known = node_facts(run, facts, index, position)
            if index >= len(prefix.nodes):
                assert known["state"] == NOT_STARTED and set(known) <= {"node", "index", "kind", "label", "state",
                                                                         "notKnownYet"}
                continue
            then = prefix.nodes[index]
            for key, value in known.items():
                if key in then:  # a field of the node: exactly what the fold of the events so far says
                    assert then[key] == value, (position, index, key)
            for key in set(known) - set(then) - {"node", "index", "kind", "label", "state", "notKnownYet",
                                                  "errorMessage"}:
                # a fact read from the step's end event: only once the step has ended
                assert known["state"] == DONE, (position, index, key)
            if "errorMessage" in known:
                assert any(e.node == index and e.position <= position for e in facts.errors)


def _positions_of(run, typed_type):
    return [run.axis.typed_after[j] for j, e in enumerate(run.typed_events) if e["type"] == typed_type]


@pytest.mark.parametrize("name", FILES)
def test_a_tool_error_is_reported_where_the_tool_ended(name):
    run = run_of("12-tool-throws", name)
    errors = Replay(run).facts.errors
    assert [e.kind for e in errors] == ["tool"]
    error = errors[0]
    assert error.message.startswith("database unavailable")
    node = run.step_fold.nodes[error.node]
    assert node["kind"] == "llm->tool" and error.node_id == node["id"]
    end = next(i for i, e in enumerate(run.domain_events) if e.get("type") == "tool.end" and e.get("error"))
    if run.typed_events is not None:
        j = next(j for j, e in enumerate(run.typed_events) if e["type"] == "agentfootprint.stream.tool_end"
                 and e["payload"].get("error"))
        assert error.position == run.axis.typed_after[j]
    else:
        assert error.position == run.axis.domain_after[end]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("scenario", ["21-stream-error", "23-abort-mid-stream"])
def test_a_failed_run_reports_its_error_where_it_became_known(scenario, name):
    run = run_of(scenario, name)
    replay = Replay(run)
    errors = replay.facts.errors
    assert len(errors) == 1
    error = errors[0]
    if run.typed_events is not None:
        assert error.kind == "fatal"
        exits = [run.axis.domain_after[i] for i, e in enumerate(run.domain_events) if e.get("type") == "run.exit"]
        assert error.position == min(_positions_of(run, "agentfootprint.error.fatal") + exits)
        fatal = next(e for e in run.typed_events if e["type"] == "agentfootprint.error.fatal")
        assert error.message == fatal["payload"]["error"]
        node = run.step_fold.nodes[error.node]
        assert node["kind"] in ("user->llm", "tool->llm") and "endOffsetMs" not in node  # the call that failed
    else:
        assert error.kind == "run" and error.node_id == "__root__#0"
        exit_index = next(i for i, e in enumerate(run.domain_events) if e.get("type") == "run.exit")
        assert error.position == run.axis.domain_after[exit_index]
    assert not replay.moment(error.position - 1).errors
    moment = replay.moment(error.position)
    assert moment.errors == (error,) and moment.bubble.error == error.message
    assert any(n.code == "failed" for n in run.all_notices())
    assert not any(n.code == "incomplete" for n in run.all_notices())


@pytest.mark.parametrize("scenario", [s for s in SMALL_SCENARIOS if s not in ("12-tool-throws", "21-stream-error",
                                                                              "23-abort-mid-stream")])
def test_runs_without_errors_report_none(scenario):
    for name in FILES:
        assert Replay(run_of(scenario, name)).facts.errors == []


def test_replay_moves_like_the_keys():
    run = run_of("02-react-two-tools", "recording.json")
    replay = Replay(run)
    assert replay.position == len(run.axis)
    replay.end()
    assert replay.moment().stop.label == "Run end" and replay.moment().at_stop
    replay.home()
    assert replay.position == 0 and replay.moment().stop.index == 0 and not replay.moment().at_stop
    assert replay.next_stop() and replay.moment().stop.index == 0 and replay.moment().at_stop
    llm = next(s for s in replay.spans if s.label == "LLM turn 1")
    route = replay.spans[llm.index + 1]
    assert route.end == llm.end  # a Route shares its LLM turn's position: → visits both
    replay.move_to_stop(llm.index)
    assert replay.next_stop() and replay.moment().stop.index == route.index
    replay.step_events(1)
    moment = replay.moment()
    assert not moment.at_stop and moment.describe().startswith(f"in {replay.spans[route.index + 1].label} · ")
    assert replay.previous_stop() and replay.moment().stop.index == route.index
    replay.play()
    while replay.tick():
        pass
    assert not replay.playing and replay.position == len(run.axis)
