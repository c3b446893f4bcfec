"""Lay out a StepGraph (PROJECTIONS.md §3) as plain coordinates; no Qt here.

Direction: top to bottom. A run is read like a log or a chat transcript: one ReAct iteration after another,
downwards, and a long run (hundreds of iterations) scrolls with the wheel. What happens *within* an iteration
(the LLM call, then the tool calls it asked for) reads left to right on one line, so every row is short and
its columns line up with the rows above it.

Shape, from left to right and top to bottom:
  * one *step row* per LLM call: [context chips] [LLM card] [tool cards …] [llm → user]. A step row is also
    cut where the enclosing subflow changes, so a parent's tool never shares a row with a nested agent.
  * every subflow node (Run, Agent, LLMCall, Sequence, Conditional, Loop …) gets a *header row* above the rows
    that ran inside it, indented by nesting depth, with a bracket (GroupBox) down its left side spanning them.
    Steps belong to the innermost subflow whose subflowPath prefixes theirs and that was open at their start.
  * rows are ordered depth first over that subflow tree (children in order of appearance), so every bracket
    covers one contiguous block of rows; within a block, order is the run's order.
  * fork-branch / decision-branch nodes are small chips attached to the row that comes next in time (the
    LLM call they prepared, or the subflow a decision chose): stacked left of the LLM column in a step row,
    right of the card in a header row.
  * a chip whose label is a path ("fan/agentA/System Prompt") belongs to the agent at that path: it joins the
    next row of that agent, not the next row in time (branches of a Parallel interleave in time).
  * a Parallel's branches are side-by-side *lanes* below its header: each branch subflow's rows stack in its own
    column, so concurrent branches read as concurrent. Edges between lanes (the fold's `next` chain runs
    through all branches in time order) or into and out of a lane are not drawn: they join unrelated steps.
  * a *batch* (an LLM call followed in its row by two or more tool calls it asked for) stacks its tool cards in
    one column right of the LLM card, each fed by an arrow that fans out of the call.
  * edges: between neighbouring cards of a row a straight line; anything else is an orthogonal polyline that
    leaves its card into the horizontal gutter between rows, and crosses intermediate rows in a vertical
    channel that is free of cards in all of them. Edges therefore never pass through a card.
  * loop-iteration edges are self-loops on the right side of their subflow card; all loops of one card share
    one drawn loop labelled with the iterations ("↺ 1–150"), which stays readable for a 150-iteration agent.

Node ids may collide (the fold does not dedupe), so nodes are identified by their index everywhere; edge
endpoints are resolved to indices by `resolve_edges`. `GraphLayout.nodes[i]` is the box of node i.
"""

from __future__ import annotations

import bisect
import math
from array import array
from dataclasses import dataclass, field
from typing import Callable

from afp_desktop.core.breathing import breathe, breathing_over
from afp_desktop.core.jsonx import jsonio

LLM_START_KINDS = frozenset({"user->llm", "tool->llm"})
# "framework": one of the framework's own steps, drawn (View ▸ Hide framework steps off) as a chip like the others
CHIP_KINDS = frozenset({"fork-branch", "decision-branch", "framework"})
STEP_KINDS = frozenset({"user->llm", "tool->llm", "llm->tool", "llm->user"})  # the ReAct steps the chain links
SUBFLOW_KIND = "subflow"

# Card sizes per kind, in scene pixels; the canvas's fonts (12/11/10 px DejaVu Sans) fit these at 100 %.
STEP_SIZE = (200.0, 64.0)
CARD_SIZE = {
    "user->llm": STEP_SIZE,
    "tool->llm": STEP_SIZE,
    "llm->tool": STEP_SIZE,
    "llm->user": (160.0, 64.0),
    SUBFLOW_KIND: (220.0, 44.0),
    "fork-branch": (176.0, 18.0),
    "decision-branch": (176.0, 18.0),
    "framework": (176.0, 18.0),
}
MARGIN = 24.0
INDENT = 24.0  # per subflow nesting level
COLUMN_GAP = 36.0  # between cards of a row: room for an arrow
CHIP_GAP = 5.0  # between stacked chips
CHIP_COLUMN_GAP = 16.0  # right of every chip column: the vertical channel a chip's edge leaves by
GUTTER = 40.0  # between rows: where inter-row edges run
CHANNEL_CLEARANCE = 8.0  # how far a vertical channel keeps from cards
LOOP_REACH = 18.0  # how far a self-loop sticks out of its card
LOOP_LABEL_WIDTH = 120.0  # room reserved right of a self-loop for its label (the canvas elides to this)
LANE_GAP = 48.0  # between the lanes of a Parallel: wider than two channel clearances, so lanes never merge
BATCH_GAP = 8.0  # between the stacked tool cards of a batch
MAX_CHANNEL_SCAN_ROWS = 200  # beyond this, route long jumps right of everything instead of scanning rows


