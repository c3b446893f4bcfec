"""core/inspect.py: what each step saw, sent and received, as known at a position — over every corpus run."""

from __future__ import annotations

import json
from bisect import bisect_right
import random
import subprocess
import sys

import pytest

from afp_desktop import cli
from afp_desktop.core.formats import open_run
from afp_desktop.core.views.inspect import chip_call, chip_slot, inspect_node, pauses, word_diff
from afp_desktop.core.model.replay import LLM_KINDS, ReplayFacts
from afp_desktop.core.model.run import Run
from tests.corpus_util import SMALL_SCENARIOS, corpus_path

FILES = ("trace.json", "recording.json", "events.ndjson")
_runs: dict = {}


def loaded(scenario: str, name: str):
    key = (scenario, name)
    if key not in _runs:
        run = open_run(str(corpus_path(scenario, name)))
        _runs[key] = (run, ReplayFacts(run))
    return _runs[key]


def section(model: dict, prefix: str) -> dict | None:
    return next((s for s in model["sections"] if s["title"].startswith(prefix)), None)


def fact(model: dict, title: str, label: str) -> str | None:
    found = section(model, title)
    return next((r["value"] for r in found["rows"] if r["label"] == label), None) if found else None


def known_from(facts, domain_index: int) -> int:
    """The first axis position at which DomainEvent `domain_index` counts as happened."""
    return bisect_right(facts.effective_domain, domain_index)


def check_shape(model: dict) -> None:
    assert set(model) >= {"node", "kind", "sections"}
    for part in model["sections"]:
        assert isinstance(part["title"], str) and part["title"]
        assert ("text" in part) != ("rows" in part), part
        if "text" in part:
            assert isinstance(part["text"], str)
        else:
            assert all(isinstance(row, dict) and all(isinstance(v, str) for v in row.values())
                       for row in part["rows"]), part
    json.dumps(model)  # the CLI prints it


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_every_node_at_every_stop_is_readable(scenario, name):
    run, facts = loaded(scenario, name)
    positions = sorted({0, len(run.axis), *(int(s.get("axisEnd", 0)) for s in run.stops)})
    for position in positions:
        for index in range(len(facts.nodes)):
            check_shape(inspect_node(run, facts, index, position))


@pytest.mark.parametrize("name", ("trace.json", "recording.json"))
@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_slot_chips_show_their_content(scenario, name):
    run, facts = loaded(scenario, name)
    chips = [i for i, node in enumerate(facts.nodes) if chip_slot(node)]
    for index in chips:
        slot = chip_slot(facts.nodes[index])
        call = chip_call(run, index)
        assert call is not None and facts.nodes[call]["kind"] in LLM_KINDS
        boundaries = facts.nodes[call]["slotBoundaries"]
        model = inspect_node(run, facts, index)
        assert fact(model, "Context slot", "for the call").endswith(f"#{facts.nodes[call]['iterationIndex']}")
        if slot == "system-prompt":
            prompt = section(model, "System prompt ·")
            assert prompt["text"].strip()
            raw = boundaries["systemPrompt"]["exitPayload"]["systemPromptInjections"][0]["rawContent"]
            assert raw in prompt["text"]
            assert f"{len(prompt['text']):,} characters" in prompt["title"]
        elif slot == "messages":
            messages = section(model, "Messages ·")
            expected = boundaries["messages"]["exitPayload"]["messages"]
            assert [row["role"] for row in messages["rows"]] == [m["role"] for m in expected]
            assert messages["rows"][0]["text"]
        else:
            names = [t["name"] for t in boundaries["tools"]["exitPayload"]["toolSchemas"]]
            if not names:  # an agent without tools
                assert section(model, "Tools")["text"] == "No tools were offered to this call."
                continue
            tools = section(model, "Tools ·")
            assert [row["name"] for row in tools["rows"]] == names
            assert all(row["description"] and row["schema"].startswith("{") for row in tools["rows"])
        assert section(model, "Injections into the")["rows"]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_system_prompt_length_is_what_the_call_was_sent(scenario, name):
    """The composed prompt is the slot's pieces joined by a blank line: its length is llm.start's count."""
    run, facts = loaded(scenario, name)
    checked = 0
    for index, node in enumerate(facts.nodes):
        begin = run.domain_events[facts.created[index]]
        if node["kind"] in LLM_KINDS and isinstance(begin.get("systemPromptChars"), int):
            prompt = section(inspect_node(run, facts, index), "System prompt ·")
            assert prompt is not None, (scenario, name, index)
            assert len(prompt["text"]) == begin["systemPromptChars"]
            checked += 1
    assert checked or name == "trace.json"  # (a Trace's llm.start has the counts too, where the run had them)


