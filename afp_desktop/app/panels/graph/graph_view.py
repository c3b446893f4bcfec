"""The view under the graph: zoom (wheel under the mouse, steps, fit), scrolling, and the widgets that float
over it in a corner (the minimap, its button, the hidden-steps chip) with the room they keep clear. It knows no
cards: GraphCanvas (graph_canvas.py) fills it and says, through show_for_zoom and content_extent, how a zoom
changes what is drawn and how big the content is."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QPoint, QRectF, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsView, QWidget

MIN_ZOOM, MAX_ZOOM, MAX_FIT_ZOOM = 0.002, 4.0, 1.5
READABLE_ZOOM = 0.6  # the least zoom at which a card's text is still read (fit_width goes no further)
ZOOM_STEP = 1.2


class GraphView(QGraphicsView):
    """A zoomable, pannable view: wheel zooms under the mouse, drag pans."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.reserved_right = 0  # pixels at the view's right kept clear by fit_width (the minimap sits there)
        self.reserved_bottom = 0  # pixels at the view's bottom a chip floats over (the hidden-steps chip)
        self._overlays: list[tuple[QWidget, Callable[[], None]]] = []  # widgets over the graph, and how to place each
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)  # wheel zoom anchors by hand
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        # A graph narrower than the view starts at its left, leaving the right (the minimap's corner) clear.
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)

    def show_for_zoom(self) -> None:
        """Draw the content as the zoom now asks (the subclass's rule; every zoom change ends here)."""

    def content_extent(self) -> tuple[float, float] | None:
        """The content's width and height in scene pixels (None: nothing shown)."""
        return None

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
        extent = self.content_extent()
        if extent is not None and self.scene() is not None:
            self.scene().setSceneRect(self.scene_rect_for(*extent))

    def scene_rect_for(self, width: float, height: float) -> QRectF:
        """The content's extent, and past it the room an overlay needs at a readable zoom when the content reaches
        under that overlay's edge of the view (a graph that fits gets no scroll bar from it)."""
        width, height = max(width, 1.0), max(height, 1.0)
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

    # --------------------------------------------------------------------------------------- overlays

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

