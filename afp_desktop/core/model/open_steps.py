"""Which StepGraph nodes are open (started, not yet ended) after n DomainEvents, in memory linear in the run.

A node opens after the DomainEvent that created it and closes after the one that ended it (never, if it never
ended). The open set is kept as a log of openings and closings with a full copy of the set at checkpoints; a
checkpoint is taken once the log since the last one is at least as long as the last copy, so each copy is at
most twice the log it follows (the copies together at most twice the log), and a question copies one checkpoint
and replays less of the log than that checkpoint holds. (A copy of the set at every change grows with the square
of the events when steps pile up open: a tool call started over and over.)

The innermost open step (the highest open node that is not a subflow) and the innermost open node are kept at
every change, so the step in flight is found without building the set.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Sequence
from heapq import heappop, heappush

from afp_desktop.core.breathing import breathing_over

MIN_CHECKPOINT_GAP = 32  # log entries between two checkpoints at least (a set of a few nodes is not copied often)


class OpenSteps:
    """The open nodes after n DomainEvents, from each node's creating and ending DomainEvent index."""

    def __init__(self, created: Sequence[int], ended: Sequence[int | None], is_subflow: Sequence[bool],
                 checkpoint_gap: int = MIN_CHECKPOINT_GAP) -> None:
        changes: dict[int, list[int]] = {}  # n: the nodes opening (i) and closing (-1 - i) once n events happened
        for index, (start, end) in enumerate(breathing_over(zip(created, ended))):
            if end == start:
                continue
            changes.setdefault(start + 1, []).append(index)
            if end is not None:
                changes.setdefault(end + 1, []).append(-1 - index)
        at_n = self._at_n = array("q", [0])  # the n of each change, the first (0) being before any
        log = self._log = array("q")  # the changes' openings and closings, one after the other
        log_end = self._log_end = array("q", [0])  # where each change's entries end in the log
        innermost_step = self._innermost_step = array("q", [-1])  # after each change: the highest open non-subflow
        innermost = self._innermost = array("q", [-1])  # after each change: the highest open node (-1: none)
        self._checkpoints = array("q", [0])  # the changes after which the set was copied
        self._copies: list[tuple[int, ...]] = [()]
        current: dict[int, None] = {}  # (a dict: the set in the order its nodes opened)
        # The highest open nodes: heaps of negated indices, a closed node dropped once it comes on top.
        steps: list[int] = []
        every: list[int] = []
        copied_at, copied_size = 0, 0
        for n in breathing_over(sorted(changes)):
            for code in changes[n]:
                log.append(code)
                if code >= 0:
                    current[code] = None
                    heappush(every, -code)
                    if not is_subflow[code]:
                        heappush(steps, -code)
                else:
                    current.pop(-1 - code, None)
            while steps and -steps[0] not in current:
                heappop(steps)
            while every and -every[0] not in current:
                heappop(every)
            at_n.append(n)
            log_end.append(len(log))
            innermost_step.append(-steps[0] if steps else -1)
            innermost.append(-every[0] if every else -1)
            if len(log) - copied_at >= copied_size and len(log) - copied_at >= checkpoint_gap:
                self._checkpoints.append(len(at_n) - 1)
                self._copies.append(tuple(current))
                copied_at, copied_size = len(log), len(current)

    def _change(self, n_domain: int) -> int:
        return bisect_right(self._at_n, n_domain) - 1

    def at(self, n_domain: int) -> tuple[int, ...]:
        """The open nodes after n DomainEvents, in the order they opened."""
        change = self._change(n_domain)
        kept = bisect_right(self._checkpoints, change) - 1
        copy, from_change = self._copies[kept], self._checkpoints[kept]
        if from_change == change:
            return copy
        current = dict.fromkeys(copy)
        for code in self._log[self._log_end[from_change]:self._log_end[change]]:
            if code >= 0:
                current[code] = None
            else:
                current.pop(-1 - code, None)
        return tuple(current)

    def innermost_step(self, n_domain: int) -> int | None:
        """The highest open node that is not a subflow (the LLM or tool call in flight), if any."""
        index = self._innermost_step[self._change(n_domain)]
        return index if index >= 0 else None

    def innermost(self, n_domain: int) -> int | None:
        """The highest open node, if any."""
        index = self._innermost[self._change(n_domain)]
        return index if index >= 0 else None
