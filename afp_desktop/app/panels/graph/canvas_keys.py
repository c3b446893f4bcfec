"""The step graph from the keyboard: arrow keys move the selection to the neighbouring card, Enter
activates it (as a click does), and a focus ring shows while the canvas has the keyboard.

Left and Right are also the window's previous/next-stop keys. The canvas takes them only once it was reached
with the keyboard (Tab): after a click on a card, Left and Right still step through the stops as before.
Up and Down always move between cards while the canvas has focus.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from afp_desktop.app.look.theme import FOCUS_RING, is_dark_palette
from afp_desktop.app.panels.graph.step_opacity import node_opacity
from afp_desktop.core.views.neighbours import neighbour

ARROWS = {Qt.Key.Key_Left: "left", Qt.Key.Key_Right: "right", Qt.Key.Key_Up: "up", Qt.Key.Key_Down: "down"}
ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
KEYBOARD_REASONS = (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason,
                    Qt.FocusReason.ShortcutFocusReason)


class FocusRing(QWidget):
    """A 2 px ring just inside the canvas's viewport, drawn over the graph; the mouse passes through it."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.hide()

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        with QPainter(self) as painter:
            painter.setPen(QPen(QColor(FOCUS_RING[is_dark_palette()]), 2))
            painter.drawRect(self.rect().adjusted(1, 1, -1, -1))


class CardKeyboard(QObject):
    """Installed on a GraphCanvas: arrows select a neighbour card (node_selected), Enter activates it."""

    node_selected = Signal(int)

    def __init__(self, canvas):
        super().__init__(canvas)
        self.canvas = canvas
        self.keyboard_focus = False  # reached with the keyboard: Left and Right belong to the cards
        self.ring = FocusRing(canvas.viewport())
        canvas.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        canvas.installEventFilter(self)
        canvas.viewport().installEventFilter(self)

    def _claims(self, event) -> bool:
        if self.canvas.graph_layout is None or not self.canvas.graph_layout.nodes:
            return False
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        key = event.key()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            return True
        return self.keyboard_focus and (key in (Qt.Key.Key_Left, Qt.Key.Key_Right) or key in ENTER)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if not shiboken6.isValid(self.canvas):  # events while the canvas is being destroyed
            return False
        kind = event.type()
        if watched is self.canvas.viewport():
            if kind == QEvent.Type.Resize:
                self.ring.setGeometry(self.canvas.viewport().rect())
            elif kind == QEvent.Type.MouseButtonPress:
                self.keyboard_focus = False
                self.ring.hide()
            return False
        if kind == QEvent.Type.FocusIn:
            self.keyboard_focus = event.reason() in KEYBOARD_REASONS
            self.ring.setGeometry(self.canvas.viewport().rect())
            self.ring.setVisible(self.keyboard_focus)
            self.ring.raise_()
        elif kind == QEvent.Type.FocusOut:
            self.ring.hide()
        elif kind == QEvent.Type.ShortcutOverride and self._claims(event):
            event.accept()  # the key comes to the canvas as a key press, not to the window's shortcut
            return True
        elif kind == QEvent.Type.KeyPress and self._claims(event):
            self.keyboard_focus = True
            self.ring.setVisible(True)
            self._key(event.key())
            return True
        return False

    def _shown(self, index: int) -> bool:
        """Not a card hidden because it has not happened yet (future mode "hide")."""
        canvas = self.canvas
        return node_opacity(canvas.happened, index, canvas.future_mode, 1.0) > 0

    def start(self) -> int:
        canvas = self.canvas
        for index in (canvas.selected, canvas.current):
            if index is not None:
                return index
        return 0

    def _key(self, key) -> None:
        canvas = self.canvas
        if key in ENTER:
            index = self.start()
            canvas.set_selected(index)
            canvas.node_activated.emit(index)
            return
        here = self.start()
        if canvas.selected is None:  # the first arrow selects where the cursor is
            target = here
        else:
            target = neighbour(canvas.graph_layout.nodes, here, ARROWS[key], self._shown)
        if target is None:
            return
        canvas.set_selected(target)
        if canvas.node_items:
            canvas.ensureVisible(canvas.node_items[target].sceneBoundingRect(), 60, 40)
        self.node_selected.emit(target)
