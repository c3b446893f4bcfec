"""What the loader leaves out of a run, made beside the window once the run is shown.

* **A big Trace's payloads**, kept as bytes until shown. Checking that each payload of a big Trace is valid JSON
  means parsing them all, and the run would be shown only after that. Nothing on screen needs it: a payload is
  checked again when it is read (the inspector, an export), and what the check finds is a banner line
  (prepared_views.prepare_views leaves it out). The command line still checks before it prints anything.
* **The whole graph's layout when the graph is shown folded** (prepare_views(fold_above=…)): only the folded
  graph's layout is drawn; the whole one is needed once the user turns folding off, and making it lengthens a big
  Trace's load. Turned off before it is made, the window makes it then.

This thread makes them once the whole run is shown and painted, waiting while the window is at work
(pacing/stoppable.py); the banner then says what the check found.
"""

from __future__ import annotations

import threading
from typing import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from afp_desktop.app.pacing.stoppable import stoppable
from afp_desktop.core.formats.errors import LoadCancelled
from afp_desktop.core.model.run import Run

# The run's first paints come first: a check begun in the same turn competes with them for Python and lengthens
# the window's longest stall while a big run opens; begun this much later, it finds those paints done.
START_AFTER_MS = 400


class LeftOut(QObject):
    """One run at a time; `checked(run)` on the window's thread once a run's payloads are known."""

    checked = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._stop = threading.Event()
        self.thread: threading.Thread | None = None  # the last one started (tests wait for it)
        self._pending = None  # the run whose check starts when the timer fires
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.timeout.connect(self._start_now)

    def start(self, run) -> None:
        """Make what `run` was left without, once the run's first paints are done; the work for another run still
        going is stopped."""
        self.stop()
        if run is None or not left_out(run):
            return
        self._pending = run
        self._later.start(START_AFTER_MS)  # (read now: a test may change it for a window made already)

    def _start_now(self) -> None:
        run, self._pending = self._pending, None
        if run is None:
            return
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._make, args=(run, self._stop), name="afp-left-out",
                                       daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Another run is shown (or none): a check not begun is dropped, the one going on, if any, ends at its
        next breathing point."""
        self._later.stop()
        self._pending = None
        self._stop.set()

    def _make(self, run, stop: threading.Event) -> None:
        try:
            with stoppable(stop):
                for make in left_out(run):
                    make()
        except LoadCancelled:
            return
        except Exception:  # noqa: BLE001 - a bug here must not take the window down: the work is left undone
            return
        if stop.is_set():
            return
        try:
            self.checked.emit(run)
        except RuntimeError:  # the window (this object's parent) was deleted meanwhile: no one is left to tell
            return


def left_out(run: Run) -> list[Callable[[], object]]:
    """What makes each projection of `run` the loader left out (each kept by the run or its views once made)."""
    makes: list[Callable[[], object]] = []
    if not run.payloads_checked:
        makes.append(lambda: run.payload_problems)
    views = run.views
    if views is not None and views.graph_layout is None:
        makes.append(lambda: views.whole_graph_layout(run))
    return makes
