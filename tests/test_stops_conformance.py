"""Milestone stops (PROJECTIONS.md §5.4): byte-for-byte against footprintjs/agentfootprint output in the corpus,
plus the worked example, edge cases, drill, derived stops, chains and the stateAt fold."""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.library import stops as S
from afp_desktop.core.jsonx.jsonio import dumps
from tests.corpus_util import SCENARIOS, load_json


@lru_cache(maxsize=None)
def _recording(scenario: str) -> dict:
    return load_json(scenario, "recording.json")


def _json_equal(a, b) -> bool:
    return dumps(a, sort_keys=True) == dumps(b, sort_keys=True)


# --- conformance ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stops_match_the_library(scenario):
    snapshot = _recording(scenario)["snapshot"]
    ref = load_json(scenario, "ref.milestones.json")
    log, tree = snapshot["commitLog"], snapshot["executionTree"]
    assert _json_equal(S.commit_stops(log, tree), ref["commitStops"])
    assert _json_equal(S.milestone_stops(log, tree), ref["milestoneStops"])
    assert _json_equal(S.tag_stops(log, tree), ref["tagStops"])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_folding_the_whole_log_reproduces_shared_state(scenario):
    snapshot = _recording(scenario)["snapshot"]
    folded = S.state_at(snapshot, len(snapshot["commitLog"]) - 1)
    assert folded["basis"] == "initial+log" and folded["skipped"] == []
    assert _json_equal(folded["state"], snapshot["sharedState"])
    assert _json_equal(S.state_at(snapshot, -1)["state"], snapshot["initialState"])


def test_pause_resume_recording_holds_only_the_resumed_leg():
    snapshot = _recording("06-pause-resume")["snapshot"]
    assert snapshot["commitLog"][0]["runtimeStageId"] == "tool-calls#45"  # not seed#0
    assert snapshot["initialState"]["history"][-1]["toolCalls"][0]["name"] == "ask_human"
    stops = S.milestone_stops(snapshot["commitLog"], snapshot["executionTree"])
    assert "prologue" not in stops[0] and stops[1]["label"] == "Tool call"


# --- the §5.4 worked example ------------------------------------------------------------------------------------

_EXAMPLE_IDS = [
    ("seed#0", "Initialize"), ("sf-injection-engine#1", "Injection Engine"),
    ("sf-injection-engine#1", "Injection Engine"), ("context#6", "Context"), ("context#6", "Context"),
    ("sf-system-prompt#7", "System Prompt"), ("context#6", "Context"), ("sf-messages#9", "Messages"),
    ("sf-system-prompt#7", "System Prompt"), ("sf-messages#9", "Messages"), ("context#6", "Context"),
    ("sf-tools#11", "Tools"), ("sf-tools#11", "Tools"), ("sf-cache#14", "Cache"), ("sf-cache#14", "Cache"),
    ("call-llm#18", "CallLLM"), ("sf-thinking#19", "NormalizeThinking"), ("sf-thinking#19", "NormalizeThinking"),
    ("sf-route#21", "Route"), ("tool-calls#22", "ToolCalls"),
]


def _example_log(tags: dict[int, list] | None = None) -> list[dict]:
    log = []
    for idx, (rid, stage) in enumerate(_EXAMPLE_IDS):
        bundle = {"overwrite": {}, "updates": {}, "trace": [], "stage": stage,
                  "stageId": rid.split("#")[0], "runtimeStageId": rid, "idx": idx}
        if tags and idx in tags:
            bundle["tags"] = tags[idx]
        log.append(bundle)
    return log