@dataclass(frozen=True, slots=True)
class NodeBox:
    index: int
    x: float
    y: float
    w: float
    h: float
    kind: str

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2


@dataclass(frozen=True, slots=True)
class EdgeRoute:
    index: int  # position in graph["edges"]
    kind: str
    points: list[tuple[float, float]]  # orthogonal polyline, first point on the source card, last on the target
    label: str | None
    source: int  # node indices
    target: int
    label_at: tuple[float, float] | None = None  # left end of the label, vertically centred on it
    label_width: float = 0.0  # room for the label; the canvas elides to it

    def __reduce__(self):
        """Pickled (a run's prepared views) with its points as one array of coordinates: a point as a tuple of two
        floats is three objects, and a big graph's routes have a hundred thousand points."""
        return (EdgeRoute, (self.index, self.kind, Points.of(self.points), self.label, self.source, self.target,
                            self.label_at, self.label_width))


class Points:
    """A route's points held as one array of coordinates (x0, y0, x1, y1, …), read as the list of (x, y) it was."""

    __slots__ = ("coordinates",)

    def __init__(self, coordinates: array) -> None:
        self.coordinates = coordinates

    @classmethod
    def of(cls, points) -> "Points":
        return points if isinstance(points, Points) else cls(array("d", [c for point in points for c in point]))

    def __len__(self) -> int:
        return len(self.coordinates) // 2

    def __iter__(self):
        coordinates = self.coordinates
        return zip(coordinates[0::2], coordinates[1::2])

    def __getitem__(self, index: int) -> tuple[float, float]:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("point index out of range")
        return self.coordinates[2 * index], self.coordinates[2 * index + 1]

    def __eq__(self, other) -> bool:
        return list(self) == list(other) if isinstance(other, (Points, list, tuple)) else NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self):
        return (Points, (self.coordinates,))

    def __repr__(self) -> str:
        return f"Points({list(self)!r})"


@dataclass(frozen=True, slots=True)
class GroupBox:
    """The bracket of a subflow: its left edge is the bracket line, from under the card to its last row."""

    index: int  # node index of the subflow
    x: float
    y: float
    w: float
    h: float
    depth: int


@dataclass(slots=True)
class GraphLayout:
    nodes: list[NodeBox]
    edges: list[EdgeRoute]
    groups: list[GroupBox]
    width: float
    height: float


@dataclass(eq=False, slots=True)
class _Row:
    kind: str  # "header" | "steps" | "chips"
    group: int | None  # subflow whose content this row is (a header's own parent)
    items: list[int] = field(default_factory=list)  # main cards, left to right
    chips: list[int] = field(default_factory=list)
    iteration: object = None
    depth: int = 0
    y: float = 0.0
    height: float = 0.0
    occupied: list[tuple[float, float]] | None = None  # x intervals of everything drawn in the row
    fans_out: bool = False  # a header whose subflow forked into its child subflows



def _box(boxes: list, index: int) -> "NodeBox":
    """A node's box, once placed (placing goes row by row, so the boxes read here are always set)."""
    box = boxes[index]
    assert box is not None
    return box

def chip_text(label: str) -> str:
    """A chip's label with its meaningful end first: "fan/agentA/System Prompt" → "System Prompt · agentA"."""
    parts = [p for p in label.split("/") if p]
    if len(parts) < 2:
        return label
    return f"{parts[-1]} · {parts[-2]}"


def _chip_owner(node: dict, kind: str) -> tuple | None:
    """The subflowPath a chip belongs to, when its label or id says (chips themselves carry the root path): a
    context chip "fan/agentA/Tools" belongs to the agent at fan/agentA; a decision made at stage
    "fan/loopB/pick/decide#13" to the subflow fan/loopB/pick (it sits by the branch it chose)."""
    label = node.get("label")
    if kind == "framework":  # it ran for the agent at ownerPath: it sits by that agent's next step
        owner = node.get("ownerPath")
        return tuple(str(p) for p in owner) if isinstance(owner, list) and owner else None
    if kind == "fork-branch":
        if not isinstance(label, str) or "/" not in label.strip("/"):
            return None
        return ("__root__", *label.strip("/").split("/")[:-1])
    node_id, chosen = node.get("id"), "" if label is None else str(label)
    if kind != "decision-branch" or not isinstance(node_id, str) or not node_id.endswith("-" + chosen):
        return None
    stage = node_id[len("decision-"):len(node_id) - len(chosen) - 1]
    if "/" not in stage:
        return None
    return ("__root__", *stage.split("/")[:-1])


