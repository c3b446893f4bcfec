"""Folding runs of similar iterations of a StepGraph into one chip ("iterations 3–398, ×396"). Pure, no Qt.

A ReAct run of hundreds of iterations repeats the same row: the context slots, an LLM call, the same tool calls.
The framework's own viewer hides framework steps behind a count chip; here a run of iterations whose rows are
alike (same kinds and labels of steps, in order) becomes one chip in the graph, its first and last iteration left
showing so the edges in and out still read. Clicking the chip expands it.

    folds = find_folds(graph["nodes"])                        # [Fold(first=2, last=149, start=8, end=897), ...]
    shown, fmap = fold_graph(graph, folds)                    # a smaller graph, and the index map both ways
    fmap.to_shown(i) / fmap.to_full(d) / fmap.fold_at(d)      # node i of the run ↔ node d of the graph shown

Folds are contiguous ranges of node indices, so the map is monotone: the steps that have happened at a moment
(a prefix of the run's nodes) are a prefix of the graph shown.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from afp_desktop.core.breathing import breathe, breathing_over
from afp_desktop.core.jsonx import jsonio

CHIP_BEFORE_KINDS = frozenset(("fork-branch", "decision-branch", "framework"))  # slot chips come before their LLM call
FOLD_KIND = "fold"
MIN_FOLDED = 3  # fewer alike iterations than this stay as they are
AUTO_FOLD_STEPS = 2000  # a graph of more steps than this is shown folded until the user chooses


@dataclass(frozen=True)
class Fold:
    first: int   # the first iteration folded (iterationIndex)
    last: int    # the last one folded
    start: int   # node indices start <= i < end are folded
    end: int

    @property
    def count(self) -> int:
        return self.last - self.first + 1

    @property
    def label(self) -> str:
        return f"Iterations {self.first:,}–{self.last:,}"


def iteration_of_nodes(nodes: list) -> list[int | None]:
    """Each node's iteration: its iterationIndex, or for the slot chips that precede an LLM call, that call's."""
    out: list[int | None] = [None] * len(nodes)
    pending: list[int] = []
    for i, node in enumerate(breathing_over(nodes)):
        node = node if isinstance(node, dict) else {}
        iteration = node.get("iterationIndex")
        if isinstance(iteration, int) and not isinstance(iteration, bool):
            out[i] = iteration
            for j in pending:
                out[j] = iteration
            pending = []
        elif node.get("kind") in CHIP_BEFORE_KINDS:
            pending.append(i)
        else:
            pending = []
    return out


def _signature(nodes: list, start: int, end: int) -> tuple:
    key = jsonio.value_key  # (str() of a value nested 1,100 levels deep went past the recursion limit)
    return tuple((key(n.get("kind")), key(n.get("label")), key(n.get("subflowPath")))
                 for n in (nodes[i] if isinstance(nodes[i], dict) else {} for i in range(start, end)))


def find_folds(nodes: list, min_folded: int = MIN_FOLDED) -> list[Fold]:
    """Runs of consecutive alike iterations, each folded but for its first and last iteration."""
    iterations = iteration_of_nodes(nodes)
    blocks: list[tuple[int, int, int]] = []  # (iteration, start, end): one contiguous block of nodes per iteration
    i = 0
    while i < len(nodes):
        iteration = iterations[i]
        if iteration is None:
            i += 1
            continue
        j = i
        while j < len(nodes) and iterations[j] == iteration:
            j += 1
        blocks.append((iteration, i, j))
        i = j
    folds: list[Fold] = []
    k = 0
    while k < len(blocks):
        breathe()  # (a block's signature reads each of its nodes: a breath per block)
        signature = _signature(nodes, blocks[k][1], blocks[k][2])
        m = k + 1
        while m < len(blocks) and blocks[m][0] == blocks[m - 1][0] + 1 and blocks[m][1] == blocks[m - 1][2] \
                and _signature(nodes, blocks[m][1], blocks[m][2]) == signature:
            m += 1
            if not m & 63:
                breathe()
        inner = blocks[k + 1:m - 1]  # the run's first and last iteration stay shown
        if len(inner) >= min_folded:
            folds.append(Fold(inner[0][0], inner[-1][0], inner[0][1], inner[-1][2]))
        k = max(m, k + 1)
    return folds


class FoldMap:
    """Node indices of the run ↔ node indices of the folded graph shown."""

    def __init__(self, count: int, folds: list[Fold]):
        self.count = count
        self.folds = sorted(folds, key=lambda f: f.start)
        self._starts = [f.start for f in self.folds]
        # shown index of each fold chip, and how many nodes the folds before each one removed
        self._removed_before: list[int] = []
        removed = 0
        for fold in self.folds:
            self._removed_before.append(removed)
            removed += fold.end - fold.start - 1
        self.shown_count = count - removed
        self._chip_at = {fold.start - self._removed_before[k]: k for k, fold in enumerate(self.folds)}

    def to_shown(self, index: int) -> int:
        k = bisect_right(self._starts, index) - 1
        if k < 0:
            return index
        fold = self.folds[k]
        if index < fold.end:
            return fold.start - self._removed_before[k]
        return index - self._removed_before[k] - (fold.end - fold.start - 1)

    def fold_at(self, shown: int) -> Fold | None:
        k = self._chip_at.get(shown)
        return self.folds[k] if k is not None else None

    def to_full(self, shown: int) -> int:
        """The run's node shown at `shown` (a fold chip: the first node it hides)."""
        for k, fold in enumerate(self.folds):
            chip = fold.start - self._removed_before[k]
            if shown < chip:
                return shown + self._removed_before[k]
            if shown == chip:
                return fold.start
        return shown + (self.count - self.shown_count)

    def shown_started(self, started: int) -> int:
        """How many shown nodes have started when `started` nodes of the run have (a fold chip starts with its
        first hidden step)."""
        return 0 if started <= 0 else self.to_shown(started - 1) + 1


