"""The worked example of §3.6 and the edge cases of §8 (E1–E10), exactly as the spec gives them."""

from __future__ import annotations

from afp_desktop.core.library.conventions import is_agent_internal, primitive_kind_from_description, slot_from_subflow_id
from afp_desktop.core.library.redact import redact_content
from afp_desktop.core.library.stepgraph import build_step_graph, build_step_graph_safe
from afp_desktop.core.jsonx import jsonio
from tests.corpus_util import load_json

ROOT = ["__root__"]


def ev(type_, rid, ts, **fields):
    return {"type": type_, "runtimeStageId": rid, "subflowPath": fields.pop("subflowPath", ROOT), "depth": 0,
            "ts": ts, "commitIdxBefore": 0, "commitIdxAfter": 0, **fields}


WORKED_INPUT = [
    {"type": "run.entry", "runtimeStageId": "__root__#0", "subflowPath": ["__root__"], "ts": 1000, "payload": {"message": "Should I watch Heat?"}, "isRoot": True},
    {"type": "subflow.entry", "runtimeStageId": "sf-injection-engine#1", "subflowPath": ["__root__", "sf-injection-engine"], "ts": 1001, "subflowName": "InjectionEngine", "isAgentInternal": True, "payload": {}},
    {"type": "subflow.exit", "runtimeStageId": "sf-injection-engine#1", "subflowPath": ["__root__", "sf-injection-engine"], "ts": 1002, "isAgentInternal": True, "payload": {}},
    {"type": "subflow.entry", "runtimeStageId": "sf-system-prompt#7", "subflowPath": ["__root__", "sf-system-prompt"], "ts": 1003, "slotKind": "system-prompt", "isAgentInternal": False, "payload": {"base": "You are a critic."}},
    {"type": "context.injected", "runtimeStageId": "sf-system-prompt/compose#8", "subflowPath": ["__root__", "sf-system-prompt"], "ts": 1004, "slot": "system-prompt", "source": "base", "asRole": "system", "contentSummary": "You are a critic.", "reason": "static system prompt"},
    {"type": "subflow.exit", "runtimeStageId": "sf-system-prompt#7", "subflowPath": ["__root__", "sf-system-prompt"], "ts": 1005, "slotKind": "system-prompt", "isAgentInternal": False, "payload": {"systemPrompt": "You are a critic."}},
    {"type": "llm.start", "runtimeStageId": "call-llm#18", "subflowPath": ["__root__"], "ts": 1010, "model": "mock-1", "provider": "mock", "actorArrow": "user→llm"},
    {"type": "llm.end", "runtimeStageId": "call-llm#18", "subflowPath": ["__root__"], "ts": 1020, "content": "Let me check.", "toolCallCount": 1, "usage": {"input": 97, "output": 5}, "actorArrow": "llm→tool"},
    {"type": "decision.branch", "runtimeStageId": "sf-route#21", "subflowPath": ["__root__"], "ts": 1021, "decider": "Route", "chosen": "tool-calls", "isAgentInternal": True},
    {"type": "tool.start", "runtimeStageId": "tool-calls#22", "subflowPath": ["__root__"], "ts": 1022, "toolName": "itunes_lookup", "toolCallId": "t0", "args": {"title": "Heat"}},
    {"type": "tool.end", "runtimeStageId": "tool-calls#22", "subflowPath": ["__root__"], "ts": 1030, "toolCallId": "t0", "result": "Rated R, $3.99", "durationMs": 8},
    {"type": "loop.iteration", "runtimeStageId": "tool-calls#22", "subflowPath": ["__root__"], "ts": 1031, "target": "sf-injection-engine", "iteration": 1},
    {"type": "llm.start", "runtimeStageId": "call-llm#40", "subflowPath": ["__root__"], "ts": 1040, "model": "mock-1", "provider": "mock", "actorArrow": "tool→llm"},
    {"type": "llm.end", "runtimeStageId": "call-llm#40", "subflowPath": ["__root__"], "ts": 1050, "content": "Watch it.", "toolCallCount": 0, "usage": {"input": 122, "output": 9}, "actorArrow": "llm→user"},
    {"type": "run.exit", "runtimeStageId": "__root__#0", "subflowPath": ["__root__"], "ts": 1060, "payload": "Watch it.", "isRoot": True},
]
WORKED_OUTPUT = {"nodes": [
    {"id": "__root__#0", "kind": "subflow", "label": "Run", "startOffsetMs": 0, "subflowPath": ["__root__"], "primitiveKind": "Run", "isPrimitiveBoundary": False, "entryPayload": {"message": "Should I watch Heat?"}, "runtimeStageId": "__root__#0", "endOffsetMs": 60, "exitPayload": "Watch it."},
    {"id": "step-llm-start-call-llm#18-1", "kind": "user->llm", "label": "user → llm", "startOffsetMs": 10, "llmModel": "mock-1", "subflowPath": ["__root__"], "injections": [{"slot": "system-prompt", "source": "base", "asRole": "system", "contentSummary": "You are a critic.", "reason": "static system prompt"}], "iterationIndex": 1, "slotUpdated": "messages", "runtimeStageId": "call-llm#18", "slotBoundaries": {"systemPrompt": {"runtimeStageId": "sf-system-prompt#7", "entryPayload": {"base": "You are a critic."}, "exitPayload": {"systemPrompt": "You are a critic."}}}, "tokens": {"in": 97, "out": 5}, "endOffsetMs": 20},
    {"id": "step-tool-start-tool-calls#22-t0", "kind": "llm->tool", "label": "llm → tool (itunes_lookup)", "startOffsetMs": 22, "toolName": "itunes_lookup", "subflowPath": ["__root__"], "iterationIndex": 1, "slotUpdated": "tools", "runtimeStageId": "tool-calls#22", "assistantText": "Let me check.", "toolArgs": {"title": "Heat"}, "endOffsetMs": 30},
    {"id": "step-llm-start-call-llm#40-2", "kind": "tool->llm", "label": "tool → llm", "startOffsetMs": 40, "llmModel": "mock-1", "subflowPath": ["__root__"], "injections": [], "iterationIndex": 2, "slotUpdated": "messages", "runtimeStageId": "call-llm#40", "toolResult": "Rated R, $3.99", "tokens": {"in": 122, "out": 9}, "endOffsetMs": 50},
    {"id": "step-llm-end-call-llm#40-2", "kind": "llm->user", "label": "llm → user", "startOffsetMs": 50, "endOffsetMs": 50, "subflowPath": ["__root__"], "iterationIndex": 2, "runtimeStageId": "call-llm#40", "assistantText": "Watch it."}],
    "edges": [
    {"id": "step-llm-start-call-llm#18-1->step-tool-start-tool-calls#22-t0", "from": "step-llm-start-call-llm#18-1", "to": "step-tool-start-tool-calls#22-t0", "kind": "next"},
    {"id": "loop-__root__#0-1", "from": "__root__#0", "to": "__root__#0", "kind": "loop-iteration", "iteration": 1},
    {"id": "step-tool-start-tool-calls#22-t0->step-llm-start-call-llm#40-2", "from": "step-tool-start-tool-calls#22-t0", "to": "step-llm-start-call-llm#40-2", "kind": "next"},
    {"id": "step-llm-start-call-llm#40-2->step-llm-end-call-llm#40-2", "from": "step-llm-start-call-llm#40-2", "to": "step-llm-end-call-llm#40-2", "kind": "next"}]}


