"""A big file shown while it is read: its first events at once, then more, then the whole run.

The loader hands over runs of the first events (RunLoader.prefix, built by core/formats/prefixes.py). The
first is shown like any opened run; each later one, and then the whole run, extends the run shown in place
(Session.grow, the path File ▸ Follow takes), so the scene, the zoom and the panels are kept and the user can
move through what has arrived. The cursor stays at the end of what is shown unless the user moves it; once
the whole run is there it goes where opening the file puts it (its end, or where the user left it last time).
A recording's part (its typed events, found from the end of the file) is not extended but replaced by the
whole run, at the moment of the same typed event if the user moved.
If the load fails or is cancelled, the part shown is taken away: a damaged file is not shown as if whole.
While the window is at work (the user moves through the part shown), the load holds back at its breathing
points (engine_link.py): Python runs one thread at a time, and the window comes first.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject


class ProgressiveDisplay(QObject):
    """Shows the prefixes of the file being loaded in `window`'s session."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.shown = None  # the prefix run the session shows, while a load is in flight
        self.moved = False  # the user moved the cursor off the end of what is shown
        self.placed = 0  # where the first part was shown
        window.loader.prefix.connect(self._on_prefix)
        window.loader.started.connect(lambda _path: self._forget())

    def _forget(self) -> None:
        self.shown, self.moved = None, False

    @property
    def showing(self) -> bool:
        """A prefix of the file being loaded is what the session shows."""
        return self.shown is not None and self.session.run is self.shown

    @property
    def at_end(self) -> bool:
        return self.shown is not None and self.session.position >= len(self.shown.axis)

    def _on_prefix(self, run) -> None:
        if self.shown is None or self.session.run is not self.shown:
            self.window.before_new_run()
            wanted = self.window.opening_position(run.path)  # (reloaded, or reopened where the user left it)
            inside = wanted is not None and wanted < len(run.axis) and not run.positions_differ
            # At its end, unless the place it opens at has arrived; the inspector follows a turn later.
            self.session.set_run(run, position=wanted if inside else None, settle_now=False)
            self.moved = False
            self.placed = self.session.position
        else:
            self.moved = self.moved or not self.at_end
            self.session.grow(run, self.session.position if self.moved else len(run.axis))
            if not self.moved:
                self.placed = self.session.position  # (still where the load put it)
        self.shown = run
        shown = f"{len(run.typed_events or ()):,} typed events" if run.positions_differ else f"{len(run.axis):,} events"
        self.window.load_label.setText(f"Reading {os.path.basename(run.path)}… the first {shown} are shown")

    def finish(self, run, position: int | None) -> bool:
        """Show the whole `run` in place of the prefix shown (at `position`, None: its end, unless the user
        moved the cursor while it loaded). False when no prefix of it is shown: the caller shows it."""
        shown, self.shown = self.shown, None
        if shown is None or self.session.run is not shown:
            return False
        from afp_desktop.core.formats.prefixes import same_moment
        from afp_desktop.core.views.window_copy import extends

        if not extends(run, shown):  # (a recording's part: its typed events alone, stops from the events)
            if not (self.moved or self.session.position != self.placed):
                return False  # not moved: the whole run goes where opening it puts it
            self.session.set_run(run, position=same_moment(shown, run, self.session.position))
            return True
        if self.moved or self.session.position < len(shown.axis):
            self.session.grow(run, self.session.position)
        elif position is None:
            self.session.grow(run, len(run.axis))
            self.session.end()  # at the run's last stop, as opening the whole file puts it
        else:
            self.session.grow(run, min(position, len(run.axis)))
        # Nothing more is coming: the banner stops saying "still reading" now, and every panel catches up
        # (one per event-loop turn) instead of waiting out the spacing meant for a run that keeps growing.
        self.window.banner.set_messages(self.window.messages_for(run))
        self.window.follow.growth.catch_up()
        return True

    def abandon(self) -> None:
        """The load failed or was cancelled: the part of it shown goes."""
        shown, self.shown = self.shown, None
        if shown is not None and self.session.run is shown:
            self.session.close_run()
