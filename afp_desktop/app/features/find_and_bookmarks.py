"""Find in run (Ctrl+Shift+F) and Bookmarks (Ctrl+B) in the main window: a feature of the window's list
(main_window.window_features), built on the window's public API."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.export.export_dialog import default_export_folder, proposed_file_name, remember_export_folder
from afp_desktop.app.panels.bookmarks_panel import BookmarksPanel
from afp_desktop.app.panels.find_panel import FindPanel


class FindAndBookmarks(PanelDefaults):
    """Find in run and Bookmarks: two docks on the left, hidden until asked for, the Find menu's actions, and the
    search marks forwarded to the timeline and the graph."""

    key = "find_and_bookmarks"

    def __init__(self, window) -> None:
        session = window.session
        find, bookmarks = FindPanel(session, window.engine_requests), BookmarksPanel(session)
        area = Qt.DockWidgetArea.LeftDockWidgetArea
        find_dock = window.add_dock("find", "Find in run", find, area)
        bookmarks_dock = window.add_dock("bookmarks", "Bookmarks", bookmarks, area)
        # One above the other (tabified hidden docks leave an empty tab bar behind in Qt 6).
        window.splitDockWidget(find_dock, bookmarks_dock, Qt.Orientation.Vertical)
        window.resizeDocks([find_dock], [380], Qt.Orientation.Horizontal)
        for dock in (find_dock, bookmarks_dock):
            dock.hide()
        find.marks_changed.connect(lambda positions, nodes: (
            window.timeline.when_built(lambda panel: panel.set_search_marks(positions)),
            window.canvas.set_search_marks({window.folding.to_shown(n) for n in nodes if n is not None})))
        # Closing the Find panel takes its marks away; opening it again brings them back.
        find_dock.visibilityChanged.connect(lambda shown: window.isMinimized() or find.show_marks(shown))
        bookmarks.message.connect(lambda text: window.banner.add_message(text, "warning"))
        window.bind_action("find_in_run", lambda: show_find(window))
        window.bind_action("bookmark", lambda: add_bookmark(window))
        window.bind_action("show_bookmarks", action=bookmarks_dock.toggleViewAction())
        window.bind_action("export_bookmarks", lambda: export_bookmarks_json(window))
        window.bind_action("export_with_notes", lambda: export_graph_with_notes(window))


def show_find(window) -> None:
    window.docks["find"].show()
    window.docks["find"].raise_()
    window.panels["find"].focus_search()


def add_bookmark(window) -> None:
    if window.session.run is None:
        return
    window.panels["bookmarks"].ask_and_add()
    window.docks["bookmarks"].show()


def export_bookmarks_json(window) -> None:
    run = window.session.run
    if run is None:
        return
    folder = default_export_folder(window.settings.get("export_folder"))  # not the input's
    path, _filter = QFileDialog.getSaveFileName(window, "Export bookmarks as JSON",
                                                str(Path(folder) / proposed_file_name(run.path, "json", "bookmarks")),
                                                "JSON (*.json)")
    if path:
        try:
            window.panels["bookmarks"].export_json(path)
        except (OSError, ValueError) as err:
            QMessageBox.warning(window, "Export failed", f"Could not export the bookmarks: {err}")
            return
        remember_export_folder(window, path)
        window.show_status(f"Exported the bookmarks to {path}", 8000)


def export_graph_with_notes(window) -> None:
    """The whole graph as PNG or SVG with the bookmarks listed under it as captions."""
    from afp_desktop.app.export.export import export_view

    run = window.session.run
    if run is None or window.canvas.art is None:
        return
    folder = default_export_folder(window.settings.get("export_folder"))  # not the input's
    path, _filter = QFileDialog.getSaveFileName(window, "Export graph with bookmark notes",
                                                str(Path(folder) / proposed_file_name(run.path, "png", "bookmarks")),
                                                "PNG image (*.png);;SVG image (*.svg)")
    if not path:
        return
    if not path.lower().endswith((".png", ".svg")):
        path += ".png"
    try:
        run = window.session.run
        export_view(window.canvas, path, whole_graph=True, include_cursor=False,
                    captions=window.panels["bookmarks"].captions(), inputs=[run.path] if run is not None else [])
    except (OSError, ValueError) as err:
        QMessageBox.warning(window, "Export failed", f"Could not export the graph: {err}")
        return
    remember_export_folder(window, path)
    window.show_status(f"Exported the graph with its bookmarks to {path}", 8000)