def test_worked_example_exact_including_key_order():
    graph = build_step_graph(WORKED_INPUT)
    assert graph == WORKED_OUTPUT
    assert jsonio.dumps(graph) == jsonio.dumps(WORKED_OUTPUT)  # byte-identical: key order kept (§3.5)


def test_e1_batched_tools():
    g = build_step_graph([
        ev("llm.start", "call-llm#2", 100, model="m", provider="p", actorArrow="user→llm"),
        ev("llm.end", "call-llm#2", 110, content="", toolCallCount=2, usage={"input": 1, "output": 1}, actorArrow="llm→tool"),
        ev("tool.start", "tool-calls#3", 111, toolName="a", toolCallId="c1", args={}),
        ev("tool.start", "tool-calls#3", 112, toolName="b", toolCallId="c2"),
        ev("tool.end", "tool-calls#3", 120, toolCallId="c1", result="A"),
        ev("tool.end", "tool-calls#3", 130, toolCallId="c2"),
        ev("llm.start", "call-llm#5", 140, model="m", provider="p", actorArrow="tool→llm"),
    ])
    c1, c2, back = g["nodes"][1], g["nodes"][2], g["nodes"][3]
    assert "endOffsetMs" not in c1 and c2["endOffsetMs"] == 30
    assert "assistantText" not in c1 and "assistantText" not in c2
    assert back["kind"] == "tool->llm" and back["toolResult"] == "A"
    assert [(e["from"], e["to"]) for e in g["edges"]] == [
        ("step-llm-start-call-llm#2-1", "step-tool-start-tool-calls#3-c1"),
        ("step-tool-start-tool-calls#3-c1", "step-tool-start-tool-calls#3-c2"),
        ("step-tool-start-tool-calls#3-c2", "step-llm-start-call-llm#5-2")]


