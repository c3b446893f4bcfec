"""Export the step graph as PNG or SVG, drawn by the canvas's own GraphArt so a file looks like the window.

PNG: a QImage rendered at `scale`; a huge graph is capped (no side over 16,000 px, under 100 MP) by lowering the
scale, and the note saying so is logged (and available beforehand from `plan_png`). SVG: QSvgGenerator at 96 dpi
with width/height in true pixels and a matching viewBox; text stays text, so it is crisp at any zoom.
Works headless (QT_QPA_PLATFORM=offscreen) under a QGuiApplication or QApplication made by the caller.
"""

from __future__ import annotations

import logging
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator

from afp_desktop.app.panels.graph.graph_art import GraphArt
from afp_desktop.app.panels.graph.graph_canvas import GraphCanvas
from afp_desktop.app.look.style import palette_for
from afp_desktop.app.widgets.text_lines import UNCLIPPED
from afp_desktop.core.model.layout import GraphLayout, layout_step_graph
from afp_desktop.core.output_names import refuse_rotation_partner
from afp_desktop.core.safe_write import check_destination, write_file

log = logging.getLogger(__name__)

MAX_PNG_SIDE = 16_000
MAX_PNG_PIXELS = 100_000_000
MAX_SCALE = 64.0
SVG_DPI = 96
SUPPORTED = (".png", ".svg")
_SVG_SIZE = re.compile(rb'width="[0-9.]+mm" height="[0-9.]+mm"')

_app = None  # the application ensure_qt_app made, kept alive for the process


def ensure_qt_app() -> QGuiApplication:
    """The running Qt application, or a new QApplication when there is none (export needs one for fonts)."""
    global _app
    app = QGuiApplication.instance()
    if app is None:
        from PySide6.QtWidgets import QApplication

        app = _app = QApplication(sys.argv[:1] or ["afp-desktop"])
    return app


@dataclass(frozen=True)
class PngPlan:
    width: int
    height: int
    scale: float  # the scale actually used
    note: str | None  # set when the requested scale had to be lowered


def plan_png(area_width: float, area_height: float, scale: float) -> PngPlan:
    """Image size for an area at a scale, lowered so no side exceeds MAX_PNG_SIDE and pixels stay under the cap."""
    if scale <= 0:
        raise ValueError(f"scale must be positive, not {scale}")
    used = min(scale, MAX_PNG_SIDE / max(area_width, 1.0), MAX_PNG_SIDE / max(area_height, 1.0))
    pixels = area_width * area_height * used * used
    if pixels > MAX_PNG_PIXELS:
        used *= (MAX_PNG_PIXELS / pixels) ** 0.5
    width, height = max(1, int(area_width * used)), max(1, int(area_height * used))
    note = None
    if used < scale:
        note = (f"graph too large for a {scale:g}× PNG ({area_width * scale:.0f}×{area_height * scale:.0f} px); "
                f"exported at {used:.3g}× ({width}×{height} px) instead — use SVG for full detail")
    return PngPlan(width, height, used, note)


def _for_an_image(nodes: list) -> list:
    """The nodes without what only a window can do: an image is not clicked ("click to expand" on a fold card)."""
    return [{k: v for k, v in node.items() if k != "hint"} if isinstance(node, dict) and "hint" in node else node
            for node in nodes]


def export_graph(
    graph: dict,
    out_path: str | Path,
    *,
    scale: float = 1.0,
    happened: Sequence[bool] | None = None,
    current: int | None = None,
    include_cursor: bool = True,
    theme: str = "light",
    view_rect: QRectF | tuple[float, float, float, float] | None = None,
    layout: GraphLayout | None = None,
    selected: int | None = None,
    future_mode: str = "dim",
    inputs: Sequence[str | Path] = (),
) -> Path:
    """Write the graph (or the scene rectangle `view_rect` of it) to a .png or .svg file; returns the path.

    With include_cursor, steps not yet `happened` are dimmed/hidden per future_mode and `current` is ringed,
    as in the window; without, the whole run is drawn plainly."""
    layout = layout if layout is not None else layout_step_graph(graph)
    art = GraphArt({**graph, "nodes": _for_an_image(graph.get("nodes") or [])}, layout, palette_for(theme))
    art.current = current if include_cursor else None
    art.selected = selected
    if include_cursor and happened is not None:  # as of a stop: steps not started then show no tokens or time
        art.started = sum(1 for h in happened if h)
    return _render(art, out_path, scale, happened if include_cursor else None, future_mode, view_rect, inputs)


def export_view(canvas: GraphCanvas, out_path: str | Path, *, scale: float = 1.0, include_cursor: bool = True,
                whole_graph: bool = False, captions: Sequence[str] | None = None,
                inputs: Sequence[str | Path] = ()) -> Path:
    """Write what the canvas shows: its visible area (or the whole graph), its theme, cursor and selection;
    `captions` (plain text, one line each, e.g. bookmark notes) are listed under the graph."""
    if canvas.art is None or canvas.graph_layout is None:
        raise ValueError("the canvas shows no graph to export")
    art = GraphArt({"nodes": _for_an_image(canvas.art.nodes)}, canvas.graph_layout, canvas.palette)
    art.current = canvas.current if include_cursor else None
    art.selected = canvas.selected
    if include_cursor:  # the moment shown: unfinished steps without their tokens and time
        art.started, art.active = canvas.art.started, canvas.art.active
    area = None if whole_graph else canvas.visible_scene_rect()
    return _render(art, out_path, scale, canvas.happened if include_cursor else None, canvas.future_mode, area,
                   inputs, captions)