def test_worked_example_untagged_no_tree():
    def stop(step, rid, first, last, stage_id, label, kind, mkind):
        return {"step": step, "runtimeStageId": rid, "commitIdx": first, "lastCommitIdx": last, "stageId": stage_id,
                "label": label, "kind": kind, "meta": {"kind": mkind, "label": label}}

    expected = [
        {"step": 0, "runtimeStageId": "", "commitIdx": -1, "lastCommitIdx": 0, "stageId": "", "label": "Run start",
         "kind": "start", "prologue": True},
        stop(1, "sf-injection-engine#1", 1, 4, "sf-injection-engine", "Iteration", "mount", "iteration"),
        stop(2, "sf-system-prompt#7", 5, 6, "sf-system-prompt", "System prompt", "commit", "slot"),
        stop(3, "sf-messages#9", 7, 10, "sf-messages", "Messages", "commit", "slot"),
        stop(4, "sf-tools#11", 11, 14, "sf-tools", "Tools", "mount", "slot"),
        stop(5, "call-llm#18", 15, 17, "call-llm", "LLM turn", "commit", "llm-turn"),
        stop(6, "sf-route#21", 18, 18, "sf-route", "Route", "commit", "decision"),
        stop(7, "tool-calls#22", 19, 19, "tool-calls", "Tool call", "commit", "tool-call"),
        {"step": 8, "runtimeStageId": "", "commitIdx": 19, "lastCommitIdx": 19, "stageId": "", "label": "Run end",
         "kind": "end"},
    ]
    assert S.milestone_stops(_example_log()) == expected


def test_tags_are_the_fact_and_the_id_the_fallback():
    log = _example_log({15: ["milestone:llm-turn", "milestone-label:Model call"], 18: ["audit", 3]})
    stops = S.milestone_stops(log)
    by_id = {stop["runtimeStageId"]: stop for stop in stops}
    assert by_id["call-llm#18"]["label"] == "Model call"
    assert by_id["call-llm#18"]["meta"] == {"kind": "llm-turn", "label": "Model call"}
    assert "sf-route#21" not in by_id  # tagged, but not with a milestone
    assert by_id["call-llm#18"]["lastCommitIdx"] == 18  # the Route commit folds into the LLM stop
    assert [stop["step"] for stop in stops] == list(range(len(stops)))
    assert S.milestone_of_stop(log, {"commitIdx": 18, "runtimeStageId": "sf-route#21", "label": "Route"}) is None


def test_tag_stops_keep_any_of_and_carry_the_whole_array():
    log = _example_log({15: ["milestone:llm-turn"], 18: ["milestone:decision", "audit"]})
    every = S.tag_stops(log)
    assert [(s["kind"], s["label"], s.get("meta")) for s in every] == [
        ("start", "Run start", None), ("commit", "CallLLM", ["milestone:llm-turn"]),
        ("commit", "Route", ["milestone:decision", "audit"]), ("end", "Run end", None)]
    assert every[0]["prologue"] is True and every[0]["lastCommitIdx"] == 14
    assert every[2]["lastCommitIdx"] == 19
    audit = S.tag_stops(log, tags=["audit"])
    assert [s["label"] for s in audit] == ["Run start", "Route", "Run end"]
    assert [s["kind"] for s in S.tag_stops(log, tags=["nope"])] == ["start", "end"]
    assert S.tag_stops(log, tags=[]) == every


# --- edges ------------------------------------------------------------------------------------------------------

def test_empty_log_has_no_stops():
    assert S.commit_stops([]) == []
    assert S.milestone_stops([], {"id": "x"}) == []
    assert S.tag_stops([]) == []
    assert S.filter_stops([], lambda stop: True) == []
    assert S.derived_stops([]) == []


def test_mount_fallback_without_a_tree_and_authority_with_one():
    log = [{"runtimeStageId": "a#0", "stageId": "a"}, {"runtimeStageId": "a#0", "stageId": "a"},
           {"runtimeStageId": "b#1", "stageId": "b"}, {"runtimeStageId": "c#2", "stageId": "c"},
           {"runtimeStageId": "b#1", "stageId": "b"}]
    assert [s["kind"] for s in S.commit_stops(log)] == ["start", "mount", "commit", "commit", "end"]
    tree = {"id": "a", "runtimeStageId": "a#0", "next": {"id": "b", "runtimeStageId": "b#1",
                                                         "children": [{"runtimeStageId": "c#2", "subflowId": "c"}]}}
    assert [s["kind"] for s in S.commit_stops(log, tree)] == ["start", "commit", "commit", "mount", "end"]


