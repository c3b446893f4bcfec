"""A window opens within its screen's free area: its default (or restored) size is cut to the room there, and
its minimum too when the panels' minimums add up to more than the screen has (a small screen, or one scaled up:
QT_SCALE_FACTOR=2 halves the room a window has). A window larger than its screen hides its own edges and title
bar where nobody can reach them."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

FRAME_ALLOWANCE = QSize(16, 48)  # a title bar and borders, before the window manager says how large they are


def fit_on_screen(window: QWidget) -> None:
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return
    room = screen.availableGeometry()
    most = QSize(max(1, room.width() - FRAME_ALLOWANCE.width()), max(1, room.height() - FRAME_ALLOWANCE.height()))
    least = window.minimumSizeHint()
    if least.width() > most.width() or least.height() > most.height():
        window.setMinimumSize(least.boundedTo(most))
    if window.width() > most.width() or window.height() > most.height():
        window.resize(window.size().boundedTo(most))
    frame = window.frameGeometry()
    if not room.contains(frame):
        window.move(max(room.left(), min(frame.left(), room.right() - window.width() - FRAME_ALLOWANCE.width())),
                    max(room.top(), min(frame.top(), room.bottom() - window.height() - FRAME_ALLOWANCE.height())))
