"""Default sizes of the window's docks, as proportions of the window (pure arithmetic, no Qt).

The graph is what people look at, so it gets most of the window; the timeline needs only its markers, its
bars and a slider; the chat bubble and the inspector share the right column, the bubble with room for a few
progress lines. A small window (1024×640) keeps every part usable: the proportions have floors and ceilings.
"""

from __future__ import annotations

from dataclasses import dataclass

CHROME_HEIGHT = 80        # menu bar, dock title bars and the status bar
TIMELINE_SHARE = 0.25     # of the window's height
TIMELINE_RANGE = (190, 260)
SIDE_SHARE = 0.3          # of the window's width
SIDE_RANGE = (360, 480)
BUBBLE_SHARE = 0.45       # of the right column, the rest for the inspector and templates


@dataclass(frozen=True)
class DockSizes:
    side_width: int
    timeline_height: int
    bubble_height: int
    inspector_height: int


def _clamp(value: float, bounds: tuple[int, int]) -> int:
    return int(min(max(value, bounds[0]), bounds[1]))


def default_dock_sizes(width: int, height: int) -> DockSizes:
    timeline = _clamp(height * TIMELINE_SHARE, TIMELINE_RANGE)
    side = _clamp(width * SIDE_SHARE, SIDE_RANGE)
    column = max(height - timeline - CHROME_HEIGHT, 200)
    bubble = int(column * BUBBLE_SHARE)
    return DockSizes(side, timeline, bubble, column - bubble)
