"""The step graph canvas: a zoomable, pannable view of a laid-out StepGraph, and the graph panel's face to the
window (set_graph, grow_graph, show_moment, the marks, clicks on cards).

Its parts live beside it: the painter shared with export (graph_art.py), the scene's items (graph_items.py), the
order they are made in (scene_order.py), zoom, scrolling and overlays (graph_view.py), scenes no longer shown
emptied in slices (scene_retirement.py), a card's text (card_text.py) and the dimming of steps not yet happened
(step_opacity.py). This module builds the scene from the layout, a slice per event-loop turn, and keeps it in
step with the moment shown.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from itertools import chain

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPixmapCache
from PySide6.QtWidgets import QApplication, QGraphicsItem, QGraphicsScene, QWidget

from afp_desktop.app.look.style import GraphPalette, palette_for
from afp_desktop.app.pacing import one_per_turn
from afp_desktop.app.panels.graph.canvas_keys import CardKeyboard
from afp_desktop.app.panels.graph.graph_art import EDGE_LOD, GraphArt, scene_font
from afp_desktop.app.panels.graph.graph_items import EdgeItem, GroupItem, NodeItem, OverviewItem, show_item
from afp_desktop.app.panels.graph.graph_view import GraphView
from afp_desktop.app.panels.graph.scene_order import distinct_routes, items_to_make, route_key
from afp_desktop.app.panels.graph.scene_retirement import SceneRetirement
from afp_desktop.app.panels.graph.step_opacity import has_happened, node_opacity
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.model.layout import GraphLayout, layout_step_graph
from afp_desktop.core.views.cost import PriceTable

BUILD_SLICE_S = 0.006  # the scene of a big graph is built in slices this long, one per event-loop turn
FIRST_SLICE_MARGIN = 200.0  # the first slice makes the cards down to this far below the view's first screen
IN_VIEW_BUDGET_S = 0.012  # the cards a scroll to the cursor brings into view are made at once for up to this long


class GraphCanvas(GraphView):
    """Shows one StepGraph. Click a card → node_activated(index); wheel zooms under the mouse; drag pans."""

    node_activated = Signal(int)
    card_menu_requested = Signal(int, QPoint)  # right-click on a card: its index, the global position
    graph_changed = Signal()  # a new graph, none, or new colours (the minimap draws itself again)

    def __init__(self, parent: QWidget | None = None, palette: GraphPalette | None = None):
        super().__init__(parent)
        self.palette = palette or palette_for("light")
        self.art: GraphArt | None = None
        self.graph_layout: GraphLayout | None = None
        self._overview: OverviewItem | None = None
        self._detailed_shown = True  # False far zoomed out: the overview item stands in for every item
        self.node_items: list[NodeItem] = []
        self.edge_items: list[EdgeItem] = []
        self.group_items: list[GroupItem] = []
        self.happened: Sequence[bool] | None = None
        self.current: int | None = None
        self.selected: int | None = None
        self.future_mode = "dim"
        self.prices: PriceTable | None = None  # the user's price table (View ▸ Token prices…)
        self._message: str | None = None
        self._press_pos: QPoint | None = None
        self._items_of: dict[int, list[QGraphicsItem]] = {}  # step → the edges and bracket drawn with it
        self._pending = None  # a generator of the items still to make: (kind, payload)
        self._first_view_pending = False  # the next moment is the first of a new graph (_build_into_view)
        self.retirement = SceneRetirement(self)  # scenes no longer shown, emptied a slice at a time
        self.setScene(self._new_scene())
        self._apply_background()
        QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), 96 * 1024))  # KB: room for the cached cards
        self.keys = CardKeyboard(self)  # arrows between cards, Enter, the focus ring (canvas_keys.py)

    # ---------------------------------------------------------------------------------------- content

    def _new_scene(self) -> QGraphicsScene:
        scene = QGraphicsScene(self)
        scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)  # static items: fast culling and hits
        return scene

    def set_graph(self, graph: dict, layout: GraphLayout | None = None) -> None:
        layout = layout if layout is not None else layout_step_graph(graph)
        self._message = None
        self.art = GraphArt(graph, layout, self.palette)
        self.art.set_prices(self.prices)
        self.graph_layout = layout
        old = self.scene()
        scene = self._new_scene()
        scene.setSceneRect(self.scene_rect_for(layout.width, layout.height))
        # Cards, edges and brackets hang off one layer, shown when zoomed in enough to read; far zoomed out the
        # overview item stands in for all of them. They are made in slices (cards first, in layout order), so
        # a graph of thousands of steps never freezes the window: the first slice is made now, the rest on
        # the following event-loop turns (`building` until done). The overview item needs none of them.
        made = self._drop_items()
        self._detailed_shown = True
        self._pending = items_to_make(layout)
        self._overview = OverviewItem(self)
        scene.addItem(self._overview)
        self.setScene(scene)
        self.retirement.retire(old, made)
        self.happened, self.current, self.selected = None, None, None
        self._first_view_pending = True
        # The first slice: the cards of the rows the view starts on (at the top, unzoomed), their edges with
        # them, so the first screen is whole at once however many cards the rest of the graph has.
        self._build_slice(view_bottom=self.viewport().height() + FIRST_SLICE_MARGIN)
        if self._pending:
            self._build_later()
        self.resetTransform()
        self.show_for_zoom()
        # Start at the run's beginning: centring on the corner clamps the view to the top left. (Setting the scroll
        # bars does not last: Qt re-centres on the point it remembers when it next lays them out.)
        self.centerOn(QPointF(0, 0))
        self.viewport().update()
        self.graph_changed.emit()

    def grow_graph(self, graph: dict, layout: GraphLayout, changed: Sequence[int] | None = None) -> None:
        """The graph shown, grown at its end (File ▸ Follow): the scene, zoom and scroll stay; cards the new
        layout moved are re-placed, new cards, edges and brackets are added, edges and brackets that changed
        are made again. `changed`: the existing cards whose step changed (a duration, tokens), painted again
        (None: every card)."""
        old = self.art
        if old is not None and self._pending:
            self.finish_building()  # (the first slices of a big graph: cheaper than building it all again)
        if old is None or len(layout.nodes) < len(self.node_items):
            self.set_graph(graph, layout)  # nothing to grow from (or a shorter graph): build it whole
            return
        art = GraphArt(graph, layout, self.palette)
        art.set_prices(self.prices)
        for name in ("current", "selected", "active", "errors", "search_marks", "pauses", "fact_badges"):
            setattr(art, name, getattr(old, name))
        scene = self.scene()
        scene.setSceneRect(self.scene_rect_for(layout.width, layout.height))
        old_boxes = old.layout.nodes
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
        self.edge_items, self.group_items, self._items_of = [], [], {}
        to_make: list = [("node", i) for i in range(len(self.node_items), len(layout.nodes))]
        for route in distinct_routes(layout.edges):
            item = kept_edges.pop(route_key(route), None)
            if item is None:
                to_make.append(("edge", route))
                continue
            item.art, item.route = art, route
            self.edge_items.append(item)
            self._items_of.setdefault(route.source, []).append(item)
            if route.target != route.source:
                self._items_of.setdefault(route.target, []).append(item)
        for group in layout.groups:
            item = kept_groups.pop(group, None)
            if item is None:
                to_make.append(("group", group))
                continue
            item.art = art
            self.group_items.append(item)
            self._items_of.setdefault(group.index, []).append(item)
        for item in (*kept_edges.values(), *kept_groups.values()):  # routes the layout changed
            scene.removeItem(item)
        self.art, self.graph_layout = art, layout
        if self._overview is not None:
            scene.removeItem(self._overview)
        self._overview = OverviewItem(self)
        self._overview.setVisible(not self._detailed_shown)  # shown only far zoomed out, as before
        scene.addItem(self._overview)
        self._pending = iter(to_make)
        self._build_slice()  # the new items in slices too: a big growth (the whole of a big file) is thousands
        if self._pending:
            self._build_later()
        self.viewport().update()
        self.graph_changed.emit()

    @property
    def building(self) -> bool:
        """True while the scene's items are still being made (the graph is shown as they arrive)."""
        return bool(self._pending)

    def finish_building(self) -> None:
        """Make every remaining item now (export, tests)."""
        while self._pending:
            self._build_slice(budget=None)

    def _build_later(self) -> None:
        """The next slice on a later turn (app/pacing/one_per_turn.py: not with the paint or the timeline's stops)."""
        one_per_turn.later(self, "build", self._build_next)

    def _build_next(self) -> None:
        self._build_slice()
        if self._pending:
            self._build_later()

    def _build_slice(self, budget: float | None = BUILD_SLICE_S, view_bottom: float | None = None) -> None:
        """Make the next items for up to `budget` seconds (None: all); with `view_bottom`, stop before the first
        card below it (the rest are made on later turns)."""
        pending, art, scene = self._pending, self.art, self.scene()
        if not pending or art is None:
            self._pending = None
            one_per_turn.cancel(self, "build")
            return
        dim = self.palette.dim_opacity
        deadline = None if budget is None else time.perf_counter() + budget
        boxes = art.layout.nodes
        made = 0
        for kind, payload in pending:
            if view_bottom is not None and kind == "node" and boxes[payload].y > view_bottom:
                self._pending = chain([(kind, payload)], pending)  # (made on the next turn)
                return
            if kind == "node":
                item = NodeItem(art, payload)
                opacity = node_opacity(self.happened, payload, self.future_mode, dim)
                self.node_items.append(item)
                if payload in art.errors:
                    item.setToolTip(plain_tooltip(f"Error: {art.errors[payload]}"))
            elif kind == "edge":
                item = EdgeItem(art, payload)
                opacity = min(node_opacity(self.happened, payload.source, self.future_mode, dim),
                              node_opacity(self.happened, payload.target, self.future_mode, dim))
                self.edge_items.append(item)
                self._items_of.setdefault(payload.source, []).append(item)
                if payload.target != payload.source:
                    self._items_of.setdefault(payload.target, []).append(item)
            else:
                item = GroupItem(art, payload)
                opacity = node_opacity(self.happened, payload.index, self.future_mode, dim)
                self.group_items.append(item)
                self._items_of.setdefault(payload.index, []).append(item)
            show_item(item, opacity, self._detailed_shown)
            scene.addItem(item)
            made += 1
            if deadline is not None and made % 64 == 0 and time.perf_counter() > deadline:
                return
        self._pending = None
        one_per_turn.cancel(self, "build")

    def clear(self, message: str = "") -> None:
        """Drop the graph and show `message` (plain text) centred in the view instead."""
        self._pending = None
        one_per_turn.cancel(self, "build")
        self.art, self.graph_layout = None, None
        self._overview = None
        made = self._drop_items()
        old = self.scene()
        self.setScene(self._new_scene())
        self.retirement.retire(old, made)
        self.resetTransform()
        self._message = message
        self.viewport().update()
        self.graph_changed.emit()

    def _drop_items(self) -> list[QGraphicsItem]:
        """Forget the items made for the graph shown (its scene is going); returns them, for the retirement."""
        made = [*self.node_items, *self.edge_items, *self.group_items]
        self.node_items, self.edge_items, self.group_items = [], [], []
        self._items_of = {}
        return made

    @property
    def message(self) -> str | None:
        return self._message

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        if not self._message:
            return
        painter.save()
        painter.resetTransform()  # viewport pixels: the message stays centred whatever the zoom
        painter.setPen(QColor(self.palette.message))
        painter.setFont(scene_font(14))
        area = QRectF(self.viewport().rect()).adjusted(24, 24, -24, -24)
        painter.drawText(area, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._message)
        painter.restore()

    # ------------------------------------------------------------------------------------------ state

    def set_palette(self, palette: GraphPalette) -> None:
        self.palette = palette
        if self.art is not None:
            self.art.set_palette(palette)
        self._apply_background()
        if self.future_mode == "dim":  # the palette's dimming applies to the steps not happened yet, only those
            self._apply_opacity([i for i in range(self._node_count()) if not has_happened(self.happened, i)])
        # A card painted before has the old palette's colours in its cached pixmap: only those are told (telling
        # every card costs time in proportion to the graph, most of them never painted).
        painted = [i for i, item in enumerate(self.node_items) if item.painted]
        for i in painted:
            self.node_items[i].painted = False
        self._refresh(*painted)
        self.viewport().update()
        self.graph_changed.emit()

    def set_prices(self, table: PriceTable | None) -> None:
        """Show cost on subflow boxes at these prices (None: no cost)."""
        if table == self.prices:
            return  # (a new graph gets the prices it is drawn with: see set_graph)
        self.prices = table
        if self.art is not None:
            self.art.set_prices(table)
            self._refresh(*range(self._node_count()))
            self.viewport().update()

    def _apply_background(self) -> None:
        self.setBackgroundBrush(QBrush(QColor(self.palette.background)))

    def set_future_mode(self, mode: str) -> None:
        if mode not in ("dim", "hide"):
            raise ValueError(f"future mode must be 'dim' or 'hide', not {mode!r}")
        self.future_mode = mode
        self._apply_opacity(range(self._node_count()))

    def set_cursor_state(self, happened: Sequence[bool] | None, current: int | None) -> None:
        """happened[i]: node i has happened at the cursor (None: all have). `current` is ringed and scrolled to."""
        previous = self.happened
        self.happened = None if happened is None else list(happened)
        if previous is None or self.happened is None or len(previous) != len(self.happened):
            changed = range(self._node_count())
        else:
            changed = [i for i, (a, b) in enumerate(zip(previous, self.happened)) if a != b]
        self._apply_opacity(changed)
        old, self.current = self.current, self._valid(current)
        if self.art is not None:
            self.art.current = self.current
        self._refresh(old, self.current)
        if self.current is not None:
            self.ensureVisible(self.art.node_bounds(self.current), 80, 60)
            if self._first_view_pending:  # (the graph's first moment only: later moves leave it to the slices)
                self._first_view_pending = False
                self._build_into_view()

    def _build_into_view(self) -> None:
        """While the scene is still being made, the cards down to the bottom of the view are made now, up to a
        slice's budget (the rest follows turn by turn): the first view, scrolled to the cursor (a file opens at its
        end), is painted whole, not empty until the slices from the top reach it."""
        if not self._pending or self.art is None:
            return
        boxes, made = self.art.layout.nodes, len(self.node_items)
        bottom = self.visible_scene_rect().bottom() + FIRST_SLICE_MARGIN
        if made < len(boxes) and boxes[made].y <= bottom:
            self._build_slice(budget=IN_VIEW_BUDGET_S, view_bottom=bottom)

    def show_moment(self, moment) -> None:
        """Render the moment: steps not started are dimmed (or hidden), steps in progress get a dashed ring,
        steps where an error happened a red badge, and the moment's step the cursor ring."""
        count = self._node_count()
        started = min(moment.nodes_started, count)
        happened = [True] * started + [False] * (count - started)
        old_active, old_errors = (self.art.active, set(self.art.errors)) if self.art is not None else (set(), set())
        if self.art is not None:
            old_started, self.art.started = self.art.started, started
            if old_started is not None and old_started != started:  # those cards' texts change (tokens, time)
                self._refresh(*range(min(old_started, started), max(old_started, started)))
            elif old_started is None:
                self._refresh(*range(started, count))
            self.art.active = frozenset(i for i in moment.active_nodes if i < count)
            self.art.errors = {i: errors[-1].message for i, errors in moment.error_nodes().items() if i < count}
            self._refresh(*(set(old_active) ^ set(self.art.active)), *(old_errors ^ set(self.art.errors)))
            built = len(self.node_items)  # the rest get their tooltip when made
            for i in old_errors - set(self.art.errors):
                if i < built:
                    self.node_items[i].setToolTip("")
            for i, message in self.art.errors.items():
                if i < built:
                    self.node_items[i].setToolTip(plain_tooltip(f"Error: {message}"))
        self.set_cursor_state(happened, moment.current_node)

    def set_search_marks(self, node_indices) -> None:
        """Mark the cards holding search matches (an empty collection clears the marks)."""
        if self.art is None:
            return
        old = self.art.search_marks
        self.art.search_marks = frozenset(i for i in node_indices if 0 <= i < len(self.node_items))
        self._refresh(*(old ^ self.art.search_marks))

    def set_pause_marks(self, marks: dict[int, str]) -> None:
        """Pause chips: node → the question it paused on (an empty dict clears them)."""
        if self.art is None:
            return
        old = set(self.art.pauses)
        self.art.pauses = {i: q for i, q in marks.items() if 0 <= i < len(self.node_items)}
        for i in old | set(self.art.pauses):  # the chip hangs under the card: grow the item's bounds to hold it
            self.node_items[i].fit_bounds()
        self._refresh(*(old | set(self.art.pauses)))

    def set_fact_badges(self, badges: dict[int, str]) -> None:
        """Retries-and-findings pills: node → its text (an empty dict clears them)."""
        if self.art is None:
            return
        old = self.art.fact_badges
        self.art.fact_badges = {i: text for i, text in badges.items() if 0 <= i < len(self.node_items)}
        self._refresh(*(i for i in set(old) | set(self.art.fact_badges)
                        if old.get(i) != self.art.fact_badges.get(i)))

    def set_selected(self, index: int | None) -> None:
        old, self.selected = self.selected, self._valid(index)
        if self.art is not None:
            self.art.selected = self.selected
        self._refresh(old, self.selected)

    def _valid(self, index: int | None) -> int | None:
        return index if index is not None and 0 <= index < self._node_count() else None

    def _node_count(self) -> int:
        """Steps in the graph shown (its items may still be being made)."""
        return len(self.graph_layout.nodes) if self.graph_layout is not None else 0

    def _refresh(self, *indices: int | None) -> None:
        if self.overview_mode:
            self._overview.invalidate()
        for i in indices:
            if i is not None and i < len(self.node_items):
                self.node_items[i].update()

    def _apply_opacity(self, indices, edges_too: bool = False) -> None:
        """Dim or hide the given nodes and every edge or bracket touching them (`edges_too`: every edge and
        bracket, as when they are all shown again)."""
        dim, shown = self.palette.dim_opacity, self._detailed_shown
        touched = set(indices)
        if not touched:
            return
        if self._overview is not None:
            self._overview.invalidate()
        built = len(self.node_items)  # items made later take their opacity when made
        for i in touched:
            if i < built:
                show_item(self.node_items[i], node_opacity(self.happened, i, self.future_mode, dim), shown)
        # A cursor move touches a few steps: look up their edges and brackets instead of visiting every item.
        linked = (*self.edge_items, *self.group_items) if edges_too else \
            {item for i in touched for item in self._items_of.get(i, ())}
        for item in linked:
            if isinstance(item, EdgeItem):
                show_item(item, min(node_opacity(self.happened, item.route.source, self.future_mode, dim),
                                    node_opacity(self.happened, item.route.target, self.future_mode, dim)), shown)
            else:
                show_item(item, node_opacity(self.happened, item.group.index, self.future_mode, dim), shown)

    # ------------------------------------------------------------------------------------------- zoom

    def content_extent(self) -> tuple[float, float] | None:
        return None if self.graph_layout is None else (self.graph_layout.width, self.graph_layout.height)

    @property
    def overview_mode(self) -> bool:
        return self._overview is not None and self._overview.isVisible()

    def show_for_zoom(self) -> None:
        """Draw the graph as its zoom asks: the overview (edges simplified) when zoomed far out, else in detail."""
        if self._overview is None:
            return
        overview = self.zoom_factor() < EDGE_LOD
        if overview != self._overview.isVisible():
            self._overview.invalidate()
            self._overview.setVisible(overview)
            self._show_detail(not overview)

    def _show_detail(self, shown: bool) -> None:
        """Show or hide every card, edge and bracket (far zoomed out the overview item paints them all).
        They are top-level items, not children of one hidden parent: Qt's scene index only culls top-level
        items, and a parent with thousands of children made every repaint visit all of them."""
        self._detailed_shown = shown
        if not shown:
            for item in (*self.node_items, *self.edge_items, *self.group_items):
                item.setVisible(False)
        else:
            self._apply_opacity(range(self._node_count()), edges_too=True)

    def centre_on_cursor(self) -> bool:
        """Scroll so the step at the cursor (else the selected one) is in the middle of the view."""
        index = self.current if self.current is not None else self.selected
        if index is None or self.art is None:
            return False
        card = self.art.node_bounds(index)
        seen = self.visible_scene_rect()
        # Centre vertically; sideways only if the card is not already in view (the rows stay aligned).
        x = seen.center().x() if seen.left() <= card.left() and card.right() <= seen.right() else card.center().x()
        self.centerOn(QPointF(x, card.center().y()))
        return True

    # ----------------------------------------------------------------------------------------- clicks

    def node_at(self, view_pos: QPoint) -> int | None:
        if self.overview_mode or self.building:  # no card items (yet): find the block under the pointer
            point = self.mapToScene(view_pos)
            x, y = point.x(), point.y()
            slack = 3 / max(self.zoom_factor(), 1e-6)  # blocks are a few pixels wide: allow a near miss
            best, best_distance = None, slack
            for i, box in enumerate(self.graph_layout.nodes):
                if node_opacity(self.happened, i, self.future_mode, 1.0) <= 0:
                    continue
                dx = max(box.x - x, 0.0, x - (box.x + box.w))
                dy = max(box.y - y, 0.0, y - (box.y + box.h))
                distance = max(dx, dy)
                if distance == 0:
                    return i
                if distance < best_distance:
                    best, best_distance = i, distance
            return best
        for item in self.items(view_pos):
            if isinstance(item, NodeItem) and item.isVisible():
                return item.index
        return None

    def contextMenuEvent(self, event) -> None:  # noqa: N802 - the window builds the card's menu
        index = self.node_at(event.pos())
        if index is None:
            super().contextMenuEvent(event)
            return
        event.accept()
        self.card_menu_requested.emit(index, event.globalPos())

    def mousePressEvent(self, event) -> None:
        self._press_pos = event.position().toPoint() if event.button() == Qt.MouseButton.LeftButton else None
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        press, self._press_pos = self._press_pos, None
        if press is None or event.button() != Qt.MouseButton.LeftButton:
            return
        pos = event.position().toPoint()
        if (pos - press).manhattanLength() < QApplication.startDragDistance():  # a click, not the end of a pan
            index = self.node_at(pos)
            if index is not None:
                self.set_selected(index)
                self.node_activated.emit(index)
