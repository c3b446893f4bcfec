"""The framework's own steps (core/model/framework_steps.py): which drawn elements are plumbing, the internal steps
the StepGraph fold dropped, and the graph drawn with them hidden or shown, over the corpus runs."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.formats import open_run
from afp_desktop.core.library.stepgraph import build_step_graph
from afp_desktop.core.model.framework_steps import (
    FRAMEWORK_KIND,
    describe_hidden,
    framework_nodes,
    framework_steps,
    hidden_count,
    is_framework_segment,
    shown_graph,
)
from afp_desktop.core.model.layout import layout_step_graph
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.model.run import Run
from tests.corpus_util import SMALL_SCENARIOS, corpus_path
from tests.test_layout import assert_valid


def internal_events(run) -> list[dict]:
    return [e for e in run.domain_events if isinstance(e, dict) and e.get("isAgentInternal") is True
            and e.get("type") in ("subflow.entry", "decision.branch")]


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
@pytest.mark.parametrize("name", ["trace.json", "recording.json"])
def test_the_corpus_graphs_draw_no_framework_step_but_the_events_hold_them(scenario, name):
    """The evidence: the library's fold already drops every internal subflow and decision, so nothing drawn is
    plumbing; the framework steps are in the events, one per internal entry or decision."""
    run = open_run(corpus_path(scenario, name))
    nodes = run.stepgraph["nodes"]
    assert framework_nodes(nodes) == []
    for node in nodes:  # (no drawn subflow's own segment is internal: the fold's closed list did its job)
        if node["kind"] == "subflow" and len(node["subflowPath"]) > 1:
            assert not is_framework_segment(node["subflowPath"][-1]), node
    steps = framework_steps(run.domain_events)
    assert framework_steps(run.domain_events, run.step_fold.internal_at) == steps  # (the fold's candidates only)
    assert len(steps) == len(internal_events(run))
    assert hidden_count(nodes, steps) == len(steps)
    for step in steps:
        assert is_framework_segment(step.segment) or step.kind == "decision", step
        assert step.exit is None or step.exit >= step.entry
    if scenario != "01-llmcall-single":
        assert steps, "every agent run has framework steps (injection engine, cache, route…)"


def test_a_react_run_s_framework_steps_by_name():
    run = open_run(corpus_path("02-react-two-tools", "trace.json"))
    steps = framework_steps(run.domain_events)
    assert Counter(s.segment for s in steps) == {"sf-injection-engine": 3, "sf-cache": 3, "cache-gate": 3,
                                                  "sf-thinking": 3, "sf-route": 3, "final": 1}
    assert [s.label for s in steps if s.kind == "decision"][:2] == ["CacheGate → ApplyMarkers", "Route → ToolCalls"]
    assert all(s.owner == ("__root__",) for s in steps)
    assert all(s.exit is not None for s in steps if s.kind == "subflow")  # (all of them ended)
    assert describe_hidden(run.stepgraph["nodes"], steps).startswith("cache-gate ×3")


def test_a_typed_stream_has_none():
    run = open_run(corpus_path("02-react-two-tools", "events.ndjson"))
    assert framework_steps(run.domain_events) == []
    assert shown_graph(run.stepgraph, run.step_fold.node_created_at, [], hide=False) == (run.stepgraph, None)


def test_a_nested_agent_s_steps_belong_to_it():
    run = open_run(corpus_path("07-flow-sequence", "trace.json"))
    owners = Counter(s.owner for s in framework_steps(run.domain_events))
    # sf-thinking inside sf-llm-call of the LLMCall "classify" belongs to classify, not to the plumbing around it
    assert owners[("__root__", "step-classify")] == 2
    assert owners[("__root__", "step-work")] == 11
    assert set(owners) == {("__root__", "step-classify"), ("__root__", "step-work"), ("__root__", "step-summarize")}


@pytest.mark.parametrize("segment,framework", [
    ("sf-injection-engine", True), ("sf-route", True), ("final", True), ("cache-gate", True),
    ("thinking-anthropic", True), ("sf-inputs", True), ("sf-memory-read-x", True),  # (the lens's sf-* law)
    ("sf-system-prompt", False), ("sf-messages", False), ("sf-tools", False),  # the slots: not plumbing
    ("step-work", False), ("tool-calls", False), ("context", False), ("agent/sf-cache#3", True), ("", False)])
def test_what_counts_as_a_framework_segment(segment, framework):
    assert is_framework_segment(segment) is framework


# ------------------------------------------------------------------------------------------- shown or hidden


def test_shown_they_are_chips_in_the_order_they_ran_with_a_monotone_map():
    run = open_run(corpus_path("02-react-two-tools", "trace.json"))
    graph, steps = run.stepgraph, framework_steps(run.domain_events)
    created = run.step_fold.node_created_at
    shown, smap = shown_graph(graph, created, steps, hide=False)
    assert smap is not None
    nodes = shown["nodes"]
    assert len(nodes) == len(graph["nodes"]) + len(steps)
    chips = [d for d, n in enumerate(nodes) if n["kind"] == FRAMEWORK_KIND]
    assert [smap.step_of[d] for d in chips] == sorted(steps, key=lambda s: s.entry)
    assert all(smap.to_full(d) is None for d in chips)
    full = [smap.to_full(d) for d in range(len(nodes)) if d not in chips]
    assert full == list(range(len(graph["nodes"])))  # every run node, in order
    assert [smap.to_shown(i) for i in range(len(graph["nodes"]))] == [d for d in range(len(nodes)) if d not in chips]
    # each chip sits before the first run node made after it began
    for d in chips:
        step = smap.step_of[d]
        later = next((smap.to_full(k) for k in range(d + 1, len(nodes)) if smap.to_full(k) is not None), None)
        assert later is None or created[later] > step.entry
    assert shown["edges"] == graph["edges"]
    assert_valid(layout_step_graph(shown), shown)


def test_time_travel_a_chip_is_started_active_and_the_cursor_s_step_only_when_it_has_run():
    run = open_run(corpus_path("02-react-two-tools", "trace.json"))
    steps = framework_steps(run.domain_events)
    shown, smap = shown_graph(run.stepgraph, run.step_fold.node_created_at, steps, hide=False)
    replay = Replay(run)
    cache = next(s for s in steps if s.segment == "sf-cache")
    inside = run.axis.position_of_domain(cache.entry) + 1  # right after the cache subflow was entered
    moment = replay.moment(inside)
    assert cache.started(moment.n_domain) and cache.active(moment.n_domain)
    chip = next(d for d, s in smap.step_of.items() if s is cache)
    started = smap.shown_started(moment.nodes_started, moment.n_domain)
    assert started == chip + 1  # the cache is the last thing that began
    assert smap.active_chips(moment.n_domain) == [chip]
    before = replay.moment(inside - 1)
    assert not cache.started(before.n_domain)
    assert smap.shown_started(before.nodes_started, before.n_domain) <= chip
    assert smap.active_chips(replay.moment(replay.length).n_domain) == []  # at the end: all done
    assert smap.shown_started(replay.moment(replay.length).nodes_started, 10**9) == len(shown["nodes"])


def newer_library_run() -> Run:
    """A run from a newer library whose `sf-memory-read-x` subflow is not in 9.62's closed internal list: the fold
    draws it, the lens's law calls it plumbing. Its decision `agent/sf-route` is drawn too (no isAgentInternal)."""
    events: list[dict] = []
    t = [1000]

    def ev(kind, stage, path, **fields):
        t[0] += 1
        events.append({"type": kind, "runtimeStageId": stage, "subflowPath": ["__root__", *path], "depth": len(path),
                       "ts": t[0], **fields})

    ev("run.entry", "__root__#0", [], payload={"q": "hi"}, isRoot=True)
    ev("subflow.entry", "agent#1", ["agent"], subflowId="agent", subflowName="agent", primitiveKind="Agent",
       description="Agent: helper", isAgentInternal=False)
    ev("subflow.entry", "agent/sf-memory-read-x#2", ["agent", "sf-memory-read-x"],
       subflowId="agent/sf-memory-read-x", subflowName="MemoryRead", isAgentInternal=False)
    ev("subflow.exit", "agent/sf-memory-read-x#2", ["agent", "sf-memory-read-x"],
       subflowId="agent/sf-memory-read-x", subflowName="MemoryRead", isAgentInternal=False)
    ev("subflow.entry", "agent/sf-cache#3", ["agent", "sf-cache"], subflowId="agent/sf-cache",
       subflowName="Cache", isAgentInternal=True)
    ev("subflow.exit", "agent/sf-cache#3", ["agent", "sf-cache"], subflowId="agent/sf-cache",
       subflowName="Cache", isAgentInternal=True)
    ev("llm.start", "agent/call-llm#4", ["agent"], model="m", provider="p", actorArrow="user→llm")
    ev("llm.end", "agent/call-llm#4", ["agent"], content="ok", toolCallCount=0, usage={"input": 5, "output": 2},
       actorArrow="llm→user")
    ev("decision.branch", "agent/sf-route#5", ["agent"], decider="Route", chosen="final", isAgentInternal=False)
    ev("subflow.exit", "agent#1", ["agent"], subflowId="agent", subflowName="agent", isAgentInternal=False)
    ev("run.exit", "__root__#0", [], payload="ok")
    return Run(path="newer.json", format="trace", typed_events=None, domain_events=events, domain_source="trace")


