"""The graph's painter: `GraphArt` paints cards, edges and subflow brackets of one laid-out graph onto any
QPainter, in scene coordinates.

The window wraps each card/edge/bracket in a thin QGraphicsItem that calls GraphArt (graph_items.py); export
(app/export/export.py) calls the same GraphArt directly on a QImage or SVG painter, so both look alike and export
needs no QApplication-only machinery (QGraphicsScene crashes under a bare QGuiApplication). The painter knows
nothing of the view (an import-linter contract keeps it so).

All trace text is drawn with QPainter.drawText — plain text, never rich text — and elided to fit its card.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QStyleOptionGraphicsItem

from afp_desktop.app.look.fonts import load_bundled_fonts
from afp_desktop.app.look.style import GraphPalette
from afp_desktop.app.panels.graph.card_text import card_lines, format_duration
from afp_desktop.app.panels.graph.step_opacity import node_opacity
from afp_desktop.app.widgets.text_lines import UNCLIPPED
from afp_desktop.app.widgets.visible_text import first_line, visible_text
from afp_desktop.core.model.layout import CHIP_KINDS, SUBFLOW_KIND, EdgeRoute, GraphLayout, GroupBox
from afp_desktop.core.views.cost import PriceTable, format_spent, subflow_costs
from afp_desktop.core.views.subflow_totals import format_total, subflow_tokens

DETAIL_LOD = 0.4  # below this zoom cards are plain coloured blocks and edges bare lines: text would be unreadable
EDGE_LOD = 0.08  # below this a gutter is a few pixels high and edges are noise: they are not drawn at all
FONT_FAMILIES = ["DejaVu Sans", "Segoe UI", "Helvetica Neue", "Arial", "Sans Serif"]
PADDING = 8.0
STRIPE = 4.0
RADIUS = 6.0
OUTLINE_MARGIN = 5.0  # cursor/selection rings are drawn this far outside a card
SEARCH_MARK = "#ffb300"
PAUSE_CHIP_DROP = 22.0  # how far the pause chip reaches below its card
FACT_BADGE_HEIGHT = 12.0  # the retries-and-findings pill on a card's top edge (reaches OUTLINE_MARGIN + 1 above)
FACT_BADGE_FILL, FACT_BADGE_BORDER, FACT_BADGE_TEXT = "#f6efff", "#7b3fb5", "#3a1a63"  # 4.5:1+ on its fill
ERROR_RED = "#d03a3a"
PAUSE_FILL, PAUSE_BORDER, PAUSE_TEXT = "#fff1c7", "#b07800", "#4a3300"  # dark text on light amber: 4.5:1+ in both themes


def scene_font(pixels: int, bold: bool = False) -> QFont:
    # Pixel sizes, not points: cards are sized in scene pixels and must fit the same on screen, PNG and SVG.
    font = QFont()
    font.setFamilies(FONT_FAMILIES)
    font.setPixelSize(pixels)
    font.setBold(bold)
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return font


@lru_cache(maxsize=256)
def qcolor_of(hex_colour: str) -> QColor:
    """Parsed once: painting 10,000 cards must not parse colour strings on every frame."""
    return QColor(hex_colour)


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
        self.title_font, self.body_font, self.chip_font = scene_font(12, bold=True), scene_font(11), scene_font(10)
        self.title_metrics = QFontMetricsF(self.title_font)
        self.body_metrics = QFontMetricsF(self.body_font)
        self.chip_metrics = QFontMetricsF(self.chip_font)
        self._texts: dict[tuple[int, bool, bool], tuple] = {}  # elided card texts, made on first detailed paint
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
            p.fillRect(rect, qcolor_of(colours.accent))
        else:
            outline, fill, stripe = self._card_shape(box.w, box.h)
            p.save()
            p.translate(box.x, box.y)
            p.fillPath(fill, qcolor_of(colours.fill))
            p.fillPath(stripe, qcolor_of(colours.accent))
            p.setPen(QPen(qcolor_of(self.palette.card_border), 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPath(outline)
            p.restore()
            self._paint_text(p, i, rect)
        if i in self.active:
            self._paint_active(p, rect, detailed)
        if i in self.errors:
            self._paint_error_badge(p, rect, detailed)
        if i == self.current or i == self.selected:
            self.paint_marks(p, i, rect, detailed)
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
        p.setPen(QPen(qcolor_of(FACT_BADGE_BORDER), 1))
        p.setBrush(qcolor_of(FACT_BADGE_FILL))
        p.drawRoundedRect(pill, FACT_BADGE_HEIGHT / 2, FACT_BADGE_HEIGHT / 2)
        if detailed:
            p.setFont(self.chip_font)
            p.setPen(qcolor_of(FACT_BADGE_TEXT))
            p.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_pause_chip(self, p: QPainter, rect: QRectF, question: str, detailed: bool) -> None:
        """"⏸ question" in an amber pill just under the card: this tool paused the run for a person."""
        chip = QRectF(rect.left() + STRIPE + 4, rect.bottom() + 3, rect.width() - STRIPE - 8, 17)
        p.setPen(QPen(qcolor_of(PAUSE_BORDER), 1))
        p.setBrush(qcolor_of(PAUSE_FILL))
        p.drawRoundedRect(chip, 8, 8)
        if detailed:
            p.setFont(self.chip_font)
            p.setPen(qcolor_of(PAUSE_TEXT))
            text = self.chip_metrics.elidedText(f"⏸ {question}", Qt.TextElideMode.ElideRight, chip.width() - 12)
            p.drawText(chip.adjusted(6, 0, -6, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft | UNCLIPPED,
                       text)

    @staticmethod
    def paint_search_mark(p: QPainter, rect: QRectF) -> None:
        """A search match on this card: an amber dot on its top-right corner."""
        p.setPen(QPen(QColor("#5c4300"), 1))
        p.setBrush(QColor(SEARCH_MARK))
        p.drawEllipse(QPointF(rect.right() - 2, rect.top() + 2), 5, 5)

    def _paint_active(self, p: QPainter, rect: QRectF, detailed: bool) -> None:
        """A step in progress at the moment: a dashed ring in the cursor colour (working, not done)."""
        pen = QPen(qcolor_of(self.palette.cursor), 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(not detailed)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(rect.adjusted(-6, -6, 6, 6), RADIUS + 4, RADIUS + 4)

    def _paint_error_badge(self, p: QPainter, rect: QRectF, detailed: bool) -> None:
        """A red disc with "!" on the card's top-right corner: an error happened in this step."""
        size = 16.0
        badge = QRectF(rect.right() - size * 0.6, rect.top() - size * 0.4, size, size)
        p.setPen(QPen(qcolor_of("#ffffff"), 1.5))
        p.setBrush(qcolor_of(ERROR_RED))
        p.drawEllipse(badge)
        if detailed:
            p.setFont(self.chip_font)
            p.setPen(qcolor_of("#ffffff"))
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

    def paint_marks(self, p: QPainter, i: int, rect: QRectF, detailed: bool) -> None:
        """The cursor ring outside the card and the selection ring just inside it."""
        cosmetic = not detailed  # keep the rings visible when zoomed far out
        p.setBrush(Qt.BrushStyle.NoBrush)
        if i == self.current:
            pen = QPen(qcolor_of(self.palette.cursor), 3)
            pen.setCosmetic(cosmetic)
            p.setPen(pen)
            p.drawRoundedRect(rect.adjusted(-3, -3, 3, 3), RADIUS + 2, RADIUS + 2)
        if i == self.selected:
            pen = QPen(qcolor_of(self.palette.selection), 2)
            pen.setCosmetic(cosmetic)
            p.setPen(pen)
            p.drawRoundedRect(rect.adjusted(1, 1, -1, -1), RADIUS, RADIUS)

    def unfinished(self, i: int) -> bool:
        """The step has not ended at the moment shown: its tokens and duration are not known yet."""
        return (self.started is not None and i >= self.started) or i in self.active

    def card_texts(self, i: int) -> tuple:
        """The texts drawn on card `i` at the moment shown (after eliding)."""
        return self._texts_for(i, self.node_bounds(i))

    def _texts_for(self, i: int, rect: QRectF) -> tuple:
        unfinished = self.unfinished(i)
        future = self.started is not None and i >= self.started
        cached = self._texts.get((i, unfinished, future))
        if cached is None:
            node = self.nodes[i] if i < len(self.nodes) and isinstance(self.nodes[i], dict) else {}
            title, corner, detail, footer = map(visible_text, card_lines(node))
            duration = format_duration(node)
            if unfinished and node.get("kind") not in CHIP_KINDS:
                footer, duration = "", ""  # (tokens and time come with the step's end)
                if node.get("kind") not in (SUBFLOW_KIND, "fold"):  # (their detail is their shape)
                    # The answer's text comes with the step's end, the model with its start: a card still to
                    # come names only its tool (its title does too).
                    detail = visible_text(first_line(node.get("toolName") or (None if future else node.get("llmModel"))))
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
            self._texts[(i, unfinished, future)] = cached
        return cached

    def _paint_text(self, p: QPainter, i: int, rect: QRectF) -> None:
        opacity = p.opacity()
        if opacity < 1.0:
            # A dimmed (not yet happened) card: its fill fades with the painter's opacity, but faded text would
            # fall far below 4.5:1. Its text is drawn opaque in the muted colour: readable, still grey.
            p.setOpacity(1.0)
            try:
                self._paint_texts(p, i, rect, qcolor_of(self.palette.text_muted), qcolor_of(self.palette.text_muted))
            finally:
                p.setOpacity(opacity)
            return
        self._paint_texts(p, i, rect, qcolor_of(self.palette.text), qcolor_of(self.palette.text_muted))

    def _paint_texts(self, p: QPainter, i: int, rect: QRectF, text: QColor, muted: QColor) -> None:
        texts = self._texts_for(i, rect)
        colours = self.palette.kind(self.layout.nodes[i].kind)
        left = rect.x() + STRIPE + PADDING
        width = rect.width() - STRIPE - 2 * PADDING
        single = Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine | UNCLIPPED
        if len(texts) == 1:  # chip: kind marker, then the label
            marker = QRectF(left - 2, rect.center().y() - 4, 8, 8)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(qcolor_of(colours.accent))
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
        colour = qcolor_of(self.palette.loop_edge if loop else self.palette.edge)
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
            p.setPen(qcolor_of(self.palette.edge_label))
            text = self.body_metrics.elidedText(visible_text(first_line(route.label)), Qt.TextElideMode.ElideRight,
                                                route.label_width)
            p.drawText(QRectF(x, y - 9, route.label_width, 18),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine | UNCLIPPED,
                       text)

    def paint_group(self, p: QPainter, group: GroupBox) -> None:
        pen = QPen(qcolor_of(self.palette.bracket), 1.5)
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

