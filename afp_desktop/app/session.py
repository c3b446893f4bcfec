"""The session: the open Run, the ONE cursor, the active template map and the selected node.

Panels connect to these signals and redraw from `session.run` and `session.view`; they never call each other.
Moving the cursor is coalesced: `move_to` records the wanted position and a zero-delay timer publishes only
the latest one, so fast scrubbing never queues stale redraws.
"""

from __future__ import annotations


from PySide6.QtCore import QObject, QTimer, Signal

from afp_desktop.core.cursor import CursorView, stop_index_at, view_at
from afp_desktop.core.run import Run
from afp_desktop.core.status import DEFAULT_TEMPLATES


class Session(QObject):
    run_loaded = Signal(object)          # Run
    run_closed = Signal()
    cursor_moved = Signal(object)        # CursorView
    templates_changed = Signal()         # read session.templates / session.app_name
    selection_changed = Signal(object)   # StepGraph node index or None
    stops_changed = Signal()             # the stop list shown changed (drill in/out)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.run: Run | None = None
        self.view: CursorView | None = None
        self.templates: dict[str, str] = dict(DEFAULT_TEMPLATES)
        self.app_name = "Agent"
        self.selected: int | None = None
        self._drill: list[tuple[str, list[dict]]] = []  # (breadcrumb label, inner stops), outermost first
        self._wanted: int | None = None
        # Several stops can share one position (a Route right after its LLM turn). The stop the cursor was
        # sent to is remembered so the timeline marks that one and ←/→ visit each stop in turn.
        self.chosen_stop: int | None = None
        self._wanted_stop: int | None = None
        self._publish_timer = QTimer(self)
        self._publish_timer.setSingleShot(True)
        self._publish_timer.setInterval(0)
        self._publish_timer.timeout.connect(self._publish)

    # -- run ---------------------------------------------------------------------------------------------
    def set_run(self, run: Run, position: int | None = None) -> None:
        self.run = run
        self.selected = None
        self._drill = []
        self._wanted = None
        self._wanted_stop = self.chosen_stop = None
        end = len(run.axis)
        self.view = view_at(run, end if position is None else position)
        self.run_loaded.emit(run)
        self.cursor_moved.emit(self.view)

    def close_run(self) -> None:
        self.run = None
        self.view = None
        self.selected = None
        self._drill = []
        self.run_closed.emit()

    # -- the cursor --------------------------------------------------------------------------------------
    @property
    def position(self) -> int:
        if self._wanted is not None:
            return self._wanted
        return self.view.position if self.view else 0

    def move_to(self, position: int, *, immediate: bool = False, stop: int | None = None) -> None:
        """Move the cursor; `stop` names the stop (of `stops`) this position was chosen as, if any."""
        if self.run is None:
            return
        position = max(0, min(int(position), len(self.run.axis)))
        self._wanted = position
        self._wanted_stop = stop
        if immediate:
            self._publish_timer.stop()
            self._publish()
        elif not self._publish_timer.isActive():
            self._publish_timer.start()

    def flush(self) -> None:
        """Publish a pending move now (tests and exports use this)."""
        if self._wanted is not None:
            self._publish_timer.stop()
            self._publish()

    def _publish(self) -> None:
        if self.run is None or self._wanted is None:
            return
        wanted, self._wanted = self._wanted, None
        stop, self._wanted_stop = self._wanted_stop, None
        same_place = self.view is not None and self.view.position == wanted
        if same_place and stop == self.chosen_stop:
            return
        self.chosen_stop = stop
        if not same_place:
            self.view = view_at(self.run, wanted)
        self.cursor_moved.emit(self.view)

    # -- the stops shown: the run's milestones, or a drilled mount's inner stops ----------------------------
    @property
    def stops(self) -> list[dict]:
        if self._drill:
            return self._drill[-1][1]
        return self.run.stops if self.run else []

    @property
    def breadcrumb(self) -> list[str]:
        """["Run", "Iteration 3", ...]: where the stop list shown sits."""
        return ["Run", *(label for label, _stops in self._drill)]

    def drill_in(self, label: str, stops: list[dict]) -> None:
        """Show `stops` (a mount's inner stops, placed on the run's axis) until drill_out."""
        self._drill.append((label, stops))
        self.chosen_stop = None
        self.stops_changed.emit()

    def drill_out(self, depth: int = 0) -> None:
        """Back out to breadcrumb level `depth` (0 = the run's own stops)."""
        depth = max(0, depth)
        if depth < len(self._drill):
            del self._drill[depth:]
            self.chosen_stop = None
            self.stops_changed.emit()

    # stops and single events
    def stop_positions(self) -> list[int]:
        return [s["axisEnd"] for s in self.stops]

    @property
    def stop_index(self) -> int | None:
        """The stop (of `stops`) the cursor is at or last passed; None before the first one."""
        chosen = self._wanted_stop if self._wanted is not None else self.chosen_stop
        return stop_index_at(self.stop_positions(), self.position, chosen)

    def move_to_stop(self, index: int) -> None:
        positions = self.stop_positions()
        if positions:
            index = max(0, min(index, len(positions) - 1))
            self.move_to(positions[index], stop=index)

    def next_stop(self) -> None:
        """The following stop, one by one even where several share a position."""
        index = self.stop_index
        following = 0 if index is None else index + 1
        if following < len(self.stop_positions()):
            self.move_to_stop(following)

    def previous_stop(self) -> None:
        index = self.stop_index
        if index is None:
            return
        at_stop = self.stop_positions()[index] == self.position
        target = index - 1 if at_stop else index  # between stops: back to the one just passed
        if target >= 0:
            self.move_to_stop(target)

    def step_events(self, delta: int) -> None:
        self.move_to(self.position + delta)

    def home(self) -> None:
        self.move_to(0)

    def end(self) -> None:
        if self.run is not None:
            self.move_to(len(self.run.axis))

    # -- templates and selection ------------------------------------------------------------------------
    def set_templates(self, templates: dict[str, str], app_name: str | None = None) -> None:
        self.templates = dict(templates)
        if app_name is not None:
            self.app_name = app_name
        self.templates_changed.emit()

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