def test_e2_slot_buffer_uses_last_entry_and_merges_any_exit():
    g = build_step_graph([
        ev("subflow.entry", "sf-messages#1", 1, slotKind="messages", payload={"v": 1}),
        ev("subflow.entry", "sf-messages#2", 2, slotKind="messages", payload={"v": 2}),
        ev("subflow.exit", "sf-messages#1", 3, slotKind="messages", payload={"out": 1}),
        ev("llm.start", "call-llm#7", 4, model="m", provider="p", actorArrow="user→llm"),
    ])
    assert g["nodes"][0]["slotBoundaries"] == {
        "messages": {"runtimeStageId": "sf-messages#2", "entryPayload": {"v": 2}, "exitPayload": {"out": 1}}}


def test_e3_time_origin_dropped_loop_sticky_active_late_injection():
    g = build_step_graph([
        ev("loop.iteration", "x#1", 5, target="t", iteration=1),
        ev("subflow.entry", "triage#4", 13, subflowName="triage", primitiveKind="Agent", isAgentInternal=False),
        ev("fork.branch", "fan#5", 14, parentSubflowId="fan", childName="legal"),
        ev("decision.branch", "risk#6", 15, decider="risk", chosen="high", isAgentInternal=False),
        ev("loop.iteration", "x#2", 16, target="t", iteration=2),
        ev("subflow.exit", "triage#4", 17, isAgentInternal=False, payload={"done": True}),
        ev("loop.iteration", "x#3", 18, target="t", iteration=3),
        ev("llm.start", "call-llm#7", 20, model="m", provider="p", actorArrow="user→llm"),
        ev("context.injected", "c#8", 21, slot="messages", source="rag"),
        ev("composition.start", "seq#9", 22, kind="Sequence", compositionId="s", name="s"),
    ])
    assert g == {"nodes": [
        {"id": "triage#4", "kind": "subflow", "label": "triage", "startOffsetMs": 8, "subflowPath": ["__root__"], "isAgentBoundary": True, "isPrimitiveBoundary": True, "primitiveKind": "Agent", "runtimeStageId": "triage#4", "endOffsetMs": 12, "exitPayload": {"done": True}},
        {"id": "fork-fan#5-legal", "kind": "fork-branch", "label": "legal", "startOffsetMs": 9, "subflowPath": ["__root__"]},
        {"id": "decision-risk#6-high", "kind": "decision-branch", "label": "high", "startOffsetMs": 10, "subflowPath": ["__root__"]},
        {"id": "step-llm-start-call-llm#7-1", "kind": "user->llm", "label": "user → llm", "startOffsetMs": 15, "llmModel": "m", "subflowPath": ["__root__"], "injections": [], "iterationIndex": 1, "slotUpdated": "messages", "runtimeStageId": "call-llm#7"}],
        "edges": [{"id": "loop-triage#4-2", "from": "triage#4", "to": "triage#4", "kind": "loop-iteration", "iteration": 2},
                  {"id": "loop-triage#4-3", "from": "triage#4", "to": "triage#4", "kind": "loop-iteration", "iteration": 3}],
        "activeNodeId": "triage#4"}


def test_e4_internal_decision_kept_in_log_but_no_node():
    events = [ev("decision.branch", "agent-body/sf-route#3", 1, decider="route", chosen="final",
                 isAgentInternal=is_agent_internal("sf-route"), rationale="done")]
    assert events[0]["isAgentInternal"] is True
    assert build_step_graph(events)["nodes"] == []


def test_e5_slot_after_llm_end_does_not_leak_backwards():
    g = build_step_graph([
        ev("llm.start", "call-llm#1", 1, model="m", provider="p", actorArrow="user→llm"),
        ev("llm.end", "call-llm#1", 2, content="hi", toolCallCount=0, usage={"input": 1, "output": 2}, actorArrow="llm→user"),
        ev("subflow.entry", "sf-messages#3", 3, slotKind="messages", payload={}),
        ev("subflow.exit", "sf-messages#3", 4, slotKind="messages", payload={}),
    ])
    assert all("slotBoundaries" not in n for n in g["nodes"])


def test_e6_full_turn_has_five_visible_nodes():
    nodes = build_step_graph(WORKED_INPUT)["nodes"]
    assert [n["kind"] for n in nodes] == ["subflow", "user->llm", "llm->tool", "tool->llm", "llm->user"]
    assert [n["iterationIndex"] for n in nodes[1:]] == [1, 1, 2, 2]
    assert [n.get("slotUpdated") for n in nodes[1:]] == ["messages", "tools", "messages", None]


