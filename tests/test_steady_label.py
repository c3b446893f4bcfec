"""A text that changes at every move of the cursor does not lay the window out again (steady_label.py): the
label keeps a fixed size, grows once when a text needs more room, and settles back to its text when asked."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QWidget

from afp_desktop.app.widgets.steady_label import SteadyLabel
from tests.paint_util import LayoutRequests


def _holder(qtbot, label: SteadyLabel) -> QWidget:
    holder = QWidget()
    qtbot.addWidget(holder)
    row = QHBoxLayout(holder)
    row.addWidget(label)
    row.addStretch(1)
    holder.show()
    qtbot.waitExposed(holder)
    return holder


def _laid_out() -> None:
    """Every event posted so far is delivered: the layout requests a new text made, and the layouts they run."""
    QCoreApplication.sendPostedEvents()


def test_a_text_that_fits_changes_nothing_but_the_label(qtbot):
    label = SteadyLabel()
    holder = _holder(qtbot, label)
    label.setText("Iteration 12 · stop 40 of 99")
    _laid_out()
    requests = LayoutRequests(holder)
    for text in ("Iteration 12 · stop 41 of 99", "Iteration 3 · stop 9 of 99", "stop 1 of 99"):
        label.setText(text)
        _laid_out()
        assert label.text() == text
    assert requests.count == 0


def test_a_longer_text_grows_the_label_once_and_is_shown_whole(qtbot):
    label = SteadyLabel()
    holder = _holder(qtbot, label)
    label.setText("stop 1 of 9")
    _laid_out()
    requests = LayoutRequests(holder)
    longer = "Iteration 1,000 · stop 7,008 of 7,008"
    label.setText(longer)
    _laid_out()
    assert requests.count == 1
    assert label.width() >= label.fontMetrics().horizontalAdvance(longer)
    label.setText("stop 2 of 9")  # shorter again: the label keeps its room (no layout)
    _laid_out()
    assert requests.count == 1
    wide = label.width()
    label.settle_size()  # a new run: back to the text's own size
    assert label.width() < wide


def test_a_fixed_width_label_keeps_its_width_and_fits_a_bigger_font(qtbot):
    label = SteadyLabel(width=120)
    holder = _holder(qtbot, label)  # noqa: F841 (kept: the label is its child)
    label.setText("x" * 200)  # (the caller elides to the width)
    assert label.width() == 120
    font = QFont(label.font())
    font.setPixelSize(label.fontMetrics().height() * 2)
    label.setFont(font)
    assert label.height() >= label.fontMetrics().height()
    assert label.width() == 120