def _forking_subflow(node: dict, kind: str, header_by_stage: dict) -> "_Row | None":
    """The header row of the subflow that forked this chip, when the chip's id names it ("fork-fan#1-agentA")."""
    node_id, label = node.get("id"), node.get("label")
    if kind != "fork-branch" or not isinstance(node_id, str) or not isinstance(label, str) or "/" in label:
        return None
    stage = node_id[len("fork-"):len(node_id) - len(label) - 1] if node_id.endswith("-" + label) else None
    return header_by_stage.get(stage) if stage else None


def card_size(kind: str) -> tuple[float, float]:
    return CARD_SIZE.get(kind, STEP_SIZE)


def _number(value, default: float) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _path(node: dict) -> tuple:
    """A node's subflowPath as a dictionary key (a file's path may hold a list: it stands as its JSON text)."""
    return jsonio.path_key(node.get("subflowPath"))


# ----------------------------------------------------------------------------------------------- edges


def resolve_edges(graph: dict) -> list[tuple[int, int] | None]:
    """(source, target) node indices per edge, or None when an endpoint does not exist.

    Ids can repeat, so position decides: the `next` chain runs forward through the node list (each target is
    the first node with that id after the previous target, its source the last one before it), and any other
    edge (a loop on the active subflow) takes the latest node with its id that existed when the edge was made,
    i.e. before the next chain target that follows it in the edge list.
    """
    nodes = graph.get("nodes") or []
    edges = graph.get("edges") or []
    where: dict[str, list[int]] = {}
    for i, node in enumerate(breathing_over(nodes)):
        where.setdefault(str(node.get("id")), []).append(i)

    def first_after(ids: list[int] | None, after: int) -> int | None:
        if not ids:
            return None
        k = bisect.bisect_right(ids, after)
        return ids[k] if k < len(ids) else ids[-1]

    def last_before(ids: list[int] | None, before: int) -> int | None:
        if not ids:
            return None
        k = bisect.bisect_left(ids, before)
        return ids[k - 1] if k > 0 else ids[0]

    resolved: list[tuple[int, int] | None] = [None] * len(edges)
    chain_target: list[int | None] = [None] * len(edges)
    cursor = -1
    for j, edge in enumerate(breathing_over(edges)):
        if not isinstance(edge, dict) or edge.get("kind") != "next":
            continue
        target = first_after(where.get(str(edge.get("to"))), cursor)
        source = last_before(where.get(str(edge.get("from"))), target if target is not None else cursor + 1)
        if source is not None and target is not None:
            resolved[j] = (source, target)
            chain_target[j] = target
            cursor = max(cursor, target)
    bound = len(nodes)
    for j in breathing_over(range(len(edges) - 1, -1, -1)):
        target = chain_target[j]
        if target is not None:
            bound = target
            continue
        edge = edges[j]
        if not isinstance(edge, dict) or edge.get("kind") == "next":
            continue
        source = last_before(where.get(str(edge.get("from"))), bound)
        target = last_before(where.get(str(edge.get("to"))), bound)
        if source is not None and target is not None:
            resolved[j] = (source, target)
    return resolved


def _format_iterations(values: list) -> str:
    """'↺ 1–3, 5': runs of consecutive whole numbers collapsed."""
    numbers = sorted({v for v in values if isinstance(v, int) and not isinstance(v, bool)})
    parts: list[str] = []
    k = 0
    while k < len(numbers):
        end = k
        while end + 1 < len(numbers) and numbers[end + 1] == numbers[end] + 1:
            end += 1
        parts.append(str(numbers[k]) if end == k else f"{numbers[k]}–{numbers[end]}")
        k = end + 1
    parts += sorted(str(v) for v in values if not (isinstance(v, int) and not isinstance(v, bool)) and v is not None)
    return "↺ " + ", ".join(parts) if parts else "↺"


def _label_width(text: str) -> float:
    """Generous width of an edge label at the canvas's 11 px font (no font metrics here); capped, then elided."""
    return min(LOOP_LABEL_WIDTH, 8 + 7.5 * len(text))


# ------------------------------------------------------------------------------------------------ rows


