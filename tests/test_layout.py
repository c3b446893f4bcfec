"""The step-graph layout: geometry guarantees on every corpus graph, a synthetic 10k graph and odd inputs. No Qt."""

from __future__ import annotations

import copy
import random
from collections import defaultdict

import pytest

# private: _format_iterations, the loop label's wording, is checked alone (a layout shows it only in labels)
from afp_desktop.core.model.layout import (
    CHIP_KINDS,
    GraphLayout,
    NodeBox,
    _format_iterations,
    layout_step_graph,
    resolve_edges,
)
from afp_desktop.core.views.synthetic import synthetic_step_graph
from tests.corpus_util import SCENARIOS, load_json

EPS = 1e-6
CELL = 200.0  # spatial hash cell for the geometry checks


def _cells(x0: float, y0: float, x1: float, y1: float):
    for cx in range(int(x0 // CELL), int(x1 // CELL) + 1):
        for cy in range(int(y0 // CELL), int(y1 // CELL) + 1):
            yield cx, cy


def _grid(boxes: list[NodeBox]) -> dict[tuple[int, int], list[NodeBox]]:
    grid: dict[tuple[int, int], list[NodeBox]] = defaultdict(list)
    for b in boxes:
        for cell in _cells(b.x, b.y, b.right, b.bottom):
            grid[cell].append(b)
    return grid


def _on_border(point: tuple[float, float], b: NodeBox) -> bool:
    x, y = point
    within_x = b.x - EPS <= x <= b.right + EPS
    within_y = b.y - EPS <= y <= b.bottom + EPS
    on_vertical = abs(x - b.x) < EPS or abs(x - b.right) < EPS
    on_horizontal = abs(y - b.y) < EPS or abs(y - b.bottom) < EPS
    return (within_x and on_horizontal) or (within_y and on_vertical)


def _crosses_interior(a: tuple[float, float], c: tuple[float, float], b: NodeBox) -> bool:
    """Does the axis-aligned segment a–c run through the inside of box b (touching its border is fine)?"""
    (x0, y0), (x1, y1) = a, c
    lo_x, hi_x, lo_y, hi_y = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
    overlap_x = min(hi_x, b.right) - max(lo_x, b.x)
    overlap_y = min(hi_y, b.bottom) - max(lo_y, b.y)
    if lo_y == hi_y:  # horizontal
        return b.y + EPS < lo_y < b.bottom - EPS and overlap_x > EPS
    return b.x + EPS < lo_x < b.right - EPS and overlap_y > EPS


def assert_valid(layout: GraphLayout, graph: dict) -> None:
    nodes = graph.get("nodes") or []
    assert [b.index for b in layout.nodes] == list(range(len(nodes)))
    grid = _grid(layout.nodes)
    # No two cards overlap.
    for b in layout.nodes:
        assert b.w > 0 and b.h > 0
        assert 0 <= b.x and b.right <= layout.width and 0 <= b.y and b.bottom <= layout.height
        for cell in _cells(b.x, b.y, b.right, b.bottom):
            for other in grid[cell]:
                if other.index <= b.index:
                    continue
                overlap = min(b.right, other.right) - max(b.x, other.x), min(b.bottom, other.bottom) - max(b.y, other.y)
                assert not (overlap[0] > EPS and overlap[1] > EPS), f"cards {b.index} and {other.index} overlap"
    # Every edge starts on its source's border, ends on its target's, is orthogonal and crosses no card.
    for route in layout.edges:
        points = route.points
        assert len(points) >= 2
        assert _on_border(points[0], layout.nodes[route.source]), route
        assert _on_border(points[-1], layout.nodes[route.target]), route
        for a, c in zip(points, points[1:]):
            assert a[0] == c[0] or a[1] == c[1], f"edge {route.index} has a diagonal segment {a}→{c}"
            assert 0 <= min(a[0], c[0]) and max(a[0], c[0]) <= layout.width
            seen = set()
            for cell in _cells(min(a[0], c[0]), min(a[1], c[1]), max(a[0], c[0]), max(a[1], c[1])):
                for b in grid.get(cell, ()):
                    if b.index not in seen:
                        seen.add(b.index)
                        assert not _crosses_interior(a, c, b), f"edge {route.index} runs through card {b.index}"


def _graph(scenario: str) -> dict:
    return load_json(scenario, "ref.stepgraph.json")


# ----------------------------------------------------------------------------------------- corpus


@pytest.mark.parametrize("name", SCENARIOS)
def test_corpus_layouts_are_valid(name):
    graph = _graph(name)
    layout = layout_step_graph(graph)
    assert_valid(layout, graph)
    resolved = resolve_edges(graph)
    assert sorted(r.index for r in layout.edges) == [j for j, ends in enumerate(resolved) if ends]
    assert len(layout.edges) == len(graph["edges"])  # every corpus edge has both endpoints


@pytest.mark.parametrize("name", SCENARIOS)
def test_layout_is_deterministic(name):
    graph = _graph(name)
    assert layout_step_graph(graph) == layout_step_graph(copy.deepcopy(graph))


def test_iteration_rows_llm_then_its_batch_of_tools():
    """One row per iteration: the LLM call, then the tools it asked for in one turn stacked as a batch in one
    column right of it (issue 15: a batch is drawn as a batch, not as a chain running off to the right)."""
    graph = _graph("15-large-run")
    layout = layout_step_graph(graph)
    nodes = graph["nodes"]
    by_iteration = defaultdict(list)
    for i, node in enumerate(nodes):
        if node["kind"] in ("user->llm", "tool->llm", "llm->tool", "llm->user"):
            by_iteration[node["iterationIndex"]].append(i)
    assert len(by_iteration) == 151  # 150 turns that call tools, then the answer
    row_tops, previous_bottom = [], 0.0
    for iteration, members in sorted(by_iteration.items()):
        boxes = [layout.nodes[i] for i in members]
        llm, rest = boxes[0], boxes[1:]
        assert nodes[members[0]]["kind"] in ("user->llm", "tool->llm")
        assert all(b.x > llm.right for b in rest)
        if len(rest) >= 2:  # a batch: one column, in run order from the top, level with the call at the top
            assert len({b.x for b in rest}) == 1 and rest[0].y == llm.y
            assert [b.y for b in rest] == sorted(b.y for b in rest) and len({b.y for b in rest}) == len(rest)
        else:
            assert len({b.y for b in boxes}) == 1, f"iteration {iteration} spans several rows"
        assert llm.y > previous_bottom  # rows do not share height
        previous_bottom = max(b.bottom for b in boxes)
        row_tops.append(llm.y)
    assert row_tops == sorted(row_tops) and len(set(row_tops)) == 151
    llm_columns = {layout.nodes[m[0]].x for m in by_iteration.values()}
    assert len(llm_columns) == 1  # LLM cards line up in one column
    fans = [r for r in layout.edges if r.target in by_iteration[1][2:]]
    assert fans and all(r.source == by_iteration[1][0] for r in fans)  # fed from the call, not chained


def test_inter_row_edges_are_orthogonal_polylines_through_gutters():
    graph = _graph("02-react-two-tools")
    layout = layout_step_graph(graph)
    by_index = {r.index: r for r in layout.edges}
    same_row = by_index[0]  # llm #1 → its tool: neighbours in one row, a straight line
    assert len(same_row.points) == 2 and same_row.points[0][1] == same_row.points[1][1]
    next_row = by_index[2]  # tool of iteration 1 → llm of iteration 2
    assert len(next_row.points) == 4
    source, target = layout.nodes[next_row.source], layout.nodes[next_row.target]
    gutter_y = next_row.points[1][1]
    assert source.bottom < gutter_y < target.y


def test_chips_share_the_row_of_the_llm_call_they_prepared():
    graph = _graph("02-react-two-tools")
    layout = layout_step_graph(graph)
    llm = layout.nodes[4]
    for chip in (1, 2, 3):
        box = layout.nodes[chip]
        assert box.kind in CHIP_KINDS
        assert llm.y <= box.y and box.bottom <= llm.bottom and box.right < llm.x


def test_decision_chip_sits_by_the_subflow_it_chose():
    graph = _graph("09-flow-conditional")
    layout = layout_step_graph(graph)
    decision, agent = layout.nodes[1], layout.nodes[2]
    assert graph["nodes"][1]["kind"] == "decision-branch"
    assert agent.y <= decision.y and decision.bottom <= agent.bottom and decision.x > agent.right


def test_subflow_brackets_span_their_steps():
    graph = _graph("07-flow-sequence")
    layout = layout_step_graph(graph)
    groups = {g.index: g for g in layout.groups}
    assert set(groups) == {0, 1, 4, 15}  # Run, classify, work, summarize
    work = groups[4]
    assert layout.nodes[4].bottom <= work.y
    for step in range(8, 15):  # the Agent's LLM calls, tool and context chips
        box = layout.nodes[step]
        assert work.y <= box.y and box.bottom <= work.y + work.h and box.x > work.x
    for outside in (2, 3, 16, 17):
        box = layout.nodes[outside]
        assert box.bottom <= work.y - layout.nodes[4].h or box.y >= work.y + work.h
    assert groups[0].depth == 0 and groups[4].depth == 1
    assert groups[0].x < groups[4].x  # nested brackets step inwards


def test_loop_edges_are_self_loops_on_the_subflow_card_labelled_with_iterations():
    graph = _graph("15-large-run")
    layout = layout_step_graph(graph)
    loops = [r for r in layout.edges if r.kind == "loop-iteration"]
    assert len(loops) == 150 and {(r.source, r.target) for r in loops} == {(0, 0)}
    run = layout.nodes[0]
    assert all(p[0] >= run.right for r in loops for p in r.points)
    assert [r.label for r in loops if r.label] == ["↺ 1–150"]

    loop_graph = _graph("10-flow-loop")
    labels = {r.source: r.label for r in layout_step_graph(loop_graph).edges if r.kind == "loop-iteration"}
    assert labels == {1: "↺ 1", 4: "↺ 2"}


def test_colliding_ids_resolve_by_position():
    graph = _graph("06-pause-resume")  # two Run nodes share the id "__root__#0"
    ids = [n["id"] for n in graph["nodes"]]
    assert ids.count("__root__#0") == 2
    resolved = resolve_edges(graph)
    loop = next(j for j, e in enumerate(graph["edges"]) if e["kind"] == "loop-iteration")
    assert resolved[loop] == (0, 0)  # made while the first Run was active

    graph = synthetic_step_graph(4, 2)
    for node in graph["nodes"]:  # every tool call reuses one id, as a reused toolCallId would
        if node["kind"] == "llm->tool":
            node["id"] = "tool"
    for edge in graph["edges"]:
        edge["from"] = "tool" if edge["from"].startswith("step-tool") else edge["from"]
        edge["to"] = "tool" if edge["to"].startswith("step-tool") else edge["to"]
    chain = [ends for ends, e in zip(resolve_edges(graph), graph["edges"]) if e["kind"] == "next"]
    kinds = [graph["nodes"][t]["kind"] for _, t in chain]
    assert all(s < t for s, t in chain) and len({t for _, t in chain}) == len(chain)
    assert kinds.count("llm->tool") == 6
    assert_valid(layout_step_graph(graph), graph)


def test_synthetic_10k_graph_is_valid():
    """(Its speed, and the large corpus run's, is measured by bench/bench_layout.py.)"""
    graph = synthetic_step_graph(1430, 3)
    assert len(graph["nodes"]) >= 10_000
    assert_valid(layout_step_graph(graph), graph)


def test_synthetic_generator_shape():
    graph = synthetic_step_graph(3, 2, iterations_per_agent=2)
    kinds = [n["kind"] for n in graph["nodes"]]
    assert kinds.count("subflow") == 3 and kinds.count("llm->tool") == 4 and kinds.count("llm->user") == 1
    assert [e["kind"] for e in graph["edges"]].count("loop-iteration") == 2
    assert all(ends for ends in resolve_edges(graph))
    assert synthetic_step_graph(3, 2, 2) == graph
    layout = layout_step_graph(graph)
    assert_valid(layout, graph)
    assert {g.depth for g in layout.groups} == {0, 1}


# ------------------------------------------------------------------------------------- edge cases


@pytest.mark.parametrize("graph", [{}, {"nodes": [], "edges": []}, {"nodes": None, "edges": None}])
def test_empty_graph(graph):
    layout = layout_step_graph(graph)
    assert layout == GraphLayout([], [], [], 0.0, 0.0)


def test_graph_with_only_subflow_nodes():
    graph = _graph("07-flow-sequence")
    keep = [i for i, n in enumerate(graph["nodes"]) if n["kind"] == "subflow"]
    only = {"nodes": [graph["nodes"][i] for i in keep], "edges": [e for e in graph["edges"] if e["kind"] != "next"]}
    layout = layout_step_graph(only)
    assert_valid(layout, only)
    assert [b.y for b in layout.nodes] == sorted(b.y for b in layout.nodes)  # one header row each, in order
    assert [g.index for g in layout.groups] == [0]  # only Run has something inside it
    assert layout.nodes[1].x > layout.nodes[0].x  # nested subflows are indented


def test_typed_stream_graph_without_subflows():
    graph = _graph("02-react-two-tools")
    steps = [n for n in graph["nodes"] if n["kind"] != "subflow"]
    graph = {"nodes": steps, "edges": [e for e in graph["edges"] if e["kind"] == "next"]}
    layout = layout_step_graph(graph)
    assert_valid(layout, graph)
    assert layout.groups == []


def test_nodes_without_iteration_index_still_get_one_row_per_llm_call():
    graph = _graph("02-react-two-tools")
    for node in graph["nodes"]:
        node.pop("iterationIndex", None)
    layout = layout_step_graph(graph)
    assert_valid(layout, graph)
    llm_rows = {layout.nodes[i].y for i, n in enumerate(graph["nodes"]) if n["kind"] in ("user->llm", "tool->llm")}
    assert len(llm_rows) == 3
    assert layout.nodes[5].y == layout.nodes[4].y  # the tool stays with the call that asked for it


def test_edges_to_missing_nodes_are_skipped():
    graph = _graph("02-react-two-tools")
    graph["edges"] = [{"id": "x", "from": "nowhere", "to": graph["nodes"][4]["id"], "kind": "next"},
                      *graph["edges"],
                      {"id": "y", "from": "__root__#0", "to": "gone", "kind": "loop-iteration", "iteration": 9},
                      "not an edge"]
    layout = layout_step_graph(graph)
    assert_valid(layout, graph)
    assert sorted(r.index for r in layout.edges) == list(range(1, len(graph["edges"]) - 2))


def test_malformed_nodes_and_odd_kinds():
    graph = {
        "nodes": [
            {"id": "a", "kind": "user->llm", "label": "user → llm"},  # no offsets, no path
            "garbage",
            {"id": "b", "kind": "something-new", "startOffsetMs": "soon", "subflowPath": "root"},
            {"id": "c", "kind": "fork-branch", "label": "x"},
            {"id": "d", "kind": "decision-branch"},
            {"id": "e", "kind": "fork-branch"},
            {"id": "f", "kind": "fork-branch"},
        ],
        "edges": [
            {"id": "1", "from": "a", "to": "b", "kind": "next"},
            {"id": "2", "from": "c", "to": "d", "kind": "next"},  # chip to chip
            {"id": "3", "from": "f", "to": "a", "kind": "next"},
            {"id": "4", "from": "d", "to": "d", "kind": "loop-iteration", "iteration": 2},  # a loop on a chip
        ],
    }
    layout = layout_step_graph(graph)
    assert_valid(layout, graph)
    assert len(layout.edges) == 4


def test_only_chips():
    graph = {"nodes": [{"id": f"f{i}", "kind": "fork-branch", "label": str(i)} for i in range(7)], "edges": []}
    layout = layout_step_graph(graph)
    assert_valid(layout, graph)


def test_random_edges_never_cross_cards():
    """The router's promises hold for arbitrary edges, not only the fold's chain: backwards, across subflows,
    between chips, within a row, self-loops."""
    rng = random.Random(7)
    graph = synthetic_step_graph(12, 3, iterations_per_agent=4)
    graph["nodes"].insert(20, {"id": "decide", "kind": "decision-branch", "label": "left", "subflowPath": ["__root__"],
                               "startOffsetMs": graph["nodes"][19]["startOffsetMs"]})
    ids = [n["id"] for n in graph["nodes"]]
    for k in range(400):
        kind = "loop-iteration" if k % 17 == 0 else "next"
        a, b = rng.choice(ids), rng.choice(ids)
        graph["edges"].append({"id": f"r{k}", "from": a, "to": a if kind != "next" else b, "kind": kind,
                               "iteration": k})
    layout = layout_step_graph(graph)
    assert_valid(layout, graph)


def test_format_iterations():
    assert _format_iterations([1, 2, 3, 5, 7, 8]) == "↺ 1–3, 5, 7–8"
    assert _format_iterations([None]) == "↺"
    assert _format_iterations(["x", 2]) == "↺ 2, x"


def test_a_pickled_layout_holds_its_routes_points_as_arrays_and_reads_them_the_same():
    """A run's prepared layout travels to the window pickled: each route's points as one array of coordinates."""
    import pickle

    from afp_desktop.core.model.layout import Points
    from afp_desktop.engine.service import load_run
    from tests.corpus_util import corpus_path

    layout = load_run(str(corpus_path("03-parallel-tool-batch", "trace.json"))).views.graph_layout
    back = pickle.loads(pickle.dumps(layout, protocol=5))
    assert back.edges and all(isinstance(route.points, Points) for route in back.edges)
    assert back == layout and [tuple(r.points) for r in back.edges] == [tuple(r.points) for r in layout.edges]
    assert all(route.points[-1] == original.points[-1] and len(route.points) == len(original.points)
               for route, original in zip(back.edges, layout.edges))
    assert pickle.loads(pickle.dumps(back, protocol=5)) == back