def test_start_absorbs_a_leading_input_seed_and_labels_fall_back():
    log = [{"runtimeStageId": "", "stageId": "sf/seed"}, {"runtimeStageId": "sf/x#3", "stageId": "sf/x"}]
    start, stage, end = S.commit_stops(log)
    assert start["lastCommitIdx"] == 0 and "prologue" not in start
    assert stage["subflowPath"] == "sf" and stage["label"] == "sf/x"
    assert end["commitIdx"] == end["lastCommitIdx"] == 1


def test_filter_stops_discards_prior_meta_and_refuses_a_broken_axis():
    stops = S.tag_stops(_example_log({15: ["x"]}))
    kept = S.filter_stops(stops, lambda stop: True)
    assert all("meta" not in stop for stop in kept)
    assert [s["lastCommitIdx"] for s in kept] == [14, 19, 19]  # re-partitioned, not copied
    with pytest.raises(ValueError):
        S.filter_stops(stops[1:], lambda stop: True)


def test_mount_ids_walk_is_iterative():
    tree = leaf = {"runtimeStageId": "n#0"}
    for depth in range(1, 20_000):
        leaf["next"] = {"runtimeStageId": f"n#{depth}", **({"subflowId": "s"} if depth % 1000 == 0 else {})}
        leaf = leaf["next"]
    assert len(S.mount_ids(tree)) == 19


# --- derived stops ----------------------------------------------------------------------------------------------

def test_derived_stops_from_domain_events():
    def ev(kind, rid):
        return {"type": kind, "runtimeStageId": rid, "subflowPath": ["__root__"], "depth": 0}

    events = [
        ev("run.entry", "__root__#0"), ev("subflow.entry", "sf-injection-engine#1"),
        ev("subflow.exit", "sf-injection-engine#1"), ev("subflow.entry", "sf-messages#9"),
        ev("context.injected", "sf-messages/compose#10"), ev("subflow.exit", "sf-messages#9"),
        ev("llm.start", "call-llm#18"), ev("llm.end", "call-llm#18"), ev("decision.branch", "sf-route#21"),
        ev("tool.start", "tool-calls#22"), ev("tool.end", ""), ev("run.exit", "__root__#0"),
    ]
    stops = S.derived_stops(events)
    assert [(s["label"], s["kind"], s["eventIdx"], s["lastEventIdx"]) for s in stops] == [
        ("Run start", "start", -1, 0), ("Iteration", "mount", 1, 2), ("Messages", "mount", 3, 5),
        ("LLM turn", "commit", 6, 7), ("Route", "commit", 8, 8), ("Tool call", "commit", 9, 11),
        ("Run end", "end", 11, 11)]
    assert all(s["derived"] is True and "commitIdx" not in s for s in stops)
    assert stops[0]["prologue"] is True
    assert stops[3]["meta"] == {"kind": "llm-turn", "label": "LLM turn"} and stops[3]["stageId"] == "call-llm"


def _derived_by_composition(rids: list[str], mounts: set[str]) -> list:
    """What derived_stops_from_ids makes in one pass, made as the library composes it: one stop per stage
    (_stops_of_ids), filtered by the milestone rule (filter_stops), renamed to event positions."""
    # private: the library's two steps (stops of ids, then the milestone rule) composed by hand
    stages = S._stops_of_ids(rids, lambda _first, rid: rid in mounts,
                             lambda i: rids[i][:rids[i].rfind("#")] if "#" in rids[i] else rids[i], lambda i: rids[i])
    # private: as above
    kept = S.filter_stops(stages, lambda stop: S._as_milestone_decision(S.milestone_for(stop["runtimeStageId"]))) \
        if stages else []
    out = []
    for stop in kept:
        row = {key: value for key, value in stop.items() if key not in ("commitIdx", "lastCommitIdx")}
        row.update(eventIdx=stop["commitIdx"], lastEventIdx=stop["lastCommitIdx"], derived=True)
        out.append(row)
    return out


