"""File ▸ Follow: show a run while the agent writes it.

An NDJSON stream is followed by the engine (engine/follow.py: the engine process, or a thread of this one when the
window loads in its own process; app/loading/follow_link.py): it reads what is new, through rotations, grows the
run, prepares its views and sends the grown run's window copy, as after an open (core/views/window_copy.py), at
most every 25 ms and once the window has shown the last one (the next is made meanwhile); from then on the engine
answers the requests about it. The window hands the copy to the session as a growth of the run shown
(window_copy.extends) or as a new run; its panels extend what they show (growth.py). The window's process never
reads, parses or projects the followed lines and holds none of its events. The cursor stays at the live end if it
was there, otherwise where the user put it; "Jump to live" goes back to the end.
When the engine process ends while it follows, the window says so as for a load (a banner with Reload).

A Trace or recording (one JSON document) cannot grow line by line: when it is rewritten whole, it is reloaded
with File ▸ Reload's logic, which keeps the cursor (a QFileSystemWatcher wakes the check; a 100 ms timer polls
too: watchers miss renames and some file systems).
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel, QPushButton

if TYPE_CHECKING:  # (the follow's machinery and the formats are imported by the first follow, not with the window)
    from afp_desktop.app.loading.follow_link import ProcessFollow, ThreadFollow

POLL_MS = 100  # a whole document's file is looked at this often (the engine polls a stream itself)
GROWING_WINDOW_S = 1.0  # a file whose size or time changes within this long after opening is still being written


def _stat_key(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _ends_mid_line(path: str) -> bool:
    from afp_desktop.core.formats.errors import LoadError
    from afp_desktop.core.formats.source import open_regular

    try:
        handle, info = open_regular(path)
        with handle:
            return info.st_size > 0 and os.pread(handle.fileno(), 1, info.st_size - 1) != b"\n"
    except (LoadError, OSError):
        return False


def _is_plain_stream(run, path: str) -> bool:
    """A stream the follower can read line by line: the file sink's NDJSON, not compressed."""
    if run is None or run.format != "ndjson":
        return False
    from afp_desktop.core.formats.errors import LoadError
    from afp_desktop.core.formats.source import GZIP_MAGIC, XZ_MAGIC, open_regular

    try:
        handle, _info = open_regular(path)
        with handle:
            head = handle.read(6)
    except (LoadError, OSError):
        return False
    return not (head.startswith(GZIP_MAGIC) or head.startswith(XZ_MAGIC))


