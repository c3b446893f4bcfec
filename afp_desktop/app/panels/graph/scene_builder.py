"""The canvas's scene made from a laid-out graph: its cards, edges and brackets (graph_items.py), in the order of
scene_order.py, a slice per event-loop turn, so a graph of thousands of steps never freezes the window; and the
lists of what was made, with the edges and bracket each step is drawn with."""

from __future__ import annotations

import time
from collections.abc import Sequence
from itertools import chain

from PySide6.QtWidgets import QGraphicsItem

from afp_desktop.app.pacing import scheduler
from afp_desktop.app.panels.graph.graph_art import GraphArt
from afp_desktop.app.panels.graph.graph_items import EdgeItem, GroupItem, NodeItem, item_opacity, show_item
from afp_desktop.app.panels.graph.scene_order import distinct_routes, route_key
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.model.layout import GraphLayout

BUILD_SLICE_S = 0.006  # the scene of a big graph is built in slices this long, one per event-loop turn
BUDGET_CHECK_EVERY = 16  # items made between two looks at the clock (a look is a system call; too few overshoot)
FIRST_SLICE_MARGIN = 200.0  # the first slice makes the cards down to this far below the view's first screen
IN_VIEW_BUDGET_S = 0.006  # the cards a scroll to the cursor brings into view are made at once for up to this long


class SceneBuilder:
    """The items made for the graph a GraphCanvas shows, and those still to make."""

    def __init__(self, canvas):
        """`canvas`: the GraphCanvas whose scene is filled (its art, its scene, and what an item's opacity
        depends on: happened, future_mode, palette, detail_shown)."""
        self.canvas = canvas
        self.node_items: list[NodeItem] = []  # the first steps' cards, in the order of their steps
        self.edge_items: list[EdgeItem] = []
        self.group_items: list[GroupItem] = []
        self.items_of: dict[int, list[QGraphicsItem]] = {}  # step → the edges and bracket drawn with it
        self.pending = None  # an iterator of the items still to make: (kind, payload)

    @property
    def building(self) -> bool:
        """True while the scene's items are still being made (the graph is shown as they arrive)."""
        return bool(self.pending)

    def drop(self) -> list[QGraphicsItem]:
        """Forget the items made for the graph shown (its scene is going); returns them, for the retirement."""
        made = [*self.node_items, *self.edge_items, *self.group_items]
        self.node_items, self.edge_items, self.group_items = [], [], []
        self.items_of = {}
        return made

    def plan(self, to_make) -> None:
        """The items to make next, in order: (kind, payload) pairs (scene_order.items_to_make)."""
        self.pending = to_make

    def regrow(self, art: GraphArt, layout: GraphLayout, changed: Sequence[int] | None) -> None:
        """The graph grown at its end: every item made is kept for the new art, cards the layout moved are re-placed,
        `changed` cards (None: all) painted again, edges and brackets the layout changed taken out of the scene; the
        new cards, edges and brackets are planned (made by the next slices)."""
        scene, old_boxes = self.canvas.scene(), self.canvas.art.layout.nodes  # (the art shown until now)
        repaint = range(len(self.node_items)) if changed is None else changed
        for i, item in enumerate(self.node_items):
            item.art = art
            if layout.nodes[i] != old_boxes[i]:
                item.fit_bounds()
        for i in repaint:
            if i < len(self.node_items):
                self.node_items[i].update()  # its cached picture is stale
        kept_edges = {route_key(item.route): item for item in self.edge_items}
        kept_groups = {item.group: item for item in self.group_items}
        self.edge_items, self.group_items, self.items_of = [], [], {}
        to_make: list = [("node", i) for i in range(len(self.node_items), len(layout.nodes))]
        for route in distinct_routes(layout.edges):
            item = kept_edges.pop(route_key(route), None)
            if item is None:
                to_make.append(("edge", route))
                continue
            item.art, item.route = art, route
            self._register(item)
        for group in layout.groups:
            item = kept_groups.pop(group, None)
            if item is None:
                to_make.append(("group", group))
                continue
            item.art = art
            self._register(item)
        for item in (*kept_edges.values(), *kept_groups.values()):  # routes the layout changed
            scene.removeItem(item)
        self.pending = iter(to_make)

    def _register(self, item: EdgeItem | GroupItem) -> None:
        """Keep an edge or a bracket, under each step it is drawn with."""
        if isinstance(item, EdgeItem):
            self.edge_items.append(item)
            self.items_of.setdefault(item.route.source, []).append(item)
            if item.route.target != item.route.source:
                self.items_of.setdefault(item.route.target, []).append(item)
        else:
            self.group_items.append(item)
            self.items_of.setdefault(item.group.index, []).append(item)

    def finish(self) -> None:
        """Make every remaining item now (export, tests)."""
        while self.pending:
            self.make_slice(budget=None)

    def stop(self) -> None:
        """Make nothing more (the graph is gone)."""
        self.pending = None
        scheduler.cancel(self.canvas, "build")

    def continue_later(self) -> None:
        """The next slice on a later turn, if any is left (app/pacing/scheduler.py: not with the paint or the
        timeline's stops)."""
        if self.pending:
            scheduler.later(self.canvas, "build", self._make_next)

    def _make_next(self) -> None:
        self.make_slice()
        self.continue_later()

    def make_into_view(self) -> None:
        """While the scene is still being made, the cards down to the bottom of the view are made now, up to a
        slice's budget (the rest follows turn by turn): the first view, scrolled to the cursor (a file opens at its
        end), is painted whole, not empty until the slices from the top reach it."""
        art = self.canvas.art
        if not self.pending or art is None:
            return
        boxes, made = art.layout.nodes, len(self.node_items)
        bottom = self.canvas.visible_scene_rect().bottom() + FIRST_SLICE_MARGIN
        if made < len(boxes) and boxes[made].y <= bottom:
            self.make_slice(budget=IN_VIEW_BUDGET_S, view_bottom=bottom)

    def make_slice(self, budget: float | None = BUILD_SLICE_S, view_bottom: float | None = None) -> None:
        """Make the next items for up to `budget` seconds (None: all); with `view_bottom`, stop before the first
        card below it (the rest are made on later turns)."""
        canvas = self.canvas
        pending, art, scene = self.pending, canvas.art, canvas.scene()
        if not pending or art is None:
            self.stop()
            return
        dim = canvas.palette.dim_opacity
        deadline = None if budget is None else time.perf_counter() + budget
        boxes = art.layout.nodes
        made = 0
        for kind, payload in pending:
            if view_bottom is not None and kind == "node" and boxes[payload].y > view_bottom:
                self.pending = chain([(kind, payload)], pending)  # (made on the next turn)
                return
            item: QGraphicsItem
            if kind == "node":
                item = NodeItem(art, payload)
                self.node_items.append(item)
                if payload in art.errors:
                    item.setToolTip(plain_tooltip(f"Error: {art.errors[payload]}"))
            else:
                item = EdgeItem(art, payload) if kind == "edge" else GroupItem(art, payload)
                self._register(item)
            show_item(item, item_opacity(item, canvas.happened, canvas.future_mode, dim), canvas.detail_shown)
            scene.addItem(item)
            made += 1
            if deadline is not None and made % BUDGET_CHECK_EVERY == 0 and time.perf_counter() > deadline:
                return
        self.stop()
