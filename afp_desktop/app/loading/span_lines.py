"""A long stop span's chat lines, asked of the engine when the loader did not walk them.

The chat bubble lists the lines the chat user saw during the stop at the cursor (core/model/stop_lines.py). The
loader walks every span of over 20,000 status states with the default templates (PreparedViews.long_span_lines); with
other templates (the template editor) walking such a span on the window's thread when the cursor is in it would
freeze the window at each edit, for as long as the span is long. The window's Replay therefore gives such a
span's lines as pending (Replay.defer_long_walks), and this asks the engine that holds the run to walk them
(request "span_lines", engine/service.py); `walked` then tells the session, which keeps the walk if the templates
are still those and shows the moment again. One walk is asked at a time: a newer one supersedes it.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

TAG = "span_lines"


class SpanWalks(QObject):
    """Asks for the walk of the first span a replay wants walked; `walked(replay, span, templates, app_name, walk)`."""

    walked = Signal(object, object, object, str, object)

    def __init__(self, session) -> None:
        super().__init__(session)
        self.session = session
        self._requests = None  # the window's EngineRequests (ask_through); else one of this session's own
        self.asked: tuple | None = None  # (replay, span key, templates, app_name) of the walk asked, not yet answered

    def ask_through(self, requests) -> None:
        """Ask `requests` (the window's app/loading/engine_requests.EngineRequests), the engine of the run shown."""
        self._requests = requests

    @property
    def requests(self):
        if self._requests is None:  # (a session shown without a window: the tests' — answered in this process)
            from afp_desktop.app.loading.engine_requests import EngineRequests

            self._requests = EngineRequests(self.session, None, self)
        return self._requests

    def want(self, replay) -> None:
        """Ask for the first span `replay` wants walked (Replay.walks_wanted), unless that walk is asked already."""
        if replay is None or not replay.walks_wanted:
            return
        key, span = next(iter(replay.walks_wanted.items()))
        asked = (replay, key, dict(replay.templates), replay.app_name)
        if self.asked is not None and self.asked[0] is replay and self.asked[1:] == asked[1:]:
            return
        self.asked = asked
        self.requests.request(TAG, "span_lines", {"span": span, "templates": asked[2], "app_name": asked[3]},
                              lambda walk: self._answered(asked, span, walk), lambda _why: self._failed(asked))

    def stop(self) -> None:
        """The walk asked, if any, is no longer wanted (its run is no longer shown)."""
        if self.asked is not None and self._requests is not None:
            self._requests.drop(TAG)
        self.asked = None

    def _answered(self, asked: tuple, span, walk) -> None:
        if self.asked is not asked:
            return
        self.asked = None
        replay, _key, templates, app_name = asked
        self.walked.emit(replay, span, templates, app_name, walk)

    def _failed(self, asked: tuple) -> None:
        """(The lines stay pending: the bubble says they are being listed; the next move asks again.)"""
        if self.asked is asked:
            self.asked = None