class FollowController(QObject):
    """Owns File ▸ Follow, the Live indicator and "Jump to live" of one MainWindow."""

    live_changed = Signal(bool)
    published = Signal(object)  # the grown Run, once the session shows it
    engine_ended = Signal(str, str)  # (path, how) the engine process ended while it followed the file

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.path: str | None = None
        self.mode: str | None = None  # "stream" | "reload" while following
        self.link: ProcessFollow | ThreadFollow | None = None  # the engine's follow (stream)
        self._ended = False  # the run's end event has been seen
        self._caught_up = False  # a growth has been shown
        self._shown_length = 0  # axis length of the run the session shows (the live end the cursor may be at)
        self._opened: tuple[str, object, float] | None = None  # (path, stat key, time) when a load started
        self._ended_while_following: str | None = None  # the file the engine process was following when it ended
        self._reload_seen = None
        self._stable = None
        self.last_publish_s = 0.0
        self.lines_read = 0  # lines the engine had read when the last growth was sent (benchmarks)
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(POLL_MS)
        self._poll_timer.timeout.connect(self.poll)
        self._ack_timer = QTimer(self)  # the engine may send the next growth (after as long as the last took)
        self._ack_timer.setSingleShot(True)
        self._ack_timer.timeout.connect(self._shown)
        self._growth_timer = QTimer(self)  # owned, so it dies with the window (a bare singleShot would not)
        self._growth_timer.setSingleShot(True)
        self._growth_timer.timeout.connect(self._check_growth)
        self._growth_check: tuple = (None, None)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._woken)
        self._watcher.directoryChanged.connect(self._woken)
        self._build_widgets()
        from afp_desktop.app.loading.growth import GrowthView

        self.growth = GrowthView(window)  # what the panels do with each growth (extend, not rebuild)
        self.session.moment_changed.connect(lambda _moment: self._show_state())

    # -- widgets ----------------------------------------------------------------------------------------
    def _build_widgets(self) -> None:
        self.indicator = QLabel("● Live")
        self.indicator.setObjectName("liveIndicator")
        self.indicator.setStyleSheet("#liveIndicator { color: white; background: #d33a3a; border-radius: 3px; "
                                     "padding: 1px 6px; font-weight: bold; }")
        self.indicator.setToolTip("Following the file while it is written (File ▸ Follow)")
        self.jump_button = QPushButton("Jump to live")
        self.jump_button.setToolTip("Move the cursor to the newest event; it then stays there as the run grows")
        self.jump_button.clicked.connect(self.jump_to_live)
        for widget in (self.indicator, self.jump_button):
            widget.setVisible(False)
            self.window.statusBar().addPermanentWidget(widget)

    def bind_actions(self, window) -> None:
        """File ▸ Follow (checkable) and Go ▸ Jump to live, from the window's action table."""
        self.action = window.bind_action("follow")
        self.action.setEnabled(False)
        self.action.toggled.connect(self._toggled)
        self.jump_action = window.bind_action("jump_to_live", self.jump_to_live)
        self.jump_action.setEnabled(False)

    @property
    def active(self) -> bool:
        return self.mode is not None

    @property
    def growth_check_waiting(self) -> bool:
        """The check whether a file just opened is still being written has yet to run (it runs once the file
        has been open GROWING_WINDOW_S)."""
        return self._growth_timer.isActive()

    @property
    def at_live_end(self) -> bool:
        return self.session.run is not None and self.session.position >= self._shown_length

    # -- hooks from the window --------------------------------------------------------------------------
    def opening(self, path: str) -> None:
        """A load of `path` starts: stop following another file; remember the file's state to tell later
        whether it is still being written."""
        self._growth_timer.stop()
        if self.path is not None and os.path.abspath(self.path) != path:
            self.stop()
        self._opened = (path, _stat_key(path), time.monotonic())

    def loaded(self, run, follow: bool | None = None) -> None:
        """The loader delivered `run`. Follow it when asked (`follow`), or when it was already being followed
        (a reload, or the Reload of an engine that ended while it followed), or when the file is still growing
        (checked over about a second)."""
        self.action.setEnabled(True)
        opened, self._opened = self._opened, None
        ended_while_following, self._ended_while_following = self._ended_while_following, None
        if follow is None and ((self.active and self.path == run.path) or ended_while_following == run.path):
            follow = True
        if follow:
            self.start(run)
            return
        if follow is False or opened is None or opened[0] != os.path.abspath(run.path):
            return
        if _stat_key(run.path) != opened[1] or (_is_plain_stream(run, run.path) and _ends_mid_line(run.path)):
            self.start(run)
            return
        wait = GROWING_WINDOW_S - (time.monotonic() - opened[2])
        self._growth_check = (run.path, _stat_key(run.path))
        self._growth_timer.start(max(0, int(wait * 1000)))

    def _check_growth(self) -> None:
        """About a second after opening: a file that changed meanwhile is being written; follow it."""
        path, key = self._growth_check
        run = self.session.run
        if run is not None and run.path == path and not self.active and _stat_key(path) != key:
            self.start(run)

    # -- following ---------------------------------------------------------------------------------------
    def _toggled(self, on: bool) -> None:
        if on and not self.active and self.session.run is not None:
            self.start(self.session.run)
        elif not on and self.active:
            self.stop()

    def start(self, run) -> None:
        self.stop()
        self.path = run.path
        self.mode = "stream" if _is_plain_stream(run, run.path) else "reload"
        self._shown_length = len(run.axis)
        self._ended = self._caught_up = False
        if self.mode == "stream":
            from afp_desktop.app.loading.follow_link import ProcessFollow, ThreadFollow
            from afp_desktop.core.views.window_copy import part_counts

            shown = part_counts(run) if run.format == "ndjson" else None  # (the first copy sent keeps their ends)
            fold_above = self.window.folding.fold_above
            loads = self.window.loader.loads
            if hasattr(loads, "follow"):  # (the engine process: engine_link.EngineLoads)
                self.link = ProcessFollow(loads, run.path, shown, fold_above, self)
            else:
                self.link = ThreadFollow(run.path, shown, fold_above, self)
            self.link.arrived.connect(self._arrived)
        else:
            self._reload_seen = _stat_key(run.path)
            self._watch()
            self._poll_timer.start()
        self.action.blockSignals(True)
        self.action.setChecked(True)
        self.action.blockSignals(False)
        self._show_state()
        self.live_changed.emit(True)
        self.poll()

    def stop(self) -> None:
        was = self.active
        self._poll_timer.stop()
        self._ack_timer.stop()
        link, self.link = self.link, None
        if link is not None:
            link.arrived.disconnect(self._arrived)
            link.stop()
            link.deleteLater()
        self.mode = None
        for paths in (self._watcher.files(), self._watcher.directories()):
            if paths:
                self._watcher.removePaths(paths)
        if hasattr(self, "action"):
            self.action.blockSignals(True)
            self.action.setChecked(False)
            self.action.blockSignals(False)
        self._show_state()
        if was:
            self.live_changed.emit(False)

    def closed(self) -> None:
        """The run was closed: stop, and File ▸ Follow has nothing to follow."""
        self._growth_timer.stop()
        self.stop()
        self.path = self._ended_while_following = None
        if hasattr(self, "action"):
            self.action.setEnabled(False)

    def _watch(self) -> None:
        """(Re)watch the file and its folder: a watcher drops a file once it is renamed."""
        if self.path is None:
            return
        folder = os.path.dirname(self.path) or "."
        if os.path.exists(self.path) and self.path not in self._watcher.files():
            self._watcher.addPath(self.path)
        if folder not in self._watcher.directories():
            self._watcher.addPath(folder)

    def _woken(self, _path: str) -> None:
        if self.mode == "reload":
            self.poll()

    def poll(self) -> None:
        """A whole document: reload it once it was rewritten (a stream is polled by the engine)."""
        if self.mode == "reload":
            self._watch()
            self._check_rewritten()

    def _arrived(self, message) -> None:
        """A message of the engine's follow (follow_link.py)."""
        kind = message[0]
        if kind == "grown":
            self.publish(message[1], message[2])
        elif kind == "note":
            self.window.statusBar().showMessage(message[1], message[2])
        elif kind == "stopped":  # the file is no longer one to read: what was read stays shown
            self.stop()
            self.window.statusBar().showMessage(message[1], 15000)
        elif kind == "ended":
            path = self.path or ""
            self.stop()
            self._ended_while_following = path
            self.engine_ended.emit(path, message[1])
        elif kind == "retired" and self.session.run is not None:  # (its process was ended for a load)
            self.start(self.session.run)

    def publish(self, run, facts: dict) -> None:
        """Show `run`, the copy of the grown run (`facts`: engine/follow.py Grown.facts()), keeping the cursor (or
        keeping it at the live end); then the engine may send the next growth, once the window has been free at
        least as long as this one took."""
        if self.link is None:
            return
        from afp_desktop.core.views.window_copy import extends  # (imported by the follow's start: a lookup)

        started = time.monotonic()
        session = self.session
        at_end = self.at_live_end
        position, selected = session.position, session.selected
        self.link.applied(run)
        self._ended = facts["ended"]
        self.lines_read = facts["lines_read"]
        length = len(run.axis)
        shown = session.run
        grows = shown is not None and length >= self._shown_length \
            and not (facts["starts_over"] and self._caught_up) and extends(run, shown)
        self._shown_length = length
        if grows:  # the panels extend what they show (app/loading/growth.py); nothing is rebuilt
            session.grow(run, length if at_end else min(position, length))
            self._published(run, started)
            return
        canvas = self.window.canvas
        zoom, scroll = canvas.transform(), (canvas.horizontalScrollBar().value(), canvas.verticalScrollBar().value())
        session.set_run(run, length if at_end else min(position, length))
        if selected is not None and selected < len(run.step_fold.nodes):
            session.select_node(selected)
        if self._caught_up:  # the graph was laid out anew: keep the user's zoom, and the place they looked at
            canvas.setTransform(zoom)
            canvas.show_for_zoom()  # (overview or detail, by zoom)
            current = canvas.current
            if at_end and current is not None and canvas.art is not None:
                canvas.ensureVisible(canvas.art.node_bounds(current), 80, 60)  # (its item may not be made yet)
            else:
                canvas.horizontalScrollBar().setValue(scroll[0])
                canvas.verticalScrollBar().setValue(scroll[1])
        self._published(run, started)

    def _published(self, run, started: float) -> None:
        self._show_state()
        spent = time.monotonic() - started
        self.last_publish_s = spent
        self._caught_up = True
        self._ack_timer.start(int(spent * 1000))  # (the window stays at least half free)
        self.published.emit(run)

    def _shown(self) -> None:
        if self.link is not None:
            self.link.shown()

    def _check_rewritten(self) -> None:
        """A whole-document file: reload once it changed and has held still for one poll."""
        key = _stat_key(self.path) if self.path else None
        if key is None or key == self._reload_seen:
            self._stable = key
            return
        if key != self._stable:
            self._stable = key  # still changing: wait one more poll
            return
        self._reload_seen = key
        if not self.window.loader.busy:
            self.window.reload()

    def jump_to_live(self) -> None:
        if self.session.run is not None:
            self.session.move_to(len(self.session.run.axis), immediate=True)
            self._show_state()

    def _show_state(self) -> None:
        live = self.active
        self.indicator.setText("● Live — run ended" if live and self._ended else "● Live")
        self.indicator.setVisible(live)
        self.jump_button.setVisible(live and not self.at_live_end)
        if hasattr(self, "jump_action"):
            self.jump_action.setEnabled(live)
