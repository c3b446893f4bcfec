"""Links to a stop: "Copy link to this stop" (Go menu, Ctrl+Shift+L, and the timeline's context menu) puts
`afp-desktop "<path>" --at <runtimeStageId>` on the clipboard; `open_at(path, stage_id)` opens a file at that
stage (core/links.py resolves it) and says in the status bar which stop it chose and why."""

from __future__ import annotations

import os

from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu

from afp_desktop.app.panels.panel import PanelDefaults
from afp_desktop.core.views.links import link_command, resolve_stage, stop_stage_id


def link_for_stop(session, index: int | None = None) -> tuple[str | None, str]:
    """(the command, a message) for stop `index` of the level shown, or the stop the cursor is in."""
    run = session.run
    if run is None:
        return None, "No run is open."
    spans = session.spans
    if index is None:
        index = session.stop_index
    if index is None or not 0 <= index < len(spans):
        return None, "The cursor is not in a stop: nothing to link to."
    span = spans[index]
    stage_id = stop_stage_id(span)
    if stage_id is None:
        return None, f"{span.label} has no stage id to link to (the run's start and end are bookends)."
    conversation = run.bundle.chosen if run.bundle is not None else None
    command = link_command(os.path.abspath(run.path), stage_id, conversation)
    return command, f"Copied a link to {span.label}: {command}"


def copy_link(window, index: int | None = None) -> str | None:
    command, message = link_for_stop(window.session, index)
    if command is not None:
        QGuiApplication.clipboard().setText(command)
    window.show_status(message, 10000)
    return command


def open_at(window, path: str, stage_id: str, conversation: str | None = None) -> None:
    """Open `path` and, once loaded, move to the stop `stage_id` names."""
    window.features[StopLinks.key].pending_at = (os.path.abspath(path), stage_id)
    window.open_file(path, conversation)


def apply_at(window, run, stage_id: str) -> str:
    """Move the loaded run to the stop for `stage_id`; returns the message shown in the status bar."""
    session = window.session
    resolved = resolve_stage(stage_id, session.spans, run.stage_ids_on_axis())
    if resolved.stop is not None:
        session.move_to_stop(resolved.stop)
        session.flush()
    # after the window's own "Opened …" message
    QTimer.singleShot(0, window, lambda: window.show_status(resolved.message, 20000))
    return resolved.message


def _timeline_menu(links: StopLinks, pos: QPoint) -> None:
    window = links.window
    timeline = window.timeline.panel  # (the menu is attached once it is built)
    index = timeline.canvas.stop_at(QPointF(pos))
    menu = QMenu(timeline)
    label = timeline.labels[index] if index is not None and index < len(timeline.labels) else "this stop"
    action = menu.addAction(f"Copy link to {label}")
    command, _message = link_for_stop(window.session, index)
    action.setEnabled(command is not None)
    action.triggered.connect(lambda: copy_link(window, index))
    links.timeline_menu = menu
    menu.popup(timeline.canvas.mapToGlobal(pos))


class StopLinks(PanelDefaults):
    """Go ▸ Copy link to this stop, the timeline's context menu, and a file opened `--at` a stage."""

    key = "stop_links"

    def __init__(self, window) -> None:
        self.window = window
        self.pending_at: tuple[str, str] | None = None  # (file, stage id) to move to once that file is loaded
        self.at_message: str | None = None  # what moving there said
        self.timeline_menu: QMenu | None = None
        window.bind_action("copy_link", lambda: copy_link(window))
        window.timeline.when_built(self._attach)

    def run_loaded(self, run) -> None:
        pending, self.pending_at = self.pending_at, None
        if pending is not None and pending[0] == os.path.abspath(run.path):
            self.at_message = apply_at(self.window, run, pending[1])

    def _attach(self, panel) -> None:
        panel.canvas.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        panel.canvas.customContextMenuRequested.connect(lambda pos: _timeline_menu(self, pos))
