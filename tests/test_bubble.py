"""The pure chat-bubble model: the line at every cursor position equals agentfootprint's reference line for the
typed prefix that has happened there; prompts, answers, Trace-derived states, `all_lines` and §2.9 rollups."""

from __future__ import annotations

import pytest

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.model.bubble import BubbleModel, all_lines, rollups, template_key_used
from afp_desktop.core.formats import open_run
from afp_desktop.core.library.status import DEFAULT_TEMPLATES, render_status_line
from tests.corpus_util import CUSTOM_TEMPLATES, SCENARIOS, corpus_path, load_json

APP_NAME = "Ada"
CUSTOM = jsonio.loads(CUSTOM_TEMPLATES.read_bytes())

_runs: dict = {}


def recording(scenario: str):
    if scenario not in _runs:
        _runs[scenario] = open_run(str(corpus_path(scenario, "recording.json")))
    return _runs[scenario]


def trace(scenario: str):
    return open_run(str(corpus_path(scenario, "trace.json")))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_line_matches_reference_at_every_position(scenario):
    run = recording(scenario)
    reference = load_json(scenario, "ref.status.json")
    model = BubbleModel(run)
    seen = set()
    for position in range(len(run.axis) + 1):
        k = run.at(position)[1]
        seen.add(k)
        default = model.at(position, DEFAULT_TEMPLATES, APP_NAME)
        custom = model.at(position, CUSTOM, APP_NAME)
        assert (default.line, custom.line) == (reference[k]["line_default"], reference[k]["line_custom"]), (
            f"{scenario} position {position} (k={k})")
        assert default.hidden == (reference[k]["state"] is None)
        assert not default.derived
    assert seen == set(range(len(reference)))  # every typed prefix is reachable by some cursor position


def test_prompt_and_answer_follow_the_cursor():
    run = recording("02-react-two-tools")
    model = BubbleModel(run)
    start = model.at(0, DEFAULT_TEMPLATES, APP_NAME)
    assert start.prompt is None and start.answer is None
    end = model.at(len(run.axis), DEFAULT_TEMPLATES, APP_NAME)
    assert end.prompt == "Weather in Oslo in Fahrenheit?"
    assert end.answer == "It is 18°C (64°F) with light rain in Oslo."
    assert end.hidden


def test_sequence_prompt_is_the_users_not_an_inner_steps():
    end = BubbleModel(recording("07-flow-sequence")).at(10**9, DEFAULT_TEMPLATES, APP_NAME)
    assert end.prompt == "Is it raining in Bergen?"
    assert (end.answer, end.answer_source) == ("Summary: Bergen: 18°C, light rain.", "run.exit")


def test_template_key_used_follows_the_ladder():
    state = {"state": "tool", "toolName": "scan_repo", "vars": {"toolName": "scan_repo", "progressMessage": "x",
                                                                  "progressCount": "1"}}
    assert template_key_used(state, DEFAULT_TEMPLATES) == "tool.progress"
    assert template_key_used(state, CUSTOM) == "tool.scan_repo.progress"
    assert template_key_used(None, CUSTOM) is None
    assert template_key_used({"state": "idle", "vars": {}}, {}) is None


def test_trace_derives_llm_and_tool_states():
    run = trace("02-react-two-tools")
    model = BubbleModel(run)
    views = [model.at(p, DEFAULT_TEMPLATES, APP_NAME) for p in range(len(run.axis) + 1)]
    assert all(v.derived for v in views)
    lines = [v.line for v in views]
    assert "Thinking…" in lines and "Working on `get_weather`…" in lines and "Working on `convert_units`…" in lines
    assert not any(v.state and v.state["state"] in ("streaming", "paused") for v in views)
    assert views[0].prompt is None and views[-1].prompt == "Weather in Oslo in Fahrenheit?"
    assert views[-1].answer == "It is 18°C (64°F) with light rain in Oslo." and views[-1].hidden


