"""Unpickling a frame at a time: Python code runs between the frames a protocol-5 pickle is read in, so a thread
unpickling a big value lets others run (and can be stopped) every frame, not once at the end."""

from __future__ import annotations

import io
import pickle
from typing import Any, Callable

from afp_desktop.core.breathing import breathe

READ_PIECE = 1 << 22  # bytes of a big object read between two pauses (a few milliseconds of copying)


class FrameReader:
    """A file whose `read` / `readinto` / `readline` are Python code. The C unpickler reads a protocol-5 pickle a
    frame (at most 64 KiB) at a time through them: each call runs Python bytecode, where a thread waiting for
    Python's lock gets it, and `between_frames()`, so unpickling never goes on for longer than one frame's objects
    take without a chance to pause."""

    def __init__(self, source, between_frames: Callable[[], None] | None = None) -> None:
        self._source = source
        self._between = between_frames or (lambda: None)

    def read(self, size: int = -1) -> bytes:
        self._between()
        return self._source.read(size)

    def readinto(self, buffer) -> int:
        """A big object (a recording's text: hundreds of megabytes) is read into its buffer a piece at a time, with
        `between_frames()` before each piece: one read of the whole would hold the reading thread's slice, and the
        window waiting for it, for seconds."""
        view = memoryview(buffer).cast("B")
        done = 0
        while done < len(view):
            self._between()
            count = self._source.readinto(view[done:done + READ_PIECE])
            if not count:
                break
            done += count
        return done

    def readline(self) -> bytes:
        return self._source.readline()


def unpickled_in_frames(data: bytes) -> Any:
    """`pickle.loads(data)` a frame at a time, breathing between frames (core/breathing.py: where a thread's
    stop is looked for)."""
    return pickle.load(FrameReader(io.BytesIO(data), breathe))