_stage_ids = st.sampled_from(["", "call-llm", "tool-calls", "sf-route", "seed", "final", "sf-messages",
                              "agent/call-llm", "a/b/sf-tools", "x#", "call-llm#7b", "#3"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_stage_ids, st.integers(0, 5)), max_size=30), st.sets(_stage_ids, max_size=3))
def test_derived_stops_in_one_pass_are_the_library_s_composition_key_for_key(rows, mount_stages):
    rids = [stage if not stage or "#" in stage else f"{stage}#{n}" for stage, n in rows]
    mounts = {rid for rid in rids if rid.split("#", 1)[0] in mount_stages}
    expected = _derived_by_composition(rids, mounts)
    assert dumps(S.derived_stops_from_ids(rids, mounts)) == dumps(expected)  # (the keys in the same order too)
    on_axis = S.derived_stops_from_ids(rids, mounts, on_axis=True)
    for stop, plain in zip(on_axis, expected):
        assert stop["axisStart"] == max(plain["eventIdx"], 0)
        assert stop["axisEnd"] == (len(rids) if plain["kind"] == "end" else plain["lastEventIdx"] + 1)


def test_derived_stops_on_a_real_trace_find_the_same_milestones_as_the_commit_log():
    trace = load_json("02-react-two-tools", "trace.json")
    derived = [(s["runtimeStageId"], s["label"]) for s in S.derived_stops(trace["events"])]
    snapshot = _recording("02-react-two-tools")["snapshot"]
    committed = [(s["runtimeStageId"], s["label"])
                 for s in S.milestone_stops(snapshot["commitLog"], snapshot["executionTree"])]
    # The boundary log carries the mounts (subflow.entry) and the typed llm/tool/decision events under the same
    # runtimeStageIds the commits use, so both axes name the same milestones in the same order.
    assert [label for _, label in derived] == [label for _, label in committed]


# --- drill ------------------------------------------------------------------------------------------------------

def test_drill_into_a_real_mount():
    snapshot = _recording("02-react-two-tools")["snapshot"]
    stops = S.milestone_stops(snapshot["commitLog"], snapshot["executionTree"])
    engine = next(s for s in stops if s["runtimeStageId"] == "sf-injection-engine#1")
    # the injection engine's own log (input seed + gather/evaluate/route/delta) holds no milestone
    inner = S.drill(snapshot, engine)
    assert [(s["kind"], s["lastCommitIdx"], s.get("prologue")) for s in inner] == [
        ("start", 4, True), ("end", 4, None)]
    plain = S.drill(snapshot, engine, S.commit_stops)
    assert [s["runtimeStageId"] for s in plain[1:-1]] == [
        "sf-injection-engine/gather#2", "sf-injection-engine/evaluate#3", "sf-injection-engine/route#4",
        "sf-injection-engine/delta#5"]
    assert plain[0]["lastCommitIdx"] == 0  # the id-less input-seed commit belongs to start
    assert all(s["subflowPath"] == "sf-injection-engine" for s in plain[1:-1])
    # not drillable: a plain stage, or a mount with no recorded result
    assert S.drill(snapshot, next(s for s in stops if s["kind"] == "commit")) is None
    assert S.drill(snapshot, {**engine, "runtimeStageId": "nope#1"}) is None


def test_drill_reaches_milestones_inside_compositions():
    snapshot = _recording("07-flow-sequence")["snapshot"]
    top = S.commit_stops(snapshot["commitLog"], snapshot["executionTree"])
    work = next(s for s in top if s["runtimeStageId"] == "step-work#14")
    inner = S.drill(snapshot, work)
    labels = [s["label"] for s in inner]
    assert labels[:8] == ["Run start", "Iteration", "System prompt", "Messages", "Tools", "LLM turn", "Route",
                          "Tool call"]
    classify = S.drill_source(snapshot, "step-classify#1")
    llm_call = next(s for s in S.milestone_stops(classify["commitLog"], classify["executionTree"])
                    if s["kind"] == "mount")
    nested = S.drill(classify, llm_call)  # drills again through the same flat results map
    assert [s["label"] for s in nested] == ["Run start", "System prompt", "Messages", "LLM turn", "Run end"]
    assert nested[3]["runtimeStageId"] == "step-classify/sf-llm-call/call-llm#9"


