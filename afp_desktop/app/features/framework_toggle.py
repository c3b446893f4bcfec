"""View ▸ Hide framework steps, and the "N framework steps hidden" chip on the graph.

agentfootprint-lens hides the framework's own steps by default (its `isFrameworkChartNode` collapse); so does this
window, remembering the user's choice. While they are hidden, a chip in the graph's bottom-left corner says how
many (with future steps hidden too, how many have happened at the cursor); a click on it shows them (the same as unticking the menu item). What counts as a framework step and how the
graph is drawn either way is core/model/framework_steps.py; graph_folding.py maps the cards.
"""

from __future__ import annotations

import bisect
from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.widgets.plain_text import TooltipWhenAsked, plain_tooltip
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
        a big run's thousands of hidden steps would add to the showing of every big run)."""
        self.count = count
        self.setText(f"⚙ {count:,} framework step{'' if count == 1 else 's'} hidden")
        self._described, self._tooltip = described, None
        self.setVisible(count > 0)
        if count > 0:
            self.adjustSize()
            self.raise_()
        self._place()  # (placed, or its room given back)

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
        self.canvas.reserve(bottom=size.height() + 2 * MARGIN if self.isVisible() else 0)


class FrameworkToggle(PanelDefaults):
    """View ▸ Hide framework steps (checked from the settings), the chip saying how many are hidden, and their
    wiring."""

    key = "framework"

    def __init__(self, window) -> None:
        self.window = window
        folding, settings = window.folding, window.settings
        self.action = action = window.bind_action("hide_framework")
        hide = bool(settings.get("hide_framework_steps"))
        action.setChecked(hide)
        folding.hide_framework = hide
        self.chip = HiddenChip(window.canvas)
        self._plumbing: list[int] = []  # per graph shown: the drawn plumbing nodes
        self._entries: list[int] = []  # and the framework steps' entries
        self._described = ""
        action.toggled.connect(self._toggled)
        folding.framework_changed.connect(self._counted)
        self.chip.clicked.connect(lambda: action.setChecked(False))
        for future in window.future_actions.values():  # View ▸ Future steps dimmed / hidden
            future.triggered.connect(self.refresh)

    def run_closed(self) -> None:
        self._closed()

    def moment(self, moment) -> None:
        self._moved(moment)

    def _toggled(self, on: bool) -> None:
        settings = self.window.settings
        settings.set("hide_framework_steps", bool(on))
        settings.save()
        self.window.folding.set_hide_framework(bool(on))
        if not on:
            self.chip.show_count(0)

    def _counted(self, count: int) -> None:
        run, folding = self.window.session.run, self.window.folding
        self._plumbing = list(folding.fw_nodes) if count else []
        self._entries = sorted(s.entry for s in folding.fw_steps) if count else []
        steps, plumbing = folding.fw_steps, folding.fw_nodes
        self._described = (lambda: describe_hidden(run.stepgraph.get("nodes") or [], steps, plumbing)) \
            if count and run is not None else ""
        self.refresh()

    def refresh(self, *_args) -> None:
        """The chip's count: every hidden step (the graph previews the whole run, dimmed); with future steps
        hidden (View ▸ Future steps hidden), only those that have happened at the cursor."""
        window = self.window
        run, moment = window.session.run, window.session.moment
        if run is None or not window.folding.hide_framework:
            self.chip.show_count(0)
            return
        count = len(self._entries) + len(self._plumbing)
        if window.canvas.future_mode == "hide" and moment is not None:
            n = moment.n_domain
            created = moment.facts.created
            count = bisect.bisect_left(self._entries, n) + sum(1 for i in self._plumbing if created[i] < n)
        self.chip.show_count(count, self._described if count else "")

    def _closed(self) -> None:
        self._plumbing, self._entries, self._described = [], [], ""  # (its description held the run closed)
        self.chip.show_count(0)

    def _moved(self, _moment) -> None:
        if self.window.canvas.future_mode == "hide" and self.window.folding.hide_framework:
            self.refresh()
