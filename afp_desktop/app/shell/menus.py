"""The window's menus, laid out from the action table (shell/action_table.py): menus are found by id, never by
their visible label, and an action's place, text, keys and check state come from its table entry. A feature binds
a handler to an id; the registry makes the QAction (or takes one the feature already has, such as a dock's
toggle) and puts it where the table says."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu

from afp_desktop.app.widgets.plain_text import plain_tooltip
from afp_desktop.app.shell.action_table import MENUS, MenuId, action_spec, in_menu, key_sequences


class ActionRegistry:
    def __init__(self, window: QMainWindow):
        self.window = window
        self.menus: dict[MenuId, QMenu] = {}
        self.actions: dict[str, QAction] = {}
        self._appended: dict[MenuId, list[QAction]] = {}  # (a menu's items not in the table: a dock's toggle)
        bar = window.menuBar()
        for menu in MENUS:
            made = QMenu(menu.text, window)
            made.setObjectName(f"menu-{menu.id.value}")
            self.menus[menu.id] = made
            if menu.parent is None:
                bar.addMenu(made)
        for entry in (e for e in (a for m in MenuId for a in in_menu(m)) if e.opens is not None):
            self.actions[entry.id] = self.menus[entry.opens].menuAction()
        for menu_id in MenuId:
            self._lay_out(menu_id)

    def menu(self, menu_id: MenuId) -> QMenu:
        return self.menus[menu_id]

    def action(self, action_id: str) -> QAction:
        """The QAction bound to a table id (KeyError: not bound yet)."""
        return self.actions[action_id]

    def bind(self, action_id: str, handler: Callable | None = None, *, action: QAction | None = None) -> QAction:
        """Give the table entry `action_id` its handler (`triggered`), or take `action` as it is (its own text
        kept), and place it in its menu. Keys, check state and tooltip come from the table."""
        spec = action_spec(action_id)
        if action_id in self.actions:
            raise ValueError(f"the action {action_id!r} is bound already")
        if action is None:
            action = QAction(spec.text, self.window)
            action.setCheckable(spec.checkable)
            if handler is not None:
                action.triggered.connect(handler)
        if spec.keys:
            action.setShortcuts(key_sequences(action_id))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if spec.tooltip:
            action.setToolTip(plain_tooltip(spec.tooltip))
        action.setObjectName(f"action-{action_id}")
        self.actions[action_id] = action
        if spec.menu is not None:
            self._lay_out(spec.menu)
        else:
            self.window.addAction(action)  # (keys without a menu item still work in the window)
        return action

    def append(self, menu_id: MenuId, action: QAction) -> None:
        """Put an item that is not in the table at the end of a menu (the Panels menu's dock toggles)."""
        self._appended.setdefault(menu_id, []).append(action)
        self._lay_out(menu_id)

    def _lay_out(self, menu_id: MenuId) -> None:
        menu = self.menus[menu_id]
        for item in menu.actions():
            menu.removeAction(item)
            if item.isSeparator():
                item.deleteLater()
        group = None
        for spec in in_menu(menu_id):
            item = self.actions.get(spec.id)
            if item is None:
                continue
            if group is not None and spec.group != group:
                menu.addSeparator()
            menu.addAction(item)
            group = spec.group
        for item in self._appended.get(menu_id, []):
            menu.addAction(item)