@pytest.mark.parametrize("scenario", ["04-tool-progress", "05-streaming-tokens", "06-pause-resume", "15-large-run"])
@pytest.mark.parametrize("templates", [DEFAULT_TEMPLATES, CUSTOM], ids=["default", "custom"])
def test_all_lines_counts_add_up(scenario, templates):
    run = recording(scenario)
    uses = all_lines(run, templates, APP_NAME)
    # Naive: render every position and count where a non-hidden line starts; a streamed reply (consecutive
    # streaming positions) is one line, its last, counted where the stream starts.
    naive: dict[str, list[int]] = {}
    previous = None
    rows = [(p, run.status_at(p)) for p in range(len(run.axis) + 1)]
    folded = []
    for position, state in rows:
        streaming = state is not None and state.get("state") == "streaming"
        line = render_status_line(state, APP_NAME, templates)
        if streaming and folded and folded[-1][2]:
            folded[-1] = (folded[-1][0], line, True)
        else:
            folded.append((position, line, streaming))
    for position, line, _streaming in folded:
        if line is not None and line != previous:
            naive.setdefault(line, []).append(position)
        previous = line
    assert {u.line: u.positions for u in uses} == naive
    assert [u.line for u in uses] == list(naive)  # order of first appearance
    assert all(u.count == len(u.positions) and u.first_position == u.positions[0] for u in uses)
    assert sum(u.count for u in uses) == sum(len(v) for v in naive.values())


def test_all_lines_of_progress_run():
    uses = {u.line: u for u in all_lines(recording("04-tool-progress"), DEFAULT_TEMPLATES, APP_NAME)}
    assert "Cloning acme/api…" in uses
    assert "`walk_graph` reported progress (4 so far)…" in uses
    assert uses["Thinking…"].count == 3  # once per LLM call


def test_rollups_of_subflow_nodes():
    run = recording("07-flow-sequence")
    nodes = run.stepgraph["nodes"]
    root = rollups(run, 0)
    llm_starts = sum(1 for e in run.domain_events if e["type"] == "llm.start")
    assert (root.label, root.llm_calls, root.tool_calls) == ("Run", llm_starts, 1)
    assert root.duration_ms == nodes[0]["endOffsetMs"] - nodes[0]["startOffsetMs"]
    work = next(i for i, n in enumerate(nodes) if n["kind"] == "subflow" and n["label"] == "work")
    inside = rollups(run, work)
    assert (inside.llm_calls, inside.tool_calls) == (2, 1)
    assert inside.tokens_in > 0 and inside.duration_ms is not None
    open_ = rollups(run, work, upto=run.step_fold.node_created_at[work] + 1)
    assert open_.ended_at_ms is None and open_.duration_ms is None
    llm_node = next(i for i, n in enumerate(nodes) if n["kind"] == "user->llm")
    assert rollups(run, llm_node) is None  # only subflow nodes have boundaries


def test_rollups_count_loop_iterations():
    run = recording("10-flow-loop")
    root = rollups(run, 0)
    assert root.iterations == sum(1 for e in run.domain_events if e["type"] == "loop.iteration") > 0
    assert root.llm_calls == 3


@pytest.mark.parametrize("scenario", ["07-flow-sequence", "09-flow-conditional", "10-flow-loop"])
def test_a_composition_stream_shows_the_users_message_and_the_answer_its_recording_shows(scenario):
    """The typed stream of a composition has no run-level message; its first step's user message and its last
    step's reply are the same as the recording's run.entry and run.exit."""
    stream = open_run(str(corpus_path(scenario, "events.ndjson")))
    rec = open_run(str(corpus_path(scenario, "recording.json")))
    at_end = BubbleModel(stream).at(len(stream.axis), DEFAULT_TEMPLATES, APP_NAME)
    expected = BubbleModel(rec).at(len(rec.axis), DEFAULT_TEMPLATES, APP_NAME)
    assert expected.prompt and expected.answer
    assert (at_end.prompt, at_end.answer) == (expected.prompt, expected.answer)
    assert BubbleModel(stream).at(0, DEFAULT_TEMPLATES, APP_NAME).prompt is None  # not before it was sent
