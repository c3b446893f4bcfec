"""Added / removed / changed marks drawn over a graph canvas's cards, for the compare window.

One overlay item per canvas (the canvas itself is not changed): a coloured ring outside each marked card and a
badge with "+", "−" or "~" on its top-right corner, so the mark reads without colour too. The rings sit outside
the cursor ring, so both stay visible on one card.
"""

from __future__ import annotations

from bisect import bisect_left

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

MARK_COLOURS = {"added": "#2f9e44", "removed": "#e03131", "changed": "#9c36b5"}
MARK_BADGES = {"added": "+", "removed": "\u2212", "changed": "~"}
RING_MARGIN = 8.0
BADGE_RADIUS = 8.0
CHIP_RING_MARGIN = 2.0  # context chips are stacked 4 px apart: a tight ring, the badge inside the chip's right end
CHIP_BADGE_RADIUS = 6.0
CHIP_KINDS = ("fork-branch", "decision-branch")


class DiffMarks(QGraphicsItem):
    """Marks on the cards of `canvas` (a GraphCanvas with a graph set): `marks[index] = "added"|"removed"|…`."""

    def __init__(self, canvas, marks: dict[int, str]):
        super().__init__()
        self.marks = dict(marks)
        boxes = canvas.graph_layout.nodes
        # (top, bottom, left, right of all that is drawn for the mark; ring; badge; status), sorted by top so a
        # paint looks only at the marks in the exposed rows (the large run has hundreds of marks).
        items = []
        for i, status in self.marks.items():
            if not 0 <= i < len(boxes):
                continue
            b = boxes[i]
            card = QRectF(b.x, b.y, b.w, b.h)
            if b.kind in CHIP_KINDS:
                ring = card.adjusted(-CHIP_RING_MARGIN, -CHIP_RING_MARGIN, CHIP_RING_MARGIN, CHIP_RING_MARGIN)
                r = min(CHIP_BADGE_RADIUS, b.h / 2)
                badge = QRectF(card.right() - 4 - 2 * r, card.center().y() - r, 2 * r, 2 * r)
            else:
                ring = card.adjusted(-RING_MARGIN, -RING_MARGIN, RING_MARGIN, RING_MARGIN)
                badge = QRectF(ring.right() - BADGE_RADIUS, ring.top() - BADGE_RADIUS, 2 * BADGE_RADIUS,
                               2 * BADGE_RADIUS)
            whole = ring.united(badge).adjusted(-2, -2, 2, 2)
            items.append((whole.top(), whole.bottom(), whole.left(), whole.right(), ring, badge, status))
        self._items = sorted(items, key=lambda item: item[0])
        self._tops = [item[0] for item in self._items]
        self._tallest = max((item[1] - item[0] for item in self._items), default=0.0)
        layout = canvas.graph_layout
        self._bounds = QRectF(-20, -20, max(layout.width, 1.0) + 40, max(layout.height, 1.0) + 40)
        self._font = QFont()
        self._font.setPixelSize(13)
        self._font.setBold(True)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # clicks go through to the view
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)  # paint only what is exposed
        self.setZValue(5)  # above cards (2) and the overview blocks (3)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        exposed = option.exposedRect if option is not None else self._bounds
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        detailed = lod >= 0.4
        painter.setBrush(Qt.BrushStyle.NoBrush)
        top, bottom, left, right = exposed.top(), exposed.bottom(), exposed.left(), exposed.right()
        for k in range(bisect_left(self._tops, top - self._tallest), len(self._items)):
            y0, y1, x0, x1, ring, badge, status = self._items[k]
            if y0 > bottom:
                break
            if y1 < top or x1 < left or x0 > right:
                continue
            colour = QColor(MARK_COLOURS.get(status, "#666666"))
            pen = QPen(colour, 2.5 if detailed else 2)
            pen.setCosmetic(not detailed)  # still visible far zoomed out
            if status == "changed":
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            radius = min(9.0, ring.height() / 2)
            painter.drawRoundedRect(ring, radius, radius)
            if not detailed:
                continue
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawEllipse(badge)
            painter.setPen(QColor("#ffffff"))
            self._font.setPixelSize(13 if badge.height() >= 14 else 10)
            painter.setFont(self._font)
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, MARK_BADGES.get(status, "?"))


def mark_canvas(canvas, marks: dict[int, str]) -> DiffMarks | None:
    """Add the marks to the canvas's current scene (a new graph makes a new scene, so call again after set_graph)."""
    if canvas.graph_layout is None or canvas.scene() is None:
        return None
    item = DiffMarks(canvas, marks)
    canvas.scene().addItem(item)
    return item
