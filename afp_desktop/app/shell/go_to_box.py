"""The "Go to" box (Ctrl+G): a one-line field above the graph; Enter goes, Esc closes.

It understands what core/goto.py parses (a stop number, "event 300", "iteration 5", "1m20s", a step id), moves
the cursor through the session and, for a step, selects it; a text that leads nowhere is said in the box.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget


PLACEHOLDER = "Stop number, event 300, iteration 5, 1m20s, or a step id — Enter to go, Esc to close"


class GoToBox(QFrame):
    went = Signal(str)  # what the status bar says about where the cursor went

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.setObjectName("goToBox")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        title = QLabel("Go to")
        self.field = QLineEdit()
        self.field.setPlaceholderText(PLACEHOLDER)
        self.field.setClearButtonEnabled(True)
        self.field.returnPressed.connect(self.go)
        self.message = QLabel()
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # echoes what was typed: never markup
        self.message.setStyleSheet("color: #b3261e;")
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Close (Esc)")
        close.setAutoRaise(True)
        close.clicked.connect(self.close_box)
        row.addWidget(title)
        row.addWidget(self.field, 2)
        row.addWidget(self.message, 1)
        row.addWidget(close)
        self.setVisible(False)

    def open_box(self) -> None:
        if self.session.run is None:
            return
        self.message.clear()
        self.setVisible(True)
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    def close_box(self) -> None:
        self.setVisible(False)
        parent = self.parentWidget()
        if parent is not None:
            parent.setFocus()

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.close_box()
            return
        super().keyPressEvent(event)

    def go(self) -> bool:
        """Go where the field says; False (and the reason shown in the box) when it leads nowhere."""
        session = self.session
        if session.run is None:
            return False
        from afp_desktop.core.views.goto import GoToError, parse_go_to, resolve_go_to  # (not with the window)

        try:
            target = resolve_go_to(parse_go_to(self.field.text()), session.run, session.spans)
        except GoToError as err:
            self.message.setText(str(err))
            return False
        self.message.clear()
        if target.node is not None:
            session.select_node(target.node)
        session.move_to(target.position, immediate=True, stop=target.stop)
        self.went.emit(target.says)
        self.close_box()
        return True
