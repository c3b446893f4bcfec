"""A stand-in for a long job on a worker thread (a load, a Find index, a comparison) that breathes
(core/breathing.py) and never asks whether it should stop: only its breathing points can end it."""

from __future__ import annotations

import threading
import time

from afp_desktop.core.breathing import breathe


def breathe_until_released(started: threading.Event, release: threading.Event | None = None,
                           seconds: float = 20.0) -> None:
    """Set `started`, then breathe until `release` is set or `seconds` pass; then raise (nothing stopped it)."""
    started.set()
    give_up = time.monotonic() + seconds
    while not (release is not None and release.is_set()) and time.monotonic() < give_up:
        breathe()
        time.sleep(0.001)
    raise AssertionError("never stopped")
