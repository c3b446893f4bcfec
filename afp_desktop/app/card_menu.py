"""The right-click menu of a graph card: copy the step's JSON, copy its id, export the graph from here."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from afp_desktop.core.jsonx import jsonio


def step_json(node: dict) -> str:
    return jsonio.dumps(node, indent=True).decode("utf-8")


def card_menu(parent: QWidget, node: dict, export: Callable[[], None]) -> QMenu:
    menu = QMenu(parent)
    node_id = node.get("id")
    menu.addAction("Copy the step's JSON", lambda: QGuiApplication.clipboard().setText(step_json(node)))
    copy_id = menu.addAction("Copy the step's id", lambda: QGuiApplication.clipboard().setText(str(node_id)))
    copy_id.setEnabled(node_id is not None)
    menu.addSeparator()
    menu.addAction("Export the graph…", export)
    return menu
