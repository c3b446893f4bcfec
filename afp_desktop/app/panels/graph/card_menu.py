"""The right-click menu of a graph card: copy the step's JSON, copy its id, export the graph from here. A step of
the run is copied whole, as the engine holds it (`copy_json`); a card the window made (a fold, a framework chip)
as it is drawn."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from afp_desktop.app.widgets.copy_id import MESSAGE_MS, shortened, shown_id, status_bar_of
from afp_desktop.core.jsonx import jsonio


def step_json(node: dict) -> str:
    return jsonio.dumps(node, indent=True).decode("utf-8")


def copy_text(parent: QWidget, text: str, message: str) -> None:
    """Put `text` on the clipboard and say `message` in the window's status bar."""
    QGuiApplication.clipboard().setText(text)  # plain text only
    bar = status_bar_of(parent)
    if bar is not None:
        bar.showMessage(message, MESSAGE_MS)


def card_menu(parent: QWidget, node: dict, export: Callable[[], None],
              copy_json: Callable[[], None] | None = None) -> QMenu:
    """`copy_json`: copies a step of the run (asked of the engine); None: `node` itself is copied."""
    menu = QMenu(parent)
    node_id = node.get("id")
    menu.addAction("Copy the step's JSON", copy_json or (
        lambda: copy_text(parent, step_json(node), "Copied the step's JSON")))
    copy_id = menu.addAction("Copy the step's id", lambda: copy_text(
        parent, str(node_id), f"Copied step id {shortened(shown_id(str(node_id)))}"))
    copy_id.setEnabled(node_id is not None)
    menu.addSeparator()
    menu.addAction("Export the graph…", export)
    return menu
