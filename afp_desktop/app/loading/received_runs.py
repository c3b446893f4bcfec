"""A run from the engine process received a slice per turn of the window's event loop.

Unpickling a big run is ~0.3 s of Python work (engine/process.py `receive`). Done on the window's thread it would
freeze the window that long; done on another thread beside it, every return of the window's thread to Python (a paint
makes hundreds) would wait for the other's turn. So the unpickling thread works only while the window's thread waits
for it: once per turn of the event loop (a 0 ms timer, served after input and paints) the window's thread hands it
a slice of SLICE_S and blocks until it pauses between two frames of the pickle. The collector is held off while a
run is received, and the run is then frozen out of its way (engine/collector.py).

A run's copy holds Python's own arrays, never numpy's (core/views/window_copy.py): the window's process imports no
numpy, so the unpickling thread imports nothing a thread of the window could be importing at the same time.
"""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, QTimer, Signal

from afp_desktop.engine import process as engine_process
from afp_desktop.engine.collector import collector_paused

SLICE_S = 0.006  # the unpickling thread works this long per turn of the window's event loop (then one frame more)


class _Stopped(Exception):
    """Raised between two frames once the receive is stopped."""


class SlicedReceive(QObject):
    """Receives one spill file (`kind`: "prefix" or "loaded"); `received(kind, run)` on the window's thread (run None
    when the file could not be read)."""

    received = Signal(str, object)

    def __init__(self, kind: str, spill: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.kind, self.spill = kind, spill
        self._turn_given = threading.Event()  # set by the window's thread: work a slice
        self._handed_back = threading.Event()  # set by the unpickling thread: paused (or done)
        self._stopped = False
        self._done = False
        self._run = None
        self._slice_ends = 0.0
        self._thread = threading.Thread(target=self._receive, name="afp-receive", daemon=True)
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._turn)

    def start(self) -> None:
        self._thread.start()
        self._timer.start()

    def stop(self) -> None:
        """End the receive at its next frame (nothing is delivered); `wait` then returns at once."""
        self._stopped = True
        self._timer.stop()
        self._turn_given.set()

    def wait(self, msecs: int = 30_000) -> bool:
        if self._thread.is_alive() and not self._done:
            self.stop()
        self._thread.join(msecs / 1000)
        return not self._thread.is_alive()

    def _turn(self) -> None:
        """On the window's thread: the unpickling thread works a slice while this one waits; once it is done, the
        run is handed on in a turn of its own (showing it is the panels' work: not in the turn of a slice)."""
        if self._done:  # (its thread still removes the spill file: not waited for here)
            self._timer.stop()
            if not self._stopped:
                self.received.emit(self.kind, self._run)
            self._run = None
            return
        self._handed_back.clear()
        self._turn_given.set()
        self._handed_back.wait()

    def _receive(self) -> None:
        try:
            self._wait_for_turn()
            with collector_paused():
                self._run = engine_process.receive(self.spill, self._between_frames, remove=False)
        except _Stopped:
            self._run = None
        except Exception:  # noqa: BLE001 - a spill cut short (the engine ended while writing it): said as a failure
            self._run = None
        finally:
            self._done = True
            self._handed_back.set()
        # (removed once the window's thread is no longer waiting for this one: removing a big file takes a while)
        engine_process.discard(self.spill)

    def _between_frames(self) -> None:
        if time.perf_counter() >= self._slice_ends:
            self._handed_back.set()
            self._wait_for_turn()

    def _wait_for_turn(self) -> None:
        self._turn_given.wait()
        self._turn_given.clear()
        if self._stopped:
            raise _Stopped()
        self._slice_ends = time.perf_counter() + SLICE_S