@pytest.mark.parametrize("name", ("trace.json", "events.ndjson"))
@pytest.mark.parametrize("scenario", ["02-react-two-tools", "03-parallel-tool-batch", "12-tool-throws"])
def test_a_tool_result_is_shown_only_once_the_call_returned(scenario, name):
    run, facts = loaded(scenario, name)
    tools = [i for i, node in enumerate(facts.nodes) if node["kind"] == "llm->tool"]
    assert tools
    for index in tools:
        returned_at = known_from(facts, facts.ended[index])
        started_at = known_from(facts, facts.created[index])
        for position in range(len(run.axis) + 1):
            model = inspect_node(run, facts, index, position)
            result = section(model, "Result")
            if position < started_at:
                assert [s["style"] for s in model["sections"]] == ["note"]
            elif position < returned_at:
                assert result is None and section(model, "Arguments") is not None
                assert fact(model, "Step", "took") is None
            else:
                assert result is not None and result["text"], (index, position)


def test_a_finished_tool_call_shows_arguments_result_and_timing():
    run, facts = loaded("02-react-two-tools", "trace.json")
    index = next(i for i, n in enumerate(facts.nodes) if n.get("toolName") == "get_weather")
    model = inspect_node(run, facts, index)
    assert json.loads(section(model, "Arguments")["text"]) == {"city": "Oslo"}
    assert section(model, "Result")["text"] == "Oslo: 18°C, light rain"
    assert fact(model, "Step", "took") == "4 ms"
    assert section(model, "The assistant said")["text"] == "Let me check the weather."


def test_a_thrown_tool_shows_its_error():
    run, facts = loaded("12-tool-throws", "trace.json")
    index = next(i for i, n in enumerate(facts.nodes) if n["kind"] == "llm->tool" and facts.ended[i] is not None
                 and run.domain_events[facts.ended[i]].get("error"))
    model = inspect_node(run, facts, index)
    failed = section(model, "Result (the tool failed)")
    assert failed["style"] == "error" and "database unavailable" in failed["text"]
    assert sum(s["style"] == "error" for s in model["sections"]) == 1


@pytest.mark.parametrize("name", ("recording.json", "events.ndjson"))
def test_pause_question_answer_and_wait(name):
    run, facts = loaded("06-pause-resume", name)
    (pause,) = pauses(run)
    index = next(i for i, n in enumerate(facts.nodes) if n.get("toolName") == "ask_human")
    asked_at, answered_at = run.axis.typed_after[pause["request"]], run.axis.typed_after[pause["resume"]]

    at_end = inspect_node(run, facts, index)
    assert fact(at_end, "Paused for a person", "question") == "Refund $42.99 for order #123?"
    assert fact(at_end, "Paused for a person", "answer") == "Approved by Alice"
    assert fact(at_end, "Paused for a person", "waited") == "2 ms"
    assert fact(at_end, "Paused for a person", "library's reason") == "stage requested pause"

    waiting = inspect_node(run, facts, index, asked_at)
    assert fact(waiting, "Paused for a person", "answer").startswith("not given yet")
    assert fact(waiting, "Paused for a person", "waited") is None
    assert section(waiting, "Result") is None
    assert section(inspect_node(run, facts, index, asked_at - 1), "Paused") is None
    assert fact(inspect_node(run, facts, index, answered_at), "Paused for a person", "answer") == "Approved by Alice"


