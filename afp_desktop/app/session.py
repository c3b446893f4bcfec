"""The session: a thin Qt adapter over the core's `Replay` (one per window).

It is the only place requests to move arrive. It coalesces them (latest wins) so fast scrubbing never queues
stale work, turns Replay changes into signals, and paces play on the scheduler's clock. It holds no replay logic of its own:
positions, stops, spans, drill and the moment all come from `afp_desktop.core.model.replay`.

The window hands what the session publishes to its panels (`Panel`, app/panels/panel.py); the phases a move goes
through — move, moment, paint, settled — are the scheduler's (app/pacing/scheduler.py), on a clock that tests
advance by hand. `moment_settled` follows a scrub once it pauses (SETTLE_MS), for panels whose work is heavy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from afp_desktop.app.pacing.scheduler import GROWTH_SETTLE_MS, Clock, MomentScheduler, Pending, TurnQueue
from afp_desktop.app.loading.memory_back import give_memory_back_beside
from afp_desktop.app.loading.span_lines import SpanWalks
from afp_desktop.core.library.status import DEFAULT_TEMPLATES

if TYPE_CHECKING:  # (the replay is imported with the first run, not with the window)
    from afp_desktop.core.model.replay import Moment, Replay, StopSpan
    from afp_desktop.core.model.run import Run

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0)
EVENTS_PER_STOP_TICK = 10      # with no usable stops, play walks single events this many times faster


class Session(QObject):
    run_loaded = Signal(object)          # Run
    run_grown = Signal(object)           # Run: the run shown grew (File ▸ Follow); panels extend, not rebuild
    run_closed = Signal()
    moment_changed = Signal(object)      # Moment
    moment_settled = Signal(object)      # Moment, once a scrub pauses
    templates_changed = Signal()         # read session.templates / session.app_name
    selection_changed = Signal(object)   # StepGraph node index or None
    stops_changed = Signal()             # the stop list shown changed (drill in/out)
    playing_changed = Signal(bool)
    speed_changed = Signal(float)

    def __init__(self, parent: QObject | None = None, clock: Clock | None = None, queue: TurnQueue | None = None):
        super().__init__(parent)
        self.run: Run | None = None
        self.replay: Replay | None = None
        self.moment: Moment | None = None
        self.templates: dict[str, str] = dict(DEFAULT_TEMPLATES)
        self.app_name = "Agent"
        self.selected: int | None = None
        self.speed = 1.0
        self._wanted: tuple[int, int | None] | None = None
        self.one_stop_step = False  # the latest move went to the stop next to the one shown, or stayed in it
        # move → moment → paint, then settled once the cursor is still (the paint steps are the window's)
        self.scheduler = MomentScheduler(self, apply_move=lambda: self._apply_wanted(),
                                         show_moment=lambda: self._show_moment(), settle=lambda: self._settle(),
                                         clock=clock, queue=queue)
        self._play_next: Pending | None = None  # the next step of play, on the scheduler's clock
        self._pacing = False  # play is paced (from start_playing to stop_playing)
        self.settle_pending = False  # a run was shown and its settled moment is still to come
        self.memory_given_back = None  # the thread asking the system to take back what the last run closed freed
        self.span_walks = SpanWalks(self)  # a long stop's chat lines, asked of the engine
        self.span_walks.walked.connect(self._on_span_walked)

    # -- run ---------------------------------------------------------------------------------------------
    def set_run(self, run: Run, position: int | None = None, settle_now: bool = True) -> None:
        """Show `run` at `position` (None: its end). `settle_now` False: the heavy panels (moment_settled) follow
        on a later event-loop turn, as after a move (the first part of a big file: its first frame sooner)."""
        self.stop_playing()
        self.run = run
        self.selected = None
        self._wanted = None
        self.replay = self._replay_of(run)
        if position is None:
            self.replay.end()
        else:
            self.replay.move_to(position)
        self.moment = self.replay.moment()
        self.settle_pending = not settle_now
        self.run_loaded.emit(run)
        self._emit_moment(settled_now=settle_now)

    def grow(self, run: Run, position: int) -> None:
        """`run` is the run shown with events added at its end (File ▸ Follow). A new Replay over it keeps the
        chosen stop, the drill and the selection; `run_grown` lets panels extend what they show instead of
        rebuilding it (run_loaded), then the moment at `position` is published at once."""
        self.scheduler.cancel_move()
        old, wanted, self._wanted = self.replay, self._wanted, None  # a pending move is published now
        self.run = run
        replay = self._replay_of(run)
        if old is not None:
            replay.continue_from(old)  # its walks, drilled levels and play state
            was, chosen = wanted if wanted is not None else (old.position, old.chosen_stop)
            replay.move_to(position, chosen if position == was else None)
        else:
            replay.move_to(position)
        self.replay = replay
        self.moment = replay.moment()
        self.run_grown.emit(run)
        # growing every 50 ms must not put the settle off for ever: heavy panels follow a few times a second
        self.scheduler.moment_made(settle_ms=GROWTH_SETTLE_MS)

    def _replay_of(self, run: Run) -> Replay:
        """The window's replay of `run`: a long stop's chat lines are asked of the engine (loading/span_lines.py)."""
        from afp_desktop.core.model.replay import Replay

        return Replay(run, self.templates, self.app_name, defer_long_walks=True)

    def close_run(self) -> None:
        self.stop_playing()
        self.span_walks.stop()
        self.run = None
        self.replay = None
        self.moment = None
        self.selected = None
        self._wanted = None
        self.run_closed.emit()
        self.memory_given_back = give_memory_back_beside()  # (the run's copy is freed: nothing shown holds it)

    # -- compatibility names -----------------------------------------------------------------------------
    @property
    def view(self) -> Moment | None:
        return self.moment

    # -- the cursor --------------------------------------------------------------------------------------
    @property
    def position(self) -> int:
        return self.cursor()[0]

    def move_to(self, position: int, *, immediate: bool = False, stop: int | None = None) -> None:
        """Move the cursor; `stop` names the stop (of `stops`) this position was chosen as, if any."""
        if self.replay is None:
            return
        self._wanted = self.replay.cursor_at(position, stop)
        if immediate:  # a deliberate single move: publish and settle now
            self.scheduler.move_now()
            if self.scheduler.take_settle():
                self._settle()
        else:
            self.scheduler.move_wanted()

    def flush(self) -> None:
        """Publish a pending move (and a pending settle) now; tests and exports use this."""
        if self._wanted is not None:
            self.scheduler.move_now()
        if self.scheduler.take_settle():
            self._settle()

    def _apply_wanted(self) -> bool:
        """The scheduler's move phase: the latest move asked for, applied to the replay; whether it made a new
        moment."""
        if self.replay is None or self._wanted is None:
            return False
        (position, stop), self._wanted = self._wanted, None
        replay = self.replay
        if position == replay.position and stop == replay.chosen_stop and self.moment is not None:
            return False
        before = self.moment.stop if self.moment is not None else None
        replay.move_to(position, stop)
        self.moment = replay.moment()
        after = self.moment.stop
        self.one_stop_step = before is not None and after is not None and abs(after.index - before.index) <= 1
        return True

    def _emit_moment(self, settled_now: bool = False) -> None:
        self.scheduler.moment_made(settled_now)

    def _show_moment(self) -> None:
        """The scheduler's moment phase."""
        self.moment_changed.emit(self.moment)
        self.span_walks.want(self.replay)

    def _on_span_walked(self, replay, span, templates: dict, app_name: str, walk) -> None:
        """A long span's lines came from the engine (app/loading/span_lines.py): kept if still wanted, and the moment shown again
        if the cursor is in that span."""
        if replay is not self.replay or not replay.store_walk(span, templates, app_name, walk):
            self.span_walks.want(self.replay)  # (stale: what is wanted now, if anything)
            return
        shown = self.moment.stop if self.moment is not None else None
        if shown is not None and (shown.start, shown.end) == (span.start, span.end) \
                and self.moment.position == replay.position:
            self.moment = replay.moment()
            self._emit_moment()
        else:
            self.span_walks.want(replay)

    def _settle(self) -> None:
        self.settle_pending = False
        if self.moment is not None:
            self.moment_settled.emit(self.moment)

    # -- stops: the replay says where a move goes, the session publishes it ------------------------------------
    def cursor(self) -> tuple[int, int | None]:
        """The cursor as last asked for: a move not yet published, else the replay's."""
        if self._wanted is not None:
            return self._wanted
        return (self.replay.position, self.replay.chosen_stop) if self.replay is not None else (0, None)

    def _request(self, target: tuple[int, int | None] | None) -> None:
        """Ask for a move to `target` (a cursor from one of the replay's queries; None: nowhere to go)."""
        if self.replay is None or target is None:
            return
        if target == (self.replay.position, self.replay.chosen_stop) and self.moment is not None \
                and self.moment.position == target[0]:
            self._wanted = None  # (back where the published moment is: nothing to publish)
            return
        self._wanted = target
        self.scheduler.move_wanted()

    @property
    def stops(self) -> list[dict]:
        return self.replay.stops if self.replay else []

    @property
    def spans(self) -> list[StopSpan]:
        return self.replay.spans if self.replay else []

    @property
    def breadcrumb(self) -> list[str]:
        return list(self.replay.breadcrumb) if self.replay else ["Run"]

    @property
    def chosen_stop(self) -> int | None:
        return self.cursor()[1]

    @property
    def stop_index(self) -> int | None:
        """The stop whose span holds the cursor (None outside a drilled level)."""
        return self.replay.span_index_at(*self.cursor()) if self.replay is not None else None

    def move_to_stop(self, index: int) -> None:
        if self.replay is not None:
            self._request(self.replay.stop_target(index))

    def next_stop(self) -> None:
        if self.replay is not None:
            self._request(self.replay.next_stop_from(*self.cursor()))

    def previous_stop(self) -> None:
        if self.replay is not None:
            self._request(self.replay.previous_stop_from(*self.cursor()))

    def step_events(self, delta: int) -> None:
        self.move_to(self.position + delta)

    def home(self) -> None:
        self.move_to(0)

    def end(self) -> None:
        if self.replay is not None:
            self._request(self.replay.end_target())

    # -- drill -----------------------------------------------------------------------------------------------
    def can_drill(self, index: int) -> bool:
        return self.replay is not None and self.replay.can_drill(index)

    def drill_in(self, index: int) -> bool:
        """Show the stops inside mount stop `index`; False (a message for the user) when it has none."""
        self.flush()
        if self.replay is None or not self.replay.drill_in(index):
            return False
        self.moment = self.replay.moment()
        self.stops_changed.emit()
        self._emit_moment(settled_now=True)
        return True

    def drill_out(self, depth: int = 0) -> None:
        """Back out to breadcrumb level `depth` (0 = the run's own stops)."""
        self.flush()
        if self.replay is not None and self.replay.drill_out(depth):
            self.moment = self.replay.moment()
            self.stops_changed.emit()
            self._emit_moment(settled_now=True)

    # -- play: the replay holds whether it plays; the timer only paces it ----------------------------------------
    @property
    def playing(self) -> bool:
        return self.replay is not None and self.replay.playing

    def _plays_events(self) -> bool:
        return not any(span.kind not in ("start", "end") for span in self.spans)

    def _interval(self) -> int:
        per_second = self.speed * (EVENTS_PER_STOP_TICK if self._plays_events() else 1)
        return max(10, int(1000 / per_second))

    def set_speed(self, speed: float) -> None:
        if speed not in SPEEDS or speed == self.speed:
            return
        self.speed = speed
        if self._pacing:  # (the next step comes at the new pace)
            self._pace_play()
        self.speed_changed.emit(speed)

    def toggle_play(self) -> None:
        if self.playing:
            self.stop_playing()
        else:
            self.start_playing()

    def start_playing(self) -> None:
        if self.replay is None:
            return
        self.flush()
        before = (self.replay.position, self.replay.chosen_stop)
        self.replay.play()  # (played to the end: from the first span's start)
        if (self.replay.position, self.replay.chosen_stop) != before:
            self.moment = self.replay.moment()
            self._emit_moment(settled_now=True)
        self._pace_play()
        self.playing_changed.emit(True)

    def stop_playing(self) -> None:
        was = self.playing or self._pacing
        if self.replay is not None:
            self.replay.pause()
        if self._play_next is not None:
            self._play_next.cancel()
        self._play_next, self._pacing = None, False
        if was:
            self.playing_changed.emit(False)

    def _pace_play(self) -> None:
        """The next step of play, one interval from now (the one asked for before is dropped)."""
        if self._play_next is not None:
            self._play_next.cancel()
        self._pacing = True
        self._play_next = self.scheduler.clock.call_later(self._interval(), self._play_step)

    def _play_step(self) -> None:
        self._play_next = None
        self._play_tick()
        if self.playing and self._pacing:
            self._pace_play()

    def _play_tick(self) -> None:
        if self.replay is None or not self.replay.playing:
            self.stop_playing()
            return
        self.flush()
        moved = self.replay.tick(by_events=self._plays_events())
        if moved:
            self.moment = self.replay.moment()
            self._emit_moment()
        if not self.replay.playing:
            self.stop_playing()

    # -- templates and selection ------------------------------------------------------------------------
    def set_templates(self, templates: dict[str, str], app_name: str | None = None) -> None:
        self.templates = dict(templates)
        if app_name is not None:
            self.app_name = app_name
        if self.replay is not None:
            self.replay.set_templates(self.templates, self.app_name)
            self.moment = self.replay.moment()
        self.templates_changed.emit()
        if self.moment is not None:
            self._emit_moment(settled_now=True)

    def select_node(self, index: int | None) -> None:
        if index != self.selected:
            self.selected = index
            self.selection_changed.emit(index)

    def activate_node(self, index: int) -> None:
        """A click on a graph card: select it and move the cursor to the moment it appeared."""
        if self.run is None:
            return
        self.select_node(index)
        created = self.run.step_fold.node_created_at[index]
        self.move_to(self.run.axis.position_of_domain(created) + 1)

    def show_node_end(self, index: int) -> None:
        """Move the cursor to when the node's step ended (its whole life known)."""
        if self.replay is None:
            return
        ended = self.replay.facts.ended[index]
        if ended is not None:
            self.select_node(index)
            self.move_to(self.run.axis.domain_after[ended])
