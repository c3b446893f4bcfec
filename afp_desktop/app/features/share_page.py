"""File ▸ Share as web page…: the run shown, with the window's templates and at its current stop, written as one
self-contained HTML file (core/views/share_html.py) that anyone can replay in a browser. The page is made by the
engine (a "share_page" request: it holds the run's events); the file is written through the one safe writer once
the page has come."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.export.export_dialog import default_export_folder, proposed_file_name, remember_export_folder
from afp_desktop.core.safe_write import UnsafeOutput, check_destination, write_file


TAG = "share_page"  # (the engine request's tag: a newer share supersedes one under way)


class SharePage(PanelDefaults):
    key = "share"

    def __init__(self, window) -> None:
        self.window = window
        self.written: str | None = None  # the last page written
        self.action = window.bind_action("share", self.ask)
        self.action.setEnabled(False)

    def run_loaded(self, _run) -> None:
        self.action.setEnabled(True)

    def run_closed(self) -> None:
        self.action.setEnabled(False)

    def ask(self) -> None:
        run = self.window.session.run
        if run is None:
            return
        folder = default_export_folder(self.window.settings.get("export_folder"))
        path, _filter = QFileDialog.getSaveFileName(self.window, "Share as web page",
                                                    str(Path(folder) / proposed_file_name(run.path, "html", "replay")),
                                                    "Web page (*.html)")
        if path:
            self.share_to(path if path.lower().endswith((".html", ".htm")) else path + ".html")

    def share_to(self, path: str) -> None:
        """Build the page of the run shown (the window's templates, the stop at the cursor) and write it to `path`."""
        session = self.window.session
        run = session.run
        if run is None:
            return
        try:
            check_destination(path, [run.path])  # before the work: a refused destination costs nothing
        except UnsafeOutput as err:
            QMessageBox.warning(self.window, "Share failed", str(err))
            return
        args = {"templates": dict(session.templates), "app_name": session.app_name, "stop": session.stop_index,
                "title": os.path.basename(run.path)}
        self.window.engine_requests.request(TAG, "share_page", args,
                                            lambda page, p=path, r=run: self._made(page, p, r), self._failed)
        self.window.show_status("Making the web page…", 0)

    def _failed(self, why: str) -> None:
        QMessageBox.warning(self.window, "Share failed", f"Could not make the web page: {why}")
        self.window.show_status("")

    def _made(self, result: bytes, path: str, run) -> None:
        try:
            write_file(path, result, [run.path])
        except (OSError, UnsafeOutput) as err:
            QMessageBox.warning(self.window, "Share failed", f"Could not write the web page: {err}")
            self.window.show_status("")
            return
        self.written = path
        remember_export_folder(self.window, path)
        self.window.show_status(f"Shared the run as a web page: {path} ({len(result):,} bytes; it contains the full "
                                "conversation unless the file was redacted)", 15000)

    def stop(self) -> None:
        """The page asked for, if any, is no longer wanted."""
        self.window.engine_requests.drop(TAG)
