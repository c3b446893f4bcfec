"""What the compare window is sent of two runs compared where their events are (the engine): the alignment, the
compared values it shows and the merged graph's edges and layout; never a run's events or its steps.

The window holds both runs' step graphs already (its copies of them): `CompareAnswer.joined(graph_a, graph_b)` puts
them back into a Comparison (core/views/compare.py). Of the compared values, only what the window shows travels
(`shown_values`): a step's figures (tokens, duration, error) always, its payloads where the window draws them (the
fields a changed pair differs in; every field of a step only one run has). The values are read payloads, never a
LazyJSON: one of those carries its whole file's bytes with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afp_desktop.core.model.layout import GraphLayout, layout_step_graph
from afp_desktop.core.views.compare import (
    NUMBER_FIELDS,
    Comparison,
    StepPair,
    compare_runs,
    merged_edges,
    merged_nodes,
)

FIGURES = (*NUMBER_FIELDS, "error")  # the values of every step the window shows (its deltas and totals)


@dataclass
class CompareAnswer:
    steps: tuple[int, int]  # how many steps each run has (the runs the window holds must have as many)
    values_a: list[dict[str, Any]]  # per step, what the window shows of its compared values (shown_values)
    values_b: list[dict[str, Any]]
    rows: list[StepPair]
    partner_a: list[int | None]
    partner_b: list[int | None]
    merged_edges: list[dict]  # the merged graph's edges (its nodes are the window's: compare.merged_nodes)
    merged_layout: GraphLayout | None  # None: neither run has steps
    layout_a: GraphLayout | None = None  # run A's whole graph's layout, when asked (its copy was made without it)

    def joined(self, graph_a: dict, graph_b: dict) -> Comparison:
        """The Comparison of the runs whose step graphs these are (the window's copies'). ValueError when they are
        not the graphs compared (a file changed since the window read it)."""
        nodes_a, nodes_b = graph_a.get("nodes") or [], graph_b.get("nodes") or []
        if (len(nodes_a), len(nodes_b)) != self.steps:
            raise ValueError(f"the runs compared have {self.steps[0]:,} and {self.steps[1]:,} steps, the runs shown "
                             f"{len(nodes_a):,} and {len(nodes_b):,} (a file changed since it was opened)")
        return Comparison(nodes_a, nodes_b, self.values_a, self.values_b, self.rows, self.partner_a,
                          self.partner_b, graph_a.get("edges") or [], graph_b.get("edges") or [])


def compare_answer(run_a, run_b, layout_a: bool = False) -> CompareAnswer:
    """Compare `run_a` with `run_b` (both holding their events); `layout_a`: add run A's whole graph's layout."""
    from afp_desktop.core.views.prepared_views import graph_layout_of

    comparison = compare_runs(run_a, run_b)
    edges = merged_edges(comparison)
    merged = layout_step_graph({"nodes": merged_nodes(comparison), "edges": edges}) if comparison.rows else None
    values_a, values_b = shown_values(comparison)
    return CompareAnswer((len(comparison.nodes_a), len(comparison.nodes_b)), values_a, values_b, comparison.rows,
                         comparison.partner_a, comparison.partner_b, edges, merged,
                         graph_layout_of(run_a) if layout_a else None)


def shown_values(comparison: Comparison) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each run's compared values cut to what the window shows: FIGURES of every step, the fields a changed pair
    differs in, and every field of a step only one run has."""
    a = [{k: v[k] for k in FIGURES if k in v} for v in comparison.values_a]
    b = [{k: v[k] for k in FIGURES if k in v} for v in comparison.values_b]
    for row in comparison.rows:
        if row.a is not None and row.b is not None:
            for side, values, index in ((a, comparison.values_a, row.a), (b, comparison.values_b, row.b)):
                side[index].update((k, values[index][k]) for k in row.fields if k in values[index])
        elif row.a is not None:
            a[row.a] = comparison.values_a[row.a]
        elif row.b is not None:
            b[row.b] = comparison.values_b[row.b]
    return a, b
