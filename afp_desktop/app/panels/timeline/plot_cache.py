"""Timeline items that a move of the cursor does not change, drawn from a cache of their pixels.

A move repaints the strip between the old and the new cursor, and Qt repaints every item that strip crosses:
the stops' markers, the token and tool bars, the iteration bands and the axes (the stop axis replays all its
ticks), though none of them changed. Cached in device pixels, each is drawn once and then copied.

An item much wider than the view (the markers and bars of a whole run) must have its cache dropped, not
updated, when it changes or its view scrolls or zooms: Qt then keeps the part of the old pixels it can scroll
and draws only the strip scrolled in, even when the whole item asked to be drawn again (old bars at the old
scale stayed on screen), and a scroll of a fraction of a pixel reused pixels up to half a pixel off.
"""

from __future__ import annotations

from PySide6.QtWidgets import QGraphicsItem


def cache_pixels(item: QGraphicsItem, view=None) -> None:
    """Draw `item` from a cache of its device pixels. Given its pyqtgraph `view`, the cache is dropped when the
    view scrolls or zooms; an item that spans the view calls `drop_cache` when its content changes."""
    item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    if view is not None:
        view.sigTransformChanged.connect(lambda *_: drop_cache(item))


def drop_cache(item: QGraphicsItem) -> None:
    """Draw `item` whole at its next paint (it is repainted)."""
    if item.cacheMode() != QGraphicsItem.CacheMode.NoCache:
        item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    item.update()
