"""Text contrast of every palette in both themes is at least 4.5:1 (WCAG AA), non-text focus marks 3:1
(issue 15): widget palette, state colours, chat bubble, banners and the step graph, dimmed cards included."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPalette

from afp_desktop.app.panels.banner import LEVEL_STYLE
from afp_desktop.app.panels.chat_bubble import COLOURS
from afp_desktop.app.look.style import contrast_ratio, palette_for
from afp_desktop.app.look.theme import ERROR_TEXT, FOCUS_RING, NOTE_TEXT, build_palette

THEMES = ("light", "dark")
R = QPalette.ColorRole
TEXT_ON = (  # (text role, background role) pairs the widgets draw
    (R.WindowText, R.Window), (R.WindowText, R.Base), (R.Text, R.Base), (R.Text, R.AlternateBase),
    (R.PlaceholderText, R.Window), (R.PlaceholderText, R.Base), (R.PlaceholderText, R.AlternateBase),
    (R.ButtonText, R.Button), (R.HighlightedText, R.Highlight), (R.ToolTipText, R.ToolTipBase),
    (R.Link, R.Base), (R.Link, R.Window),
)


def blend(top: str, under: str, alpha: float) -> str:
    a = [int(top[k:k + 2], 16) for k in (1, 3, 5)]
    b = [int(under[k:k + 2], 16) for k in (1, 3, 5)]
    return "#" + "".join(f"{round(alpha * x + (1 - alpha) * y):02x}" for x, y in zip(a, b))


def role(name, theme: str) -> str:
    return build_palette(theme).color(name).name()


@pytest.mark.parametrize("theme", THEMES)
def test_widget_palette(theme):
    for text, background in TEXT_ON:
        ratio = contrast_ratio(role(text, theme), role(background, theme))
        assert ratio >= 4.5, (theme, text, background, round(ratio, 2))


@pytest.mark.parametrize("theme", THEMES)
def test_state_colours_on_the_window(theme):
    dark = theme == "dark"
    for colour in (ERROR_TEXT[dark], NOTE_TEXT[dark]):
        for background in (R.Window, R.Base):
            assert contrast_ratio(colour, role(background, theme)) >= 4.5, (theme, colour)
    assert contrast_ratio(FOCUS_RING[dark], role(R.Window, theme)) >= 3.0
    assert contrast_ratio(FOCUS_RING[dark], role(R.Base, theme)) >= 3.0


@pytest.mark.parametrize("theme", THEMES)
def test_chat_bubble_and_banners(theme):
    colours = COLOURS[theme]
    for name, value in colours.items():
        if isinstance(value, tuple):
            fill, text = value
            assert contrast_ratio(text, fill) >= 4.5, (theme, name)
    assert contrast_ratio(colours["muted"], colours["background"]) >= 4.5
    text = role(R.WindowText, theme)
    for level, (light_fill, _border, dark_fill, _dark_border) in LEVEL_STYLE.items():
        assert contrast_ratio(text, dark_fill if theme == "dark" else light_fill) >= 4.5, (theme, level)


@pytest.mark.parametrize("theme", THEMES)
def test_graph_cards_dimmed_or_not(theme):
    palette = palette_for(theme)
    for kind, colours in palette.kinds.items():
        assert contrast_ratio(palette.text, colours.fill) >= 4.5, (theme, kind)
        assert contrast_ratio(palette.text_muted, colours.fill) >= 4.5, (theme, kind, "subtitle")
        # A card not yet happened: its fill fades into the background; its text is drawn opaque in the muted
        # colour (GraphArt._paint_text), which must stay readable on the faded fill.
        faded = blend(colours.fill, palette.background, palette.dim_opacity)
        assert contrast_ratio(palette.text_muted, faded) >= 4.5, (theme, kind, "dimmed")


def test_dimmed_cards_draw_their_text_opaque(qtbot):
    """The canvas really draws a dimmed card's text at full opacity in the muted colour."""
    from PySide6.QtGui import QColor, QImage, QPainter

    from afp_desktop.app.panels.graph.graph_art import GraphArt
    from afp_desktop.core.model.layout import layout_step_graph

    graph = {"nodes": [{"id": "a", "kind": "fork-branch", "label": "WWWWWWWWWW"}], "edges": []}
    palette = palette_for("dark")
    art = GraphArt(graph, layout_step_graph(graph), palette)
    box = art.layout.nodes[0]
    image = QImage(int(box.right + 10), int(box.bottom + 10), QImage.Format.Format_RGB32)
    image.fill(QColor(palette.background))
    painter = QPainter(image)
    painter.setOpacity(palette.dim_opacity)
    art.paint_node(painter, 0, True)
    painter.end()
    faded = blend(palette.kind("fork-branch").fill, palette.background, palette.dim_opacity)
    text_area = [QColor(image.pixel(x, y)).name() for x in range(int(box.x) + 20, int(box.right) - 6)
                 for y in range(int(box.y) + 2, int(box.bottom) - 2)]
    strongest = max(text_area, key=lambda colour: contrast_ratio(colour, faded))
    assert contrast_ratio(strongest, faded) >= 4.5  # the glyphs' cores: not faded with the card


@pytest.mark.parametrize("theme", THEMES)
def test_a_dimmed_card_on_the_canvas_keeps_its_text_readable(qtbot, theme):
    """On the real canvas (cards cached as pixmaps): a step not yet happened is dimmed, its text is not."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QColor

    from afp_desktop.app.panels.graph.graph_canvas import GraphCanvas

    graph = {"nodes": [{"id": "a", "kind": "llm->user", "label": "WWWWWWWWWWWWWW", "startOffsetMs": 0,
                        "assistantText": "WWWWWWWWWWWWWWWWWWWW"}], "edges": []}
    palette = palette_for(theme)
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.set_palette(palette)
    canvas.resize(600, 300)
    canvas.show()
    qtbot.waitExposed(canvas)
    canvas.set_graph(graph)
    canvas.finish_building()
    canvas.set_cursor_state([False], None)  # not happened yet: dimmed
    canvas.resetTransform()
    box = canvas.art.node_bounds(0)
    canvas.centerOn(box.center())
    image = canvas.viewport().grab().toImage()
    rect = canvas.mapFromScene(box).boundingRect() & QRect(0, 0, image.width(), image.height())
    faded = blend(palette.kind("llm->user").fill, palette.background, palette.dim_opacity)
    colours = {QColor(image.pixel(x, y)).name() for x in range(rect.left() + 12, rect.right() - 6)
               for y in range(rect.top() + 4, rect.bottom() - 4)}
    strongest = max(colours, key=lambda colour: contrast_ratio(colour, faded))
    assert contrast_ratio(strongest, faded) >= 4.5, (theme, strongest, faded)


@pytest.mark.parametrize("theme", THEMES)
def test_the_run_facts_colours_read_on_the_window(theme):
    """The header's findings count, the Findings panel's greyed rows (findings still to come) and the cards'
    retries-and-findings pill."""
    from afp_desktop.app.panels.banner import FINDING_TEXT
    from afp_desktop.app.panels.findings_panel import LATER_TEXT
    from afp_desktop.app.panels.graph.graph_art import FACT_BADGE_FILL, FACT_BADGE_TEXT

    assert contrast_ratio(FACT_BADGE_TEXT, FACT_BADGE_FILL) >= 4.5

    for colour in (FINDING_TEXT[theme == "dark"], LATER_TEXT[theme]):
        for background in (R.Window, R.Base, R.AlternateBase):
            assert contrast_ratio(colour, role(background, theme)) >= 4.5, (theme, colour, background)
