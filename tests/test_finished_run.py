"""At the end of a finished run no step is still in progress; a step the fold never closed ends where its own end
event (or the next leg of the run) says, and a run whose end is not in the file keeps its open steps open."""

from __future__ import annotations

import json

import pytest

from afp_desktop import cli
from afp_desktop.core.formats import open_run
from afp_desktop.core.formats.assemble import run_from_typed
from afp_desktop.core.model.replay import ACTIVE, DONE, Replay, node_facts
from tests.corpus_util import corpus_path
from tests.parallel_run import parallel_run

ENDED_WITH_OPEN_STEPS = [("06-pause-resume", "trace.json"), ("06-pause-resume", "recording.json"),
                         ("21-stream-error", "events.ndjson"), ("21-stream-error", "trace.json"),
                         ("23-abort-mid-stream", "events.ndjson"), ("23-abort-mid-stream", "recording.json")]


@pytest.mark.parametrize("scenario, name", ENDED_WITH_OPEN_STEPS)
def test_view_at_the_end_of_a_finished_run_lists_no_active_step(scenario, name, capsys):
    path = str(corpus_path(scenario, name))
    length = len(open_run(path).axis)
    assert cli.main(["view", path, "--position", str(length)]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["graph"]["active"] == []
    assert view["inspector"] == {} or view["inspector"]["state"] != ACTIVE


def test_a_parallel_branch_llm_call_ends_at_its_own_end_event():
    run = parallel_run()
    replay = Replay(run)
    facts = replay.facts
    nodes = facts.nodes
    first = next(i for i, n in enumerate(nodes) if n["id"] == "step-llm-start-fan/agentA/call-llm#16-1")
    ended = facts.ended[first]
    assert ended is not None
    end_event = run.domain_events[ended]
    assert (end_event["type"], end_event["runtimeStageId"]) == ("llm.end", "fan/agentA/call-llm#16")
    # known only from its end on: active just before, done right after
    assert facts.node_state(first, ended) == ACTIVE and facts.node_state(first, ended + 1) == DONE
    assert node_facts(run, facts, first, replay.length)["state"] == DONE
    assert replay.moment(replay.length).active_nodes == ()


def test_an_earlier_leg_run_box_ends_where_the_next_leg_begins():
    run = open_run(corpus_path("06-pause-resume", "trace.json"))
    facts = Replay(run).facts
    boxes = [i for i, n in enumerate(facts.nodes) if n["kind"] == "subflow" and n["id"].startswith("__root__")]
    assert len(boxes) == 2
    first_leg = boxes[0]
    ended = facts.ended[first_leg]
    assert ended is not None and run.domain_events[ended]["type"] == "run.entry"
    assert ended > facts.created[first_leg]


def test_a_run_cut_before_its_end_keeps_its_open_steps_open():
    lines = corpus_path("02-react-two-tools", "events.ndjson").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    cut = next(i for i, e in enumerate(events) if e["type"] == "agentfootprint.stream.tool_start") + 1
    run = run_from_typed(events[:cut], "cut.ndjson", "ndjson", [])
    replay = Replay(run)
    moment = replay.moment(replay.length)
    assert run.run_ends.final.reason == "unknown"
    assert moment.active_nodes  # the tool call is still running when the file ends
    assert nodes_kinds(run, moment.active_nodes) >= {"llm->tool"}


def test_a_failed_run_says_its_cut_step_failed_not_done():
    from afp_desktop.core.views.inspect import inspect_node

    run = open_run(corpus_path("21-stream-error", "events.ndjson"))
    replay = Replay(run)
    moment = replay.moment(replay.length)
    page = inspect_node(run, replay.facts, moment.current_node, replay.length)
    rows = {row["label"]: row["value"] for section in page["sections"] if section.get("title") == "Step"
            for row in section["rows"]}
    assert rows["state"] == "failed (it never ended)"


def nodes_kinds(run, indices) -> set[str]:
    return {run.step_fold.nodes[i]["kind"] for i in indices}


def test_a_typed_stream_parallel_closes_each_branch_call_at_its_own_end():
    from tests.facts_run import Stream

    s = Stream()

    def add(event_type, stage, path, /, **payload):
        s.add(event_type, stage, **payload)
        s.events[-1]["meta"].update(subflowPath=path, compositionPath=["Parallel:fan", *path[1:]])

    add("composition.enter", "fan#1", [], kind="Parallel", id="fan", name="fan", childCount=2)
    s.events[-1]["meta"]["compositionPath"] = ["Parallel:fan"]
    a, b = ["fan", "Agent:a"], ["fan", "Agent:b"]
    add("stream.llm_start", "fan/a/call-llm#5", a, iteration=1, provider="mock", model="m")
    add("stream.llm_start", "fan/b/call-llm#6", b, iteration=1, provider="mock", model="m")
    add("stream.llm_end", "fan/a/call-llm#5", a, iteration=1, content="A", toolCallCount=1,
        usage={"input": 1, "output": 1}, stopReason="tool_use", durationMs=1)
    add("stream.tool_start", "fan/a/tool-calls#7", a, toolName="t", toolCallId="ta", args={})
    add("stream.llm_end", "fan/b/call-llm#6", b, iteration=1, content="B", toolCallCount=0,
        usage={"input": 1, "output": 1}, stopReason="stop", durationMs=1)
    add("stream.tool_end", "fan/a/tool-calls#7", a, toolCallId="ta", result="ok", durationMs=1)
    add("composition.exit", "fan#1", [], kind="Parallel", id="fan", status="ok", durationMs=9)
    s.events[-1]["meta"]["compositionPath"] = ["Parallel:fan"]
    run = s.run()
    replay = Replay(run)
    assert run.run_ends.final.reason == "completed"
    assert replay.moment(replay.length).active_nodes == ()
    facts = replay.facts
    llm_a = next(i for i, n in enumerate(facts.nodes) if n.get("runtimeStageId") == "fan/a/call-llm#5")
    assert run.domain_events[facts.ended[llm_a]]["runtimeStageId"] == "fan/a/call-llm#5"
