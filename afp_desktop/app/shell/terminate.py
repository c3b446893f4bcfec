"""Ending the app from outside (SIGTERM from a session logout or `kill`, SIGHUP when the terminal goes) closes
the window the way the user would, so the window layout and settings are saved.

Python runs signal handlers only when the interpreter gets control, and Qt's event loop can sleep for ever;
`signal.set_wakeup_fd` makes the signal write a byte to a socket that a QSocketNotifier watches, which wakes
the loop and lets the handler run.
"""

from __future__ import annotations

import signal
import socket

from PySide6.QtCore import QObject, QSocketNotifier, QTimer

SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)


class CloseOnTerminate(QObject):
    """While alive, SIGTERM/SIGHUP close `window` (its closeEvent saves the layout; the app then quits)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self._read, self._write = socket.socketpair()
        for end in (self._read, self._write):
            end.setblocking(False)
        self._previous_fd = signal.set_wakeup_fd(self._write.fileno())
        self._notifier = QSocketNotifier(self._read.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._drain)
        self._previous = {sig: signal.signal(sig, self._on_signal) for sig in SIGNALS}

    def _drain(self) -> None:
        try:
            self._read.recv(64)
        except OSError:
            pass

    def _on_signal(self, _signum, _frame) -> None:
        QTimer.singleShot(0, self.window, self.window.close)


def close_on_terminate(window) -> CloseOnTerminate | None:
    """Install the handlers (main thread only; None where signals cannot be caught)."""
    try:
        return CloseOnTerminate(window)
    except (ValueError, OSError):  # not the main thread, or no socketpair
        return None
