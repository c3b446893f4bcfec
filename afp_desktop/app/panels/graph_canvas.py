"""The step graph canvas: a zoomable, pannable view of a laid-out StepGraph.

Drawing lives in `GraphArt`, which paints cards, edges and subflow brackets onto any QPainter in scene
coordinates. The window wraps each card/edge/bracket in a thin QGraphicsItem that calls GraphArt (one item per
node with its own `paint`, no child items, so 10,000 nodes stay fast and the scene's BSP index culls what is off
screen); export (export.py) calls the same GraphArt directly on a QImage or SVG painter, so both look alike and
export needs no QApplication-only machinery (QGraphicsScene crashes under a bare QGuiApplication).

All trace text is drawn with QPainter.drawText — plain text, never rich text — and elided to fit its card.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsView,
    QStyleOptionGraphicsItem,
    QWidget,
)

from afp_desktop.app.visible_text import visible_text
from afp_desktop.app.fonts import load_bundled_fonts
from afp_desktop.app.style import GraphPalette, palette_for
from afp_desktop.core.layout import (
    CHIP_KINDS,
    LLM_START_KINDS,
    SUBFLOW_KIND,
    EdgeRoute,
    GraphLayout,
    GroupBox,
    layout_step_graph,
)

DETAIL_LOD = 0.4  # below this zoom cards are plain coloured blocks and edges bare lines: text would be unreadable
EDGE_LOD = 0.08  # below this a gutter is a few pixels high and edges are noise: they are not drawn at all
MIN_ZOOM, MAX_ZOOM, MAX_FIT_ZOOM = 0.002, 4.0, 1.5
ZOOM_STEP = 1.2
FONT_FAMILIES = ["DejaVu Sans", "Segoe UI", "Helvetica Neue", "Arial", "Sans Serif"]
PADDING = 8.0
STRIPE = 4.0
RADIUS = 6.0
OUTLINE_MARGIN = 5.0  # cursor/selection rings are drawn this far outside a card


def _font(pixels: int, bold: bool = False) -> QFont:
    # Pixel sizes, not points: cards are sized in scene pixels and must fit the same on screen, PNG and SVG.
    font = QFont()
    font.setFamilies(FONT_FAMILIES)
    font.setPixelSize(pixels)
    font.setBold(bold)
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return font


@lru_cache(maxsize=256)
def _qcolor(hex_colour: str) -> QColor:
    """Parsed once: painting 10,000 cards must not parse colour strings on every frame."""
    return QColor(hex_colour)


def _one_line(value) -> str:
    """Trace text as a single plain line: first line only, control characters gone."""
    text = "" if value is None else str(value)
    text = text.strip().split("\n", 1)[0]
    return "".join(ch if ch.isprintable() else " " for ch in text)


def format_duration(node: dict) -> str:
    start, end = node.get("startOffsetMs"), node.get("endOffsetMs")
    if not isinstance(start, (int, float)) or not isinstance(end, (int, float)):
        return ""
    ms = max(0.0, float(end) - float(start))
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    return f"{int(ms // 60_000)}m {int(ms % 60_000 // 1000):02d}s"


def format_tokens(node: dict) -> str:
    tokens = node.get("tokens")
    if not isinstance(tokens, dict):
        return ""
    return f"{tokens.get('in', '?')} in · {tokens.get('out', '?')} out"


def card_lines(node: dict) -> tuple[str, str, str, str]:
    """(title, corner, detail, footer-left) of a card, before eliding; the duration goes footer-right."""
    kind = str(node.get("kind", ""))
    label = _one_line(node.get("label"))
    if kind == SUBFLOW_KIND:
        primitive = _one_line(node.get("primitiveKind")) or "subflow"
        return label, "", primitive, ""
    if kind in CHIP_KINDS:
        return label, "", "", ""
    iteration = node.get("iterationIndex")  # numbered once per row, on the LLM call that opens the iteration
    corner = f"#{iteration}" if iteration is not None and kind in LLM_START_KINDS else ""
    detail = _one_line(node.get("toolName") or node.get("llmModel") or node.get("assistantText"))
    return label, corner, detail, format_tokens(node)


def node_opacity(happened: Sequence[bool] | None, index: int, future_mode: str, dim_opacity: float) -> float:
    """1 for a step that has happened, dim_opacity or 0 (hidden) for one that has not. Missing entries count as
    happened, so a short list never hides the end of a graph by accident."""
    if happened is None or index >= len(happened) or happened[index]:
        return 1.0
    return 0.0 if future_mode == "hide" else dim_opacity


class GraphArt:
    """Paints one laid-out graph. Shared by the canvas items and the exporter."""

    def __init__(self, graph: dict, layout: GraphLayout, palette: GraphPalette):
        load_bundled_fonts()  # DejaVu Sans, first in FONT_FAMILIES, even on a system without fonts (idempotent)
        self.nodes = graph.get("nodes") or []
        self.layout = layout
        self.palette = palette
        self.current: int | None = None
        self.selected: int | None = None
        self.title_font, self.body_font, self.chip_font = _font(12, bold=True), _font(11), _font(10)
        self.title_metrics = QFontMetricsF(self.title_font)
        self.body_metrics = QFontMetricsF(self.body_font)
        self.chip_metrics = QFontMetricsF(self.chip_font)
        self._texts: dict[int, tuple] = {}  # elided card texts, made on first detailed paint
        self._shapes: dict[tuple[float, float], tuple] = {}  # card paths by size
        self._polylines: dict[int, QPolygonF] = {}  # edge routes as Qt polygons, by edge index

    def set_palette(self, palette: GraphPalette) -> None:
        self.palette = palette

    # ------------------------------------------------------------------------------------------ bounds

    def node_bounds(self, i: int) -> QRectF:
        b = self.layout.nodes[i]
        return QRectF(b.x, b.y, b.w, b.h).adjusted(-OUTLINE_MARGIN, -OUTLINE_MARGIN, OUTLINE_MARGIN, OUTLINE_MARGIN)

    def edge_bounds(self, route: EdgeRoute) -> QRectF:
        xs = [p[0] for p in route.points]
        ys = [p[1] for p in route.points]
        rect = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)).adjusted(-6, -6, 6, 6)
        if route.label and route.label_at:
            x, y = route.label_at
            rect = rect.united(QRectF(x, y - 9, route.label_width, 18))
        return rect

    @staticmethod
    def group_bounds(group: GroupBox) -> QRectF:
        return QRectF(group.x, group.y, group.w, group.h).adjusted(-2, -2, 2, 2)

    # ------------------------------------------------------------------------------------------ painting

    def paint_node(self, p: QPainter, i: int, detailed: bool) -> None:
        box = self.layout.nodes[i]
        colours = self.palette.kind(box.kind)
        rect = QRectF(box.x, box.y, box.w, box.h)
        if not detailed:  # the hot path when 10,000 cards are on screen: one fill
            p.fillRect(rect, _qcolor(colours.accent))
        else:
            outline, fill, stripe = self._card_shape(box.w, box.h)
            p.save()
            p.translate(box.x, box.y)
            p.fillPath(fill, _qcolor(colours.fill))
            p.fillPath(stripe, _qcolor(colours.accent))
            p.setPen(QPen(_qcolor(self.palette.card_border), 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPath(outline)
            p.restore()
            self._paint_text(p, i, rect)
        if i == self.current or i == self.selected:
            self._paint_marks(p, i, rect, detailed)

    def _card_shape(self, w: float, h: float) -> tuple[QPainterPath, QPainterPath, QPainterPath]:
        """Outline, fill and accent stripe of a card at the origin. Fill and stripe do not overlap, so a dimmed
        (translucent) card keeps its colours instead of showing the stripe through the fill."""
        shape = self._shapes.get((w, h))
        if shape is None:
            radius = min(RADIUS, h / 2)
            card = QPainterPath()
            card.addRoundedRect(QRectF(0, 0, w, h), radius, radius)
            band = QPainterPath()
            band.addRect(QRectF(0, 0, STRIPE, h))
            outline = QPainterPath()
            outline.addRoundedRect(QRectF(0.5, 0.5, w - 1, h - 1), radius, radius)
            shape = self._shapes[(w, h)] = (outline, card.subtracted(band), card.intersected(band))
        return shape

    def _paint_marks(self, p: QPainter, i: int, rect: QRectF, detailed: bool) -> None:
        """The cursor ring outside the card and the selection ring just inside it."""
        cosmetic = not detailed  # keep the rings visible when zoomed far out
        p.setBrush(Qt.BrushStyle.NoBrush)
        if i == self.current:
            pen = QPen(_qcolor(self.palette.cursor), 3)
            pen.setCosmetic(cosmetic)
            p.setPen(pen)
            p.drawRoundedRect(rect.adjusted(-3, -3, 3, 3), RADIUS + 2, RADIUS + 2)
        if i == self.selected:
            pen = QPen(_qcolor(self.palette.selection), 2)
            pen.setCosmetic(cosmetic)
            p.setPen(pen)
            p.drawRoundedRect(rect.adjusted(1, 1, -1, -1), RADIUS, RADIUS)

    def _texts_for(self, i: int, rect: QRectF) -> tuple:
        cached = self._texts.get(i)
        if cached is None:
            node = self.nodes[i] if i < len(self.nodes) and isinstance(self.nodes[i], dict) else {}
            title, corner, detail, footer = map(visible_text, card_lines(node))
            duration = format_duration(node)
            inner = rect.width() - STRIPE - 2 * PADDING
            elide = Qt.TextElideMode.ElideRight
            kind = str(node.get("kind", ""))
            if kind in CHIP_KINDS:
                # Chip labels are often paths ("agent/System Prompt"); their end is the part that differs.
                mode = Qt.TextElideMode.ElideLeft if "/" in title else elide
                cached = (self.chip_metrics.elidedText(title, mode, inner - 10),)
            elif kind == SUBFLOW_KIND:
                status = f"{detail} · {duration}" if duration else f"{detail} · open"
                cached = (
                    self.title_metrics.elidedText(title, elide, inner),
                    self.body_metrics.elidedText(status, elide, inner),
                )
            else:
                corner_w = self.body_metrics.horizontalAdvance(corner) + 6 if corner else 0
                duration_w = self.body_metrics.horizontalAdvance(duration) + 8 if duration else 0
                cached = (
                    self.title_metrics.elidedText(title, elide, inner - corner_w),
                    corner,
                    self.body_metrics.elidedText(detail, elide, inner),
                    self.body_metrics.elidedText(footer, elide, inner - duration_w),
                    duration,
                )
            self._texts[i] = cached
        return cached

    def _paint_text(self, p: QPainter, i: int, rect: QRectF) -> None:
        texts = self._texts_for(i, rect)
        colours = self.palette.kind(self.layout.nodes[i].kind)
        text, muted = _qcolor(self.palette.text), _qcolor(self.palette.text_muted)
        left = rect.x() + STRIPE + PADDING
        width = rect.width() - STRIPE - 2 * PADDING
        single = Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine
        if len(texts) == 1:  # chip: kind marker, then the label
            marker = QRectF(left - 2, rect.center().y() - 4, 8, 8)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(_qcolor(colours.accent))
            if self.layout.nodes[i].kind == "decision-branch":
                c = marker.center()
                p.drawPolygon(QPolygonF([QPointF(c.x(), marker.top()), QPointF(marker.right(), c.y()),
                                         QPointF(c.x(), marker.bottom()), QPointF(marker.left(), c.y())]))
            else:
                p.drawEllipse(marker)
            p.setFont(self.chip_font)
            p.setPen(text)
            p.drawText(QRectF(left + 10, rect.y(), width - 10, rect.height()), single | Qt.AlignmentFlag.AlignLeft,
                       texts[0])
            return
        if len(texts) == 2:  # subflow: name, then "Kind · duration"
            p.setFont(self.title_font)
            p.setPen(text)
            p.drawText(QRectF(left, rect.y() + 5, width, 17), single | Qt.AlignmentFlag.AlignLeft, texts[0])
            p.setFont(self.body_font)
            p.setPen(muted)
            p.drawText(QRectF(left, rect.y() + 22, width, 16), single | Qt.AlignmentFlag.AlignLeft, texts[1])
            return
        title, corner, detail, footer, duration = texts
        top = rect.y() + 6
        p.setFont(self.title_font)
        p.setPen(text)
        p.drawText(QRectF(left, top, width, 17), single | Qt.AlignmentFlag.AlignLeft, title)
        p.setFont(self.body_font)
        p.setPen(muted)
        if corner:
            p.drawText(QRectF(left, top, width, 17), single | Qt.AlignmentFlag.AlignRight, corner)
        p.drawText(QRectF(left, top + 17, width, 16), single | Qt.AlignmentFlag.AlignLeft, detail)
        p.setPen(text)
        p.drawText(QRectF(left, top + 34, width, 16), single | Qt.AlignmentFlag.AlignLeft, footer)
        if duration:
            p.drawText(QRectF(left, top + 34, width, 16), single | Qt.AlignmentFlag.AlignRight, duration)

    def paint_edge(self, p: QPainter, route: EdgeRoute, detailed: bool) -> None:
        loop = route.kind == "loop-iteration"
        colour = _qcolor(self.palette.loop_edge if loop else self.palette.edge)
        polyline = self._polylines.get(route.index)
        if polyline is None:
            polyline = self._polylines[route.index] = QPolygonF([QPointF(x, y) for x, y in route.points])
        pen = QPen(colour, 1.5 if detailed else 1)
        pen.setCosmetic(not detailed)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPolyline(polyline)
        if not detailed:
            return
        tip, before = polyline[polyline.size() - 1], polyline[polyline.size() - 2]
        dx, dy = tip.x() - before.x(), tip.y() - before.y()
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        size = 7.0
        back = QPointF(tip.x() - ux * size, tip.y() - uy * size)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(colour)
        p.drawPolygon(QPolygonF([tip, QPointF(back.x() - uy * size / 2, back.y() + ux * size / 2),
                                 QPointF(back.x() + uy * size / 2, back.y() - ux * size / 2)]))
        if route.label and route.label_at:
            x, y = route.label_at
            p.setFont(self.body_font)
            p.setPen(_qcolor(self.palette.edge_label))
            text = self.body_metrics.elidedText(_one_line(route.label), Qt.TextElideMode.ElideRight,
                                                route.label_width)
            p.drawText(QRectF(x, y - 9, route.label_width, 18),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine, text)

    def paint_group(self, p: QPainter, group: GroupBox) -> None:
        pen = QPen(_qcolor(self.palette.bracket), 1.5)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        bottom = group.y + group.h
        p.drawPolyline(QPolygonF([QPointF(group.x, group.y + 3), QPointF(group.x, bottom),
                                  QPointF(group.x + group.w, bottom)]))

    def paint_all(self, p: QPainter, area: QRectF, happened=None, future_mode: str = "dim") -> None:
        """Everything intersecting `area`, back to front, as the canvas shows it (used by export)."""
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(p.worldTransform())
        detailed = lod >= DETAIL_LOD
        dim = self.palette.dim_opacity
        for group in self.layout.groups:
            opacity = node_opacity(happened, group.index, future_mode, dim)
            if opacity > 0 and self.group_bounds(group).intersects(area):
                p.setOpacity(opacity)
                self.paint_group(p, group)
        for route in self.layout.edges if lod >= EDGE_LOD else ():
            opacity = min(node_opacity(happened, route.source, future_mode, dim),
                          node_opacity(happened, route.target, future_mode, dim))
            if opacity > 0 and self.edge_bounds(route).intersects(area):
                p.setOpacity(opacity)
                self.paint_edge(p, route, detailed)
        for i in range(len(self.layout.nodes)):
            opacity = node_opacity(happened, i, future_mode, dim)
            if opacity > 0 and self.node_bounds(i).intersects(area):
                p.setOpacity(opacity)
                self.paint_node(p, i, detailed)
        p.setOpacity(1.0)


# --------------------------------------------------------------------------------------------- items


def _detailed(painter: QPainter) -> bool:
    return QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform()) >= DETAIL_LOD


class NodeItem(QGraphicsItem):
    """One card. Positioned at the scene origin: its bounds are in scene coordinates, like GraphArt's."""

    def __init__(self, art: GraphArt, index: int):
        super().__init__()
        self.art, self.index = art, index
        self._bounds = art.node_bounds(index)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # clicks and drags go to the view (pan / activate)
        self.setZValue(2)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        self.art.paint_node(painter, self.index, _detailed(painter))


