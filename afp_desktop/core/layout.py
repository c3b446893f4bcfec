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
from dataclasses import dataclass, field

LLM_START_KINDS = frozenset({"user->llm", "tool->llm"})
CHIP_KINDS = frozenset({"fork-branch", "decision-branch"})
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


def card_size(kind: str) -> tuple[float, float]:
    return CARD_SIZE.get(kind, STEP_SIZE)


def _number(value, default: float) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _path(node: dict) -> tuple:
    path = node.get("subflowPath")
    return tuple(path) if isinstance(path, list) else ()


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
    for i, node in enumerate(nodes):
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
    for j, edge in enumerate(edges):
        if not isinstance(edge, dict) or edge.get("kind") != "next":
            continue
        target = first_after(where.get(str(edge.get("to"))), cursor)
        source = last_before(where.get(str(edge.get("from"))), target if target is not None else cursor + 1)
        if source is not None and target is not None:
            resolved[j] = (source, target)
            chain_target[j] = target
            cursor = max(cursor, target)
    bound = len(nodes)
    for j in range(len(edges) - 1, -1, -1):
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
    paths = [() if kind in CHIP_KINDS else _path(n) for n, kind in zip(nodes, kinds)]  # chips need none
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

    rows: list[_Row] = []
    header_of: dict[int, _Row] = {}
    current: _Row | None = None  # the step row the previous step went to; None after a header
    pending_chips: list[int] = []
    last_touched: _Row | None = None

    for i, node in enumerate(nodes):
        kind = kinds[i]
        start = _number(node.get("startOffsetMs"), -math.inf)
        if start > first_end:
            open_subflows = [s for s in open_subflows if ends[s] >= start]
            first_end = min((ends[s] for s in open_subflows), default=math.inf)
        if kind in CHIP_KINDS:
            pending_chips.append(i)
            continue
        if kind == SUBFLOW_KIND:
            row = _Row("header", innermost(paths[i], proper=True), [i])
            rows.append(row)
            header_of[i] = row
            ends[i] = _number(node.get("endOffsetMs"), math.inf)
            open_subflows.append(i)
            first_end = min(first_end, ends[i])
            current = None
        else:
            group = innermost(paths[i], proper=False)
            iteration = node.get("iterationIndex")
            if (
                current is None
                or kind in LLM_START_KINDS
                or current.group != group
                or (iteration is not None and current.iteration is not None and iteration != current.iteration)
            ):
                current = _Row("steps", group)
                rows.append(current)
            current.items.append(i)
            if current.iteration is None:
                current.iteration = iteration
            row = current
        row.chips += pending_chips
        pending_chips = []
        last_touched = row
    if pending_chips:
        if last_touched is None:
            last_touched = _Row("chips", None)
            rows.append(last_touched)
        last_touched.chips += pending_chips

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
    def __init__(self, rows: list[_Row], boxes: list[NodeBox], row_of: list[int], slot_of: list[int], right: float):
        self.rows, self.boxes, self.row_of, self.slot_of = rows, boxes, row_of, slot_of
        self.far_right = right + COLUMN_GAP / 2  # right of everything: always a free channel

    def gutter_below(self, r: int) -> float:
        return self.rows[r].y + self.rows[r].height + GUTTER / 2

    def gutter_above(self, r: int) -> float:
        return self.rows[r].y - GUTTER / 2

    def port(self, i: int, gutter_y: float) -> list[tuple[float, float]]:
        """Path from node i's border to a gutter line, free of other cards. Step and header cards fill their row's
        height, so they leave straight up or down; a chip may sit between two others, so it leaves sideways
        into the channel right of its chip column first."""
        box = self.boxes[i]
        if box.kind in CHIP_KINDS:
            x = box.right + CHIP_COLUMN_GAP / 2
            return [(box.right, box.cy), (x, box.cy), (x, gutter_y)]
        y = box.bottom if gutter_y > box.cy else box.y
        return [(box.cx, y), (box.cx, gutter_y)]

    def free_channel(self, first_row: int, last_row: int, preferred: float, fallback: float) -> float:
        """An x whose vertical line crosses rows first_row..last_row without touching a card."""
        if last_row < first_row:
            return preferred
        if last_row - first_row >= MAX_CHANNEL_SCAN_ROWS:
            return self.far_right
        spans = sorted(span for r in range(first_row, last_row + 1) for span in self.rows[r].occupied or ())
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

    def route(self, source: int, target: int) -> list[tuple[float, float]]:
        a, b = self.boxes[source], self.boxes[target]
        ra, rb = self.row_of[source], self.row_of[target]
        neighbours = self.slot_of[source] >= 0 and self.slot_of[target] == self.slot_of[source] + 1
        if ra == rb and neighbours and a.cy == b.cy and a.right <= b.x:
            return [(a.right, a.cy), (b.x, b.cy)]
        if ra == rb:
            gutter = self.gutter_below(ra)
            return self.port(source, gutter) + self.port(target, gutter)[::-1]
        down = rb > ra
        leave = self.gutter_below(ra) if down else self.gutter_above(ra)
        arrive = self.gutter_above(rb) if down else self.gutter_below(rb)
        out, into = self.port(source, leave), self.port(target, arrive)[::-1]
        crossed = (ra + 1, rb - 1) if down else (rb + 1, ra - 1)
        x = self.free_channel(*crossed, preferred=into[0][0], fallback=out[-1][0])
        return out + [(x, leave), (x, arrive)] + into


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


