"""Which graph card an arrow key goes to: the nearest card in that direction (pure geometry, no Qt).

Cards straight ahead win over cards off to the side: a card's score is its distance along the direction plus
three times its distance across it, so Right walks a row, Down walks a column, and both still find the nearest
card when nothing lines up. Cards that are hidden can be left out with `allowed`.
"""

from __future__ import annotations

from typing import Callable

DIRECTIONS = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "up": (0.0, -1.0), "down": (0.0, 1.0)}
ACROSS_WEIGHT = 3.0


def neighbour(boxes, index: int, direction: str, allowed: Callable[[int], bool] | None = None) -> int | None:
    """The index of the card to go to from card `index` (None when there is none that way)."""
    dx, dy = DIRECTIONS[direction]
    here = boxes[index]
    best, best_score = None, float("inf")
    for box in boxes:
        if box.index == index or (allowed is not None and not allowed(box.index)):
            continue
        beyond = {(1.0, 0.0): box.x >= here.right - 0.5, (-1.0, 0.0): box.right <= here.x + 0.5,
                  (0.0, 1.0): box.y >= here.bottom - 0.5, (0.0, -1.0): box.bottom <= here.y + 0.5}[(dx, dy)]
        if not beyond:  # only cards wholly past this card's edge in that direction
            continue
        vx, vy = box.cx - here.cx, box.cy - here.cy
        along = vx * dx + vy * dy
        # Distance across, measured between the cards' edges: a card overlapping this one's band is straight ahead.
        if dx:
            across = max(0.0, max(box.y, here.y) - min(box.bottom, here.bottom))
        else:
            across = max(0.0, max(box.x, here.x) - min(box.right, here.right))
        score = along + ACROSS_WEIGHT * across
        if score < best_score:
            best, best_score = box.index, score
    return best