def _distinct_routes(routes: list[EdgeRoute]) -> list[EdgeRoute]:
    """One route per distinct drawing: a Loop's 150 iteration edges share one self-loop on the same card, and
    drawing it 150 times over made every repaint of that corner slow."""
    seen: set = set()
    distinct = []
    for route in routes:
        key = (route.kind, route.source, route.target, tuple(route.points), route.label)
        if key not in seen:
            seen.add(key)
            distinct.append(route)
    return distinct


class _Layer(QGraphicsItem):
    """An invisible parent: hiding it hides every card, edge and bracket at once (its children stay indexed)."""

    def __init__(self):
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)

    def boundingRect(self) -> QRectF:
        return QRectF()

    def paint(self, painter, option, widget=None) -> None:
        pass


class OverviewItem(QGraphicsItem):
    """Far zoomed out, every card as a block drawn in a few batched calls (one per colour and opacity) instead
    of one Python paint call per card: a 10,000-step graph stays smooth to pan and zoom."""

    def __init__(self, canvas: "GraphCanvas"):
        super().__init__()
        self.canvas = canvas
        layout = canvas.art.layout
        self._rects = [QRectF(b.x, b.y, b.w, b.h) for b in layout.nodes]
        self._bounds = QRectF(0, 0, max(layout.width, 1.0), max(layout.height, 1.0))
        self._batches: dict | None = None
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(3)

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
            painter.setBrush(_qcolor(colour))
            painter.drawRects(rects)
        painter.setOpacity(1.0)
        for i in {art.current, art.selected} - {None}:
            art._paint_marks(painter, i, self._rects[i], False)


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