def test_drilled_fold_reproduces_the_subflow_global_context():
    snapshot = _recording("02-react-two-tools")["snapshot"]
    source = S.drill_source(snapshot, "sf-tools#11")
    folded = S.state_at(source, len(source["commitLog"]) - 1)["state"]
    assert folded == snapshot["subflowResults"]["sf-tools#11"]["treeContext"]["globalContext"]


# --- chains -----------------------------------------------------------------------------------------------------

def test_chain_legs_arithmetic():
    paused = S.commit_stops([{"runtimeStageId": f"{n}#{i}"} for i, n in enumerate("abc")])
    resumed = S.commit_stops([{"runtimeStageId": "d#3"}, {"runtimeStageId": "e#4"}])
    chained = S.chain_legs([paused, resumed])
    assert len(chained) == len(paused) + len(resumed) - 2
    assert [(s["step"], s["sourceIdx"], s["commitIdx"]) for s in chained] == [
        (0, 0, -1), (1, 0, 0), (2, 0, 1), (3, 0, 2), (4, 1, 0), (5, 1, 1), (6, 1, 1)]
    three = S.chain_legs([paused, resumed, resumed])
    assert len(three) == 2 * len(resumed) + len(paused) - 4
    assert S.chain_legs([paused]) == [{**s, "sourceIdx": 0} for s in paused]
    assert S.chain_legs([[], resumed])[0]["sourceIdx"] == 1


def test_chain_legs_on_the_real_resumed_leg():
    snapshot = _recording("06-pause-resume")["snapshot"]
    resumed = S.milestone_stops(snapshot["commitLog"], snapshot["executionTree"])
    paused = S.milestone_stops(_example_log())
    chained = S.chain_legs([paused, resumed])
    assert len(chained) == len(paused) + len(resumed) - 2
    assert chained[len(paused) - 1]["runtimeStageId"] == "tool-calls#45"
    assert chained[-1]["kind"] == "end" and chained[-1]["sourceIdx"] == 1


# --- stateAt verbs ----------------------------------------------------------------------------------------------

def test_state_at_replays_every_verb():
    d = S.PATH_DELIMITER
    log = [
        {"trace": [{"path": "tags", "verb": "set"}, {"path": f"cfg{d}a", "verb": "set"}],
         "overwrite": {"tags": ["x"], "cfg": {"a": 1}}, "updates": {}},
        {"trace": [{"path": "tags", "verb": "merge"}, {"path": "cfg", "verb": "merge"}],
         "overwrite": {}, "updates": {"tags": ["x", "y"], "cfg": {"b": 2}}},
        {"trace": [{"path": "log", "verb": "append"}, {"path": "log", "verb": "append"}],
         "overwrite": {"log": [1]}, "updates": {}},
        {"trace": [{"path": f"cfg{d}a", "verb": "delete"}, {"path": "tags", "verb": "merge"}],
         "overwrite": {}, "updates": {"tags": []}},
        "not a bundle",
    ]
    source = {"commitLog": log, "initialState": {"keep": True}}
    assert S.state_at(source, 1)["state"] == {"keep": True, "tags": ["x", "y"], "cfg": {"a": 1, "b": 2}}
    assert S.state_at(source, 2)["state"]["log"] == [1, 1]
    final = S.state_at(source, 99)
    assert final["state"] == {"keep": True, "tags": [], "cfg": {"b": 2}, "log": [1, 1]}
    assert final["throughCommitIdx"] == 4 and final["skipped"] == [4]
    assert S.state_at({"history": log}, 0)["basis"] == "log-only"
    assert source["initialState"] == {"keep": True}  # the base is never edited


@pytest.mark.parametrize("paths", [5, True, "a", {"a": 1}, None, ["a", 3, "b"]])
def test_state_at_reads_only_the_redacted_paths_a_list_names(paths):
    folded = S.state_at({"commitLog": [{"trace": [], "overwrite": {}, "redactedPaths": paths}]}, 0)
    assert folded["redactedPaths"] == (["a", "b"] if isinstance(paths, list) else [])
