"""The Event list (bottom, a tab beside the timeline, shown from View ▸ Event list) and the Context tab (right,
beside the inspector): a feature of the window's list (main_window.window_features)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.panels.context_panel import ContextPanel
from afp_desktop.app.panels.event_list import EventListPanel


class EventsAndContext(PanelDefaults):
    key = "events_and_context"

    def __init__(self, window) -> None:
        session = window.session
        requests = window.engine_requests  # (the rows, the types, a filter and the state: the engine's answers)
        events, context = EventListPanel(session, requests), ContextPanel(session, requests)
        events_dock = window.add_dock("events", "Events", events, Qt.DockWidgetArea.BottomDockWidgetArea)
        context_dock = window.add_dock("context", "Context", context, Qt.DockWidgetArea.RightDockWidgetArea)
        if "inspector" in window.docks:
            window.tabifyDockWidget(window.docks["inspector"], context_dock)
            window.docks["inspector"].raise_()
        window.docks["timeline"].raise_()
        # Hidden until asked for (View ▸ Event list), then a tab beside the timeline. It is tabbed only then: Qt
        # restores a saved window's height wrongly when a hidden dock shares a tab group.
        events_dock.hide()
        window.bind_action("show_events", lambda: show_event_list(window))


def show_event_list(window) -> None:
    """Show the event list as a tab beside the timeline (where it was, if the user moved it) and bring it up."""
    dock, timeline = window.docks["events"], window.docks["timeline"]
    if not dock.isVisible() and not dock.isFloating() and not window.tabifiedDockWidgets(dock) \
            and window.dockWidgetArea(dock) == window.dockWidgetArea(timeline):
        window.tabifyDockWidget(timeline, dock)
    dock.show()
    dock.raise_()
    window.panels["events"].table.setFocus()
