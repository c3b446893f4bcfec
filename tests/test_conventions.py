"""Conventions (PROJECTIONS.md §2.3, §4, §8 C1/E7/E7b) against the spec and the corpus' `ids` table."""

from __future__ import annotations

import pytest

from afp_desktop.core.library import conventions as C
from tests.corpus_util import SCENARIOS, load_json


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_corpus_id_classifies_like_the_library(scenario):
    rows = load_json(scenario, "ref.milestones.json")["ids"]
    assert rows
    wrong = [
        (row["id"], C.milestone_for(row["id"]), row["milestoneFor"], C.stage_role(row["id"]), row["stageRole"])
        for row in rows
        if C.milestone_for(row["id"]) != row["milestoneFor"] or C.stage_role(row["id"]) != row["stageRole"]
    ]
    assert wrong == []


def test_c1_conventions():
    assert C.milestone_for("sf-llm-call/call-llm#37") == {"kind": "llm-turn", "label": "LLM turn"}
    assert C.milestone_for("sf-injection-engine#2") == {"kind": "iteration", "label": "Iteration"}
    assert C.milestone_for("context") is None
    assert C.stage_role("sf-llm-call/sf-system-prompt") == "hero-slot"
    assert C.stage_role("some-custom-stage") == "boundary"
    assert C.slot_from_runtime_stage_id("sf-tools/inject#1234") == "tools"


def test_stage_role_does_not_strip_execution_index_but_milestone_for_does():
    assert C.stage_role("call-llm") == "hero-llm"
    assert C.stage_role("call-llm#18") == "boundary"
    assert C.milestone_for("call-llm#18") == {"kind": "llm-turn", "label": "LLM turn"}
    # milestone_for cuts at the FIRST '#'
    assert C.milestone_for("sf-route#3#4") == {"kind": "decision", "label": "Route"}
    assert C.milestone_for("x#sf-route") is None


@pytest.mark.parametrize(("tags", "fallback", "expected"), [
    (["milestone:llm-turn", "milestone-label:LLM turn"], None, {"kind": "llm-turn", "label": "LLM turn"}),
    (["audit"], None, None),
    (None, None, None),
    ("milestone:slot", None, None),
    (["milestone:bogus", "milestone:slot"], "Tools", {"kind": "slot", "label": "Tools"}),
    (["milestone:slot", "milestone-label:"], "Tools", {"kind": "slot", "label": "Tools"}),
    (["milestone:slot", "milestone-label:"], None, {"kind": "slot", "label": "slot"}),
    ([7, None, "milestone:decision", "milestone-label:Route", "milestone-label:Other"], None,
     {"kind": "decision", "label": "Route"}),
])
def test_milestone_from_tags_examples(tags, fallback, expected):
    assert C.milestone_from_tags(tags, fallback) == expected


def test_milestone_tags_round_trip_the_table():
    assert C.milestone_tags_for("call-llm") == ["milestone:llm-turn", "milestone-label:LLM turn"]
    for local_id in ("sf-injection-engine", "sf-tools", "tool-calls", "sf-route", "wrap-up", "merge-llm"):
        assert C.milestone_from_tags(C.milestone_tags_for(local_id)) == C.milestone_for(local_id)
    with pytest.raises(ValueError):
        C.milestone_tags_for("context")
    assert C.MILESTONE_KINDS == ("iteration", "slot", "llm-turn", "tool-call", "decision")


@pytest.mark.parametrize(("rid", "expected"), [
    ("call-llm#5", (None, "call-llm", 5)),
    ("sf-tools/execute-tool-calls#8", ("sf-tools", "execute-tool-calls", 8)),
    ("sf-outer/sf-inner/validate#3", ("sf-outer/sf-inner", "validate", 3)),
    ("__root__#0", (None, "__root__", 0)),
    ("seed", (None, "seed", 0)),
    ("sf-tools/x", (None, "sf-tools/x", 0)),  # no '#': the whole string is the stage id
    ("a#1#2", (None, "a#1", 2)),  # the LAST '#'
    ("fan/fan~2/work#9", ("fan/fan~2", "work", 9)),
    ("x#", (None, "x", None)),  # parseInt("") is NaN
])
def test_parse_runtime_stage_id(rid, expected):
    assert C.parse_runtime_stage_id(rid) == expected


def test_split_stage_id():
    assert C.split_stage_id("sf-tools/execute-tool-calls") == ("sf-tools", "execute-tool-calls")
    assert C.split_stage_id("seed") == (None, "seed")


def test_slot_helpers():
    assert C.is_slot_subflow("sf-messages") and not C.is_slot_subflow("x/sf-messages")
    assert C.slot_from_subflow_id("internals/sf-system-prompt") == "system-prompt"  # §8 E8
    assert C.slot_from_subflow_id("sf-route") is None
    assert C.slot_from_runtime_stage_id("sf-llm-call/sf-messages/compose#3") == "messages"
    assert C.slot_from_runtime_stage_id("sf-system-prompt/sf-tools/x#0") == "tools"
    assert C.slot_from_runtime_stage_id("sf-tools") == "tools"
    for rid in ("sf-route/inject#0", "seed#0", ""):
        assert C.slot_from_runtime_stage_id(rid) is None
    assert [C.injection_key_for_slot(s) for s in ("system-prompt", "messages", "tools")] == [
        "systemPromptInjections", "messagesInjections", "toolsInjections"]
    assert C.is_injection_key("toolsInjections") and not C.is_injection_key("tools")


def test_id_tables():
    assert len(C.SUBFLOW_IDS) == 14
    assert {"sf-inputs", "sf-results"} <= set(C.SUBFLOW_IDS.values())
    # the library's coverage law: every subflow id is a slot or internal
    assert all(C.is_slot_subflow(v) or C.is_agent_internal(v) for v in C.SUBFLOW_IDS.values())
    assert C.STAGE_IDS["SKIP_CACHING"] == "no-markers"
    assert {"prepare-final", "negative-recheck", "assess-answer"} <= set(C.STAGE_IDS.values())
    assert C.is_known_subflow("final") and not C.is_known_subflow("sf-memory-read-x")
    assert C.RESERVED_SUBFLOW_PREFIX == "sf-" and C.is_reserved_subflow_segment("sf-billing")


def test_agent_internal_is_a_closed_list():  # §2.3, §8 E7b
    assert C.is_agent_internal("sf-route") and C.is_agent_internal("final")
    assert C.is_agent_internal("sf-llm-call/thinking-anthropic")
    assert not C.is_agent_internal("sf-memory-read-x")
    assert not C.is_agent_internal("tool-calls")
    assert C.is_agent_internal("sf-inputs") and C.is_agent_internal("sf-results")


@pytest.mark.parametrize(("desc", "expected"), [
    ("Sequence: 3-step pipeline", "Sequence"),
    ("Subflow: sf-x", "Subflow"),
    ("  Agent  : ReAct loop", "Agent"),
    ("no colon", None),
    (": x", None),
    ("   : x", None),
    (None, None),
])
def test_primitive_kind_from_description(desc, expected):  # §2.3, §8 E7
    assert C.primitive_kind_from_description(desc) == expected


def test_agent_name_for_path():  # §4.3
    assert C.agent_name_for_path(["step-triage", "sf-llm-call", "thinking-mock"], "Ada") == "triage"
    assert C.agent_name_for_path(["urgent", "final"], "Ada") == "urgent"
    assert C.agent_name_for_path(["__root__", "sf-tools"], "Ada") == "Ada"
    assert C.agent_name_for_path([], "Ada") == "Ada"
    assert C.agent_name_for_path("step-work/sf-route", "Ada") == "work"
