"""Keeping a loader thread out of the window's way.

Python runs one thread at a time. While a loader thread runs Python, every call of the window's thread between
Qt and Python waits its turn, and a paint makes hundreds: a move of the cursor takes several times as long. So at its
breathing points (core/breathing.py, every few milliseconds of work) the loader asks `Contention.yield_if_shared`:
when the window's thread has been at work since the last point (its own processor clock moved: painting in C++
counts, and each return to Python from it then waits for the loader), or the loader had the processor for less
than its share of that time (another thread wanted Python), the loader waits until the window's event loop goes
to sleep, its work done — or until the window's processor clock stands still: it went to sleep before the loader
began to listen (a loader that waited for the disk also finds it "shared" the processor).
(The event loop's own "awake" signal cannot tell that the window is at work: Qt's glib loop sends it after the
work. "About to block" is sent by every loop once there is nothing left to do.)

C that lets go of Python (a big Trace's bracket scan) does not slow the window's Python, but it takes a processor:
when another program keeps the other one busy, the window's thread waits in the system's run queue for part of
each piece of work, and its pieces take longer. So at those breathing points the loader asks `yield_if_starved`:
when the window's thread waited for a processor (Linux's schedstat) for more than a tenth of the time since the
last point, the loader waits for the window's sleep as above.
"""

from __future__ import annotations

import os
import threading
import time

from PySide6.QtCore import QAbstractEventDispatcher, QCoreApplication, Qt

SHARED = 0.75  # ran less than this fraction of the time since the last breathing point: the processor was shared
WINDOW_AT_WORK = 0.1  # the window's thread used more than this fraction of that time: it is at work
YIELD_S = 0.05  # a loader waits at most this long at a time for the window to finish,
# then works at least this long before it waits again (never starved: over a tenth of the time). A cursor move
# that comes during that stretch waits for Python at each of its calls, so the stretch is kept short; much shorter
# and the waits themselves, each a turn of the window's loop, cost the window more than they save.
WORK_S = 0.006
MEASURE_S = 0.001  # the window's and the loader's processor time are compared over at least this long
IDLE_PROBE_S = 0.001  # while a loader waits, it looks this often whether the window's processor clock still moves
IDLE_FRACTION = 0.1  # the window's thread used less than this fraction of a probe: it is not at work (asleep)
STARVED = 0.1  # the window's thread waited for a processor more than this fraction of the time: it is starved
_activity: "WindowActivity | None" = None


class WindowActivity:
    """When the window's event loop last went to sleep, for threads that wait for that."""

    def __init__(self) -> None:
        self.asleep = threading.Event()  # set when the event loop is about to sleep (cleared by who waits)
        self.waiting_for_load = 0  # >0: the window's thread itself waits for a load (RunLoader.wait)
        try:  # the processor clock of the window's thread (this one), where the system has one
            self.clock: int | None = time.pthread_getcpuclockid(threading.get_ident())
        except (AttributeError, OSError):
            self.clock = None
        self._schedstat = _open_schedstat(threading.get_native_id())
        dispatcher = QAbstractEventDispatcher.instance(QCoreApplication.instance().thread())
        if dispatcher is not None:
            dispatcher.aboutToBlock.connect(self.asleep.set, Qt.ConnectionType.DirectConnection)

    def cpu_seconds(self) -> float:
        """Processor time the window's thread has used (0 where it cannot be read)."""
        if self.clock is None:
            return 0.0
        try:
            return time.clock_gettime(self.clock)
        except OSError:
            return 0.0

    def queued_seconds(self) -> float:
        """Time the window's thread has spent ready to run but waiting for a processor (0 where the system
        does not say: Linux's /proc/…/schedstat, its second field)."""
        if self._schedstat is None:
            return 0.0
        try:
            return int(os.pread(self._schedstat, 128, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return 0.0

    def wait_until_asleep(self, seconds: float) -> None:
        """Until the event loop next goes to sleep, or the window's thread is found not at work (asleep before
        this was asked: a loader that read the file lost the processor to the disk, not to the window, and must not
        wait its whole allowance for a sleep that has come already). A thread whose clock stands still while it
        waits for a processor is at work, not asleep."""
        self.asleep.clear()
        deadline = time.monotonic() + seconds
        before, queued_before = self.cpu_seconds(), self.queued_seconds()
        while (left := deadline - time.monotonic()) > 0:
            if self.asleep.wait(min(IDLE_PROBE_S, left)):
                return
            now, queued = self.cpu_seconds(), self.queued_seconds()
            if self.clock is not None and now - before < IDLE_FRACTION * IDLE_PROBE_S \
                    and queued - queued_before < IDLE_FRACTION * IDLE_PROBE_S:  # (queued: ready, not asleep)
                return
            before, queued_before = now, queued


def _open_schedstat(native_id: int) -> int | None:
    """A descriptor of the thread's scheduler figures, read again with pread (cheap), or None."""
    try:
        descriptor = os.open(f"/proc/self/task/{native_id}/schedstat", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except (OSError, AttributeError):
        return None
    try:
        int(os.pread(descriptor, 128, 0).split()[1])
    except (OSError, ValueError, IndexError):
        os.close(descriptor)
        return None
    return descriptor


def window_activity() -> WindowActivity:
    """The one WindowActivity of this application. Made by the first RunLoader, on the window's thread: it reads
    the processor clock of the thread that makes it (a loader thread asking first would be timing itself)."""
    global _activity
    if _activity is None:
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("window_activity() is first asked on the window's thread (by a RunLoader)")
        _activity = WindowActivity()
    return _activity


class Contention:
    """A loader thread's side: yields to the window when it finds it had to share the processor."""

    def __init__(self, stop: threading.Event) -> None:
        self.activity = window_activity()
        self.stop = stop
        self._mark()
        self._resumed = 0.0

    def _mark(self) -> None:
        self._wall, self._cpu, self._window_cpu = time.monotonic(), time.thread_time(), self.activity.cpu_seconds()
        self._window_queued = self.activity.queued_seconds()

    def yield_if_starved(self) -> None:
        """At a breathing point of C that lets go of Python: wait for the window's sleep when its thread has been
        waiting for a processor (this one and another program's share the rest)."""
        wall, queued = time.monotonic(), self.activity.queued_seconds()
        elapsed = wall - self._wall
        if elapsed <= MEASURE_S:
            return
        starved = queued - self._window_queued > STARVED * elapsed
        self._mark()
        self._wait_for_window_if(starved)

    def yield_if_shared(self) -> None:
        wall, cpu, window_cpu = time.monotonic(), time.thread_time(), self.activity.cpu_seconds()
        elapsed = wall - self._wall
        if elapsed <= MEASURE_S:
            return  # (measured over at least this long: breathing points closer than that are not judged one by
            # one, or a loop that breathes often would never find the window at work)
        shared = cpu - self._cpu < SHARED * elapsed or window_cpu - self._window_cpu > WINDOW_AT_WORK * elapsed
        self._wall, self._cpu, self._window_cpu = wall, cpu, window_cpu
        self._window_queued = self.activity.queued_seconds()
        self._wait_for_window_if(shared)

    def _wait_for_window_if(self, needed: bool) -> None:
        """Wait for the window's sleep when `needed`, unless this thread resumed only just now (it works at least
        WORK_S between waits), is stopping, or the window itself waits for it."""
        if not needed or self._wall - self._resumed < WORK_S or self.stop.is_set() or self.activity.waiting_for_load:
            return
        self.activity.wait_until_asleep(YIELD_S)
        self._mark()
        self._resumed = self._wall
