"""Runs no longer shown are freed beside the window, a piece at a time.

Dropping the last reference to a big run frees it in one long call on the thread that drops it. Dropped on the
window's thread, as another file is opened over a big run, it would freeze the window while the new file's first
part is shown. The session
hands the run it stops showing here instead; once nothing else holds it, a thread beside the window
(pacing/stoppable.py) takes it apart (core/dismantle.py).
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from PySide6.QtCore import QObject, QTimer

from afp_desktop.app.pacing.stoppable import stoppable
from afp_desktop.core.dismantle import take_apart
from afp_desktop.engine.collector import collector_paused

HAND_OVER_AFTER_MS = 400  # the run that took its place is shown first (its first paints, its settled moment)
TRIES = 10  # a run still held elsewhere (a panel not yet switched) is looked at again this many times
_HELD_HERE = 2  # sys.getrefcount of a value held only by its entry here (the entry and getrefcount's argument)


class RunDisposal(QObject):
    """Keeps what the session stopped showing until it can be freed beside the window."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._held: list[list] = []  # [value, tries left]
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(HAND_OVER_AFTER_MS)
        self._timer.timeout.connect(self._hand_over)
        self.freeing: threading.Thread | None = None  # the last thread started (tests wait for it)

    def retire(self, *values: Any) -> None:
        """Values no longer shown (a run, its replay). One still referred to by another is freed after it."""
        self._held.extend([value, TRIES] for value in values if value is not None)
        if not self._timer.isActive():
            self._timer.start()

    def _hand_over(self) -> None:
        ready: list = []
        kept: list[list] = []
        for entry in self._held:
            if sys.getrefcount(entry[0]) <= _HELD_HERE or entry[1] <= 1:
                ready.append(entry[0])  # (given up on after TRIES: freed by whoever drops it last, as before)
            else:
                kept.append([entry[0], entry[1] - 1])
            entry[0] = None
        self._held = kept
        if kept:
            self._timer.start()
        if ready:
            nothing_shown = getattr(self.parent(), "run", None) is None  # (the session's: a run closed, not replaced)
            self.freeing = threading.Thread(target=_free, args=(ready, nothing_shown), name="afp-free-run",
                                            daemon=True)
            del ready
            self.freeing.start()


def _free(values: list, give_back: bool) -> None:
    """Take `values` apart; `give_back`: then hand the freed memory back to the system (a run closed: nothing
    will reuse it soon. A run replaced by another is not: the new one reuses it, and the trim's lock on the
    allocator would lengthen the stalls of the new run's opening)."""
    with collector_paused(freeze=False), stoppable():  # (no collection off the window's thread)
        while values:
            try:
                take_apart(values.pop())
            except Exception:  # noqa: BLE001 - what cannot be taken apart is freed whole
                continue
    if give_back:
        give_memory_back()


_trim: Any = None  # the C library's malloc_trim, once looked up (False: there is none)


def give_memory_back() -> None:
    """The C allocator keeps what a run freed for its own reuse: after a big run is closed, the window still holds
    much of its memory, part of which glibc gives back when asked (off the window's thread, with the GIL let go).
    Ask it, where there is a glibc to ask."""
    global _trim
    if _trim is None:
        _trim = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                _trim = ctypes.CDLL("libc.so.6").malloc_trim
            except (OSError, AttributeError):  # (another C library: musl has no malloc_trim)
                pass
    if _trim:
        _trim(0)
