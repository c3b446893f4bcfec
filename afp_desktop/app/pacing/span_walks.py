"""A long stop span's chat lines, walked beside the window when the loader did not walk them.

The chat bubble lists the lines the chat user saw during the stop at the cursor (core/model/stop_lines.py). The
loader walks every span of over 20,000 status states with the default templates (PreparedViews.long_span_lines); with
other templates (the template editor) walking such a span on the window's thread when the cursor is in it would
freeze the window at each edit, for as long as the span is long. The window's Replay therefore gives such a
span's lines as pending (Replay.defer_long_walks) and this walks them on a thread of its own, waiting while the
window is at work (pacing/stoppable.py); `walked` then tells the session, which keeps the walk if the
templates are still those and shows the moment again.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal

from afp_desktop.app.pacing.stoppable import stoppable
from afp_desktop.core.problems import LoadCancelled
from afp_desktop.engine.collector import collector_paused


class SpanWalks(QObject):
    """One walk at a time; a new request stops the one going on (another run, other templates)."""

    walked = Signal(object, object, object, str, object)  # (replay, span, templates, app_name, walk)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._stop = threading.Event()
        self._asked: tuple | None = None  # (replay, span key, templates, app_name) of the walk going on
        self.thread: threading.Thread | None = None  # the last one started (tests wait for it)

    def want(self, replay) -> None:
        """Walk the first span `replay` wants walked (Replay.walks_wanted), unless that walk is going on."""
        if replay is None or not replay.walks_wanted:
            return
        key, span = next(iter(replay.walks_wanted.items()))
        asked = (replay, key, dict(replay.templates), replay.app_name)
        if self._asked is not None and self._asked[0] is replay and self._asked[1:] == asked[1:] \
                and self.thread is not None and self.thread.is_alive():
            return
        self.stop()
        self._stop = threading.Event()
        self._asked = asked
        self.thread = threading.Thread(target=self._walk, args=(replay, span, asked[2], asked[3], self._stop),
                                       name="afp-span-walk", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """The walk going on, if any, ends at its next breathing point (its run is no longer shown)."""
        self._stop.set()
        self._asked = None

    def _walk(self, replay, span, templates: dict, app_name: str, stop: threading.Event) -> None:
        from afp_desktop.core.model.replay import span_lines_walk  # (imported with the replay walked: a lookup)

        try:
            with collector_paused(freeze=False), stoppable(stop):  # (no collection off the window's thread)
                walk = span_lines_walk(replay.run, span, templates, app_name)
        except LoadCancelled:
            return
        except Exception:  # noqa: BLE001 - a bug here must not take the window down: the lines stay pending
            return
        if stop.is_set():
            return
        try:
            self.walked.emit(replay, span, templates, app_name, walk)
        except RuntimeError:  # the window (this object's parent) was deleted meanwhile
            return
