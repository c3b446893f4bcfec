"""The step graph canvas: a zoomable, pannable view of a laid-out StepGraph, and the graph panel's face to the
window (set_graph, grow_graph, show_moment, the marks, clicks on cards).

Its parts live beside it: zoom, scrolling and overlays (graph_view.py, its base class); the scene made from the
layout a slice per event-loop turn (scene_builder.py, in scene_order.py's order) and emptied the same way once no
longer shown (scene_retirement.py); the scene's items (graph_items.py); the painter they share with export
(graph_art.py), with a card's text (card_text.py) and the dimming of steps not yet happened (step_opacity.py).
This module puts them together and keeps the scene in step with the moment shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPixmapCache
from PySide6.QtWidgets import QApplication, QGraphicsScene, QWidget

from afp_desktop.app.look.style import GraphPalette, palette_for
from afp_desktop.app.panels.graph.canvas_keys import CardKeyboard
from afp_desktop.app.panels.graph.graph_art import EDGE_LOD, GraphArt, scene_font
from afp_desktop.app.panels.graph.graph_items import (
    EdgeItem, GroupItem, NodeItem, OverviewItem, item_opacity, show_item,
)
from afp_desktop.app.panels.graph.graph_view import GraphView
from afp_desktop.app.panels.graph.scene_builder import FIRST_SLICE_MARGIN, SceneBuilder
from afp_desktop.app.panels.graph.scene_order import items_to_make
from afp_desktop.app.panels.graph.scene_retirement import SceneRetirement
from afp_desktop.app.panels.graph.step_opacity import has_happened, node_opacity
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.core.model.layout import GraphLayout, layout_step_graph
from afp_desktop.core.views.cost import PriceTable


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
        self.detail_shown = True  # False far zoomed out: the overview item stands in for every item
        self.builder = SceneBuilder(self)  # the cards, edges and brackets made, and those still to make
        self.happened: Sequence[bool] | None = None
        self.current: int | None = None
        self.selected: int | None = None
        self.future_mode = "dim"
        self.prices: PriceTable | None = None  # the user's price table (View ▸ Token prices…)
        self._message: str | None = None
        self._press_pos: QPoint | None = None
        self._first_view_pending = False  # the next moment is the first of a new graph (builder.make_into_view)
        self.retirement = SceneRetirement(self)  # scenes no longer shown, emptied a slice at a time
        self.setScene(self._new_scene())
        self._apply_background()
        QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), 96 * 1024))  # KB: room for the cached cards
        self.keys = CardKeyboard(self)  # arrows between cards, Enter, the focus ring (canvas_keys.py)

    # ---------------------------------------------------------------------------------------- content

    @property
    def node_items(self) -> list[NodeItem]:
        """The cards made so far: the first steps' cards, in the order of their steps."""
        return self.builder.node_items

    @property
    def edge_items(self) -> list[EdgeItem]:
        return self.builder.edge_items

    @property
    def group_items(self) -> list[GroupItem]:
        return self.builder.group_items

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
        made = self.builder.drop()
        self.detail_shown = True
        self.builder.plan(items_to_make(layout))
        self._overview = OverviewItem(self)
        scene.addItem(self._overview)
        self.setScene(scene)
        self.retirement.retire(old, made)
        self.happened, self.current, self.selected = None, None, None
        self._first_view_pending = True
        # The first slice: the cards of the rows the view starts on (at the top, unzoomed), their edges with
        # them, so the first screen is whole at once however many cards the rest of the graph has.
        self.builder.make_slice(view_bottom=self.viewport().height() + FIRST_SLICE_MARGIN)
        self.builder.continue_later()
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
        if old is not None and self.building:
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
        self.builder.regrow(art, layout, changed)
        self.art, self.graph_layout = art, layout
        if self._overview is not None:
            scene.removeItem(self._overview)
        self._overview = OverviewItem(self)
        self._overview.setVisible(not self.detail_shown)  # shown only far zoomed out, as before
        scene.addItem(self._overview)
        self.builder.make_slice()  # the new items in slices too: a big growth (the whole of a big file) is thousands
        self.builder.continue_later()
        self.viewport().update()
        self.graph_changed.emit()

    @property
    def building(self) -> bool:
        """True while the scene's items are still being made (the graph is shown as they arrive)."""
        return self.builder.building

    def finish_building(self) -> None:
        """Make every remaining item now (export, tests)."""
        self.builder.finish()

    def clear(self, message: str = "") -> None:
        """Drop the graph and show `message` (plain text) centred in the view instead."""
        self.builder.stop()
        self.art, self.graph_layout = None, None
        self._overview = None
        made = self.builder.drop()
        old = self.scene()
        self.setScene(self._new_scene())
        self.retirement.retire(old, made)
        self.resetTransform()
        self._message = message
        self.viewport().update()
        self.graph_changed.emit()

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
                self.builder.make_into_view()

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
        self.art.search_marks = frozenset(i for i in node_indices if 0 <= i < self._node_count())  # (items made later read it)
        self._refresh(*(old ^ self.art.search_marks))

    def set_pause_marks(self, marks: dict[int, str]) -> None:
        """Pause chips: node → the question it paused on (an empty dict clears them)."""
        if self.art is None:
            return
        old = set(self.art.pauses)
        self.art.pauses = {i: q for i, q in marks.items() if 0 <= i < self._node_count()}
        for i in old | set(self.art.pauses):  # the chip hangs under the card: grow the item's bounds to hold it
            if i < len(self.node_items):  # (an item made later fits its bounds as it is made)
                self.node_items[i].fit_bounds()
        self._refresh(*(old | set(self.art.pauses)))

    def set_fact_badges(self, badges: dict[int, str]) -> None:
        """Retries-and-findings pills: node → its text (an empty dict clears them)."""
        if self.art is None:
            return
        old = self.art.fact_badges
        self.art.fact_badges = {i: text for i, text in badges.items() if 0 <= i < self._node_count()}
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
        dim, shown = self.palette.dim_opacity, self.detail_shown
        touched = set(indices)
        if not touched:
            return
        if self._overview is not None:
            self._overview.invalidate()
        built = len(self.node_items)  # items made later take their opacity when made
        # A cursor move touches a few steps: look up their edges and brackets instead of visiting every item.
        linked = (*self.edge_items, *self.group_items) if edges_too else \
            {item for i in touched for item in self.builder.items_of.get(i, ())}
        for item in chain((self.node_items[i] for i in touched if i < built), linked):
            show_item(item, item_opacity(item, self.happened, self.future_mode, dim), shown)

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
        self.detail_shown = shown
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