def test_run_start_and_end():
    run, facts = loaded("02-react-two-tools", "trace.json")
    exit_at = known_from(facts, facts.ended[0])
    model = inspect_node(run, facts, 0)
    assert section(model, "What the user sent")["text"] == "Weather in Oslo in Fahrenheit?"
    assert section(model, "Final answer")["text"] == "It is 18°C (64°F) with light rain in Oslo."
    before = inspect_node(run, facts, 0, exit_at - 1)
    assert section(before, "Final answer") is None
    assert section(before, "What the user sent") is not None


def test_a_failed_run_says_so_on_the_run_card():
    events = [
        {"type": "run.entry", "runtimeStageId": "__root__#0", "subflowPath": ["__root__"], "ts": 0,
         "payload": {"message": "hi"}},
        {"type": "llm.start", "runtimeStageId": "call-llm#1", "subflowPath": ["__root__"], "ts": 1},
        {"type": "run.exit", "runtimeStageId": "__root__#0", "subflowPath": ["__root__"], "ts": 2,
         "payload": {"error": "provider exploded"}},
    ]
    run = run_of(events)
    facts = ReplayFacts(run)
    model = inspect_node(run, facts, 0)
    assert "provider exploded" in section(model, "The run failed")["text"]
    assert section(model, "Final answer") is None


def test_changes_since_the_previous_call():
    run, facts = loaded("14-context-injections", "trace.json")
    calls = [i for i, n in enumerate(facts.nodes) if n["kind"] in LLM_KINDS]
    assert section(inspect_node(run, facts, calls[0]), "Changed since") is None
    rows = section(inspect_node(run, facts, calls[1]), "Changed since")["rows"]
    changes = {(r["change"], r["what"].split(":")[0]) for r in rows}
    assert ("tool entered", "process_refund") in changes
    assert ("message added", "assistant") in changes
    prompt = next(r["what"] for r in rows if r["change"] == "system prompt changed")
    assert "{+Confirm the order id" in prompt and "[-" not in prompt


def test_word_diff():
    assert word_diff("a b c", "a x c") == "a [-b-] {+x+} c"
    assert word_diff("one two", "one two") == "one two"
    long = " ".join(str(i) for i in range(40))
    assert "…" in word_diff(long, long + " end") and word_diff(long, long + " end").endswith("{+end+}")


def test_an_llm_call_shows_the_response_only_once_it_returned():
    run, facts = loaded("02-react-two-tools", "recording.json")
    index = next(i for i, n in enumerate(facts.nodes) if n["kind"] in LLM_KINDS)
    ended_at = known_from(facts, facts.ended[index])
    assert section(inspect_node(run, facts, index, ended_at - 1), "Response") is None
    assert fact(inspect_node(run, facts, index, ended_at - 1), "Step", "tokens") is None
    assert section(inspect_node(run, facts, index, ended_at), "Response")["text"] == "Let me check the weather."
    messages = section(inspect_node(run, facts, index, ended_at - 1), "Messages ·")
    assert messages["rows"] == [{"role": "user", "label": "user", "text": "Weather in Oslo in Fahrenheit?"}]


def test_a_slot_chip_before_its_slot_closed_shows_no_content():
    run, facts = loaded("02-react-two-tools", "trace.json")
    index = next(i for i, n in enumerate(facts.nodes) if chip_slot(n) == "system-prompt")
    created_at = known_from(facts, facts.created[index])
    early = inspect_node(run, facts, index, created_at)
    assert section(early, "System prompt ·") is None
    assert any(s["style"] == "note" for s in early["sections"])


def test_hostile_payloads_never_break_inspect():
    """Slot payloads, tool args and results of every JSON type, at random, still give a readable model."""
    rng = random.Random(15)
    base = open_run(str(corpus_path("02-react-two-tools", "trace.json")))
    values = [None, 0, -1.5, True, "", "x" * 5000, [], {}, [None, {"role": 3}], {"messages": "no"},
              {"toolSchemas": [1, {"name": None}]}, {"systemPromptInjections": [{"rawContent": 7}]},
              {"content": [{"text": 1}, "part"]}, "<b>not markup</b>"]
    for _round in range(30):
        events = [dict(e) for e in base.domain_events]
        for event in events:
            for key in ("payload", "args", "result", "content", "model", "toolName", "childName"):
                if key in event and rng.random() < 0.4:
                    event[key] = rng.choice(values)
        run = run_of(events)
        facts = ReplayFacts(run)
        for index in range(len(facts.nodes)):
            check_shape(inspect_node(run, facts, index, rng.randrange(len(run.axis) + 1)))