def _build_rows(nodes: list[dict], kinds: list[str]) -> tuple[list[_Row], dict[int, _Row]]:
    """Walk the nodes in run order: nest subflows, cut step rows, attach chips. Returns rows in depth-first order
    and the header row of every subflow."""
    paths = [() if kind in CHIP_KINDS else _path(n) for n, kind in breathing_over(zip(nodes, kinds))]  # chips: none
    ends: dict[int, float] = {}
    open_subflows: list[int] = []  # entered, and not yet known to have ended before the current node
    first_end = math.inf  # earliest end among them: nothing to prune before then

    def innermost(path: tuple, proper: bool) -> int | None:
        best, best_len = None, -1
        for s in open_subflows:
            sp = paths[s]
            if len(sp) > len(path) or (proper and len(sp) == len(path)) or path[: len(sp)] != sp:
                continue
            if len(sp) >= best_len:  # on a tie the most recently entered wins
                best, best_len = s, len(sp)
        return best

    # A fork.branch naming a subflow that starts right under the fork's own path is a fan-out into that subflow
    # (a Parallel's branch); at the root the Parallel has no subflow of its own, only the Run.
    branch_names = {(paths[i][:-1], name) for i, node in enumerate(nodes) if kinds[i] == SUBFLOW_KIND and paths[i]
                    for name in (node.get("label"), paths[i][-1]) if isinstance(name, str)}
    rows: list[_Row] = []
    header_of: dict[int, _Row] = {}
    current_of: dict[int | None, _Row] = {}  # per subflow: the step row its previous step went to
    pending_chips: list[int] = []
    owned_chips: dict[tuple, list[int]] = {}  # chips waiting for the next step of their agent
    last_llm_group: int | None = None
    header_by_stage: dict[str, _Row] = {}
    last_touched: _Row | None = None
    last_row_at: dict[tuple, tuple[int, _Row]] = {}  # subflowPath → (its latest step or header, that row)

    for i, node in enumerate(breathing_over(nodes, every=256)):
        kind = kinds[i]
        start = _number(node.get("startOffsetMs"), -math.inf)
        if start > first_end:
            open_subflows = [s for s in open_subflows if ends[s] >= start]
            first_end = min((ends[s] for s in open_subflows), default=math.inf)
        if kind in CHIP_KINDS:
            owner = _chip_owner(node, kind)
            forking = _forking_subflow(node, kind, header_by_stage)
            if forking is None and kind == "fork-branch" and (_path(node), node.get("label")) in branch_names:
                opened = innermost(_path(node), proper=False)
                if opened is not None and paths[opened] == _path(node):
                    forking = header_of[opened]
                    forking.fans_out = True
            if forking is not None:  # a Parallel's branch chip: by the Parallel's own card
                forking.chips.append(i)
                continue
            if owner is None:
                pending_chips.append(i)
            else:
                owned_chips.setdefault(owner, []).append(i)
            continue
        if kind == SUBFLOW_KIND:
            row = _Row("header", innermost(paths[i], proper=True), [i])
            rows.append(row)
            header_of[i] = row
            if isinstance(node.get("runtimeStageId"), str):
                header_by_stage[node["runtimeStageId"]] = row
            # The subflows around it start a new row after it; a concurrent branch (a Parallel's other lane)
            # keeps its own.
            path = paths[i]
            current_of = {g: r for g, r in current_of.items()
                          if g is not None and paths[g] != path[: len(paths[g])]}
            ends[i] = _number(node.get("endOffsetMs"), math.inf)
            open_subflows.append(i)
            first_end = min(first_end, ends[i])
        else:
            group = innermost(paths[i], proper=False)
            iteration = node.get("iterationIndex")
            current = current_of.get(group)
            # The fold numbers iterations across the whole run: after another branch's LLM call the number
            # is that call's, not a new iteration of this branch.
            own_number = last_llm_group is None or last_llm_group == group
            if (
                current is None
                or kind in LLM_START_KINDS
                or (own_number and iteration is not None and current.iteration is not None
                    and iteration != current.iteration)
            ):
                current = current_of[group] = _Row("steps", group)
                rows.append(current)
            current.items.append(i)
            if current.iteration is None:
                current.iteration = iteration
            if kind in LLM_START_KINDS:
                last_llm_group = group
            row = current
        if owned_chips:
            path = paths[i]
            for owner in [o for o in owned_chips if path[: len(o)] == o]:
                pending_chips += owned_chips.pop(owner)
        row.chips += sorted(pending_chips)
        pending_chips = []
        last_touched = row
        last_row_at[paths[i]] = (i, row)
    for owner, chips in owned_chips.items():
        # A framework step after its agent's last step (thinking, route, final) sits by that last step; other
        # chips of an agent whose next step never came (a cut-off run) go to the last row.
        under = [last_row_at[p] for p in last_row_at if p[: len(owner)] == owner]
        if under and all(kinds[c] == "framework" for c in chips):
            max(under, key=lambda entry: entry[0])[1].chips += chips
        else:
            pending_chips += chips
    if pending_chips:
        if last_touched is None:
            last_touched = _Row("chips", None)
            rows.append(last_touched)
        last_touched.chips += sorted(pending_chips)

    # Depth-first order over the subflow tree; rows were created in run order, so children already are too.
    children: dict[int | None, list[_Row]] = {}
    for row in rows:
        children.setdefault(row.group, []).append(row)
    ordered: list[_Row] = []
    stack = [(row, 0) for row in reversed(children.get(None, []))]
    while stack:
        row, depth = stack.pop()
        row.depth = depth
        ordered.append(row)
        if row.kind == "header":
            stack += [(child, depth + 1) for child in reversed(children.get(row.items[0], []))]
    return ordered, header_of