def _self_loop(box: NodeBox, on_right: bool) -> tuple[list[tuple[float, float]], tuple[float, float]]:
    if on_right or box.kind in CHIP_KINDS:  # a header's right is reserved for it; a chip has its column channel
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
    resolved = resolve_edges({"nodes": nodes, "edges": edges})

    loops_of: dict[int, list[int]] = {}  # subflow node → its self-loop edges
    for j, ends in enumerate(resolved):
        if ends and ends[0] == ends[1] and kinds[ends[0]] == SUBFLOW_KIND:
            loops_of.setdefault(ends[0], []).append(j)

    loop_labels = {s: _format_iterations([edges[j].get("iteration") for j in js]) for s, js in loops_of.items()}
    loop_label_width = {s: _label_width(text) for s, text in loop_labels.items()}

    max_depth = max((row.depth for row in rows if row.kind == "header"), default=-1)
    steps_x = MARGIN + (max_depth + 1) * INDENT
    chip_w, chip_h = CARD_SIZE["fork-branch"]
    step_h = STEP_SIZE[1]
    per_column = int((step_h + CHIP_GAP) // (chip_h + CHIP_GAP))
    chip_columns = max((math.ceil(len(r.chips) / per_column) for r in rows if r.kind != "header"), default=0)
    llm_x = steps_x + chip_columns * (chip_w + CHIP_COLUMN_GAP)

    boxes: list[NodeBox | None] = [None] * len(nodes)
    row_of = [0] * len(nodes)
    slot_of = [-1] * len(nodes)  # position among a step row's cards; -1 for chips and headers
    y = MARGIN
    right = 0.0

    def place_chips(row: _Row, r: int, x: float, height: float) -> float:
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

    for r, row in enumerate(rows):
        row.y = y
        spans: list[tuple[float, float]] = []
        if row.kind == "header":
            i = row.items[0]
            w, h = CARD_SIZE[SUBFLOW_KIND]
            x = MARGIN + row.depth * INDENT
            box = boxes[i] = NodeBox(i, x, y, w, h, kinds[i])
            row_of[i] = r
            x += w
            if i in loops_of:
                x += LOOP_REACH + 6 + loop_label_width[i]
            spans.append((box.x, x))
            row.height = h
            if row.chips:
                chips_end = place_chips(row, r, x + COLUMN_GAP / 2, h)
                spans.append((x + COLUMN_GAP / 2, chips_end - CHIP_COLUMN_GAP))
                x = chips_end
        else:
            row.height = step_h
            chips_end = place_chips(row, r, steps_x, step_h)
            if row.chips:
                spans += [(b.x, b.right) for b in (boxes[i] for i in row.chips) if b is not None]
            x = llm_x if row.items else chips_end
            for slot, i in enumerate(row.items):
                w, h = card_size(kinds[i])
                boxes[i] = NodeBox(i, x, y, w, h, kinds[i])
                row_of[i], slot_of[i] = r, slot
                spans.append((x, x + w))
                x += w + COLUMN_GAP
        row.occupied = spans
        right = max(right, max(hi for _, hi in spans) if spans else 0.0)
        y += row.height + GUTTER

    placed: list[NodeBox] = boxes  # type: ignore[assignment]  # every node was placed in exactly one row
    router = _Router(rows, placed, row_of, slot_of, right)
    routes: list[EdgeRoute] = []
    for j, ends in enumerate(resolved):
        if ends is None:
            continue
        source, target = ends
        edge = edges[j]
        kind = str(edge.get("kind", "next"))
        if source != target:
            routes.append(EdgeRoute(j, kind, _simplify(router.route(source, target)), None, source, target))
            continue
        on_right = source in loops_of
        points, label_at = _self_loop(placed[source], on_right)
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


def _brackets(rows: list[_Row], header_of: dict[int, _Row], boxes: list[NodeBox]) -> list[GroupBox]:
    """A bracket per subflow that has rows inside it: from under its card down to its last descendant row."""
    last = {id(row): r for r, row in enumerate(rows)}
    for r in range(len(rows) - 1, -1, -1):  # children come after their header, so one backward pass suffices
        row = rows[r]
        parent = header_of.get(row.group) if row.group is not None else None
        if parent is not None:
            last[id(parent)] = max(last[id(parent)], last[id(row)])
    groups: list[GroupBox] = []
    for i, header in header_of.items():
        end = rows[last[id(header)]]
        if end is header:
            continue
        box = boxes[i]
        top = box.bottom
        groups.append(GroupBox(i, box.x + INDENT / 2, top, INDENT / 2, end.y + end.height - top, header.depth))
    groups.sort(key=lambda g: g.index)
    return groups
