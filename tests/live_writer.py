"""A stand-in for agentfootprint's file sink, for the follow tests and bench/bench_follow.py.

It appends whole batches of lines, each written in one to three pieces cut at random points (a reader can
see a batch half written, mid-line included), and rotates one generation the way the sink does: before a
batch would push a non-empty file past `max_bytes`, `FILE` is renamed to `FILE.1` (replacing it) and a fresh
`FILE` starts. It records what it wrote, so a test knows which events are complete and which survived.
"""

from __future__ import annotations

import os
import random
from pathlib import Path


class SinkWriter:
    def __init__(self, path: Path, lines: list[bytes], rng: random.Random, *, max_bytes: int = 4096,
                 max_batch: int = 8, may_rotate=lambda: True):
        self.path = Path(path)
        self.rotated = self.path.with_name(self.path.name + ".1")
        self.lines = [line if line.endswith(b"\n") else line + b"\n" for line in lines]
        self.rng = rng
        self.max_bytes = max_bytes
        self.max_batch = max_batch
        self.may_rotate = may_rotate  # a gate, so a threaded test can keep the reader within two rotations
        self.next_line = 0  # lines handed to batches so far
        self.complete = 0  # lines fully written so far (newlines written)
        self.rotations = 0
        self.generations: list[list[int]] = [[]]  # line indices per generation (the last is FILE)
        self._pieces: list[bytes] = []

    @property
    def done(self) -> bool:
        return self.complete == len(self.lines) and not self._pieces

    def step(self) -> None:
        """Write one piece of the current batch (starting a new batch, and maybe rotating, first)."""
        if not self._pieces:
            if self.next_line >= len(self.lines):
                return
            self._start_batch()
        piece = self._pieces.pop(0)
        with open(self.path, "ab") as handle:
            handle.write(piece)
        self.complete += piece.count(b"\n")

    def _start_batch(self) -> None:
        count = self.rng.randint(1, self.max_batch)
        batch = self.lines[self.next_line:self.next_line + count]
        data = b"".join(batch)
        size = self.path.stat().st_size if self.path.exists() else 0
        if size > 0 and size + len(data) > self.max_bytes and self.may_rotate():
            os.replace(self.path, self.rotated)
            self.rotations += 1
            self.generations.append([])
        self.generations[-1].extend(range(self.next_line, self.next_line + len(batch)))
        self.next_line += len(batch)
        cuts = sorted(self.rng.sample(range(1, len(data)), min(self.rng.randint(0, 2), len(data) - 1)))
        self._pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]

    def surviving(self) -> list[int]:
        """Line indices still on disk: the last two generations (`FILE.1`, then `FILE`)."""
        return [i for generation in self.generations[-2:] for i in generation]