# --------------------------------------------------------------------------------------------- routing


class _Router:
    def __init__(self, rows: list[_Row], boxes: list[NodeBox], row_of: list[int], slot_of: list[int], right: float,
                 batch_of: dict[int, int]):
        self.rows, self.boxes, self.row_of, self.slot_of = rows, boxes, row_of, slot_of
        self.batch_of = batch_of  # tool card of a batch → the LLM card it fans out of
        self.far_right = right + COLUMN_GAP / 2  # right of everything: always a free channel
        # Rows by their top, to find those a vertical line crosses (lanes put rows side by side, so the row
        # order is not the vertical order).
        self.by_y = sorted(range(len(rows)), key=lambda r: rows[r].y)
        self.tops = [rows[r].y for r in self.by_y]
        self.tallest = max((row.height for row in rows), default=0.0)

    def gutter_below(self, r: int) -> float:
        return self.rows[r].y + self.rows[r].height + GUTTER / 2

    def gutter_above(self, r: int) -> float:
        return self.rows[r].y - GUTTER / 2

    def port(self, i: int, gutter_y: float) -> list[tuple[float, float]]:
        """Path from node i's border to a gutter line, free of other cards. Step and header cards fill their row's
        height, so they leave straight up or down; a chip may sit between two others, and a batch's tool card
        between the cards of its column, so they leave sideways into the channel right of their column first."""
        box = self.boxes[i]
        row = self.rows[self.row_of[i]]
        down = gutter_y > box.cy
        edge_card = (box.bottom >= row.y + row.height) if down else (box.y <= row.y)
        if box.kind in CHIP_KINDS or (i in self.batch_of and not edge_card):
            gap = CHIP_COLUMN_GAP if box.kind in CHIP_KINDS else COLUMN_GAP
            x = box.right + gap / 2
            return [(box.right, box.cy), (x, box.cy), (x, gutter_y)]
        y = box.bottom if down else box.y
        return [(box.cx, y), (box.cx, gutter_y)]

    def free_channel(self, y_top: float, y_bottom: float, preferred: float, fallback: float) -> float:
        """An x whose vertical line from y_top to y_bottom touches no card."""
        if y_bottom <= y_top:
            return preferred
        low = bisect.bisect_left(self.tops, y_top - self.tallest)
        high = bisect.bisect_left(self.tops, y_bottom)
        crossed = [self.by_y[k] for k in range(low, high)
                   if self.rows[self.by_y[k]].y + self.rows[self.by_y[k]].height > y_top]
        if len(crossed) >= MAX_CHANNEL_SCAN_ROWS:
            return self.far_right
        spans = sorted(span for r in crossed for span in self.rows[r].occupied or ())
        merged: list[list[float]] = []
        for lo, hi in spans:
            lo, hi = lo - CHANNEL_CLEARANCE, hi + CHANNEL_CLEARANCE
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        for x in (preferred, fallback):
            if not any(lo < x < hi for lo, hi in merged):
                return x
        blocked = next(span for span in merged if span[0] < preferred < span[1])
        lo, hi = blocked
        return lo if lo >= 0 and preferred - lo <= hi - preferred else hi

    def fan(self, llm: int, target: int) -> list[tuple[float, float]]:
        """From a batch's LLM card to one of its tool cards: out of the call's right side, down a trunk."""
        a, b = self.boxes[llm], self.boxes[target]
        y = a.y + STEP_SIZE[1] / 2
        if b.cy == y:
            return [(a.right, y), (b.x, y)]
        trunk = a.right + COLUMN_GAP / 2
        return [(a.right, y), (trunk, y), (trunk, b.cy), (b.x, b.cy)]

    def route(self, source: int, target: int) -> tuple[int, list[tuple[float, float]]]:
        """(the node the drawn line starts at, the polyline). A batch's tools are fed from their LLM card."""
        a, b = self.boxes[source], self.boxes[target]
        ra, rb = self.row_of[source], self.row_of[target]
        if ra == rb and self.batch_of.get(target) is not None and (
                source == self.batch_of[target] or self.batch_of.get(source) == self.batch_of[target]):
            return self.batch_of[target], self.fan(self.batch_of[target], target)
        neighbours = self.slot_of[source] >= 0 and self.slot_of[target] == self.slot_of[source] + 1
        if ra == rb and neighbours and a.cy == b.cy and a.right <= b.x:
            return source, [(a.right, a.cy), (b.x, b.cy)]
        if ra == rb:
            gutter = self.gutter_below(ra)
            return source, self.port(source, gutter) + self.port(target, gutter)[::-1]
        down = self.rows[rb].y > self.rows[ra].y
        leave = self.gutter_below(ra) if down else self.gutter_above(ra)
        arrive = self.gutter_above(rb) if down else self.gutter_below(rb)
        out, into = self.port(source, leave), self.port(target, arrive)[::-1]
        x = self.free_channel(min(leave, arrive), max(leave, arrive), preferred=into[0][0], fallback=out[-1][0])
        return source, out + [(x, leave), (x, arrive)] + into


