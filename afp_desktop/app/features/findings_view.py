"""View ▸ Findings: the Findings panel (panels/findings_panel.py) as a tab beside the inspector, greyed or hidden
for what is still to come as the window's "Future steps" choice says. A feature of the window's list
(main_window.window_features)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.panels.findings_panel import FindingsPanel


class FindingsShown(PanelDefaults):
    key = "findings"

    def __init__(self, window) -> None:
        self.window = window
        self.panel = FindingsPanel(window.session)
        dock = window.add_dock("findings", "Findings", self.panel, Qt.DockWidgetArea.RightDockWidgetArea)
        if "inspector" in window.docks:
            window.tabifyDockWidget(window.docks["inspector"], dock)
            window.docks["inspector"].raise_()
        window.bind_action("show_findings", self.show)
        self.panel.set_future_mode(window.settings.get("future_mode"))
        for mode in ("dim", "hide"):
            window.action(f"future_{mode}").triggered.connect(lambda _c=False, m=mode: self.panel.set_future_mode(m))

    def show(self) -> None:
        """Bring the panel up, its list focused (Enter on a row goes there)."""
        dock = self.window.docks["findings"]
        dock.show()
        dock.raise_()
        self.panel.tree.setFocus()
