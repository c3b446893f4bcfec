"""`info` tells how the run ended, its findings, retries and fallbacks, its cost and every event type, in camelCase
JSON and for a person; `inspect` shows a step's retries, breaker changes and fallbacks; each fact is known only
from its moment on."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings, strategies as st

from afp_desktop import cli
from afp_desktop.core.library.event_homes import PREFIX
from afp_desktop.core.model.run_end import REASONS
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.views.findings import FINDING_TYPES, Findings
from afp_desktop.core.views.resilience import LISTED
from afp_desktop.core.views.run_facts import RunFacts, cost_usd
from tests.corpus_util import corpus_path
from tests.facts_run import Stream, facts_stream, halted_stream, paused_stream, start

CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")
ISSUE_FINDINGS = {"integrity.context_error", "validation.args_invalid", "permission.check", "permission.halt",
                  "agent.output_schema_retry", "agent.output_schema_validation_failed",
                  "agent.output_contract_unmet", "resilience.output_fallback_triggered", "risk.flagged",
                  "eval.threshold_crossed", "tools.result_refused", "tools.repeated_call",
                  "tools.session_close_failed", "skill.rejected", "agent.thinking_parse_failed",
                  "credential.failed", "cost.limit_hit"}


def info_json(capsys, path) -> dict:
    assert cli.main(["info", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def write(tmp_path, stream: Stream, name: str = "run.ndjson"):
    path = tmp_path / name
    path.write_bytes(stream.ndjson())
    return path


def our_keys(value, where: str = "") -> list[str]:
    """Every key of the info JSON that afp-desktop names (not the event types counted, nor a bundle's own)."""
    keys: list[str] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            keys.append(f"{where}.{key}")
            if key not in ("eventTypes", "environment"):
                keys += our_keys(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for item in value:
            keys += our_keys(item, where)
    return keys


@pytest.mark.parametrize("source", ["02-react-two-tools/events.ndjson", "06-pause-resume/trace.json", "facts"])
def test_info_json_keys_are_all_camel_case(source, capsys, tmp_path):
    path = write(tmp_path, facts_stream()) if source == "facts" else corpus_path(*source.split("/"))
    info = info_json(capsys, path)
    bad = [key for key in our_keys(info) if not CAMEL.match(key.rsplit(".", 1)[-1])]
    assert bad == []
    for key in ("llmCalls", "toolCalls", "tokensIn", "tokensOut", "durationMs", "startedAtMs", "end", "resilience",
                "costUsd", "eventTypes", "findings", "startLost"):
        assert key in info


def test_info_of_a_run_with_retries_guards_findings_and_a_budget_stop(capsys, tmp_path):
    stream = facts_stream()
    info = info_json(capsys, write(tmp_path, stream))
    assert info["end"]["reason"] == "budget"
    assert "cost budget" in info["end"]["message"] and "2 tool call(s) never ran" in info["end"]["message"]
    assert info["resilience"] == {"retries": 2, "recoveries": 0, "circuitChanges": 1, "fallbacks": 2}
    assert info["costUsd"] == pytest.approx(0.0061)
    assert sum(info["eventTypes"].values()) == len(stream.events) == info["typedEvents"]
    assert info["eventTypes"]["agentfootprint.error.retried"] == 2
    assert info["startLost"] is False
    kinds = [f["kind"] for f in info["findings"]]
    assert ISSUE_FINDINGS - {"permission.halt"} <= set(kinds)  # (a halt ends the run: halted_stream has it)
    assert kinds.count("permission.check") == 1  # the check that allowed a call is no finding
    by_kind = {f["kind"]: f for f in info["findings"]}
    denied = by_kind["permission.check"]
    assert "scan_repo" in denied["message"] and "no-deep-scans" in denied["message"]
    assert "deep scans need approval" in denied["message"]
    assert denied["node"] == "step-tool-start-tool-calls#22-tc-1"
    assert "depth: expected number, got string" in by_kind["validation.args_invalid"]["message"]
    assert "slid out of the context window" in by_kind["integrity.context_error"]["message"]
    assert by_kind["integrity.context_error"]["node"] == "step-llm-start-call-llm#38-2"
    assert by_kind["risk.flagged"]["node"] is None  # sent by the consumer: it belongs to no step
    assert [f["position"] for f in info["findings"]] == sorted(f["position"] for f in info["findings"])


def test_info_for_a_person_says_how_the_run_ended_and_lists_the_findings(capsys, tmp_path):
    assert cli.main(["info", str(write(tmp_path, facts_stream()))]) == 0
    out = capsys.readouterr().out
    assert "Ended:       budget: Stopped by the cost budget" in out
    assert "Resilience:  2 retries, 0 recoveries, 1 circuit-breaker changes, 2 fallbacks" in out
    assert "Findings:    17" in out
    assert "permission.check: Permission denied: tool_call scan_repo" in out
    assert "Cost:        $0.0061 (the library's own estimate)" in out


@pytest.mark.parametrize("make, reason, words", [
    (halted_stream, "halted", "delete_repo"), (paused_stream, "paused", "Refund $42.99 for order #123?")])
def test_a_halted_and_a_paused_run(make, reason, words, capsys, tmp_path):
    info = info_json(capsys, write(tmp_path, make()))
    assert info["end"]["reason"] == reason and words in info["end"]["message"]
    if reason == "halted":
        halt = next(f for f in info["findings"] if f["kind"] == "permission.halt")
        assert "delete_repo" in halt["message"] and "destructive tools are never allowed" in halt["message"]


def test_corpus_runs_end_as_they_did(capsys):
    assert info_json(capsys, corpus_path("02-react-two-tools", "events.ndjson"))["end"] == {
        "reason": "completed", "message": "The run completed."}
    failed = info_json(capsys, corpus_path("21-stream-error", "trace.json"))["end"]
    assert failed == {"reason": "failed", "message": "socket hang up mid-stream (ECONNRESET)"}


def test_an_aborted_run(capsys, tmp_path):
    stream = Stream()
    start(stream)
    stream.add("error.fatal", "__root__#0", error="AbortError: This operation was aborted", stage="__root__",
               scope="run")
    assert info_json(capsys, write(tmp_path, stream))["end"]["reason"] == "aborted"


def test_a_stream_whose_start_was_rotated_away(capsys, tmp_path):
    lines = corpus_path("02-react-two-tools", "events.ndjson").read_bytes().splitlines(keepends=True)
    whole = tmp_path / "late.ndjson"
    whole.write_bytes(b"".join(lines[20:]))
    info = info_json(capsys, whole)
    assert info["startLost"] is True and info["end"]["reason"] == "completed"
    cut = tmp_path / "middle.ndjson"
    cut.write_bytes(b"".join(lines[20:40]))
    info = info_json(capsys, cut)
    assert info["startLost"] is True and info["end"]["reason"] == "unknown"
    assert "rotated away" in info["end"]["message"]
    assert info_json(capsys, corpus_path("02-react-two-tools", "events.ndjson"))["startLost"] is False


def test_each_fact_is_known_only_from_its_moment_on():
    stream = facts_stream()
    run = stream.run()
    replay = Replay(run)
    facts = RunFacts(run, replay.facts)
    findings = Findings(run, replay.facts)
    first = findings.all[0].position
    assert findings.known(first - 1) == [] and findings.known(first) == findings.all[:1]
    before = facts.as_json(run, first - 1)
    assert before["findings"] == [] and before["end"]["reason"] == "unknown"
    tick = run.axis.typed_after[next(j for j, e in enumerate(stream.events) if e["type"].endswith("cost.tick"))]
    assert cost_usd(run, tick - 1) is None and cost_usd(run, tick) == pytest.approx(0.0021)
    retried = run.axis.typed_after[2 + next(j for j, e in enumerate(stream.events[2:])
                                            if e["type"].endswith("error.retried"))]
    assert facts.as_json(run, retried - 1)["resilience"]["retries"] == 0
    assert facts.as_json(run, retried)["resilience"]["retries"] == 1
    assert sum(facts.as_json(run, retried)["eventTypes"].values()) == run.axis.typed_before[retried]
    assert facts.as_json(run, replay.length)["end"]["reason"] == "budget"


def test_inspect_shows_each_attempt_error_wait_and_the_fallback(capsys, tmp_path):
    path = write(tmp_path, facts_stream())
    assert cli.main(["inspect", str(path), "--node", "0"]) == 0
    page = json.loads(capsys.readouterr().out)
    section = next(s for s in page["sections"] if s["title"] == "Retries, breaker and fallbacks")
    rows = [(row["label"], row["value"]) for row in section["rows"]]
    assert rows[0] == ("retry after attempt 1 of 3",
                       "failed: 503 Service Unavailable; waited 200 ms before the next attempt (transient)")
    assert rows[2] == ("circuit breaker open", "anthropic: 3 failures in 10 s")
    assert rows[3] == ("provider fallback", "anthropic → openai: circuit open")
    run = facts_stream().run()
    start_of_call = run.axis.domain_after[run.step_fold.node_created_at[0]]
    assert cli.main(["inspect", str(path), "--node", "0", "--position", str(start_of_call)]) == 0
    early = json.loads(capsys.readouterr().out)
    assert not any(s["title"] == "Retries, breaker and fallbacks" for s in early["sections"])


def test_view_tells_the_end_and_findings_known_at_its_moment(capsys, tmp_path):
    stream = facts_stream()
    path = write(tmp_path, stream)
    run = stream.run()
    denied = run.axis.typed_after[next(j for j, e in enumerate(stream.events)
                                       if e["type"].endswith("permission.check"))]
    assert cli.main(["view", str(path), "--position", str(denied - 1)]) == 0
    before = json.loads(capsys.readouterr().out)["run"]
    assert before["end"]["reason"] == "unknown"
    assert [f["kind"] for f in before["findings"]] == ["validation.args_invalid"]
    assert before["resilience"]["fallbacks"] == 1 and before["costUsd"] == pytest.approx(0.0021)
    assert cli.main(["view", str(path), "--position", str(len(run.axis))]) == 0
    after = json.loads(capsys.readouterr().out)["run"]
    assert after["end"]["reason"] == "budget" and len(after["findings"]) == 17


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                                        max_size=4), max_leaves=12)
FIELD_NAMES = st.sampled_from(["toolName", "toolCallId", "result", "target", "reason", "issues", "attempt", "state",
                               "error", "message", "stage", "path", "action", "kind", "limit", "actual", "allowed",
                               "subjects", "severity", "cumulative", "questionPayload", "stoppedEarly", "scope"])