def run_of(events):
    return Run(path="fuzz.json", format="trace", typed_events=None, domain_events=events, domain_source="trace")


# ── the CLI ──────────────────────────────────────────────────────────────────────────────────────────────


def test_cli_inspect_prints_the_model(capsysbinary):
    path = corpus_path("06-pause-resume", "recording.json")
    run, facts = loaded("06-pause-resume", "recording.json")
    index = next(i for i, n in enumerate(facts.nodes) if n.get("toolName") == "ask_human")
    assert cli.main(["inspect", str(path), "--node", str(index), "--position", "90"]) == 0
    printed = json.loads(capsysbinary.readouterr().out)
    assert printed == json.loads(json.dumps(inspect_node(run, facts, index, 90)))
    assert printed["node"] == facts.nodes[index]["id"]


def test_cli_inspect_bad_arguments_are_clear(capsysbinary):
    path = str(corpus_path("01-llmcall-single", "trace.json"))
    assert cli.main(["inspect", path, "--node", "99"]) == 2
    assert b"--node 99: this run's StepGraph has nodes 0 to 2" in capsysbinary.readouterr().err
    assert cli.main(["inspect", path, "--node", "0", "--position", "999"]) == 2
    assert b"--position 999: positions run from 0 to" in capsysbinary.readouterr().err
    with pytest.raises(SystemExit) as refused:  # (a negative position is refused as it is read)
        cli.main(["inspect", path, "--node", "0", "--position", "-1"])
    assert refused.value.code == 2
    assert b"argument --position: must be a whole number of at least 0, not '-1'" in capsysbinary.readouterr().err


def test_cli_inspect_imports_no_qt():
    path = str(corpus_path("02-react-two-tools", "recording.json"))
    code = ("import sys\nfrom afp_desktop import cli\n"
            f"assert cli.main(['inspect', {path!r}, '--node', '4']) == 0\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6'))\n"
            "sys.stderr.write('QT:' + ','.join(bad))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stderr.rsplit("QT:", 1)[1] == ""


def test_a_tool_call_took_what_its_card_says():
    from afp_desktop.app.panels.graph.card_text import format_duration

    run = open_run(str(corpus_path("14-context-injections", "trace.json")))
    nodes = run.stepgraph["nodes"]
    index = next(i for i, n in enumerate(nodes) if n["kind"] == "llm->tool" and n["id"].endswith("-c2"))
    took = fact(inspect_node(run, ReplayFacts(run), index), "Step", "took")
    assert format_duration(nodes[index]) == "1 ms"  # the card: between the call's start and end events
    assert took == "1 ms (the tool measured 0 ms)"  # the same, and the tool's own rounder measure beside it


def test_a_redacted_prompt_is_said_as_long_as_it_was_sent():
    run = open_run(str(corpus_path("02-react-two-tools", "trace.redacted.json")))
    facts = ReplayFacts(run)
    call = next(i for i, n in enumerate(run.stepgraph["nodes"]) if n["kind"] == "user->llm")
    begin = run.domain_events[run.step_fold.node_created_at[call]]
    model = inspect_node(run, facts, call)
    prompt = section(model, "System prompt")
    assert prompt["title"].startswith(f"System prompt · {begin['systemPromptChars']:,} characters sent")
    assert "this file holds 10 of them" in prompt["title"]  # the header's "system-prompt chars" agrees
    plain = open_run(str(corpus_path("02-react-two-tools", "trace.json")))
    title = section(inspect_node(plain, ReplayFacts(plain), call), "System prompt")["title"]
    assert title == f"System prompt · {begin['systemPromptChars']:,} characters"  # whole: said once
