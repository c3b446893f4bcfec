"""The right-click menu of a graph card: copy the step's JSON, copy its id, export the graph from here."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from afp_desktop.app.widgets.copy_id import MESSAGE_MS, shortened, shown_id, status_bar_of
from afp_desktop.core.jsonx import jsonio


def step_json(node: dict) -> str:
    return jsonio.dumps(node, indent=True).decode("utf-8")


def _copy(parent: QWidget, text: str, message: str) -> None:
    QGuiApplication.clipboard().setText(text)  # plain text only
    bar = status_bar_of(parent)
    if bar is not None:
        bar.showMessage(message, MESSAGE_MS)


def card_menu(parent: QWidget, node: dict, export: Callable[[], None]) -> QMenu:
    menu = QMenu(parent)
    node_id = node.get("id")
    menu.addAction("Copy the step's JSON", lambda: _copy(parent, step_json(node), "Copied the step's JSON"))
    copy_id = menu.addAction("Copy the step's id", lambda: _copy(
        parent, str(node_id), f"Copied step id {shortened(shown_id(str(node_id)))}"))
    copy_id.setEnabled(node_id is not None)
    menu.addSeparator()
    menu.addAction("Export the graph…", export)
    return menu