def fold_graph(graph: dict, folds: list[Fold]) -> tuple[dict, FoldMap]:
    """The graph with each fold's nodes replaced by one chip, edges re-pointed (inner edges dropped)."""
    nodes = graph.get("nodes") or []
    fmap = FoldMap(len(nodes), folds)
    shown_nodes: list[dict] = []
    fold_by_start = {fold.start: fold for fold in fmap.folds}
    i = 0
    while i < len(nodes):
        fold = fold_by_start.get(i)
        if fold is not None:
            first = nodes[fold.start] if isinstance(nodes[fold.start], dict) else {}
            shown_nodes.append({"id": f"fold:{fold.first}-{fold.last}", "kind": FOLD_KIND, "label": fold.label,
                                "detail": f"×{fold.count:,} alike, {fold.end - fold.start:,} steps",
                                "hint": "click to expand", "subflowPath": first.get("subflowPath"),
                                "foldedSteps": fold.end - fold.start})
            i = fold.end
        else:
            shown_nodes.append(nodes[i])
            i += 1
    id_to_index = {n.get("id"): k for k, n in enumerate(nodes) if isinstance(n, dict) and "id" in n}
    shown_edges, seen = [], set()
    for edge in graph.get("edges") or []:
        source, target = id_to_index.get(edge.get("from")), id_to_index.get(edge.get("to"))
        if source is None or target is None:
            shown_edges.append(edge)
            continue
        a, b = fmap.to_shown(source), fmap.to_shown(target)
        if a == b and (fmap.fold_at(a) is not None):
            continue  # inside a fold
        key = (a, b, edge.get("kind"))
        if key in seen:
            continue
        seen.add(key)
        shown_edges.append({**edge, "from": shown_nodes[a].get("id"), "to": shown_nodes[b].get("id")})
    return {**graph, "nodes": shown_nodes, "edges": shown_edges}, fmap