def test_e7_primitive_kind_parsing_and_e7b_e8_conventions():
    assert primitive_kind_from_description("Sequence: 3-step pipeline") == "Sequence"
    assert primitive_kind_from_description("Subflow: sf-x") == "Subflow"
    assert primitive_kind_from_description("no colon") is None
    assert primitive_kind_from_description(": x") is None
    g = build_step_graph([ev("subflow.entry", "s#1", 1, subflowName="s", primitiveKind="Subflow")])
    assert g["nodes"][0]["isPrimitiveBoundary"] is False and g["nodes"][0]["isAgentBoundary"] is False
    assert not is_agent_internal("sf-memory-read-x")
    assert is_agent_internal("thinking-anthropic")
    assert slot_from_subflow_id("internals/sf-system-prompt") == "system-prompt"


def test_e9_lean_bundle():
    g = build_step_graph([
        ev("context.injected", "sf-tools/x#0", 500, slot="tools", source="registry", reason="r"),
        ev("llm.start", "call-llm#1", 510, model="m", provider="p", actorArrow="user→llm"),
        ev("llm.end", "call-llm#1", 530, toolCallCount=0, usage={"input": 3, "output": 4}, actorArrow="llm→user"),
    ])
    assert g == {"nodes": [
        {"id": "step-llm-start-call-llm#1-1", "kind": "user->llm", "label": "user → llm", "startOffsetMs": 10, "llmModel": "m", "subflowPath": ["__root__"], "injections": [{"slot": "tools", "source": "registry", "reason": "r"}], "iterationIndex": 1, "slotUpdated": "messages", "runtimeStageId": "call-llm#1", "tokens": {"in": 3, "out": 4}, "endOffsetMs": 30},
        {"id": "step-llm-end-call-llm#1-1", "kind": "llm->user", "label": "llm → user", "startOffsetMs": 30, "endOffsetMs": 30, "subflowPath": ["__root__"], "iterationIndex": 1, "runtimeStageId": "call-llm#1"}],
        "edges": [{"id": "step-llm-start-call-llm#1-1->step-llm-end-call-llm#1-1", "from": "step-llm-start-call-llm#1-1", "to": "step-llm-end-call-llm#1-1", "kind": "next"}]}


def test_e10_redaction_length_is_utf16_and_redacted_trace_reproduces_reference():
    assert redact_content({"type": "llm.end", "content": "héllo 😀"})["content"] == "[8 chars]"
    trace = load_json("02-react-two-tools", "trace.json")
    redacted = [redact_content(e) for e in trace["events"]]
    assert build_step_graph(redacted) == load_json("02-react-two-tools", "ref.stepgraph.redacted.json")


def test_not_dispatched_tool_start_makes_no_node_and_stashes_no_result():
    g = build_step_graph([
        ev("llm.start", "call-llm#1", 1, model="m", provider="p", actorArrow="user→llm"),
        ev("llm.end", "call-llm#1", 2, content="go", toolCallCount=2, usage={"input": 1, "output": 1}, actorArrow="llm→tool"),
        ev("tool.start", "tool-calls#2", 3, toolName="ask", toolCallId="c1", args={}),
        ev("tool.start", "tool-calls#2", 4, toolName="later", toolCallId="c2", notDispatched=True),
        ev("tool.end", "tool-calls#2", 5, toolCallId="c1", result="R1"),
        ev("tool.end", "tool-calls#2", 9, toolCallId="c2", result="never"),
        ev("llm.start", "call-llm#3", 10, model="m", provider="p", actorArrow="tool→llm"),
    ])
    assert [n["kind"] for n in g["nodes"]] == ["user->llm", "llm->tool", "tool->llm"]
    assert g["nodes"][1]["endOffsetMs"] == 4 and g["nodes"][1]["assistantText"] == "go"
    assert g["nodes"][2]["toolResult"] == "R1"


def test_llm_end_without_usage_falls_back_to_subflow_only_graph_with_a_note():
    events = [dict(e) for e in WORKED_INPUT]
    del events[7]["usage"]
    fold, note = build_step_graph_safe(events)
    kinds = [n["kind"] for n in fold.graph()["nodes"]]
    assert kinds == ["subflow"] and "Per-iteration detail is missing" in note


def test_missing_ids_print_like_javascript_undefined_and_null():
    g = build_step_graph([
        {"type": "llm.start", "subflowPath": ROOT, "ts": 1, "model": "m", "actorArrow": "user→llm"},
        {"type": "llm.end", "subflowPath": ROOT, "ts": 2, "content": "", "toolCallCount": 1,
         "usage": {"input": 1, "output": 1}, "actorArrow": "llm→tool"},
        {"type": "tool.start", "runtimeStageId": None, "subflowPath": ROOT, "ts": 3, "toolName": "t"},
    ])
    assert [n["id"] for n in g["nodes"]] == ["step-llm-start-undefined-1", "step-tool-start-null-undefined"]
    assert "runtimeStageId" not in g["nodes"][0] and g["nodes"][1]["runtimeStageId"] is None
