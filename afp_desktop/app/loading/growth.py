"""What the window does when the run shown grows (File ▸ Follow, Session.run_grown): extend, never rebuild.

A growth arrives up to 40 times a second. The session has already published the new moment (chat bubble,
status bar, the timeline's cursor), so a new line shows at once. The rest is brought up to date by jobs, each
run at most every so often and spaced by what it cost last time (a job that took 40 ms waits at least 120 ms),
so the window always stays mostly free:

| job      | at most every | what it does                                                                     |
|----------|---------------|----------------------------------------------------------------------------------|
| timeline | each growth   | slider range and stops extended, the range looked at kept (TimelinePanel.grow)   |
| layout   | 250 ms        | the grown graph's layout, made by the engine (the graph job shows it next turn)  |
| graph    | after layout  | new cards and edges added to the scene, moved cards re-placed (graph_folding)     |
| stops    | 250 ms        | what is drawn over the timeline's stops: iteration bands, pause and fact marks    |
| summary  | 1 s           | summary strip, banner                                                             |
| lists    | 1 s           | event list rows (added, the scroll kept), context, find, findings                 |
| inspector| 1 s           | inspector (it also follows each settled moment), template editor lines            |

When growth pauses (QUIET_MS) every job that is behind runs, so a run at rest is shown exactly as if it had
been opened whole.
"""

from __future__ import annotations

import os
import time

from PySide6.QtCore import QObject, QTimer

from afp_desktop.app.pacing import scheduler

QUIET_MS = 300
COST_FACTOR = 3.0  # a job waits at least this many times what it took last time


# Who is told of growth by which job (each has `run_grown(run)`): features by key, panels by key.
STOP_FEATURES = ("iteration_bands", "pauses", "fact_marks")
LIST_PANELS = ("events", "context", "find", "findings")
STEP_PANELS = ("inspector", "templates")


class _Job:
    def __init__(self, name: str, action, gap_s: float):
        self.name, self.action, self.gap_s = name, action, gap_s
        self.behind = False
        self.last_at = 0.0
        self.cost_s = 0.0
        self.costs: list[float] = []  # every run's cost, for bench/bench_follow.py (a few per second of growth)

    def due(self, now: float) -> bool:
        return self.behind and now - self.last_at >= max(self.gap_s, COST_FACTOR * self.cost_s)

    def wait_s(self, now: float) -> float:
        return max(0.0, self.last_at + max(self.gap_s, COST_FACTOR * self.cost_s) - now)

    def run(self, run) -> None:
        started = time.perf_counter()
        self.behind = False
        self.action(run)
        self.cost_s = time.perf_counter() - started
        self.costs.append(self.cost_s)
        self.last_at = time.monotonic()


class GrowthView(QObject):
    """Brings the window's panels up to date with a grown run, cheaply (see the module's table)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.jobs = [_Job("layout", self._layout, 0.25), _Job("graph", self._graph, 0.0),
                     _Job("stops", self._stops, 0.25), _Job("summary", self._summary, 1.0),
                     _Job("lists", self._lists, 1.0), _Job("inspector", self._inspector, 1.0)]
        self._graph_job = self.jobs[1]
        self._laid_out = None  # the latest run whose graph is laid out, with that layout (None: folded)
        self._messages_shown: list | None = None
        self._timer = QTimer(self)  # the next job due
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(lambda: scheduler.later(self, "job", self._run_due))  # (a turn of its own)
        self._quiet = QTimer(self)  # growth paused: catch every job up
        self._quiet.setSingleShot(True)
        self._quiet.setInterval(QUIET_MS)
        self._quiet.timeout.connect(lambda: self.catch_up())
        self.session.run_grown.connect(self._grown)
        self.session.run_loaded.connect(self._loaded)
        self.session.run_closed.connect(self._reset)

    @property
    def behind(self) -> bool:
        """Some panel does not show the latest growth yet."""
        return any(job.behind for job in self.jobs)

    def _loaded(self, _run) -> None:
        self._reset()

    def _reset(self) -> None:
        """A new run, or none: nothing of the last one is due or kept (a run closed is not held here until the
        next one is opened)."""
        self._timer.stop()
        scheduler.cancel(self, "job")
        self._quiet.stop()
        for job in self.jobs:
            job.behind = False
        self._laid_out = None
        self._messages_shown = None

    @property
    def idle(self) -> bool:
        """Every panel shows the latest growth."""
        return not any(job.behind for job in self.jobs)

    def _grown(self, run) -> None:
        timeline = self.window.timeline
        if timeline.built:
            timeline.panel.run_grown(run)  # before the moment arrives: its stop index is one of the new stops
        for job in self.jobs:
            job.behind = job is not self._graph_job  # (the layout job hands the graph job its run)
        self._quiet.start()
        self._schedule()

    def _schedule(self) -> None:
        now = time.monotonic()
        waits = [job.wait_s(now) for job in self.jobs if job.behind]
        if waits:
            # 0 ms still lets the session's moment paint first; never stack timers: the soonest wins
            self._timer.start(int(min(waits) * 1000))

    def _run_due(self) -> None:
        run = self.session.run
        if run is None:
            return
        now = time.monotonic()
        for job in self.jobs:
            if job.due(now):
                job.run(run)
                break  # one job per event-loop turn: input and paints get in between
        self._schedule()

    def catch_up(self, now: bool = False) -> None:
        """Growth paused: run every job that is behind, one per event-loop turn (`now`: all at once, tests)."""
        self._timer.stop()
        run = self.session.run
        if run is None:
            return
        for job in self.jobs:
            if job.behind:
                job.run(run)
                if not now:
                    self._timer.start(0)
                    return

    # -- the jobs --------------------------------------------------------------------------------------------
    def _layout(self, run) -> None:
        """The new graph's layout (the engine made it with the run's views: prepared_views.graph_layout_of reads
        it), taken on its own event-loop turn; the graph job shows it on the next."""
        from afp_desktop.core.views.prepared_views import graph_layout_of

        layout = None
        if run.stepgraph.get("nodes") and not self.window.folding.would_fold(run):  # (folded: laid out as shown)
            layout = graph_layout_of(run)
        self._laid_out = (run, layout)
        self._graph_job.behind = True

    def _graph(self, _run) -> None:
        if self._laid_out is not None:
            run, layout = self._laid_out
            self.window.folding.run_grown(run, layout)

    def _stops(self, run) -> None:
        """What is drawn over the timeline's stops: iteration bands, pause marks."""
        for key in STOP_FEATURES:
            self.window.features[key].run_grown(run)

    def _summary(self, run) -> None:
        from afp_desktop.core.views.prepared_views import summary_of

        window = self.window
        errors = self.session.replay.facts.errors if self.session.replay is not None else ()
        window.summary.show_summary(summary_of(run), run.format_name, os.path.basename(run.path), errors)
        messages = window.messages_for(run)
        if messages != self._messages_shown:
            self._messages_shown = messages
            window.banner.set_messages(messages)

    def _lists(self, run) -> None:
        for key in LIST_PANELS:
            self.window.panels[key].run_grown(run)

    def _inspector(self, run) -> None:
        for key in STEP_PANELS:
            self.window.panels[key].run_grown(run)
