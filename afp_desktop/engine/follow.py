"""File ▸ Follow's engine side: the followed file read as it grows (core/formats/follow.py FileFollower), its lines
parsed and the run grown in place (core/formats/live_run.py RunGrower); the window is sent what changed
(engine/growth_delta.py Growth), never the whole run, and never the reading or the parsing.

`RunFollow.step()` is called by whoever drives it — the engine process's loop (process.py), or a thread of the
window's process (app/loading/follow_link.py) — whenever `wait_s()` has passed or the window has answered; it
returns the messages for the window:

  ("grown", Growth)        the run grew (at most one every MIN_PUBLISH_GAP_S, and only once the window has shown
                           the one before: `shown()`; what grew meanwhile comes in the next, the latest wins)
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

from afp_desktop.core.formats.follow import FileFollower, parse_lines
from afp_desktop.core.formats.live_run import RunGrower
from afp_desktop.engine.growth_delta import LISTS, Growth, Probe, continues, run_lists

POLL_S = 0.02  # the file is looked at this often while followed
SLICE_S = 0.05  # parse and project for at most this long, then let the loop serve requests
LINES_PER_STEP = 256
MIN_PUBLISH_GAP_S = 0.05  # at most one growth sent per 50 ms: the latest wins
CATCH_UP_GAP_S = 0.25  # a long backlog worked through is still sent this often (once the first growth is shown)


class RunFollow:
    """One followed file. `probe`: what the window shows (growth_delta.probe_of), the base of the first growth."""

    def __init__(self, path: str, probe: Probe | None, rotated: bool = False) -> None:
        self.path = path
        self.follower: FileFollower | None = FileFollower(path)
        self.grower = RunGrower(path)
        self._probe = probe
        self._pending: deque = deque()
        self._rotated_at_start = rotated
        self._dirty = True  # (the first growth is sent even when the file holds no more than the window shows)
        self._started_over = False
        self._caught_up = False  # a growth has been sent
        self._waiting_for_window = False
        self._next_publish = 0.0
        self._published_at = 0.0
        self._next_poll = 0.0
        self._sent: dict[str, int] = {}  # each list's length as last sent
        self._fold_sent: tuple | None = None  # (fold, nodes, edges, internal marks, events folded) as last sent
        self.lines_read = 0

    @property
    def stopped(self) -> bool:
        return self.follower is None

    def close(self) -> None:
        if self.follower is not None:
            self.follower.close()
            self.follower = None

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
        wait = self._next_poll - now
        if self._dirty and not self._waiting_for_window:
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
        if self._dirty and ready and not self._waiting_for_window and now >= self._next_publish:
            messages.append(("grown", self._growth()))
            self._waiting_for_window = True
            self._next_publish = now + MIN_PUBLISH_GAP_S
            self._published_at = now
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

    def _growth(self) -> Growth:
        run = self.grower.snapshot(rotated=self._rotated_at_start)
        lists = run_lists(run)
        if self._started_over:
            self._sent = {}
        elif not self._caught_up and continues(lists, self._probe):
            self._sent = dict(self._probe.lengths)  # type: ignore[union-attr]  # (continues: a probe)
        tails = {}
        for name in LISTS:
            start = self._sent.get(name, 0)
            tails[name] = (start, lists[name][start:])
            self._sent[name] = len(lists[name])
        fold = run.step_fold
        last = self._fold_sent
        if last is None or last[0] is not fold or self._started_over:
            fold_change: object = fold
        else:
            fold_change = fold.growth_since(*last[1:])
        self._fold_sent = (fold, len(fold.nodes), len(fold.edges), len(fold.internal_at), len(run.domain_events))
        self._dirty = self._started_over = False
        self._caught_up = True
        return Growth(tails=tails, fold=fold_change, fold_note=run.stepgraph_note, stops=run.stops,  # type: ignore[arg-type]
                      notices=run.notices, ended=self.grower.ended, path=self.path, lines_read=self.lines_read)
