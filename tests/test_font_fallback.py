"""Trace text in Chinese, Japanese, Korean or emoji renders with real glyphs, never empty boxes, even on a system
with no such font: the bundled fallbacks (Droid Sans Fallback, Symbola) stand behind DejaVu Sans."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QTextLayout

from afp_desktop.app.look.fonts import FALLBACKS, SANS, load_bundled_fonts

SAMPLES = ["天气很好", "こんにちは", "안녕하세요", "😀", "🚀 done ✅"]


@pytest.mark.parametrize("text", SAMPLES)
def test_every_character_is_drawn_by_a_font_that_has_it(qapp, text):
    families = load_bundled_fonts()
    assert set(FALLBACKS) <= set(families)
    layout = QTextLayout(text, QFont(SANS))
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    runs = layout.glyphRuns()
    assert runs
    for run in runs:
        raw = run.rawFont()
        assert raw.isValid()
        indexes = run.glyphIndexes()
        assert 0 not in indexes, f"{raw.familyName()} has no glyph for part of {text!r}"  # glyph 0 = the box


def test_exported_graph_draws_cjk_and_emoji(qapp, tmp_path):
    from PySide6.QtGui import QImage

    from afp_desktop.app.export.export import export_graph

    graph = {"nodes": [{"id": "a", "kind": "user->llm", "label": "user → llm 天气 😀", "startOffsetMs": 0,
                        "subflowPath": ["__root__"], "llmModel": "模型 🚀"}], "edges": []}
    out = export_graph(graph, str(tmp_path / "g.png"))
    assert not QImage(str(out)).isNull()


def test_the_window_text_is_drawn_in_the_system_font_not_in_a_fallback(qapp):
    """The fallbacks stand behind the application font; they never become it. With "Sans Serif" (a generic
    alias) as the application font they once did: the whole window was drawn in Droid Sans Fallback, whose
    bullet is blank and whose ellipsis is three raised dots."""
    from PySide6.QtGui import QFontInfo
    from PySide6.QtWidgets import QApplication

    from afp_desktop.app.look.fonts import apply_default_font

    apply_default_font(QApplication.instance())
    font = QApplication.font()
    assert QFontInfo(font).family() not in FALLBACKS
    layout = QTextLayout("• Thinking…", font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    for run in layout.glyphRuns():
        assert run.rawFont().familyName() not in FALLBACKS and 0 not in run.glyphIndexes()
