"""What the window's first open needs and its first frame does not: imported after the first frame, a module per turn.

The rule, in the window's process: the window's first frame imports neither multiprocessing, nor engine/process.py,
nor the formats, nor a run's views. Once the first frame is painted, `import_then(owner, call)` imports them on the
window's thread, one module per turn of its queue (scheduler.py): OPEN_MODULES, which starting the engine process
needs, then `call` (the window's first open, which starts it), both ahead of the pieces waiting in the queue, then
RUN_MODULES behind them, while the engine process starts and reads. No turn imports them all at once, and a run
received from the engine (loading/received_runs.py) finds what its unpickling needs already imported. A module that
fails to import is left to the code that uses it, which imports it again and says why.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator

from PySide6.QtCore import QObject

from afp_desktop.app.pacing import scheduler
from afp_desktop.engine.collector import collector_paused

OPEN_MODULES = ("multiprocessing.connection",)
# In the order they are imported; each one's own imports that are not in yet come with it.
RUN_MODULES = (
    "afp_desktop.core.model.run",
    "afp_desktop.core.formats",
    "afp_desktop.core.formats.bugreport",
    "afp_desktop.core.formats.bundle",
    "afp_desktop.engine.process",
    "afp_desktop.core.model.replay",
    "afp_desktop.core.views.inspect",
    "afp_desktop.core.views.run_facts",
    "afp_desktop.core.views.prepared_views",
    "afp_desktop.core.views.pause_marks",
)


def missing(names: tuple[str, ...] = OPEN_MODULES + RUN_MODULES) -> list[str]:
    """The modules of `names` not imported yet."""
    return [name for name in names if name not in sys.modules]


def _import(name: str) -> None:
    try:
        with collector_paused():  # (what it imports lives as long as the app: frozen out of the collector's way)
            importlib.import_module(name)
    except ImportError:
        pass  # (imported again where it is used, which says why)


def _steps(call: Callable[[], None]) -> Iterator[tuple[Callable[[], None], bool]]:
    """(step, before the pieces waiting in the queue): the engine process's start comes before the rest."""
    for name in missing(OPEN_MODULES):
        yield (lambda name=name: _import(name)), True
    yield call, True
    for name in missing(RUN_MODULES):
        yield (lambda name=name: _import(name)), False


def import_then(owner: QObject, call: Callable[[], None]) -> None:
    """On later turns of the window's queue, one step per turn: what is missing of OPEN_MODULES and `call`, each
    before the pieces waiting (a run received needs those later than the engine process is started), then
    what is missing of RUN_MODULES, each behind them. None runs once `owner` is deleted."""
    steps = _steps(call)

    def step(work: Callable[[], None]) -> None:
        try:
            work()
        finally:
            queue_next()

    def queue_next() -> None:
        upcoming = next(steps, None)
        if upcoming is not None:
            work, first = upcoming
            scheduler.later(owner, "open imports", lambda: step(work), first=first)

    queue_next()
