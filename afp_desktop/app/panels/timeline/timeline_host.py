"""The timeline dock's content, built after the window's first frame.

The timeline draws with pyqtgraph, whose import (with numpy) costs more than half a second: the window shows
first and the plots are built a moment later (`build`, called by the window once it has painted). Play, speed
and drilling out belong to the session, so the keys work before the plots exist; any other attribute of the
timeline (tests, the window) builds it at once and is read from the real `TimelinePanel`.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from afp_desktop.app.panels.panel import PanelDefaults

MIN_HEIGHT = 150      # the plots' minimum and the controls; the dock keeps its size when they arrive
PLOTS_MIN_HEIGHT = 96  # (the panel asks for 180: too much for a 640-px-high window)
BARS_HEIGHT = 84       # the per-stop bars, and in a low dock a shorter version so the stop markers keep room
LOW_BARS_HEIGHT = 52
LOW_DOCK = 215
WAIT_FOR_IMPORTS_MS = 20
# pyqtgraph's import reads every attribute of QtCore, QtGui and QtWidgets, and PySide6 makes each type on first
# read, which is much of the import's time. The host reads them first, this many per event-loop turn (a short
# slice each), so that the import itself (on the window's thread, where it must be: app/pacing/warm_imports.py)
# finds them made and freezes the window for less.
PRIME_NAMES_PER_TURN = 60


def _pyqtgraph_imported() -> bool:
    return "pyqtgraph" in sys.modules


def _qt_names() -> list[tuple[object, str]]:
    from PySide6 import QtCore, QtGui, QtWidgets

    return [(module, name) for module in (QtCore, QtGui, QtWidgets) for name in dir(module)
            if not name.startswith("_")]


class TimelineHost(QWidget, PanelDefaults):
    speed_changed = Signal(float)

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self._panel = None
        self._unread: list[tuple[object, str]] | None = None  # Qt names not yet read (build_when_ready)
        self._theme = "light"
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
        """The real TimelinePanel, built now if it was not yet."""
        if self._panel is None:
            self.build()
        return self._panel

    def build_when_ready(self) -> None:
        """Build once numpy has been imported off the window's thread (app/pacing/warm_imports.py); pyqtgraph is then
        imported here, on the window's thread, where it must be."""
        from afp_desktop.app.pacing import warm_imports

        if self._panel is not None:
            return
        if not warm_imports.ready():
            QTimer.singleShot(WAIT_FOR_IMPORTS_MS, self, self.build_when_ready)  # (never after the host is gone)
            return
        if self._unread is None:  # (none to read once pyqtgraph is in: it has read them all)
            self._unread = [] if _pyqtgraph_imported() else _qt_names()
        chunk, self._unread = self._unread[:PRIME_NAMES_PER_TURN], self._unread[PRIME_NAMES_PER_TURN:]
        for module, name in chunk:
            getattr(module, name, None)
        if self._unread:
            QTimer.singleShot(0, self, self.build_when_ready)
            return
        self.build()

    def build(self) -> None:
        if self._panel is not None:
            return
        from afp_desktop.app.panels.timeline.timeline import TimelinePanel  # imports pyqtgraph

        panel = TimelinePanel(self.session, self)  # a child from the start: never a window of its own
        panel.plots.setMinimumHeight(PLOTS_MIN_HEIGHT)
        panel.set_theme(self._theme)
        panel.show_speed(self.session.speed)
        if self.session.run is not None:  # a run opened before the plots existed
            panel.show_run(self.session.run)
        self._layout.removeWidget(self._waiting)
        self._waiting.deleteLater()
        self._layout.addWidget(panel)
        self._panel = panel
        self._fit_bars()
        if self._pending_marks:
            panel.set_search_marks(self._pending_marks)
        for callback in self._when_built:
            callback(panel)
        self._when_built.clear()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_bars()

    def _fit_bars(self) -> None:
        if self._panel is not None:
            self._panel.bar_plot.setFixedHeight(BARS_HEIGHT if self.height() >= LOW_DOCK else LOW_BARS_HEIGHT)

    def __getattr__(self, name: str):
        # Only reached for names this class lacks: they are the panel's.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.panel, name)

    # -- what the window calls before the plots exist --------------------------------------------------------
    _pending_marks: list = []
    _when_built: list = []

    def when_built(self, callback) -> None:
        """Call `callback(panel)` once the real TimelinePanel exists (now, if it does): what adds to the plots
        waits for them instead of building them before the first frame."""
        if self._panel is not None:
            callback(self._panel)
        else:
            self.__dict__.setdefault("_when_built", []).append(callback)

    def set_search_marks(self, positions) -> None:
        """Search matches to mark: kept until the plots exist (a search never builds them early)."""
        if self._panel is not None:
            self._panel.set_search_marks(positions)
        else:
            self._pending_marks = list(positions)
    def set_theme(self, theme: str) -> None:
        self._theme = theme
        if self._panel is not None:
            self._panel.set_theme(theme)

    # -- the panel's calls (app/panels/panel.py): the plots, once built, follow; before, build() catches up -------
    def run_loaded(self, run) -> None:
        if self._panel is not None:
            self._panel.run_loaded(run)

    def run_grown(self, run) -> None:
        if self._panel is not None:
            self._panel.run_grown(run)

    def run_closed(self) -> None:
        if self._panel is not None:
            self._panel.run_closed()

    def moment(self, moment) -> None:
        if self._panel is not None:
            self._panel.moment(moment)

    def stops_changed(self) -> None:
        if self._panel is not None:
            self._panel.stops_changed()

    def show_playing(self, playing: bool) -> None:
        if self._panel is not None:
            self._panel.show_playing(playing)

    def show_speed(self, speed: float) -> None:
        self.speed_changed.emit(speed)  # (the window keeps it in the settings)
        if self._panel is not None:
            self._panel.show_speed(speed)

    @property
    def speed(self) -> float:
        return self.session.speed

    def set_speed(self, speed: float) -> None:
        self.session.set_speed(speed)

    @property
    def playing(self) -> bool:
        return self.session.playing

    def toggle_play(self) -> None:
        self.session.toggle_play()

    def stop_playing(self) -> None:
        self.session.stop_playing()

    def back_out(self, depth: int = 0) -> None:
        self.session.drill_out(depth)
