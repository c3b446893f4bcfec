"""Issue 10, points 9 and 10 in the window: bidi controls shown as markers, a lone surrogate as U+FFFD, in the
chat bubble, the JSON inspector and the graph cards (the text itself is unchanged)."""

from __future__ import annotations

from afp_desktop.app.widgets.visible_text import visible_text


def test_bidi_controls_become_visible_markers():
    assert visible_text("invoice\u202egnp.exe") == "invoice\u2039U+202E\u203agnp.exe"
    for control in "\u200e\u200f\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u061c":
        assert control not in visible_text(f"a{control}b") and f"U+{ord(control):04X}" in visible_text(f"a{control}b")


def test_a_lone_surrogate_becomes_the_replacement_character():
    assert visible_text("é\ud83d\u2026 (+81 more)") == "é\ufffd\u2026 (+81 more)"
    assert visible_text("\ude00 tail") == "\ufffd tail"
    assert visible_text("plain 😀 text") == "plain 😀 text"
    assert visible_text("\ud83d\ude00") == "😀"  # a pair kept as two code points is joined, not replaced


def test_the_bubble_shows_a_cut_status_line(qtbot):
    from afp_desktop.app.panels.chat_bubble import Bubble

    bubble = Bubble("#ffffff", "#000000")
    qtbot.addWidget(bubble)
    bubble.set_text("Scanning é\ud83d\u2026 (+81 more) \u202eevil")
    text = bubble.label.text()
    assert "\ufffd\u2026 (+81 more)" in text and "\u2039U+202E\u203a" in text


def test_the_json_tree_shows_markers(qtbot):
    from PySide6.QtCore import Qt

    from afp_desktop.app.panels.json_tree import JsonModel

    model = JsonModel()
    model.set_value({"na\u202eme": "x\ud83d"})
    index = model.index_for_path(("na\u202eme",))
    key, value = (model.data(index.siblingAtColumn(c), Qt.ItemDataRole.DisplayRole) for c in (0, 1))
    assert key == "na\u2039U+202E\u203ame" and "\ufffd" in value


def test_every_plain_label_shows_markers(qtbot):
    from afp_desktop.app.panels.chat_bubble import plain_label

    label = plain_label()
    qtbot.addWidget(label)
    label.setText("tool \u202eevil\ud83d")  # set later, as the inspector's title is
    assert label.text() == "tool \u2039U+202E\u203aevil\ufffd"


def test_a_label_set_to_the_text_it_shows_keeps_its_measured_heights(qtbot, monkeypatch):
    """The chat bubble sets each of its labels at every move of the cursor; a wrapping label measured its height
    at each width anew after each of them, though its text had not changed."""
    from PySide6.QtWidgets import QLabel

    from afp_desktop.app.widgets.plain_text import plain_label

    measured = []
    original = QLabel.heightForWidth
    monkeypatch.setattr(QLabel, "heightForWidth", lambda self, width: (measured.append(width), original(self, width))[1])
    label = plain_label("During Tool call 500, the chat showed no status line.")
    qtbot.addWidget(label)
    first = label.heightForWidth(120)
    label.setText("During Tool call 500, the chat showed no status line.")
    assert label.heightForWidth(120) == first and measured == [120]
    label.setText("During Tool call 501, the chat user saw 2 line(s):")
    label.heightForWidth(120)
    assert measured == [120, 120]
