"""A long job on a thread beside the window (a comparison, a share page, a long stop's lines, a run let go
of) ends at its next breathing point once it is asked to stop: a window closing waits for that, and a
thread left running when its window is deleted takes the program down."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from afp_desktop.app.pacing import window_imports
from afp_desktop.core.breathing import breathing
from afp_desktop.core.problems import LoadCancelled


@contextmanager
def stoppable(stop: threading.Event | None = None) -> Iterator[None]:
    """Run a job on this thread (not the window's) that raises LoadCancelled at its next breathing point once `stop`
    is set. It starts once numpy's import on the window's thread has run, if it is under way (window_imports.py:
    only the window's thread imports numpy), or once it is asked to stop while it waits."""
    window_imports.wait_for_numpy(stop.is_set if stop is not None else lambda: False)
    if stop is None:
        yield
        return
    if stop.is_set():
        raise LoadCancelled()

    def stop_here() -> None:
        if stop.is_set():
            raise LoadCancelled()

    with breathing(stop_here):
        yield
