"""File ▸ Follow's engine side: the followed file read as it grows (core/formats/follow.py FileFollower), its lines
parsed and the run grown in place (core/formats/live_run.py RunGrower), and the window's views of it prepared
(prepared_views.py): the window is sent the grown run's copy (core/views/window_copy.py), as after an open, never
the events, the reading, the parsing or a projection.

`RunFollow.step()` is called by whoever drives it — the engine process's loop (process.py), or a thread of the
window's process (app/loading/follow_link.py) — whenever `wait_s()` has passed or the window has answered; it
returns the messages for the window:

  ("grown", Grown)         the run grew (at most one every MIN_PUBLISH_GAP_S, and only once the window has shown
                           the one before: `shown()`; the next is made meanwhile, and what grows after it comes in
                           the one after, the latest wins): the driver sends the window what `pack` made of it (the
                           copy of `Grown.run`), and the run sent last (`last_sent`) answers the window's requests
  ("note", text, msecs)    a sentence for the status bar (a rotation, a rotated file left unread)
  ("stopped", text)        the file is no longer one to read: what was read stays shown, the follow ends

The file is polled every POLL_S (a stat and a read of nothing when it has not grown): the engine has no event loop
to hear a file watcher with, and a wake-up passed on by the window's watcher would wait for the window's thread,
the very thing the follow must not wait for. A poll reads a bounded amount; parsing goes on in slices of SLICE_S
so the engine's loop answers the window's requests between them.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

from afp_desktop.core.formats.follow import FileFollower, parse_lines
from afp_desktop.core.formats.live_run import RunGrower
from afp_desktop.core.model.run import Run
from afp_desktop.core.views.prepared_views import prepare_views
from afp_desktop.core.views.window_copy import part_counts

POLL_S = 0.01  # the file is looked at this often while followed
SLICE_S = 0.05  # parse and project for at most this long, then let the loop serve requests
LINES_PER_STEP = 256
MIN_PUBLISH_GAP_S = 0.025  # at most one growth made per 25 ms: the latest wins
CATCH_UP_GAP_S = 0.25  # a long backlog worked through is still sent this often (once the first growth is shown)


@dataclass
class Grown:
    """The followed run as grown so far, its views prepared (`run`: the engine's; the window gets its copy)."""

    run: Run
    parts_before: list[tuple[int, int]]  # the event counts of the run the window shows (its copy keeps their ends)
    ended: bool  # the run's end event has been seen
    starts_over: bool  # the file was replaced or cut short: the run is not the one shown, grown
    lines_read: int = 0  # lines read so far (benchmarks)
    packed: Any = None  # what the driver sends the window (its `pack(grown)`: the run's copy), made with it

    def facts(self) -> dict:
        """What the window is told beside the copy."""
        return {"ended": self.ended, "starts_over": self.starts_over, "lines_read": self.lines_read}


class RunFollow:
    """One followed file. `shown`: the (typed, domain) event counts of the run the window shows (window_copy's
    part_counts), so that the first copy sent can be told to extend it; `fold_above`: the window's, as for a load
    (prepare_views); `pack(grown)`: what the driver sends the window of a growth (its copy), made as soon as the
    growth is (Grown.packed), so that it goes the moment the window is ready; `unsent(grown)`: a growth made and
    never sent (the follow closed first)."""

    def __init__(self, path: str, shown: tuple[int, int] | None, rotated: bool = False,
                 fold_above: int | None = None, pack: Callable[[Grown], Any] | None = None,
                 unsent: Callable[[Grown], None] | None = None) -> None:
        self.path = path
        self.pack, self.unsent = pack, unsent
        self.follower: FileFollower | None = FileFollower(path)
        self.grower = RunGrower(path)
        self.fold_above = fold_above
        self._shown = tuple(shown) if shown is not None else None
        self._pending: deque = deque()
        self._rotated_at_start = rotated
        self._dirty = True  # (the first growth is sent even when the file holds no more than the window shows)
        self._started_over = False
        self._caught_up = False  # a growth has been sent
        self._waiting_for_window = False
        self._prepared: Grown | None = None  # the next growth, made while the window shows the last one
        self.last_sent: Run | None = None  # the run of the growth sent last
        self._next_publish = 0.0
        self._published_at = 0.0
        self._next_poll = 0.0
        self.lines_read = 0

    @property
    def stopped(self) -> bool:
        return self.follower is None

    def close(self) -> None:
        if self.follower is not None:
            self.follower.close()
            self.follower = None
        prepared, self._prepared = self._prepared, None
        if prepared is not None and self.unsent is not None:
            self.unsent(prepared)

    def shown(self) -> None:
        """The window has shown the last growth: the next may be sent."""
        self._waiting_for_window = False

    def wait_s(self, now: float | None = None) -> float:
        """How long the driver may wait before the next step (it steps at once when the window answers)."""
        now = time.monotonic() if now is None else now
        if self.follower is None:
            return POLL_S
        if self._pending:
            return 0.0
        if self._prepared is not None and not self._waiting_for_window:
            return 0.0
        wait = self._next_poll - now
        if self._dirty and self._prepared is None:
            wait = min(wait, self._next_publish - now)
        return max(0.0, wait)

    def step(self) -> list[tuple]:
        messages: list[tuple] = []
        if self.follower is None:
            return messages
        now = time.monotonic()
        if now >= self._next_poll:
            self._poll(messages)
            self._next_poll = now + POLL_S
            if self.follower is None:
                return messages
        self._work()
        now = time.monotonic()
        ready = not self._pending or (self._caught_up and now - self._published_at > CATCH_UP_GAP_S)
        if self._dirty and ready and self._prepared is None and now >= self._next_publish:
            # (made now, while the window may still be showing the last growth: sent as soon as it has)
            self._prepared = self._growth()
            self._next_publish = now + MIN_PUBLISH_GAP_S
        if self._prepared is not None and not self._waiting_for_window:
            messages.append(("grown", self._prepared))
            self.last_sent, self._prepared = self._prepared.run, None
            self._waiting_for_window = True
            self._published_at = time.monotonic()
        return messages

    def _poll(self, messages: list[tuple]) -> None:
        follower, grower = self.follower, self.grower
        assert follower is not None
        while True:
            update = follower.poll()
            if update.restarted:
                self._pending.clear()
                grower.restart()
                self._dirty = self._started_over = True
            for notice in update.notices:
                if notice.code == "rotated":
                    if not grower.typed and not self._pending:
                        self._rotated_at_start = True
                    messages.append(("note", notice.text, 5000))
                elif notice.code in ("restarted", "cut-line", "long-line"):
                    grower.add_notice(notice.code, notice.text)
                    self._dirty = True
                elif notice.code == "skipped":
                    messages.append(("note", notice.text, 10000))
            if follower.stopped is not None:
                messages.append(("stopped", follower.stopped))
                self.close()
                return
            if update.lines:
                self._pending.extend(update.lines)
                self.lines_read += len(update.lines)
            if not update.more or len(self._pending) > 100_000:
                return

    def _work(self) -> None:
        deadline = time.perf_counter() + SLICE_S
        pending, grower = self._pending, self.grower
        while pending and time.perf_counter() < deadline:
            lines = [pending.popleft() for _ in range(min(LINES_PER_STEP, len(pending)))]
            events, problems = parse_lines(lines)
            for problem in problems:
                grower.add_notice("bad-line", problem.text)
            grower.feed(events)
            self._dirty = True

    def _growth(self) -> Grown:
        run = self.grower.snapshot(rotated=self._rotated_at_start)
        run.views = prepare_views(run, fold_above=self.fold_above)
        grown = Grown(run=run, parts_before=[self._shown] if self._shown and not self._started_over else [],
                      ended=self.grower.ended, starts_over=self._started_over, lines_read=self.lines_read)
        self._shown = part_counts(run)
        self._dirty = self._started_over = False
        self._caught_up = True
        if self.pack is not None:
            grown.packed = self.pack(grown)  # (made ahead too: sent at once when the window is ready)
        return grown
