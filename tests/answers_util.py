"""Panels that ask the engine, outside a window: the requests the window makes (EngineRequests, answered by the
in-process engine on a thread of its own), a run whose events the window's thread may not read, and requests
answered by hand (to deliver an answer after a newer one was asked)."""

from __future__ import annotations

import copy
import threading

from afp_desktop.app.loading.engine_requests import EngineRequests
from afp_desktop.core.model.run import Run
from afp_desktop.core.views.prepared_views import prepare_views
from afp_desktop.engine.service import Engine


def engine_requests(session) -> EngineRequests:
    """The window's requests for a panel shown alone (no engine process: answered in a thread of this one); the
    test calls its `stop()` at the end."""
    return EngineRequests(session, None, session)


class EventsReadOnTheWindowThread(AssertionError):
    """The window's thread read a run's events (they live in the engine)."""


def _engine_only(name: str) -> property:
    def read(run):
        if threading.current_thread() is threading.main_thread():
            raise EventsReadOnTheWindowThread(f"the window's thread read run.{name}")
        return run.__dict__[name]

    return property(read)


class _EventsInTheEngine(Run):
    domain_events = _engine_only("domain_events")  # type: ignore[assignment]
    typed_events = _engine_only("typed_events")  # type: ignore[assignment]


def events_in_the_engine(run: Run) -> Run:
    """`run` as a window holds it when its events live in the engine: reading its domain or typed events on the
    window's thread raises; the engine's requests (on their own thread) read the real ones."""
    run.prepare()  # (what the window holds is made before the events are shut away)
    run.views = prepare_views(run)
    for name in ("replay_facts", "run_ends", "summary_tally", "stops"):
        getattr(run, name)
    held = copy.copy(run)
    held.__class__ = _EventsInTheEngine
    return held


class RequestsByHand:
    """Records each request; `answer(i)` answers the i-th asked with the real engine, whenever the test says."""

    def __init__(self, run) -> None:
        self.engine = Engine()
        self.engine.adopt(run)
        self.asked: list[tuple[str, str, dict, object, object]] = []  # (tag, kind, args, on_answer, on_failed)

    def request(self, tag, kind, args, on_answer, on_failed) -> None:
        self.asked.append((tag, kind, args, on_answer, on_failed))

    def drop(self, tag) -> None:
        """(Answers by hand are delivered even when dropped: the panel must tell a stale one itself.)"""

    def of_kind(self, kind: str) -> list[int]:
        return [i for i, asked in enumerate(self.asked) if asked[1] == kind]

    def answer(self, i: int) -> None:
        _tag, kind, args, on_answer, _failed = self.asked[i]
        on_answer(self.engine.answer(kind, args))
