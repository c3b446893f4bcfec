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
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import chain

import time

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPixmapCache,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsView,
    QStyleOptionGraphicsItem,
    QWidget,
)

from afp_desktop.app.pacing import scheduler
from afp_desktop.app.widgets.visible_text import first_line, visible_text
from afp_desktop.app.look.fonts import load_bundled_fonts
from afp_desktop.core.views.cost import PriceTable, format_spent, subflow_costs
from afp_desktop.core.views.subflow_totals import format_total, subflow_tokens
from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.app.look.style import GraphPalette, palette_for
from afp_desktop.core.model.layout import (
    CHIP_KINDS,
    LLM_START_KINDS,
    SUBFLOW_KIND,
    EdgeRoute,
    GraphLayout,
    GroupBox,
    chip_text,
    layout_step_graph,
)

DETAIL_LOD = 0.4  # below this zoom cards are plain coloured blocks and edges bare lines: text would be unreadable
EDGE_LOD = 0.08  # below this a gutter is a few pixels high and edges are noise: they are not drawn at all
MIN_ZOOM, MAX_ZOOM, MAX_FIT_ZOOM = 0.002, 4.0, 1.5
READABLE_ZOOM = 0.6  # the least zoom at which a card's text is still read (fit_width goes no further)
BUILD_SLICE_S = 0.006  # the scene of a big graph is built in slices this long, one per event-loop turn
FIRST_SLICE_MARGIN = 200.0  # the first slice makes the cards down to this far below the view's first screen
IN_VIEW_BUDGET_S = 0.012  # the cards a scroll to the cursor brings into view are made at once for up to this long
REMOVAL_SLICE = 800  # items taken out of a scene no longer shown per event-loop turn (deleting all at once stalls)
REMOVAL_SLICE_S = 0.003  # …or fewer: a slice ends once it has taken this long (a busy machine deletes slower)
# ...a slice at most this often: freeing is not urgent, and a slice on every turn would pile onto the other work
# due just after a big run is shown (its first paint, the inspector, the timeline's stops) and lengthen that stall.
REMOVAL_GAP_MS = 20
ZOOM_STEP = 1.2
FONT_FAMILIES = ["DejaVu Sans", "Segoe UI", "Helvetica Neue", "Arial", "Sans Serif"]
PADDING = 8.0
STRIPE = 4.0
RADIUS = 6.0
OUTLINE_MARGIN = 5.0  # cursor/selection rings are drawn this far outside a card
SEARCH_MARK = "#ffb300"
PAUSE_CHIP_DROP = 22.0  # how far the pause chip reaches below its card
FACT_BADGE_HEIGHT = 12.0  # the retries-and-findings pill on a card's top edge (reaches OUTLINE_MARGIN + 1 above)
FACT_BADGE_FILL, FACT_BADGE_BORDER, FACT_BADGE_TEXT = "#f6efff", "#7b3fb5", "#3a1a63"  # 4.5:1+ on its fill
PAUSE_FILL, PAUSE_BORDER, PAUSE_TEXT = "#fff1c7", "#b07800", "#4a3300"  # dark text on light amber: 4.5:1+ in both themes


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
    label = first_line(node.get("label"))
    if kind == SUBFLOW_KIND:
        primitive = first_line(node.get("primitiveKind")) or "subflow"
        return label, "", primitive, ""
    if kind in CHIP_KINDS:
        return chip_text(label), "", "", ""
    if kind == "fold":  # similar iterations folded into one card (core/fold_iterations.py)
        return label, "", first_line(node.get("detail")), first_line(node.get("hint"))
    iteration = node.get("iterationIndex")  # numbered once per row, on the LLM call that opens the iteration
    corner = f"#{iteration}" if iteration is not None and kind in LLM_START_KINDS else ""
    detail = first_line(node.get("toolName") or node.get("llmModel") or node.get("assistantText"))
    return label, corner, detail, format_tokens(node)


def has_happened(happened: Sequence[bool] | None, index: int) -> bool:
    """Whether step `index` has happened at the moment shown. Missing entries count as happened, so a short list
    never hides the end of a graph by accident."""
    return happened is None or index >= len(happened) or happened[index]


