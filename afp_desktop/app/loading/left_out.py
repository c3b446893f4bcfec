"""What the loader leaves out of a run, asked of the engine once the run is shown.

* **A big Trace's payloads**, kept as bytes until shown. Checking that each payload of a big Trace is valid JSON
  means parsing them all, and the run would be shown only after that. Nothing on screen needs it: a payload is
  checked again when it is read (the inspector, an export), and what the check finds is a banner line
  (prepared_views.prepare_views leaves it out). The command line still checks before it prints anything.

The check is the engine's answer to a "left_out" request (engine/service.py), asked START_AFTER_MS after the run is
shown: the window's process only takes the answer in (`checked(run)` then; the banner says what the check found).

The loader also leaves out the whole graph's layout when the graph is shown folded (prepare_views(fold_above=…)):
only the folded graph's layout is drawn, and the whole one is made when the user turns folding off
(PreparedViews.whole_graph_layout). It is not asked of the engine: a layout of thousands of cards takes longer to
receive on the window's thread than the window's longest pause allows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

if TYPE_CHECKING:
    from afp_desktop.core.model.run import Run

# The run's first paints come first: the engine's answer, taken in on the window's thread, comes after them.
START_AFTER_MS = 400
TAG = "left_out"


class LeftOut(QObject):
    """One run at a time; `checked(run)` on the window's thread once a run's payloads are known.
    `requests`: the window's EngineRequests."""

    checked = Signal(object)

    def __init__(self, requests, parent: QObject | None = None):
        super().__init__(parent)
        self.requests = requests
        self.asked_about: Run | None = None  # the run the request under way is about
        self._pending: Run | None = None  # the run whose request is sent when the timer fires
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.timeout.connect(self._ask_now)

    def start(self, run) -> None:
        """Ask for what `run` was left without, once the run's first paints are done; an answer about another run
        still to come is dropped."""
        self.stop()
        if run is None or not left_out(run):
            return
        self._pending = run
        self._later.start(START_AFTER_MS)  # (read now: a test may change it for a window made already)

    def _ask_now(self) -> None:
        run, self._pending = self._pending, None
        if run is None or run is not self.requests.session.run:
            return
        self.asked_about = run
        self.requests.request(TAG, "left_out", {}, lambda answer: self._answered(run, answer),
                              lambda _why: self._failed(run))  # (not made: a payload read later is checked then)

    def stop(self) -> None:
        """Another run is shown (or none): a request not sent is not sent, an answer to come is dropped."""
        self._later.stop()
        self._pending = None
        if self.asked_about is not None:
            self.asked_about = None
            self.requests.drop(TAG)

    def _failed(self, run) -> None:
        if run is self.asked_about:
            self.asked_about = None

    def _answered(self, run, answer: dict) -> None:
        if run is not self.asked_about:
            return
        self.asked_about = None
        problems = answer["payload_problems"]
        if problems is not None:
            run.payloads_known(problems)
        self.checked.emit(run)


def left_out(run: Run) -> list[str]:
    """What the engine is asked about `run` once it is shown (kept by the run once known)."""
    return [] if run.payloads_checked else ["payload_problems"]