# -------------------------------------------------------------------------------------------- canvas


class GraphCanvas(QGraphicsView):
    """Shows one StepGraph. Click a card → node_activated(index); wheel zooms under the mouse; drag pans."""

    node_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None, palette: GraphPalette | None = None):
        super().__init__(parent)
        self.palette = palette or palette_for("light")
        self.art: GraphArt | None = None
        self.graph_layout: GraphLayout | None = None
        self._overview: OverviewItem | None = None
        self._detail_layer: _Layer | None = None
        self.node_items: list[NodeItem] = []
        self.edge_items: list[EdgeItem] = []
        self.group_items: list[GroupItem] = []
        self.happened: Sequence[bool] | None = None
        self.current: int | None = None
        self.selected: int | None = None
        self.future_mode = "dim"
        self._message: str | None = None
        self._press_pos: QPoint | None = None
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)  # wheel zoom anchors by hand
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setScene(self._new_scene())
        self._apply_background()

    # ---------------------------------------------------------------------------------------- content

    def _new_scene(self) -> QGraphicsScene:
        scene = QGraphicsScene(self)
        scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)  # static items: fast culling and hits
        return scene

    def set_graph(self, graph: dict, layout: GraphLayout | None = None) -> None:
        layout = layout if layout is not None else layout_step_graph(graph)
        self._message = None
        self.art = GraphArt(graph, layout, self.palette)
        self.graph_layout = layout
        old = self.scene()
        scene = self._new_scene()
        scene.setSceneRect(QRectF(0, 0, max(layout.width, 1.0), max(layout.height, 1.0)))
        self.group_items = [GroupItem(self.art, g) for g in layout.groups]
        self.edge_items = [EdgeItem(self.art, r) for r in _distinct_routes(layout.edges)]
        self.node_items = [NodeItem(self.art, i) for i in range(len(layout.nodes))]
        # Cards, edges and brackets hang off one layer, shown when zoomed in enough to read; far zoomed out the
        # overview item stands in for all of them.
        self._detail_layer = _Layer()
        for item in (*self.group_items, *self.edge_items, *self.node_items):
            item.setParentItem(self._detail_layer)
        scene.addItem(self._detail_layer)
        self._overview = OverviewItem(self)
        scene.addItem(self._overview)
        self.setScene(scene)
        if old is not None:
            old.deleteLater()
        self.happened, self.current, self.selected = None, None, None
        self.resetTransform()
        self._after_zoom()
        # Start at the run's beginning: centring on the corner clamps the view to the top left. (Setting the scroll
        # bars does not last: Qt re-centres on the point it remembers when it next lays them out.)
        self.centerOn(QPointF(0, 0))
        self.viewport().update()

    def clear(self, message: str = "") -> None:
        """Drop the graph and show `message` (plain text) centred in the view instead."""
        self.art, self.graph_layout = None, None
        self._overview = self._detail_layer = None
        self.node_items, self.edge_items, self.group_items = [], [], []
        old = self.scene()
        self.setScene(self._new_scene())
        if old is not None:
            old.deleteLater()
        self.resetTransform()
        self._message = message
        self.viewport().update()

    @property
    def message(self) -> str | None:
        return self._message

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        if not self._message:
            return
        painter.save()
        painter.resetTransform()  # viewport pixels: the message stays centred whatever the zoom
        painter.setPen(QColor(self.palette.message))
        painter.setFont(_font(14))
        area = QRectF(self.viewport().rect()).adjusted(24, 24, -24, -24)
        painter.drawText(area, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._message)
        painter.restore()

    # ------------------------------------------------------------------------------------------ state

    def set_palette(self, palette: GraphPalette) -> None:
        self.palette = palette
        if self.art is not None:
            self.art.set_palette(palette)
        self._apply_background()
        self._apply_opacity(range(len(self.node_items)))
        self.viewport().update()

    def _apply_background(self) -> None:
        self.setBackgroundBrush(QBrush(QColor(self.palette.background)))

    def set_future_mode(self, mode: str) -> None:
        if mode not in ("dim", "hide"):
            raise ValueError(f"future mode must be 'dim' or 'hide', not {mode!r}")
        self.future_mode = mode
        self._apply_opacity(range(len(self.node_items)))

    def set_cursor_state(self, happened: Sequence[bool] | None, current: int | None) -> None:
        """happened[i]: node i has happened at the cursor (None: all have). `current` is ringed and scrolled to."""
        previous = self.happened
        self.happened = None if happened is None else list(happened)
        if previous is None or self.happened is None or len(previous) != len(self.happened):
            changed = range(len(self.node_items))
        else:
            changed = [i for i, (a, b) in enumerate(zip(previous, self.happened)) if a != b]
        self._apply_opacity(changed)
        old, self.current = self.current, self._valid(current)
        if self.art is not None:
            self.art.current = self.current
        self._refresh(old, self.current)
        if self.current is not None:
            self.ensureVisible(self.node_items[self.current].sceneBoundingRect(), 80, 60)

    def set_selected(self, index: int | None) -> None:
        old, self.selected = self.selected, self._valid(index)
        if self.art is not None:
            self.art.selected = self.selected
        self._refresh(old, self.selected)

    def _valid(self, index: int | None) -> int | None:
        return index if index is not None and 0 <= index < len(self.node_items) else None

    def _refresh(self, *indices: int | None) -> None:
        if self.overview_mode:
            self._overview.invalidate()
        for i in indices:
            if i is not None and i < len(self.node_items):
                self.node_items[i].update()

    def _apply_opacity(self, indices) -> None:
        """Dim or hide the given nodes and every edge or bracket touching them."""
        dim = self.palette.dim_opacity

        def show(item: QGraphicsItem, opacity: float) -> None:
            item.setVisible(opacity > 0)
            item.setOpacity(opacity if opacity > 0 else 1.0)

        touched = set(indices)
        if not touched:
            return
        if self._overview is not None:
            self._overview.invalidate()
        for i in touched:
            show(self.node_items[i], node_opacity(self.happened, i, self.future_mode, dim))
        for item in self.edge_items:
            if item.route.source in touched or item.route.target in touched:
                show(item, min(node_opacity(self.happened, item.route.source, self.future_mode, dim),
                               node_opacity(self.happened, item.route.target, self.future_mode, dim)))
        for item in self.group_items:
            if item.group.index in touched:
                show(item, node_opacity(self.happened, item.group.index, self.future_mode, dim))

    # ------------------------------------------------------------------------------------------- zoom

    def zoom_factor(self) -> float:
        return self.transform().m11()

    def _zoom_by(self, factor: float, anchor: QPoint | None = None) -> None:
        target = min(MAX_ZOOM, max(MIN_ZOOM, self.zoom_factor() * factor))
        factor = target / self.zoom_factor()
        if abs(factor - 1) < 1e-9:
            return
        anchor = anchor if anchor is not None else self.viewport().rect().center()
        fixed = self.mapToScene(anchor)
        self.scale(factor, factor)
        # Scroll so the scene point that was under the anchor is under it again.
        moved = self.mapFromScene(fixed) - anchor
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + moved.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + moved.y())
        self._after_zoom()

    @property
    def overview_mode(self) -> bool:
        return self._overview is not None and self._overview.isVisible()

    def _after_zoom(self) -> None:
        if self._overview is None:
            return
        overview = self.zoom_factor() < EDGE_LOD
        if overview != self._overview.isVisible():
            self._overview.invalidate()
            self._overview.setVisible(overview)
            self._detail_layer.setVisible(not overview)

    def zoom_in(self) -> None:
        self._zoom_by(ZOOM_STEP)

    def zoom_out(self) -> None:
        self._zoom_by(1 / ZOOM_STEP)

    def reset_zoom(self) -> None:
        self._zoom_by(1 / self.zoom_factor())

    def fit_to_window(self) -> None:
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        self._after_zoom()
        if self.zoom_factor() > MAX_FIT_ZOOM:  # a tiny graph should not be blown up to poster size
            self._zoom_by(MAX_FIT_ZOOM / self.zoom_factor())
        elif self.zoom_factor() < MIN_ZOOM:
            self._zoom_by(MIN_ZOOM / self.zoom_factor())

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect().intersected(self.sceneRect())

    def wheelEvent(self, event) -> None:
        steps = event.angleDelta().y() / 120
        if not steps:
            return super().wheelEvent(event)
        self._zoom_by(ZOOM_STEP**steps, event.position().toPoint())
        event.accept()

    # ----------------------------------------------------------------------------------------- clicks

    def node_at(self, view_pos: QPoint) -> int | None:
        if self.overview_mode:  # the cards are drawn by the overview item: find the block under the pointer
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