CAPTION_LINE = 18.0  # scene pixels per caption line (an 12 px font), with CAPTION_PAD around the block
CAPTION_PAD = 10.0


def _caption_height(captions) -> float:
    return len(captions) * CAPTION_LINE + 2 * CAPTION_PAD if captions else 0.0


def _render(art: GraphArt, out_path: str | Path, scale: float, happened, future_mode: str, view_rect,
            inputs: Sequence[str | Path] = (), captions: Sequence[str] | None = None) -> Path:
    path = Path(out_path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise ValueError(f"cannot export to {path.name!r}: use a .png or .svg file name")
    if not (math.isfinite(scale) and 0 < scale <= MAX_SCALE):
        raise ValueError(f"the scale must be greater than 0 and at most {MAX_SCALE:g}, not {scale!r}")
    check_destination(path, inputs)  # before drawing: a refused destination costs nothing
    refuse_rotation_partner(path, inputs)
    ensure_qt_app()
    area = _area(art.layout, view_rect)
    captions = [" ".join(str(c).split()) for c in captions or ()]
    extra = _caption_height(captions)
    if suffix == ".png":
        plan = plan_png(area.width(), area.height() + extra, scale)
        if plan.note:
            log.warning("%s: %s", path.name, plan.note)
        image = QImage(plan.width, plan.height, QImage.Format.Format_RGB32)  # opaque: smaller and faster to save
        image.setDotsPerMeterX(round(SVG_DPI / 0.0254))
        image.setDotsPerMeterY(round(SVG_DPI / 0.0254))
        image.fill(QColor(art.palette.background))
        _paint(art, image, area, plan.scale, happened, future_mode, fill=False, captions=captions)
        png = QBuffer()
        png.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(png, "PNG"):
            raise OSError(f"could not encode the PNG for {path}")
        return write_file(path, bytes(png.data()), inputs)
    width, height = max(1, round(area.width() * scale)), max(1, round((area.height() + extra) * scale))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setResolution(SVG_DPI)
    generator.setSize(QSize(width, height))
    generator.setViewBox(QRect(0, 0, width, height))
    generator.setTitle("agentfootprint step graph")
    _paint(art, generator, area, scale, happened, future_mode, fill=True, captions=captions)
    svg = bytes(buffer.data())
    # Qt states the size in millimetres (at 96 dpi); say it in pixels, which is what the user asked for.
    svg = _SVG_SIZE.sub(f'width="{width}" height="{height}"'.encode(), svg, count=1)
    return write_file(path, svg, inputs)


def _area(layout: GraphLayout, view_rect) -> QRectF:
    whole = QRectF(0, 0, max(layout.width, 1.0), max(layout.height, 1.0))
    if view_rect is None:
        return whole
    rect = view_rect if isinstance(view_rect, QRectF) else QRectF(*view_rect)
    clipped = rect.intersected(whole)
    if clipped.isEmpty():
        raise ValueError("view_rect does not overlap the graph")
    return clipped


def _paint(art: GraphArt, device, area: QRectF, scale: float, happened, future_mode: str, fill: bool,
           captions: Sequence[str] = ()) -> None:
    painter = QPainter(device)
    try:
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        if fill:  # the SVG background; the PNG was filled when created
            painter.fillRect(QRectF(0, 0, area.width() * scale, (area.height() + _caption_height(captions)) * scale),
                             QColor(art.palette.background))
        painter.scale(scale, scale)
        painter.save()
        painter.translate(-area.x(), -area.y())
        painter.setClipRect(area)
        art.paint_all(painter, area, happened, future_mode)
        painter.restore()
        if captions:
            _paint_captions(painter, art, captions, area.width(), area.height())
    finally:
        painter.end()


def _paint_captions(painter: QPainter, art: GraphArt, captions: Sequence[str], width: float, top: float) -> None:
    """The captions as plain text lines under the graph, on a rule, elided to the image's width."""
    painter.setPen(QColor(art.palette.bracket))
    painter.drawLine(QPointF(CAPTION_PAD, top + 1), QPointF(width - CAPTION_PAD, top + 1))
    painter.setFont(art.body_font)
    painter.setPen(QColor(art.palette.text))
    room = max(width - 2 * CAPTION_PAD, 1.0)
    for n, text in enumerate(captions):
        y = top + CAPTION_PAD + n * CAPTION_LINE
        line = art.body_metrics.elidedText(text, Qt.TextElideMode.ElideRight, room)
        painter.drawText(QRectF(CAPTION_PAD, y, room, CAPTION_LINE), Qt.AlignmentFlag.AlignLeft |
                         Qt.AlignmentFlag.AlignVCenter | UNCLIPPED, line)
