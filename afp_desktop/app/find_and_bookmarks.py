"""Puts Find in run (Ctrl+Shift+F) and Bookmarks (Ctrl+B) into the main window: two docks on the left, hidden
until asked for, a Find menu, and the search marks forwarded to the timeline and the graph. One call from
MainWindow keeps the window's own code unaware of both."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from afp_desktop.app.export_dialog import default_export_folder, proposed_file_name, remember_export_folder
from afp_desktop.app.panels.bookmarks_panel import BookmarksPanel
from afp_desktop.app.panels.find_panel import FindPanel
from afp_desktop.app.shortcuts import key_sequences


def install(window) -> None:
    session = window.session
    find = window.find_panel = FindPanel(session)
    bookmarks = window.bookmarks_panel = BookmarksPanel(session)
    window.panels["find"], window.panels["bookmarks"] = find, bookmarks  # (themed with the other panels)
    area = Qt.DockWidgetArea.LeftDockWidgetArea
    window.find_dock = window._dock("find", "Find in run", find, area)
    window.bookmarks_dock = window._dock("bookmarks", "Bookmarks", bookmarks, area)
    # One above the other (tabified hidden docks leave an empty tab bar behind in Qt 6).
    window.splitDockWidget(window.find_dock, window.bookmarks_dock, Qt.Orientation.Vertical)
    window.resizeDocks([window.find_dock], [380], Qt.Orientation.Horizontal)
    for dock in (window.find_dock, window.bookmarks_dock):
        dock.hide()

    find.marks_changed.connect(lambda positions, nodes: (
        window.timeline.set_search_marks(positions),
        window.canvas.set_search_marks({window.folding.to_shown(n) for n in nodes if n is not None})))  # (the cards drawn)
    # Closing the Find panel takes its marks away; opening it again brings them back.
    window.find_dock.visibilityChanged.connect(lambda shown: window.isMinimized() or find.show_marks(shown))
    bookmarks.message.connect(lambda text: window.banner.add_message(text, "warning"))

    menu = window.menuBar().addMenu("F&ind")
    help_menu = next((a for a in window.menuBar().actions() if a.text() == "&Help"), None)
    if help_menu is not None:  # before Help, where people look for it
        window.menuBar().insertMenu(help_menu, menu)

    def action(text, slot, shortcut_id=None):
        item = menu.addAction(text)
        if shortcut_id:
            item.setShortcuts(key_sequences(shortcut_id))
            item.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        item.triggered.connect(slot)
        return item

    action("&Find in run…", lambda: show_find(window), "find_in_run")
    menu.addSeparator()
    window.bookmark_action = action("&Bookmark this stop…", lambda: add_bookmark(window), "bookmark")
    menu.addAction(window.bookmarks_dock.toggleViewAction())
    action("Export bookmarks as &JSON…", lambda: export_bookmarks_json(window))
    action("Export graph with bookmark &notes…", lambda: export_graph_with_notes(window))
    panels = next((a.menu() for a in window.menuBar().actions() if a.text() == "&View"), None)
    panels = next((a.menu() for a in panels.actions() if a.menu() and a.text() == "&Panels"), None) if panels else None
    if panels is not None:
        panels.addAction(window.find_dock.toggleViewAction())
        panels.addAction(window.bookmarks_dock.toggleViewAction())


def show_find(window) -> None:
    window.find_dock.show()
    window.find_dock.raise_()
    window.find_panel.focus_search()


def add_bookmark(window) -> None:
    if window.session.run is None:
        return
    window.bookmarks_panel.ask_and_add()
    window.bookmarks_dock.show()


def export_bookmarks_json(window) -> None:
    run = window.session.run
    if run is None:
        return
    folder = default_export_folder(window.settings.get("export_folder"))  # not the input's (issue 15)
    path, _filter = QFileDialog.getSaveFileName(window, "Export bookmarks as JSON",
                                                str(Path(folder) / proposed_file_name(run.path, "json", "bookmarks")),
                                                "JSON (*.json)")
    if path:
        try:
            window.bookmarks_panel.export_json(path)
        except (OSError, ValueError) as err:
            QMessageBox.warning(window, "Export failed", f"Could not export the bookmarks: {err}")
            return
        remember_export_folder(window, path)
        window.statusBar().showMessage(f"Exported the bookmarks to {path}", 8000)


def export_graph_with_notes(window) -> None:
    """The whole graph as PNG or SVG with the bookmarks listed under it as captions."""
    from afp_desktop.app.export import export_view

    run = window.session.run
    if run is None or window.canvas.art is None:
        return
    folder = default_export_folder(window.settings.get("export_folder"))  # not the input's (issue 15)
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
                    captions=window.bookmarks_panel.captions(), inputs=[run.path] if run is not None else [])
    except (OSError, ValueError) as err:
        QMessageBox.warning(window, "Export failed", f"Could not export the graph: {err}")
        return
    remember_export_folder(window, path)
    window.statusBar().showMessage(f"Exported the graph with its bookmarks to {path}", 8000)
