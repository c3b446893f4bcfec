"""Puts the Event list (bottom, a tab beside the timeline, shown from View ▸ Event list) and the Context tab (right, beside the inspector)
into the main window, the pause marks on the graph and timeline, and the stop links. One call from MainWindow
keeps the window's own code unaware of them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from afp_desktop.app import pause_view, stop_links
from afp_desktop.app.panels.context_panel import ContextPanel
from afp_desktop.app.panels.event_list import EventListPanel


def install(window) -> None:
    session = window.session
    events = window.event_list = EventListPanel(session)
    context = window.context_panel = ContextPanel(session)
    window.panels["events"], window.panels["context"] = events, context  # (themed with the other panels)
    window.events_dock = window._dock("events", "Events", events, Qt.DockWidgetArea.BottomDockWidgetArea)
    window.context_dock = window._dock("context", "Context", context, Qt.DockWidgetArea.RightDockWidgetArea)
    window.docks["events"], window.docks["context"] = window.events_dock, window.context_dock
    if "inspector" in window.docks:
        window.tabifyDockWidget(window.docks["inspector"], window.context_dock)
        window.docks["inspector"].raise_()
    window.timeline_dock.raise_()
    # Hidden until asked for (View ▸ Event list), then a tab beside the timeline. It is tabbed only then: Qt
    # restores a saved window's height wrongly when a hidden dock shares a tab group.
    window.events_dock.hide()
    panels = next((a.menu() for a in window.menuBar().actions() if a.text() == "&View"), None)
    panels = next((a.menu() for a in panels.actions() if a.menu() and a.text() == "&Panels"), None) if panels else None
    view = next((a.menu() for a in window.menuBar().actions() if a.text() == "&View"), None)
    if view is not None:
        action = window.show_events_action = QAction("&Event list", window)
        action.triggered.connect(lambda: show_event_list(window))
        view.insertAction(view.actions()[0] if view.actions() else None, action)
    if panels is not None:
        panels.addAction(window.events_dock.toggleViewAction())
        panels.addAction(window.context_dock.toggleViewAction())
    pause_view.install(window)

    def with_plots(panel) -> None:  # the timeline's plots are built after the window's first frame
        from afp_desktop.app import iteration_bands  # (pyqtgraph)

        bands = iteration_bands.install(window, panel)
        window.panels["iteration_readout"] = bands.readout  # (re-themed with the panels)
        bands.set_theme(getattr(window, "theme", "light"))
        if window.session.run is not None:
            bands.redraw()

    if hasattr(type(window.timeline), "when_built"):
        window.timeline.when_built(with_plots)
    else:
        with_plots(window.timeline)
    stop_links.install(window)


def show_event_list(window) -> None:
    """Show the event list as a tab beside the timeline (where it was, if the user moved it) and bring it up."""
    dock = window.events_dock
    if not dock.isVisible() and not dock.isFloating() and not window.tabifiedDockWidgets(dock) \
            and window.dockWidgetArea(dock) == window.dockWidgetArea(window.timeline_dock):
        window.tabifyDockWidget(window.timeline_dock, dock)
    dock.show()
    dock.raise_()
    window.event_list.table.setFocus()