def test_drawn_plumbing_of_a_newer_library_is_hidden_and_stood_in_for_by_its_agent():
    run = newer_library_run()
    graph = run.stepgraph
    assert graph == build_step_graph(run.domain_events)
    kinds = [(n["kind"], n.get("label")) for n in graph["nodes"]]
    memory = kinds.index(("subflow", "MemoryRead"))
    route = kinds.index(("decision-branch", "final"))
    agent = kinds.index(("subflow", "agent"))
    assert framework_nodes(graph["nodes"]) == [memory, route]
    steps = framework_steps(run.domain_events)
    assert [s.segment for s in steps] == ["sf-cache"]
    assert hidden_count(graph["nodes"], steps) == 3
    shown, smap = shown_graph(graph, run.step_fold.node_created_at, steps, hide=True)
    assert smap is not None and len(shown["nodes"]) == len(graph["nodes"]) - 2
    assert all(n.get("label") not in ("MemoryRead", "final") for n in shown["nodes"])
    # the cursor rule: a hidden step's nearest visible enclosing element stands for it
    assert shown["nodes"][smap.to_shown(memory)]["label"] == "agent"
    assert smap.to_shown(memory) == smap.to_shown(agent)
    assert shown["nodes"][smap.to_shown(route)]["label"] == "agent"
    assert_valid(layout_step_graph(shown), shown)
    # not hidden: both drawn, and the dropped internal cache as a chip
    shown_all, smap_all = shown_graph(graph, run.step_fold.node_created_at, steps, hide=False)
    assert smap_all is not None and len(shown_all["nodes"]) == len(graph["nodes"]) + 1


