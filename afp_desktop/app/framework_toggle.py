"""View ▸ Hide framework steps, and the "N framework steps hidden" chip on the graph (issue 15).

agentfootprint-lens hides the framework's own steps by default (its `isFrameworkChartNode` collapse); so does this
window, remembering the user's choice. While they are hidden, a chip in the graph's bottom-left corner says how
many (with future steps hidden too, how many have happened at the cursor); a click on it shows them (the same as unticking the menu item). What counts as a framework step and how the
graph is drawn either way is core/model/framework_steps.py; graph_folding.py maps the cards.
"""

from __future__ import annotations

import bisect
from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QToolButton

from afp_desktop.app.shortcuts import key_sequences
from afp_desktop.app.plain_text import TooltipWhenAsked, plain_tooltip
from afp_desktop.core.model.framework_steps import describe_hidden

MARGIN = 10


class HiddenChip(TooltipWhenAsked, QToolButton):
    """"16 framework steps hidden" over the graph's bottom-left corner; a click shows them."""

    def __init__(self, canvas):
        super().__init__(canvas.viewport())  # (over the view, yet not overlapping it: see GraphCanvas.pin_overlay)
        self.canvas = canvas
        self.count = 0
        self._described: Callable[[], str] | str = ""
        self._tooltip: str | None = None
        self.setObjectName("frameworkHiddenChip")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # (the menu item and Ctrl+Shift+H reach it from the keyboard)
        self.setAutoRaise(False)
        self.setVisible(False)
        canvas.pin_overlay(self, self._place)  # (kept in its corner as the view scrolls and is resized)

    def show_count(self, count: int, described: Callable[[], str] | str = "") -> None:
        """`described`: what is hidden ("Cache ×3, …"), or how to say it: asked only when the tooltip is (listing
        the 1,000-iteration run's 5,006 hidden steps took ~5 ms of each big run shown)."""
        self.count = count
        self.setText(f"⚙ {count:,} framework step{'' if count == 1 else 's'} hidden")
        self._described, self._tooltip = described, None
        self.setVisible(count > 0)
        if count > 0:
            self.adjustSize()
            self._place()
            self.raise_()

    def toolTip(self) -> str:  # noqa: N802 - Qt's name
        if self._tooltip is None:
            described = self._described() if callable(self._described) else self._described
            self._tooltip = plain_tooltip(
                "The framework's own steps (agentfootprint's injection engine, cache, thinking, route, final…) "
                f"are hidden. Click to show them (View ▸ Hide framework steps, Ctrl+Shift+H).\n{described}")
        return self._tooltip

    def _place(self) -> None:
        viewport = self.canvas.viewport().rect()
        size = self.sizeHint()
        self.setGeometry(viewport.left() + MARGIN, viewport.bottom() - size.height() - MARGIN,
                         size.width(), size.height())


def _after(menu, anchor: QAction):
    """The action following `anchor` in the menu (None: the end), to insert before."""
    actions = menu.actions()
    k = actions.index(anchor) + 1 if anchor in actions else len(actions)
    return actions[k] if k < len(actions) else None


def install(window, view_menu) -> QAction:
    """Add the menu item (checked from the settings), the chip, and their wiring; returns the action."""
    folding, settings = window.folding, window.settings
    action = QAction("Hide &framework steps", window)
    action.setCheckable(True)
    action.setShortcuts(key_sequences("hide_framework"))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    hide = bool(settings.get("hide_framework_steps"))
    action.setChecked(hide)
    folding.hide_framework = hide
    view_menu.insertAction(_after(view_menu, window.fold_action), action)
    chip = HiddenChip(window.canvas)
    window.framework_chip = chip

    def toggled(on: bool) -> None:
        settings.set("hide_framework_steps", bool(on))
        settings.save()
        folding.set_hide_framework(bool(on))
        if not on:
            chip.show_count(0)

    known: dict = {"plumbing": [], "entries": [], "described": ""}  # per graph shown: drawn plumbing nodes, framework step entries

    def counted(count: int) -> None:
        run = window.session.run
        known["plumbing"] = list(folding.fw_nodes) if count else []
        known["entries"] = sorted(s.entry for s in folding.fw_steps) if count else []
        steps, plumbing = folding.fw_steps, folding.fw_nodes
        known["described"] = (lambda: describe_hidden(run.stepgraph.get("nodes") or [], steps, plumbing)) \
            if count and run is not None else ""
        refresh()

    def refresh(*_args) -> None:
        """The chip's count: every hidden step (the graph previews the whole run, dimmed); with future steps
        hidden (View ▸ Future steps hidden), only those that have happened at the cursor."""
        run, moment = window.session.run, window.session.moment
        if run is None or not folding.hide_framework:
            chip.show_count(0)
            return
        count = len(known["entries"]) + len(known["plumbing"])
        if window.canvas.future_mode == "hide" and moment is not None:
            n = moment.n_domain
            created = moment.facts.created
            count = bisect.bisect_left(known["entries"], n) + sum(1 for i in known["plumbing"] if created[i] < n)
        chip.show_count(count, known["described"] if count else "")

    def closed() -> None:
        known.update(plumbing=[], entries=[], described="")  # (its description held the run closed)
        chip.show_count(0)

    def moved(_moment) -> None:
        if window.canvas.future_mode == "hide" and folding.hide_framework:
            refresh()

    action.toggled.connect(toggled)
    folding.framework_changed.connect(counted)
    chip.clicked.connect(lambda: action.setChecked(False))
    window.session.run_closed.connect(closed)
    window.session.moment_changed.connect(moved)
    for future in getattr(window, "future_actions", {}).values():  # View ▸ Future steps dimmed / hidden
        future.triggered.connect(refresh)
    return action