def node_opacity(happened: Sequence[bool] | None, index: int, future_mode: str, dim_opacity: float) -> float:
    """1 for a step that has happened, dim_opacity or 0 (hidden) for one that has not (see has_happened)."""
    if has_happened(happened, index):
        return 1.0
    return 0.0 if future_mode == "hide" else dim_opacity


ERROR_RED = "#d03a3a"


class GraphArt:
    """Paints one laid-out graph. Shared by the canvas items and the exporter."""

    def __init__(self, graph: dict, layout: GraphLayout, palette: GraphPalette):
        load_bundled_fonts()  # DejaVu Sans, first in FONT_FAMILIES, even on a system without fonts (idempotent)
        self.nodes = graph.get("nodes") or []
        self.layout = layout
        self.palette = palette
        self.current: int | None = None
        self.selected: int | None = None
        self.active: frozenset[int] = frozenset()   # steps in progress at the moment shown
        self.errors: dict[int, str] = {}            # node → the error known there at the moment shown
        self.search_marks: frozenset[int] = frozenset()  # cards holding a search match (find_panel.py)
        self.pauses: dict[int, str] = {}             # node → the question it paused on (app/pause_view.py)
        self.fact_badges: dict[int, str] = {}        # node → "↻ 2 · ◆ 3": its retries and findings (fact_marks.py)
        self.subflow_tokens = subflow_tokens(self.nodes)  # subflow → tokens of the calls inside it
        self.subflow_costs: dict = {}  # subflow → their cost, when the user gave prices (core/views/cost.py)
        self.title_font, self.body_font, self.chip_font = _font(12, bold=True), _font(11), _font(10)
        self.title_metrics = QFontMetricsF(self.title_font)
        self.body_metrics = QFontMetricsF(self.body_font)
        self.chip_metrics = QFontMetricsF(self.chip_font)
        self._texts: dict[tuple[int, bool], tuple] = {}  # elided card texts, made on first detailed paint
        # Steps from `started` on have not started at the moment shown (None: every step is done, as in a plain
        # export). A card of a step not finished then shows no tokens and no duration: not known yet.
        self.started: int | None = None
        self._shapes: dict[tuple[float, float], tuple] = {}  # card paths by size
        self._polylines: dict[int, QPolygonF] = {}  # edge routes as Qt polygons, by edge index

    def set_palette(self, palette: GraphPalette) -> None:
        self.palette = palette

    def set_prices(self, table: PriceTable | None) -> None:
        self.subflow_costs = subflow_costs(table, self.nodes)
        self._texts.clear()

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
        if i in self.active:
            self._paint_active(p, rect, detailed)
        if i in self.errors:
            self._paint_error_badge(p, rect, detailed)
        if i == self.current or i == self.selected:
            self._paint_marks(p, i, rect, detailed)
        if i in self.search_marks:
            self.paint_search_mark(p, rect)
        if i in self.pauses:
            self._paint_pause_chip(p, rect, self.pauses[i], detailed)
        if i in self.fact_badges:
            self._paint_fact_badge(p, rect, self.fact_badges[i], detailed)

    def _paint_fact_badge(self, p: QPainter, rect: QRectF, text: str, detailed: bool) -> None:
        """"↻ 2 · ◆ 3" in a small pill on the card's top edge, left of the error badge: the retries, breaker
        changes and fallbacks that wrapped this step and the findings on it, known at the moment shown."""
        width = self.chip_metrics.horizontalAdvance(text) + 12 if detailed else 24.0
        pill = QRectF(rect.right() - 14 - width, rect.top() - FACT_BADGE_HEIGHT / 2, width, FACT_BADGE_HEIGHT)
        p.setPen(QPen(_qcolor(FACT_BADGE_BORDER), 1))
        p.setBrush(_qcolor(FACT_BADGE_FILL))
        p.drawRoundedRect(pill, FACT_BADGE_HEIGHT / 2, FACT_BADGE_HEIGHT / 2)
        if detailed:
            p.setFont(self.chip_font)
            p.setPen(_qcolor(FACT_BADGE_TEXT))
            p.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_pause_chip(self, p: QPainter, rect: QRectF, question: str, detailed: bool) -> None:
        """"⏸ question" in an amber pill just under the card: this tool paused the run for a person."""
        chip = QRectF(rect.left() + STRIPE + 4, rect.bottom() + 3, rect.width() - STRIPE - 8, 17)
        p.setPen(QPen(_qcolor(PAUSE_BORDER), 1))
        p.setBrush(_qcolor(PAUSE_FILL))
        p.drawRoundedRect(chip, 8, 8)
        if detailed:
            p.setFont(self.chip_font)
            p.setPen(_qcolor(PAUSE_TEXT))
            text = self.chip_metrics.elidedText(f"⏸ {question}", Qt.TextElideMode.ElideRight, chip.width() - 12)
            p.drawText(chip.adjusted(6, 0, -6, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)

    @staticmethod
    def paint_search_mark(p: QPainter, rect: QRectF) -> None:
        """A search match on this card: an amber dot on its top-right corner."""
        p.setPen(QPen(QColor("#5c4300"), 1))
        p.setBrush(QColor(SEARCH_MARK))
        p.drawEllipse(QPointF(rect.right() - 2, rect.top() + 2), 5, 5)

    def _paint_active(self, p: QPainter, rect: QRectF, detailed: bool) -> None:
        """A step in progress at the moment: a dashed ring in the cursor colour (working, not done)."""
        pen = QPen(_qcolor(self.palette.cursor), 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(not detailed)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(rect.adjusted(-6, -6, 6, 6), RADIUS + 4, RADIUS + 4)

    def _paint_error_badge(self, p: QPainter, rect: QRectF, detailed: bool) -> None:
        """A red disc with "!" on the card's top-right corner: an error happened in this step."""
        size = 16.0
        badge = QRectF(rect.right() - size * 0.6, rect.top() - size * 0.4, size, size)
        p.setPen(QPen(_qcolor("#ffffff"), 1.5))
        p.setBrush(_qcolor(ERROR_RED))
        p.drawEllipse(badge)
        if detailed:
            p.setFont(self.chip_font)
            p.setPen(_qcolor("#ffffff"))
            p.drawText(badge, Qt.AlignmentFlag.AlignCenter, "!")

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

    def unfinished(self, i: int) -> bool:
        """The step has not ended at the moment shown: its tokens and duration are not known yet."""
        return (self.started is not None and i >= self.started) or i in self.active

    def _texts_for(self, i: int, rect: QRectF) -> tuple:
        unfinished = self.unfinished(i)
        cached = self._texts.get((i, unfinished))
        if cached is None:
            node = self.nodes[i] if i < len(self.nodes) and isinstance(self.nodes[i], dict) else {}
            title, corner, detail, footer = map(visible_text, card_lines(node))
            duration = format_duration(node)
            if unfinished and node.get("kind") not in CHIP_KINDS:
                footer, duration = "", ""  # (tokens and time come with the step's end)
            inner = rect.width() - STRIPE - 2 * PADDING
            elide = Qt.TextElideMode.ElideRight
            kind = str(node.get("kind", ""))
            if kind in CHIP_KINDS:
                # A path label reads "System Prompt · agentA" (chip_text); if even that is too long, the middle goes.
                cached = (self.chip_metrics.elidedText(title, Qt.TextElideMode.ElideMiddle, inner - 10),)
            elif kind == SUBFLOW_KIND:
                status = f"{detail} · {duration}" if duration else f"{detail} · open"
                spent = "" if unfinished else format_total(self.subflow_tokens.get(i))
                if spent:  # the tokens of every LLM call inside the box (subflow_totals.py)
                    status += f" · {spent}"
                    cost = format_spent(self.subflow_costs.get(i), compact=True)
                    if cost:  # and what they cost at the user's prices (cost.py)
                        status += f" · {cost}"
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
            self._texts[(i, unfinished)] = cached
        return cached

    def _paint_text(self, p: QPainter, i: int, rect: QRectF) -> None:
        opacity = p.opacity()
        if opacity < 1.0:
            # A dimmed (not yet happened) card: its fill fades with the painter's opacity, but faded text would
            # fall far below 4.5:1. Its text is drawn opaque in the muted colour: readable, still grey.
            p.setOpacity(1.0)
            try:
                self._paint_texts(p, i, rect, _qcolor(self.palette.text_muted), _qcolor(self.palette.text_muted))
            finally:
                p.setOpacity(opacity)
            return
        self._paint_texts(p, i, rect, _qcolor(self.palette.text), _qcolor(self.palette.text_muted))

    def _paint_texts(self, p: QPainter, i: int, rect: QRectF, text: QColor, muted: QColor) -> None:
        texts = self._texts_for(i, rect)
        colours = self.palette.kind(self.layout.nodes[i].kind)
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
            text = self.body_metrics.elidedText(visible_text(first_line(route.label)), Qt.TextElideMode.ElideRight,
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

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        self.painted = True
        if self.fade < 1.0:
            painter.setOpacity(painter.opacity() * self.fade)
        self.art.paint_node(painter, self.index, _detailed(painter))


def _distinct_routes(routes: list[EdgeRoute]):
    """One route per distinct drawing: a Loop's 150 iteration edges share one self-loop on the same card, and
    drawing it 150 times over made every repaint of that corner slow."""
    seen: set = set()
    for route in routes:
        key = (route.kind, route.source, route.target, tuple(route.points), route.label)
        if key not in seen:
            seen.add(key)
            yield route


def _route_key(route: EdgeRoute) -> tuple:
    return (route.kind, route.source, route.target, tuple(route.points), route.label, route.label_at,
            route.label_width)


def _items_to_make(layout: GraphLayout):
    """What the canvas makes, in order: the cards in the order of their steps (the canvas's list of cards is
    always the first steps' cards), each edge and bracket right after the last card it joins. So the first slice
    (the run's first rows, where the view starts) is whole, edges and all, however big the graph."""
    after: list[list] = [[] for _ in layout.nodes]
    elsewhere: list = []  # (none in a layout of the graph: an edge or bracket of a step it does not have)

    def place(at: int, item: tuple) -> None:
        (after[at] if 0 <= at < len(after) else elsewhere).append(item)

    for route in _distinct_routes(layout.edges):
        place(max(route.source, route.target), ("edge", route))
    for group in layout.groups:
        place(group.index, ("group", group))
    for i, joined in enumerate(after):
        yield "node", i
        yield from joined
    yield from elsewhere


class OverviewItem(QGraphicsItem):
    """Far zoomed out, every card as a block drawn in a few batched calls (one per colour and opacity) instead
    of one Python paint call per card: a 10,000-step graph stays smooth to pan and zoom."""

    def __init__(self, canvas: "GraphCanvas"):
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
            painter.setBrush(_qcolor(colour))
            painter.drawRects(rects)
        painter.setOpacity(1.0)
        for i in {art.current, art.selected} - {None}:
            art._paint_marks(painter, i, self._rects[i], False)
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


# -------------------------------------------------------------------------------------------- canvas


class GraphCanvas(QGraphicsView):
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
        self.reserved_right = 0  # pixels at the view's right kept clear by fit_width (the minimap sits there)
        self.reserved_bottom = 0  # pixels at the view's bottom a chip floats over (the hidden-steps chip)
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
        self._retired: list[tuple[QGraphicsScene, list[QGraphicsItem]]] = []  # scenes no longer shown, emptying
        self._removal_timer = QTimer(self)
        self._removal_timer.setInterval(REMOVAL_GAP_MS)
        self._removal_timer.timeout.connect(self._remove_slice)
        self._overlays: list[tuple[QWidget, Callable[[], None]]] = []  # widgets over the graph, and how to place each
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)  # wheel zoom anchors by hand
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        # A graph narrower than the view starts at its left, leaving the right (the minimap's corner) clear.
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setScene(self._new_scene())
        self._apply_background()
        QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), 96 * 1024))  # KB: room for the cached cards
        from afp_desktop.app.panels.graph.canvas_keys import CardKeyboard

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
        scene.setSceneRect(self._scene_rect(layout))
        # Cards, edges and brackets hang off one layer, shown when zoomed in enough to read; far zoomed out the
        # overview item stands in for all of them. They are made in slices (cards first, in layout order), so
        # a graph of thousands of steps never freezes the window: the first slice is made now, the rest on
        # the following event-loop turns (`building` until done). The overview item needs none of them.
        made = self._drop_items()
        self._detailed_shown = True
        self._pending = _items_to_make(layout)
        self._overview = OverviewItem(self)
        scene.addItem(self._overview)
        self.setScene(scene)
        self._retire_scene(old, made)
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
        scene.setSceneRect(self._scene_rect(layout))
        old_boxes = old.layout.nodes
        repaint = range(len(self.node_items)) if changed is None else changed
        for i, item in enumerate(self.node_items):
            item.art = art
            if layout.nodes[i] != old_boxes[i]:
                item.prepareGeometryChange()
                bounds = art.node_bounds(i)
                item._bounds = bounds.adjusted(0, 0, 0, PAUSE_CHIP_DROP) if i in art.pauses else bounds
        for i in repaint:
            if i < len(self.node_items):
                self.node_items[i].update()  # its cached picture is stale
        kept_edges = {_route_key(item.route): item for item in self.edge_items}
        kept_groups = {item.group: item for item in self.group_items}
        self.edge_items, self.group_items, self._items_of = [], [], {}
        to_make: list = [("node", i) for i in range(len(self.node_items), len(layout.nodes))]
        for route in _distinct_routes(layout.edges):
            item = kept_edges.pop(_route_key(route), None)
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
        """The next slice on a later turn (app/pacing/scheduler.py: not with the paint or the timeline's stops)."""
        scheduler.later(self, "build", self._build_next)

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
            scheduler.cancel(self, "build")
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
            item.setVisible(opacity > 0 and self._detailed_shown)
            if isinstance(item, NodeItem):
                item.set_fade(opacity if opacity > 0 else 1.0)
            else:
                item.setOpacity(opacity if opacity > 0 else 1.0)
            scene.addItem(item)
            made += 1
            if deadline is not None and made % 64 == 0 and time.perf_counter() > deadline:
                return
        self._pending = None
        scheduler.cancel(self, "build")

    def clear(self, message: str = "") -> None:
        """Drop the graph and show `message` (plain text) centred in the view instead."""
        self._pending = None
        scheduler.cancel(self, "build")
        self.art, self.graph_layout = None, None
        self._overview = None
        made = self._drop_items()
        old = self.scene()
        self.setScene(self._new_scene())
        self._retire_scene(old, made)
        self.resetTransform()
        self._message = message
        self.viewport().update()
        self.graph_changed.emit()

    def _drop_items(self) -> list[QGraphicsItem]:
        """Forget the items made for the graph shown (its scene is going); returns them, for _retire_scene."""
        made = [*self.node_items, *self.edge_items, *self.group_items]
        self.node_items, self.edge_items, self.group_items = [], [], []
        self._items_of = {}
        return made

    def _retire_scene(self, scene: QGraphicsScene | None, items: list[QGraphicsItem]) -> None:
        """Delete a scene no longer shown: its items a slice per event-loop turn, then the scene (deleting a big
        graph's items together with their scene would freeze the window)."""
        if scene is None:
            return
        self._retired.append((scene, items))
        self._removal_timer.start()

    def _remove_slice(self) -> None:
        scene, items = self._retired[0]
        deadline = time.perf_counter() + REMOVAL_SLICE_S
        for taken in range(1, min(REMOVAL_SLICE, len(items)) + 1):
            item = items.pop()
            if item.scene() is scene:
                scene.removeItem(item)  # (then ours alone: deleted as the reference goes)
            if not taken % 64 and time.perf_counter() > deadline:
                break
        if not items:
            self._retired.pop(0)
            scene.deleteLater()
        if not self._retired:
            self._removal_timer.stop()

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
            item = self.node_items[i]
            item.prepareGeometryChange()
            bounds = self.art.node_bounds(i)
            item._bounds = bounds.adjusted(0, 0, 0, PAUSE_CHIP_DROP) if i in self.art.pauses else bounds
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
        dim = self.palette.dim_opacity

        def show(item: QGraphicsItem, opacity: float) -> None:
            item.setVisible(opacity > 0 and self._detailed_shown)
            if isinstance(item, NodeItem):
                item.set_fade(opacity if opacity > 0 else 1.0)
            else:
                item.setOpacity(opacity if opacity > 0 else 1.0)

        touched = set(indices)
        if not touched:
            return
        if self._overview is not None:
            self._overview.invalidate()
        built = len(self.node_items)  # items made later take their opacity when made
        for i in touched:
            if i < built:
                show(self.node_items[i], node_opacity(self.happened, i, self.future_mode, dim))
        # A cursor move touches a few steps: look up their edges and brackets instead of visiting every item.
        linked = (*self.edge_items, *self.group_items) if edges_too else \
            {item for i in touched for item in self._items_of.get(i, ())}
        for item in linked:
            if isinstance(item, EdgeItem):
                show(item, min(node_opacity(self.happened, item.route.source, self.future_mode, dim),
                               node_opacity(self.happened, item.route.target, self.future_mode, dim)))
            else:
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
        self.show_for_zoom()

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

    def zoom_in(self) -> None:
        self._zoom_by(ZOOM_STEP)

    def zoom_out(self) -> None:
        self._zoom_by(1 / ZOOM_STEP)

    def reset_zoom(self) -> None:
        self._zoom_by(1 / self.zoom_factor())

    def reserve(self, right: int | None = None, bottom: int | None = None) -> None:
        """An overlay keeps `right` / `bottom` pixels of the view's edge for itself (pin_overlay): the scene gets
        that much room past the cards, so the cards it would cover can be scrolled out from under it."""
        right = self.reserved_right if right is None else right
        bottom = self.reserved_bottom if bottom is None else bottom
        if (right, bottom) == (self.reserved_right, self.reserved_bottom):
            return
        self.reserved_right, self.reserved_bottom = right, bottom
        if self.graph_layout is not None and self.scene() is not None:
            self.scene().setSceneRect(self._scene_rect(self.graph_layout))

    def _scene_rect(self, layout: GraphLayout) -> QRectF:
        """The cards' extent, and past it the room an overlay needs at a readable zoom when the cards reach under
        that overlay's edge of the view (a graph that fits gets no scroll bar from it)."""
        width, height = max(layout.width, 1.0), max(layout.height, 1.0)
        view = self.viewport().size()
        if width > view.width() - self.reserved_right:
            width += self.reserved_right / READABLE_ZOOM
        if height > view.height() - self.reserved_bottom:
            height += self.reserved_bottom / READABLE_ZOOM
        return QRectF(0, 0, width, height)

    def fit_to_window(self) -> None:
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        self.show_for_zoom()
        if self.zoom_factor() > MAX_FIT_ZOOM:  # a tiny graph should not be blown up to poster size
            self._zoom_by(MAX_FIT_ZOOM / self.zoom_factor())
        elif self.zoom_factor() < MIN_ZOOM:
            self._zoom_by(MIN_ZOOM / self.zoom_factor())

    def fit_width(self, least: float = READABLE_ZOOM) -> None:
        """Zoom out (never below `least`, where card text is still readable) so the graph's full width is in view:
        the last card of a wide row is not cut off at the right edge. A narrow graph stays at its zoom."""
        rect = self.sceneRect()
        room = self.viewport().width() - 2 * self.frameWidth() - 4 - self.reserved_right
        if rect.isEmpty() or room <= 0 or rect.width() * self.zoom_factor() <= room:
            return
        self._zoom_by(max(least, room / rect.width()) / self.zoom_factor(), QPoint(0, 0))
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().minimum())

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

    def pin_overlay(self, widget: QWidget, place: Callable[[], None]) -> None:
        """`widget` floats over the graph in a corner (the minimap, its button, the hidden-steps chip): it is a
        child of the viewport, put back by `place()` after every scroll (Qt moves the viewport's children with its
        pixels) and when the viewport is resized. A sibling over the viewport would make every scroll draw the whole
        view again: Qt moves the view's pixels, and draws just the strip that came into view, only when nothing
        overlaps the view."""
        self._overlays.append((widget, place))

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802 - Qt's name
        super().scrollContentsBy(dx, dy)
        self._place_overlays()

    def viewportEvent(self, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize:  # (after the canvas's own resize, and as its scroll bars come and go)
            self._place_overlays()
        return super().viewportEvent(event)

    def _place_overlays(self) -> None:
        try:
            for widget, place in self._overlays:
                if widget.isVisible():
                    place()
        except RuntimeError:  # the window is being torn down
            pass

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
