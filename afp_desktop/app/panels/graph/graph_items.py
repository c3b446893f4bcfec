"""The scene's items: one thin QGraphicsItem per card, edge and subflow bracket, each painting itself through
the graph's GraphArt (graph_art.py), and the overview item that stands in for all of them far zoomed out.

One item per node with its own `paint`, no child items, so 10,000 nodes stay fast and the scene's BSP index
culls what is off screen."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from afp_desktop.app.panels.graph.graph_art import DETAIL_LOD, PAUSE_CHIP_DROP, SEARCH_MARK, GraphArt, qcolor_of
from afp_desktop.app.panels.graph.step_opacity import node_opacity
from afp_desktop.core.model.layout import EdgeRoute, GroupBox


def _detailed(painter: QPainter) -> bool:
    return QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform()) >= DETAIL_LOD


class NodeItem(QGraphicsItem):
    """One card. Positioned at the scene origin: its bounds are in scene coordinates, like GraphArt's."""

    def __init__(self, art: GraphArt, index: int):
        super().__init__()
        self.art, self.index = art, index
        self._bounds = self._card_bounds()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # clicks and drags go to the view (pan / activate)
        self.setZValue(2)
        # A card is painted once per zoom level and then blitted: scrolling and scrubbing repaint dozens of
        # cards, each a few antialiased paths and texts in Python. update() (a ring, a badge) paints it again.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.painted = False  # painted since made or last told to forget its colours (it has a cached pixmap)
        # How visible the card is (a step not yet happened is dimmed). Not the item's opacity: a cached card is
        # painted into its pixmap at full opacity and the pixmap faded whole, its text too (below 4.5:1). The
        # card fades its own fill and draws its text opaque (GraphArt._paint_text), into the pixmap.
        self.fade = 1.0

    def set_fade(self, fade: float) -> None:
        if fade != self.fade:
            self.fade = fade
            self.update()

    def fit_bounds(self) -> None:
        """Bounds for the card as the art now places it, with room below for its pause chip if it has one."""
        self.prepareGeometryChange()
        self._bounds = self._card_bounds()

    def _card_bounds(self) -> QRectF:
        bounds = self.art.node_bounds(self.index)
        return bounds.adjusted(0, 0, 0, PAUSE_CHIP_DROP) if self.index in self.art.pauses else bounds

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        self.painted = True
        if self.fade < 1.0:
            painter.setOpacity(painter.opacity() * self.fade)
        self.art.paint_node(painter, self.index, _detailed(painter))


class OverviewItem(QGraphicsItem):
    """Far zoomed out, every card as a block drawn in a few batched calls (one per colour and opacity) instead
    of one Python paint call per card: a 10,000-step graph stays smooth to pan and zoom."""

    def __init__(self, canvas):
        """`canvas`: the GraphCanvas shown (its art, happened and future_mode)."""
        super().__init__()
        self.canvas = canvas
        layout = canvas.art.layout
        self._rect_list: list[QRectF] | None = None  # made when first painted: most runs never zoom this far
        self._bounds = QRectF(0, 0, max(layout.width, 1.0), max(layout.height, 1.0))
        self._batches: dict | None = None
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(3)

    @property
    def _rects(self) -> list[QRectF]:
        if self._rect_list is None:
            self._rect_list = [QRectF(b.x, b.y, b.w, b.h) for b in self.canvas.art.layout.nodes]
        return self._rect_list

    def invalidate(self) -> None:
        self._batches = None
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def _batched(self) -> dict:
        if self._batches is None:
            canvas, art = self.canvas, self.canvas.art
            dim = art.palette.dim_opacity
            batches: dict = {}
            for i, box in enumerate(art.layout.nodes):
                opacity = node_opacity(canvas.happened, i, canvas.future_mode, dim)
                if opacity > 0:
                    batches.setdefault((art.palette.kind(box.kind).accent, opacity), []).append(self._rects[i])
            self._batches = batches
        return self._batches

    def paint(self, painter, option, widget=None) -> None:
        art = self.canvas.art
        painter.setPen(Qt.PenStyle.NoPen)
        for (colour, opacity), rects in self._batched().items():
            painter.setOpacity(opacity)
            painter.setBrush(qcolor_of(colour))
            painter.drawRects(rects)
        painter.setOpacity(1.0)
        for i in {art.current, art.selected} - {None}:
            art.paint_marks(painter, i, self._rects[i], False)
        if art.search_marks:  # far out a dot would vanish: outline the blocks instead
            pen = QPen(QColor(SEARCH_MARK), 3)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRects([self._rects[i] for i in art.search_marks])


class EdgeItem(QGraphicsItem):
    def __init__(self, art: GraphArt, route: EdgeRoute):
        super().__init__()
        self.art, self.route = art, route
        self._bounds = art.edge_bounds(route)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        self.art.paint_edge(painter, self.route, _detailed(painter))


class GroupItem(QGraphicsItem):
    def __init__(self, art: GraphArt, group: GroupBox):
        super().__init__()
        self.art, self.group = art, group
        self._bounds = art.group_bounds(group)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        self.art.paint_group(painter, self.group)



def show_item(item: QGraphicsItem, opacity: float, detail_shown: bool) -> None:
    """Show an item at `opacity` (0: hidden), or hide it while the overview stands in for every item. A card
    fades itself (NodeItem.set_fade); an edge or a bracket takes the opacity."""
    item.setVisible(opacity > 0 and detail_shown)
    if isinstance(item, NodeItem):
        item.set_fade(opacity if opacity > 0 else 1.0)
    else:
        item.setOpacity(opacity if opacity > 0 else 1.0)


def item_opacity(item: QGraphicsItem, happened: Sequence[bool] | None, future_mode: str, dim: float) -> float:
    """A card's opacity is its step's (step_opacity.node_opacity); an edge's, the lesser of its two ends'; a
    bracket's, its subflow's."""
    if isinstance(item, NodeItem):
        return node_opacity(happened, item.index, future_mode, dim)
    if isinstance(item, EdgeItem):
        return min(node_opacity(happened, item.route.source, future_mode, dim),
                   node_opacity(happened, item.route.target, future_mode, dim))
    return node_opacity(happened, item.group.index, future_mode, dim)