# ------------------------------------------------------------------------------------------------ hostile events

_values = st.none() | st.booleans() | st.integers(-3, 3) | st.floats() | st.text(max_size=12) \
    | st.lists(st.text(max_size=6), max_size=3)
_events = st.lists(st.one_of(
    _values,
    st.fixed_dictionaries({"type": st.sampled_from(["subflow.entry", "subflow.exit", "decision.branch", "run.entry",
                                                    "llm.start", "llm.end", "tool.start", "tool.end"]),
                           "isAgentInternal": st.sampled_from([True, False, "yes", None])},
                          optional={"runtimeStageId": _values, "subflowPath": _values, "subflowId": _values,
                                    "subflowName": _values, "decider": _values, "chosen": _values, "ts": _values,
                                    "usage": st.just({"input": 1, "output": 1}), "actorArrow": _values})),
    max_size=25)


@settings(max_examples=150, deadline=None)
@given(_events, st.booleans())
def test_any_event_list_gives_steps_and_a_consistent_graph(events, hide):
    run = Run(path="x.json", format="trace", typed_events=None, domain_events=events, domain_source="trace")
    steps = framework_steps(events)
    graph = run.stepgraph
    assert framework_steps(events, run.step_fold.internal_at) == steps  # (only the events the fold found internal)
    for cut in (0, len(events) // 2):  # a fold fed further than the events asked about (a run followed)
        assert framework_steps(events[:cut], run.step_fold.internal_at) == framework_steps(events[:cut])
    shown, smap = shown_graph(graph, run.step_fold.node_created_at, steps, hide)
    if smap is None:
        assert shown is graph
        return
    count = len(graph["nodes"])
    kept = [smap.to_full(d) for d in range(len(shown["nodes"]))]
    drawn = [i for i in kept if i is not None]
    assert drawn == sorted(drawn) and len(set(drawn)) == len(drawn)  # the run's order, once each
    for i in range(count):
        assert 0 <= smap.to_shown(i) < max(1, len(shown["nodes"]))
    assert smap.shown_started(count, 10**6) == len(shown["nodes"])
    layout_step_graph(shown)


@pytest.mark.parametrize("scenario", [*SMALL_SCENARIOS, "15-large-run"])
def test_every_corpus_graph_with_its_framework_steps_drawn_keeps_the_layout_s_promises(scenario):
    run = open_run(corpus_path(scenario, "trace.json"))
    shown, smap = shown_graph(run.stepgraph, run.step_fold.node_created_at, framework_steps(run.domain_events),
                              hide=False)
    assert_valid(layout_step_graph(shown), shown)
    if scenario == "15-large-run":  # the alike iterations still fold, framework chips and all
        from afp_desktop.core.model.fold_iterations import find_folds, fold_graph

        folds = find_folds(shown["nodes"])
        assert folds and folds[0].count >= 140
        folded, _fmap = fold_graph(shown, folds)
        assert_valid(layout_step_graph(folded), folded)
