"""Keyboard access (issue 15): a visible focus ring once Tab moves the focus, arrow keys between graph cards,
Enter activates a card; after a click, Left and Right still step through the stops."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QPushButton, QVBoxLayout, QWidget

from afp_desktop.app.look import theme
from afp_desktop.app.panels.graph.graph_canvas import GraphCanvas
from afp_desktop.core.model.layout import layout_step_graph
from afp_desktop.core.views.neighbours import neighbour
from tests.corpus_util import load_json


def graph(name="02-react-two-tools"):
    return load_json(name, "ref.stepgraph.json")


def show_active(qtbot, widget: QWidget) -> None:
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is widget, timeout=3000)


def ring_pixels(widget: QWidget, colour: str) -> int:
    image = widget.grab().toImage()
    wanted = QColor(colour)
    return sum(1 for x in range(image.width()) for y in range(image.height())
               if QColor(image.pixel(x, y)) == wanted)


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_tab_shows_a_focus_ring(qtbot, mode):
    dark = theme.apply_theme(QApplication.instance(), mode) == "dark"
    box = QWidget()
    layout = QVBoxLayout(box)
    first, second = QPushButton("First"), QPushButton("Second")
    layout.addWidget(first)
    layout.addWidget(second)
    qtbot.addWidget(box)
    show_active(qtbot, box)
    first.setFocus(Qt.FocusReason.MouseFocusReason)  # focus by the mouse: no ring
    assert ring_pixels(first, theme.FOCUS_RING[dark]) == 0
    qtbot.keyClick(first, Qt.Key.Key_Tab)
    assert second.hasFocus()
    assert ring_pixels(second, theme.FOCUS_RING[dark]) > 2 * second.width()  # a ring around it
    assert ring_pixels(first, theme.FOCUS_RING[dark]) == 0
    theme.apply_theme(QApplication.instance(), "light")


def test_neighbours_walk_rows_and_columns():
    g = graph()
    boxes = layout_step_graph(g).nodes
    kinds = [n["kind"] for n in g["nodes"]]
    llm = [i for i, k in enumerate(kinds) if k in ("user->llm", "tool->llm")]
    tool = kinds.index("llm->tool")
    assert neighbour(boxes, llm[0], "right") == tool  # along the row: the call's tool
    assert neighbour(boxes, tool, "left") == llm[0]
    assert neighbour(boxes, llm[0], "down") == llm[1]  # down the column: the next call
    assert neighbour(boxes, llm[1], "up") == llm[0]
    assert kinds[neighbour(boxes, llm[0], "left")] == "fork-branch"  # its chips, left of it
    assert neighbour(boxes, 0, "up") is None  # nothing above the Run card
    assert neighbour(boxes, llm[0], "right", allowed=lambda i: i != tool) != tool


@pytest.fixture
def canvas(qtbot):
    view = GraphCanvas()
    qtbot.addWidget(view)
    view.resize(900, 600)
    show_active(qtbot, view)
    view.set_graph(graph())
    return view


def test_arrow_keys_select_neighbour_cards_and_enter_activates(canvas, qtbot):
    kinds = [n["kind"] for n in graph()["nodes"]]
    llm = kinds.index("user->llm")
    canvas.clearFocus()
    canvas.setFocus(Qt.FocusReason.TabFocusReason)
    assert canvas.keys.ring.isVisible()
    canvas.set_selected(llm)
    with qtbot.waitSignal(canvas.keys.node_selected) as selected:
        qtbot.keyClick(canvas, Qt.Key.Key_Right)
    assert selected.args == [kinds.index("llm->tool")] and canvas.selected == kinds.index("llm->tool")
    with qtbot.waitSignal(canvas.keys.node_selected):
        qtbot.keyClick(canvas, Qt.Key.Key_Left)
    assert canvas.selected == llm
    with qtbot.waitSignal(canvas.keys.node_selected):
        qtbot.keyClick(canvas, Qt.Key.Key_Down)
    assert kinds[canvas.selected] == "tool->llm"
    with qtbot.waitSignal(canvas.node_activated) as activated:
        qtbot.keyClick(canvas, Qt.Key.Key_Return)
    assert activated.args == [canvas.selected]


def test_the_window_keys_stay_replay_keys_after_a_click_and_go_to_cards_after_tab(qtbot):
    from afp_desktop.app.shell.main_window import MainWindow
    from afp_desktop.core.formats import open_run
    from tests.corpus_util import corpus_path

    window = MainWindow(restore_layout=False)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    show_active(qtbot, window)
    window.session.set_run(open_run(str(corpus_path("02-react-two-tools", "recording.json"))), position=0)
    window.session.flush()
    canvas = window.canvas
    canvas.setFocus(Qt.FocusReason.MouseFocusReason)  # as after a click on the graph
    canvas.keys.keyboard_focus = False
    qtbot.keyClick(canvas, Qt.Key.Key_Right)
    window.session.flush()
    assert window.session.position > 0 and window.session.selected is None  # Right: the next stop

    canvas.clearFocus()
    canvas.setFocus(Qt.FocusReason.TabFocusReason)
    assert canvas.keys.ring.isVisible()
    before = window.session.position
    qtbot.keyClick(canvas, Qt.Key.Key_Right)
    window.session.flush()
    assert window.session.selected is not None  # the card at the cursor, selected
    assert window.session.position == before  # …and the cursor did not move
    first = window.session.selected
    qtbot.keyClick(canvas, Qt.Key.Key_Down)
    assert window.session.selected not in (None, first)


def test_every_tab_stop_of_the_window_shows_where_the_focus_is(qtbot, window):
    """Tab through a whole window with a run open: each widget it reaches draws the ring itself (a button, a
    field, a tab) or carries the focus frame, in the ring's colour; and Tab leaves lists and tables instead of
    walking their cells, so it reaches the whole window."""
    from afp_desktop.app.look.focus_style import RINGED_BY_THE_STYLE, follow_keyboard_focus
    from afp_desktop.app.look.theme import FOCUS_RING
    from tests.corpus_util import corpus_path
    from tests.test_bug_report_panel import open_and_wait

    theme.apply_theme(QApplication.instance(), "light")
    open_and_wait(qtbot, window, corpus_path("02-react-two-tools", "recording.json"))
    show_active(qtbot, window)
    frame = follow_keyboard_focus(QApplication.instance())
    window.canvas.setFocus(Qt.FocusReason.TabFocusReason)
    kinds, framed = set(), 0
    for _press in range(66):
        qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_Tab)
        focused = QApplication.focusWidget()
        kinds.add(type(focused).__name__)
        if isinstance(focused, RINGED_BY_THE_STYLE):
            continue
        assert frame.framed() is focused, type(focused).__name__
        framed += 1
        if framed == 1:
            assert ring_pixels(frame.frame, FOCUS_RING[False]) > 50
    assert framed and len(kinds) >= 10  # it walked many kinds of widget, not one table's cells
