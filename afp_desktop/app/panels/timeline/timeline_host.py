"""The timeline dock's content: a placeholder until the TimelinePanel is built, a few turns after the window's
first frame, then the panel. The host only hosts: what the timeline shows and does is the panel's (`panel`,
`when_built`), play, speed and drilling out are the session's, so the keys work before the panel exists.

The build goes in pieces, each run on a turn of its own through the window's queue of deferred work
(app/pacing/scheduler.py), so that none shares a turn with a paint or another panel's work: the panel's module, the
panel, then the run shown in it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from afp_desktop.app.pacing import scheduler

MIN_HEIGHT = 150      # the plots' minimum and the controls; the dock keeps its size when they arrive
PLOTS_MIN_HEIGHT = 56  # the canvas's least height in a dock (the panel asks for 180): its stops and their axis
BARS_HEIGHT = 84       # the per-stop bars, and in a low dock a shorter version so the stop markers keep room
LOW_BARS_HEIGHT = 52
LOW_DOCK = 215
PANEL_MODULE = "afp_desktop.app.panels.timeline.timeline"


class TimelineHost(QWidget):
    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self._panel = None  # the TimelinePanel once it shows the session's run (`built`)
        self._made = None  # the TimelinePanel made, before it is shown
        self._pieces: Iterator[None] | None = None  # what is left of the build (build_when_ready)
        self._when_built: list[Callable] = []
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._waiting = QLabel("Preparing the timeline…")
        self._waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._waiting.setEnabled(False)
        self._layout.addWidget(self._waiting)
        self.setMinimumHeight(MIN_HEIGHT)

    @property
    def built(self) -> bool:
        return self._panel is not None

    @property
    def panel(self):
        """The TimelinePanel, built now if it was not yet (the window builds it after its first frame; a picture
        taken and a test ask for it at once)."""
        self.build()
        return self._panel

    def when_built(self, callback: Callable) -> None:
        """Call `callback(panel)` once the TimelinePanel exists (now, if it does), in the order asked: what adds
        to the panel or sets it up (its theme, search marks) waits for it instead of building it early."""
        if self._panel is not None:
            callback(self._panel)
        else:
            self._when_built.append(callback)

    def build_when_ready(self) -> None:
        """Build the panel in pieces, one per turn (see the module's docstring)."""
        if self._panel is not None or self._pieces is not None:
            return
        self._pieces = self._build_in_pieces()
        scheduler.later(self, "build", self._next_piece)

    def _next_piece(self) -> None:
        if self._pieces is not None and next(self._pieces, True) is None:
            scheduler.later(self, "build", self._next_piece)

    def _build_in_pieces(self) -> Iterator[None]:
        if PANEL_MODULE not in sys.modules:
            importlib.import_module(PANEL_MODULE)
            yield
        self._make_panel()
        yield
        self._show_panel()

    def build(self) -> None:
        """Build the panel now, whole (what is left of a build in pieces is dropped)."""
        if self._panel is None:
            self._make_panel()
            self._show_panel()
        self._pieces = iter(())

    def _make_panel(self) -> None:
        if self._made is not None:
            return
        from afp_desktop.app.panels.timeline.timeline import TimelinePanel

        self._made = TimelinePanel(self.session, self)  # a child from the start: never a window of its own
        self._made.hide()
        self._made.canvas.setMinimumHeight(PLOTS_MIN_HEIGHT)
        self._made.show_speed(self.session.speed)

    def _show_panel(self) -> None:
        """The panel takes the placeholder's place, showing the run opened before it was made (one opened since,
        it heard of itself); then what waited for it is called."""
        panel = self._made
        run = self.session.run
        if run is not None and panel.series is None:
            panel.show_run(run)
        self._layout.removeWidget(self._waiting)
        self._waiting.deleteLater()
        self._layout.addWidget(panel)
        panel.show()
        self._panel = panel
        self._fit_bars()
        callbacks, self._when_built = self._when_built, []
        for callback in callbacks:
            callback(panel)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_bars()

    def _fit_bars(self) -> None:
        if self._panel is not None:
            self._panel.canvas.set_bars_height(BARS_HEIGHT if self.height() >= LOW_DOCK else LOW_BARS_HEIGHT)