def _simplify(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Drop repeated points and the middle of straight runs."""
    out: list[tuple[float, float]] = []
    for p in points:
        if out and p == out[-1]:
            continue
        if len(out) >= 2:
            (x0, y0), (x1, y1) = out[-2], out[-1]
            if (x0 == x1 == p[0]) or (y0 == y1 == p[1]):
                out[-1] = p
                continue
        out.append(p)
    return out if len(out) >= 2 else out * 2


def _self_loop(box: NodeBox, on_right: bool, sideways: bool = False) -> tuple[list[tuple[float, float]],
                                                                             tuple[float, float]]:
    # A header's right is reserved for it; a chip, or a batch's tool card, has the channel right of its column.
    if on_right or sideways or box.kind in CHIP_KINDS:
        x = box.right + (LOOP_REACH if on_right else CHIP_COLUMN_GAP / 2 - 1)
        dy = min(8.0, box.h / 2 - 3)
        return [(box.right, box.cy - dy), (x, box.cy - dy), (x, box.cy + dy), (box.right, box.cy + dy)], (x + 6, box.cy)
    y = box.bottom + min(LOOP_REACH, GUTTER / 2 - 4)  # a step card: dip into the gutter below it
    return [(box.cx - 10, box.bottom), (box.cx - 10, y), (box.cx + 10, y), (box.cx + 10, box.bottom)], (box.cx + 16, y)


# ---------------------------------------------------------------------------------------------- layout


def layout_step_graph(graph: dict) -> GraphLayout:
    """Boxes for every node (nodes[i] is node i), routes for every edge whose endpoints exist, subflow brackets."""
    nodes = [n if isinstance(n, dict) else {} for n in (graph.get("nodes") or [])]
    edges = graph.get("edges") or []
    if not nodes:
        return GraphLayout([], [], [], 0.0, 0.0)
    kinds = [str(n.get("kind", "")) for n in nodes]
    rows, header_of = _build_rows(nodes, kinds)
    breathe()
    resolved = resolve_edges({"nodes": nodes, "edges": edges})
    breathe()

    loops_of: dict[int, list[int]] = {}  # subflow node → its self-loop edges
    for j, ends in enumerate(breathing_over(resolved)):
        if ends and ends[0] == ends[1] and kinds[ends[0]] == SUBFLOW_KIND:
            loops_of.setdefault(ends[0], []).append(j)

    loop_labels = {s: _format_iterations([edges[j].get("iteration") for j in js]) for s, js in loops_of.items()}
    loop_label_width = {s: _label_width(text) for s, text in loop_labels.items()}

    chip_w, chip_h = CARD_SIZE["fork-branch"]
    step_h = STEP_SIZE[1]
    per_column = int((step_h + CHIP_GAP) // (chip_h + CHIP_GAP))

    boxes: list[NodeBox | None] = [None] * len(nodes)
    row_of = [0] * len(nodes)
    slot_of = [-1] * len(nodes)  # position among a step row's cards; -1 for chips and headers
    frame_of = [0] * len(rows)   # the lane each row is drawn in (0: the main column)
    batch_of: dict[int, int] = {}
    right = 0.0

    def is_lanes(row: _Row) -> bool:
        """A header whose branches (two or more child subflows) become lanes: a Parallel's, or one that forked
        into its child subflows (the Run of a root Parallel, whose branch chips sit by its card)."""
        if row.kind != "header":
            return False
        forked = row.fans_out or nodes[row.items[0]].get("primitiveKind") == "Parallel"
        return forked and sum(1 for child in children_of.get(row.items[0], ()) if child.kind == "header") >= 2

    def place_chips(row: _Row, r: int, x: float, y: float, height: float) -> float:
        per = max(1, int((height + CHIP_GAP) // (chip_h + CHIP_GAP)))
        stacked = min(per, len(row.chips)) * (chip_h + CHIP_GAP) - CHIP_GAP
        top = y + (height - stacked) / 2  # a short stack sits in the middle of its row
        for k, i in enumerate(row.chips):
            column, slot = divmod(k, per)
            boxes[i] = NodeBox(i, x + column * (chip_w + CHIP_COLUMN_GAP), top + slot * (chip_h + CHIP_GAP),
                               chip_w, chip_h, kinds[i])
            row_of[i] = r
        columns = math.ceil(len(row.chips) / per)
        return x + columns * (chip_w + CHIP_COLUMN_GAP)

    def is_batch(row: _Row) -> bool:
        items = row.items
        return (len(items) >= 3 and kinds[items[0]] in LLM_START_KINDS
                and all(kinds[i] == "llm->tool" for i in items[1:]))

    def place_row(r: int, frame_x: float, frame_depth: int, steps_x: float, llm_x: float, y: float) -> float:
        """Place row r with its top at y; returns its right end."""
        row = rows[r]
        row.y = y
        spans: list[tuple[float, float]] = []
        if row.kind == "header":
            i = row.items[0]
            w, h = CARD_SIZE[SUBFLOW_KIND]
            x = frame_x + (row.depth - frame_depth) * INDENT
            box = boxes[i] = NodeBox(i, x, y, w, h, kinds[i])
            row_of[i] = r
            x += w
            if i in loops_of:
                x += LOOP_REACH + 6 + loop_label_width[i]
            spans.append((box.x, x))
            row.height = h
            if row.chips:
                chips_end = place_chips(row, r, x + COLUMN_GAP / 2, y, h)
                spans.append((x + COLUMN_GAP / 2, chips_end - CHIP_COLUMN_GAP))
        else:
            row.height = step_h
            chips_end = place_chips(row, r, steps_x, y, step_h)
            if row.chips:
                spans += [(b.x, b.right) for b in (boxes[i] for i in row.chips) if b is not None]
            x = llm_x if row.items else chips_end
            if is_batch(row):
                llm, tools = row.items[0], row.items[1:]
                w, h = card_size(kinds[llm])
                boxes[llm] = NodeBox(llm, x, y, w, h, kinds[llm])
                row_of[llm], slot_of[llm] = r, 0
                spans.append((x, x + w))
                x += w + COLUMN_GAP
                column_w = 0.0
                for slot, i in enumerate(tools, start=1):
                    tw, th = card_size(kinds[i])
                    boxes[i] = NodeBox(i, x, y + (slot - 1) * (th + BATCH_GAP), tw, th, kinds[i])
                    row_of[i], slot_of[i] = r, slot
                    batch_of[i] = llm
                    column_w = max(column_w, tw)
                spans.append((x, x + column_w))
                row.height = max(step_h, max(_box(boxes, i).bottom for i in tools) - y)
            else:
                for slot, i in enumerate(row.items):
                    w, h = card_size(kinds[i])
                    boxes[i] = NodeBox(i, x, y, w, h, kinds[i])
                    row_of[i], slot_of[i] = r, slot
                    spans.append((x, x + w))
                    x += w + COLUMN_GAP
        row.occupied = spans
        return max(hi for _, hi in spans) if spans else 0.0

    def own_rows(seq: list[int]) -> list[int]:
        """The rows of a frame that are not inside one of its lanes."""
        out, k = [], 0
        while k < len(seq):
            out.append(seq[k])
            k = lane_end(seq, k) if is_lanes(rows[seq[k]]) else k + 1
        return out

    def lane_end(seq: list[int], k: int) -> int:
        depth = rows[seq[k]].depth
        end = k + 1
        while end < len(seq) and rows[seq[end]].depth > depth:
            end += 1
        return end

    frames = [0]  # the last lane number given

    def place_frame(seq: list[int], frame: int, frame_x: float, frame_depth: int, y: float) -> tuple[float, float]:
        """Stack the rows of `seq` (depth-first order) from y down; a Parallel's branches go side by side.
        Returns (the y below the last row and its gutter, the right end)."""
        nonlocal right
        mine = own_rows(seq)
        max_depth = max((rows[r].depth for r in mine if rows[r].kind == "header"), default=frame_depth - 1)
        steps_x = frame_x + (max_depth - frame_depth + 1) * INDENT
        chip_columns = max((math.ceil(len(rows[r].chips) / per_column) for r in mine if rows[r].kind != "header"),
                           default=0)
        llm_x = steps_x + chip_columns * (chip_w + CHIP_COLUMN_GAP)
        frame_right = 0.0
        k = 0
        while k < len(seq):
            if not k & 63:
                breathe()
            r = seq[k]
            frame_of[r] = frame
            frame_right = max(frame_right, place_row(r, frame_x, frame_depth, steps_x, llm_x, y))
            y += rows[r].height + GUTTER
            if not is_lanes(rows[r]):
                k += 1
                continue
            end = lane_end(seq, k)
            inside = seq[k + 1:end]
            lanes: list[list[int]] = []
            loose: list[int] = []  # steps right inside the Parallel (not in a branch) stack above the lanes
            for q in inside:
                if rows[q].depth == rows[r].depth + 1:
                    if rows[q].kind == "header":
                        lanes.append([q])
                    else:
                        loose.append(q)
                elif lanes:
                    lanes[-1].append(q)
                else:
                    loose.append(q)
            for q in loose:
                frame_of[q] = frame
                frame_right = max(frame_right, place_row(q, frame_x, frame_depth, steps_x, llm_x, y))
                y += rows[q].height + GUTTER
            lane_x = _box(boxes, rows[r].items[0]).x + INDENT
            bottom = y
            for lane in lanes:
                frames[0] += 1
                lane_bottom, lane_right = place_frame(lane, frames[0], lane_x, rows[lane[0]].depth, y)
                bottom = max(bottom, lane_bottom)
                frame_right = max(frame_right, lane_right)
                lane_x = lane_right + LANE_GAP
            y = bottom
            k = end
        right = max(right, frame_right)
        return y, frame_right

    children_of: dict[int, list[_Row]] = {}
    for row in rows:
        if row.group is not None:
            children_of.setdefault(row.group, []).append(row)
    y, _ = place_frame(list(range(len(rows))), 0, MARGIN, 0, MARGIN)
    _end_cycles(is_lanes, place_chips, is_batch, place_row, own_rows, lane_end, place_frame)
    breathe()

    placed: list[NodeBox] = boxes  # type: ignore[assignment]  # every node was placed in exactly one row
    router = _Router(rows, placed, row_of, slot_of, right, batch_of)
    lane_previous: dict[int, int] = {}  # a step in a lane → the step before it in the same lane
    if frames[0]:
        last_in: dict[int, int] = {}
        for i, kind in enumerate(kinds):
            if kind in STEP_KINDS:
                frame = frame_of[row_of[i]]
                if frame and frame in last_in:
                    lane_previous[i] = last_in[frame]
                last_in[frame] = i
    routes: list[EdgeRoute] = []
    for j, ends in enumerate(breathing_over(resolved, every=256)):  # (routing an edge is tens of µs)
        if ends is None:
            continue
        source, target = ends
        edge = edges[j]
        kind = str(edge.get("kind", "next"))
        if source != target:
            if frame_of[row_of[source]] != frame_of[row_of[target]]:
                # The chain runs through all of a Parallel's branches in time order; in a lane, a step follows
                # the previous step of its own lane (and the first step of a lane follows nothing drawn).
                previous = lane_previous.get(target)
                if previous is None or kind != "next":
                    continue
                source = previous
            start, points = router.route(source, target)
            routes.append(EdgeRoute(j, kind, _simplify(points), None, start, target))
            continue
        on_right = source in loops_of
        points, label_at = _self_loop(placed[source], on_right, sideways=source in batch_of)
        if on_right:  # one drawn loop per card; the first of its edges carries the label for all of them
            label = loop_labels[source] if j == loops_of[source][0] else None
        else:
            label = None if edge.get("iteration") is None else _format_iterations([edge.get("iteration")])
        width = _label_width(label) if label else 0.0
        routes.append(EdgeRoute(j, kind, points, label, source, target, label_at, width))

    groups = _brackets(rows, header_of, placed)
    height = y - GUTTER + MARGIN
    width = max(right, router.far_right) + MARGIN
    return GraphLayout(placed, routes, groups, width, height)


def _end_cycles(*functions: Callable) -> None:
    """Nested functions that call one another do it through their enclosing frame's cells, a reference cycle
    (function → cell → function) that only the garbage collector frees. A load runs with the collector off and
    then freezes what is alive (engine/collector.py), so such a cycle would be kept for ever, and with it everything
    the functions see: every box and the whole step graph, each time a run is opened.
    Emptying the cells that hold the functions ends the cycle; call this once they are done with."""
    for function in functions:
        for cell in function.__closure__ or ():
            try:
                held = cell.cell_contents
            except ValueError:  # (emptied already)
                continue
            if any(held is other for other in functions):
                del cell.cell_contents


def _brackets(rows: list[_Row], header_of: dict[int, _Row], boxes: list[NodeBox]) -> list[GroupBox]:
    """A bracket per subflow that has rows inside it: from under its card down to its lowest descendant row."""
    bottom = {id(row): row.y + row.height for row in rows}
    has_inside: set[int] = set()
    for r in range(len(rows) - 1, -1, -1):  # children come after their header, so one backward pass suffices
        row = rows[r]
        parent = header_of.get(row.group) if row.group is not None else None
        if parent is not None:
            bottom[id(parent)] = max(bottom[id(parent)], bottom[id(row)])
            has_inside.add(id(parent))
    groups: list[GroupBox] = []
    for i, header in header_of.items():
        if id(header) not in has_inside:
            continue
        box = boxes[i]
        top = box.bottom
        groups.append(GroupBox(i, box.x + INDENT / 2, top, INDENT / 2, bottom[id(header)] - top, header.depth))
    groups.sort(key=lambda g: g.index)
    return groups
