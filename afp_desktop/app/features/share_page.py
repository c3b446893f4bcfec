"""File ▸ Share as web page…: the run shown, with the window's templates and at its current stop, written as one
self-contained HTML file (core/views/share_html.py) that anyone can replay in a browser. The page is built on a
thread beside the window; the file is written through the one safe writer once it is ready."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from PySide6.QtCore import QObject, QThread, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.app.export.export_dialog import default_export_folder, proposed_file_name, remember_export_folder
from afp_desktop.app.pacing.stoppable import stoppable
from afp_desktop.core.formats import LoadCancelled
from afp_desktop.core.safe_write import UnsafeOutput, check_destination, write_file


class _PageThread(QThread):
    made = Signal(object)  # bytes, or the exception that stopped it

    def __init__(self, run, templates: dict, app_name: str, stop: int | None, parent: QObject | None = None):
        super().__init__(parent)
        self._args = (run, templates, app_name, stop)
        self.stop_flag = threading.Event()

    def run(self) -> None:
        from afp_desktop.core.views.share_html import page_bytes

        run, templates, app_name, stop = self._args
        try:
            with stoppable(self.stop_flag):
                page = page_bytes(run, templates, app_name, stop=stop, title=os.path.basename(run.path))
        except Exception as err:  # noqa: BLE001 - said to the user in a sentence
            self.made.emit(err)
        else:
            self.made.emit(page)


class SharePage(PanelDefaults):
    key = "share"

    def __init__(self, window) -> None:
        self.window = window
        self.thread: _PageThread | None = None
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
        self.stop()
        self.thread = _PageThread(run, dict(session.templates), session.app_name, session.stop_index, self.window)
        self.thread.made.connect(lambda result, p=path, r=run: self._made(result, p, r))
        self.window.show_status("Making the web page…", 0)
        self.thread.start()

    def _made(self, result, path: str, run) -> None:
        self.thread = None
        if isinstance(result, LoadCancelled):
            return
        if isinstance(result, Exception):
            QMessageBox.warning(self.window, "Share failed", f"Could not make the web page: {result}")
            self.window.show_status("")
            return
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

    def stop(self, wait_ms: int = 5000) -> None:
        thread, self.thread = self.thread, None
        if thread is not None:
            thread.stop_flag.set()
            thread.wait(wait_ms)
