"""Every character the window cannot show as itself is shown readably: control characters and characters no font
has become ‹U+XXXX› markers in labels and text boxes; text the fonts can draw is left as it is."""

from __future__ import annotations

import lzma

import pytest
from hypothesis import given
from hypothesis import strategies as st

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.app.widgets.visible_text import marker, shown_text, visible_text

HOSTILE = "tool \x1b[31mred\x1b[0m nul\x00 \U0002000b"


def everything_drawable(_char: str) -> bool:
    return True


def test_control_characters_become_markers_but_line_feed_and_tab_stay():
    assert shown_text("a\x1b[31mb\x00c\x7fd\x85e", everything_drawable) == (
        "a\u2039U+001B\u203a[31mb\u2039U+0000\u203ac\u2039U+007F\u203ad\u2039U+0085\u203ae")
    assert shown_text("one\ntwo\tthree", everything_drawable) == "one\ntwo\tthree"
    for code in (*range(0x20), *range(0x7F, 0xA0)):
        if chr(code) not in "\n\t":
            assert shown_text(chr(code), everything_drawable) == f"\u2039U+{code:04X}\u203a"


def test_a_carriage_return_is_part_of_a_line_break_or_a_marker():
    assert shown_text("a\r\nb\rc", everything_drawable) == "a\nb\u2039U+000D\u203ac"


def test_private_use_and_unassigned_code_points_become_markers_whatever_the_fonts():
    assert shown_text("a\ue000b\U000f0000c\u0378d\uffff", everything_drawable) == (
        "a\u2039U+E000\u203ab\u2039U+F0000\u203ac\u2039U+0378\u203ad\u2039U+FFFF\u203a")


def test_a_character_no_font_draws_becomes_a_marker():
    assert shown_text("x \U0002000b y é", lambda char: char != "\U0002000b") == "x \u2039U+2000B\u203a y é"
    assert marker("\U0002000b") == "\u2039U+2000B\u203a"


def test_drawable_text_is_the_same_object():
    text = "naïve café 中文 😀 a\u0301"
    assert shown_text(text, everything_drawable) is text
    assert shown_text("plain ascii\twith\nlines", everything_drawable) == "plain ascii\twith\nlines"


@given(st.text(alphabet=st.characters(exclude_categories=())), st.sets(st.characters()))
def test_the_shown_text_never_raises_and_grows_at_most_tenfold(text, undrawable):
    shown = shown_text(text, lambda char: char not in undrawable)
    assert isinstance(shown, str) and len(shown) <= 10 * len(text)


@given(st.text(alphabet=st.characters(exclude_categories=())))
def test_visible_text_with_the_window_fonts_never_raises_and_grows_at_most_tenfold(qapp, text):
    shown = visible_text(text)
    assert len(shown) <= 10 * len(text)
    assert not any(ord(char) < 0x20 and char not in "\n\t" for char in shown)


def fonts_draw(char: str) -> bool:
    """Whether the window's fonts (the bundled ones registered, as the window does at start) draw `char`."""
    from afp_desktop.app.look.fonts import load_bundled_fonts
    from afp_desktop.app.widgets.drawable_glyphs import can_draw

    load_bundled_fonts()
    return can_draw(char)


def test_a_label_shows_controls_and_undrawable_characters_as_markers(qtbot):
    from afp_desktop.app.widgets.plain_text import plain_label

    label = plain_label(HOSTILE)
    qtbot.addWidget(label)
    shown = label.text()
    assert "\x1b" not in shown and "\x00" not in shown
    assert "\u2039U+001B\u203a[31mred\u2039U+001B\u203a[0m nul\u2039U+0000\u203a" in shown
    if not fonts_draw("\U0002000b"):
        assert shown.endswith("\u2039U+2000B\u203a")


def test_a_text_box_shows_controls_and_undrawable_characters_as_markers(qtbot):
    from afp_desktop.app.widgets.text_box import TraceTextBox

    box = TraceTextBox()
    qtbot.addWidget(box)
    box.setPlainText("line one\x07\r\nline two \ue000 " + HOSTILE)
    shown = box.toPlainText()
    assert shown.startswith("line one\u2039U+0007\u203a\nline two \u2039U+E000\u203a tool \u2039U+001B\u203a[31m")
    assert "\u2039U+0000\u203a" in shown and box.text.startswith("line one\x07\r\n")  # the text itself is kept
    if not fonts_draw("\U0002000b"):
        assert shown.endswith("\u2039U+2000B\u203a")


def test_the_window_fonts_decide_what_is_undrawable(qapp):
    from PySide6.QtGui import QFontMetrics, QGuiApplication

    assert fonts_draw("A") and fonts_draw("é")
    metrics = QFontMetrics(QGuiApplication.font())
    assert fonts_draw("\U0002000b") == metrics.inFontUcs4(0x2000B)
    assert not fonts_draw("\x00")


@pytest.mark.parametrize("text", ["café naïve a\u0301", "中文 漢字", "😀 👍", "Ελληνικά Кириллица"])
def test_ordinary_text_the_fonts_draw_is_unchanged_in_a_label(qtbot, text):
    from afp_desktop.app.widgets.plain_text import plain_label

    if not all(fonts_draw(char) for char in text):
        pytest.skip("no font here draws this script")
    label = plain_label(text)
    qtbot.addWidget(label)
    assert label.text() == text


def test_a_graph_card_shows_the_markers_of_a_tool_name_not_blanks():
    from afp_desktop.app.panels.graph.card_text import card_lines

    title, _corner, detail, _footer = map(visible_text, card_lines(
        {"kind": "tool", "label": "llm \u2192 tool (get\x1b[31m)\r\nsecond line", "toolName": "get\tweather\x00"}))
    assert title == "llm \u2192 tool (get\u2039U+001B\u203a[31m)"
    assert detail == "get weather\u2039U+0000\u203a"


def test_the_compare_window_names_a_step_with_markers():
    from afp_desktop.app.compare.compare_window import one_line

    assert one_line("tool\x1b[0m \u202eevil\nmore") == "tool\u2039U+001B\u203a[0m \u2039U+202E\u203aevil"


def test_the_event_list_shows_a_hostile_tool_name_with_markers(qtbot, tmp_path):
    from afp_desktop.app.panels.event_list import EventListPanel
    from tests.answers_util import engine_requests
    from tests.test_event_list import wait_for_rows
    from afp_desktop.app.session import Session
    from afp_desktop.core.formats import open_run
    from tests.corpus_util import corpus_path

    source = corpus_path("02-react-two-tools", "recording.json")
    text = (lzma.decompress(source.read_bytes()) if source.suffix == ".xz" else source.read_bytes()).decode("utf-8")
    hostile = tmp_path / "hostile.recording.json"
    hostile.write_text(text.replace("get_weather", "get\\u001b[31m\\u0000weather"), encoding="utf-8")
    session = Session()
    requests = engine_requests(session)
    panel = shown_alone(session, EventListPanel(session, requests))
    qtbot.addWidget(panel)
    panel.resize(900, 3000)  # (every row on screen)
    panel.show()
    session.set_run(open_run(hostile))
    wait_for_rows(qtbot, panel)
    requests.stop()
    model = panel.model
    cells = [model.data(model.index(row, column)) for row in range(model.rowCount())
             for column in range(model.columnCount())]
    assert not any("\x1b" in cell or "\x00" in cell for cell in cells)
    assert any("get\u2039U+001B\u203a[31m\u2039U+0000\u203aweather" in cell for cell in cells)
