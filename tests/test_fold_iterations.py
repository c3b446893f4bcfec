"""Folding runs of alike iterations (core/fold_iterations.py) on the real large run and on small made-up graphs."""

from __future__ import annotations

import pytest

from afp_desktop.core.model.fold_iterations import FoldMap, find_folds, fold_graph, iteration_of_nodes
from afp_desktop.core.model.layout import layout_step_graph
from tests.corpus_util import load_json


def _row(iteration: int, tools=("a", "b"), first_kind="tool->llm") -> list[dict]:
    row = [{"id": f"slot-{iteration}", "kind": "fork-branch", "label": "Messages"},
           {"id": f"llm-{iteration}", "kind": first_kind, "label": first_kind.replace("->", " → "),
            "iterationIndex": iteration}]
    row += [{"id": f"tool-{iteration}-{t}", "kind": "llm->tool", "label": f"llm → tool ({t})",
             "iterationIndex": iteration} for t in tools]
    return row


def _graph(rows: list[list[dict]]) -> dict:
    nodes = [{"id": "run", "kind": "subflow", "label": "Run"}] + [n for row in rows for n in row]
    edges = [{"id": f"{a['id']}->{b['id']}", "from": a["id"], "to": b["id"], "kind": "next"}
             for a, b in zip(nodes[1:], nodes[2:])]
    return {"nodes": nodes, "edges": edges}


def test_slot_chips_belong_to_the_llm_call_after_them():
    graph = _graph([_row(1, first_kind="user->llm"), _row(2)])
    assert iteration_of_nodes(graph["nodes"]) == [None, 1, 1, 1, 1, 2, 2, 2, 2]


def test_alike_iterations_fold_but_for_the_first_and_last():
    rows = [_row(1, first_kind="user->llm")] + [_row(i) for i in range(2, 12)]
    graph = _graph(rows)
    folds = find_folds(graph["nodes"])
    assert len(folds) == 1
    fold = folds[0]
    assert (fold.first, fold.last, fold.count) == (3, 10, 8)  # 2 and 11 stay: edges in and out still read
    ids = [n["id"] for n in graph["nodes"]]
    assert ids[fold.start] == "slot-3" and ids[fold.end - 1] == "tool-10-b"


def test_a_different_row_breaks_the_run():
    rows = [_row(i) for i in range(1, 8)] + [_row(8, tools=("c",))] + [_row(i) for i in range(9, 16)]
    folds = find_folds(_graph(rows)["nodes"])
    assert [(f.first, f.last) for f in folds] == [(2, 6), (10, 14)]


def test_too_few_alike_iterations_stay():
    assert find_folds(_graph([_row(i) for i in range(1, 5)])["nodes"]) == []  # 2 inner iterations < 3


def test_fold_map_is_monotone_both_ways():
    rows = [_row(i) for i in range(1, 30)]
    graph = _graph(rows)
    folds = find_folds(graph["nodes"])
    fmap = FoldMap(len(graph["nodes"]), folds)
    shown = [fmap.to_shown(i) for i in range(len(graph["nodes"]))]
    assert shown == sorted(shown) and shown[-1] == fmap.shown_count - 1
    for d in range(fmap.shown_count):
        assert fmap.to_shown(fmap.to_full(d)) == d
    chip = fmap.to_shown(folds[0].start)
    assert fmap.fold_at(chip) == folds[0] and fmap.fold_at(chip + 1) is None
    # the steps that have happened are a prefix of the graph shown
    assert fmap.shown_started(0) == 0
    assert fmap.shown_started(folds[0].start + 1) == chip + 1
    assert fmap.shown_started(len(graph["nodes"])) == fmap.shown_count


def test_the_large_run_folds_to_a_graph_one_can_see_at_once():
    graph = load_json("15-large-run", "ref.stepgraph.json")
    folds = find_folds(graph["nodes"])
    assert [(f.first, f.last) for f in folds] == [(3, 149)]
    shown, fmap = fold_graph(graph, folds)
    assert len(shown["nodes"]) == fmap.shown_count < 40 < len(graph["nodes"])
    chip = shown["nodes"][fmap.to_shown(folds[0].start)]
    assert chip["kind"] == "fold" and chip["label"] == "Iterations 3–149" and "×147" in chip["detail"]
    ids = {n["id"] for n in shown["nodes"]}
    assert all(e["from"] in ids and e["to"] in ids for e in shown["edges"])
    assert len({(e["from"], e["to"]) for e in shown["edges"]}) == len(shown["edges"])
    full, folded = layout_step_graph(graph), layout_step_graph(shown)
    assert folded.height < full.height / 10


@pytest.mark.parametrize("nodes", [[], [None, 3, "x"], [{"iterationIndex": True}, {"iterationIndex": 1}]])
def test_odd_nodes_never_fold_wrongly(nodes):
    assert find_folds(nodes) == []