@settings(max_examples=60, deadline=None)
@given(picked=st.lists(st.tuples(st.sampled_from(sorted(FINDING_TYPES + tuple(PREFIX + k for k in LISTED)
                                                           + (PREFIX + "error.fatal", PREFIX + "pause.request",
                                                              PREFIX + "agent.turn_end", PREFIX + "cost.tick"))),
                                 st.dictionaries(FIELD_NAMES, json_values, max_size=5) | json_values), max_size=8))
def test_hostile_payloads_give_plain_one_line_facts(picked):
    stream = Stream()
    start(stream)
    for event_type, payload in picked:
        stream.add(event_type[len(PREFIX):], "call-llm#1", placeholder=0)
        stream.events[-1]["payload"] = payload
    run = stream.run()
    facts = RunFacts(run).as_json(run)
    assert facts["end"]["reason"] in REASONS and isinstance(facts["end"]["message"], str)
    for finding in facts["findings"]:
        assert isinstance(finding["message"], str) and "\n" not in finding["message"]
    assert facts["costUsd"] is None or isinstance(facts["costUsd"], float)
    assert sum(facts["eventTypes"].values()) == len(stream.events)


def test_an_ordinary_open_of_a_stream_missing_its_start_says_so(tmp_path):
    from afp_desktop.core.formats import open_run

    lines = corpus_path("02-react-two-tools", "events.ndjson").read_bytes().splitlines(keepends=True)
    late = tmp_path / "late.ndjson"
    late.write_bytes(b"".join(lines[20:]))
    assert "mid-way" in [n.code for n in open_run(late).all_notices()]
    assert "mid-way" not in [n.code for n in open_run(corpus_path("02-react-two-tools", "events.ndjson"))
                             .all_notices()]


def test_inspect_shows_the_reasoning_as_it_streamed_and_the_call_cost():
    from afp_desktop.core.views.inspect import inspect_node
    from tests.facts_run import thinking_stream

    stream = thinking_stream()
    run = stream.run()
    replay = Replay(run)
    second_chunk = run.axis.typed_after[next(j for j, e in enumerate(stream.events)
                                             if e["payload"].get("content") == "wants a ")]

    def sections(position):
        return {s["title"]: s for s in inspect_node(run, replay.facts, 0, position)["sections"]}

    assert sections(second_chunk)["What the model thought (streamed)"]["text"] == "The user wants a "
    assert "Cost (the library's estimate)" not in sections(second_chunk)
    end = sections(replay.length)
    assert end["What the model thought (streamed)"]["text"] == "The user wants a refund."
    assert {r["label"]: r["value"] for r in end["Reasoning"]["rows"]} == {"blocks": "1", "characters": "26",
                                                                          "tokens": "7"}
    assert {r["label"]: r["value"] for r in end["Cost (the library's estimate)"]["rows"]} == {
        "this call": "$0.0021", "the run so far": "$0.0021"}
