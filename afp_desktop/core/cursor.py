"""What the run looks like at a cursor position: which StepGraph nodes have happened, which one is current,
which stop the cursor is in. Pure functions of (run, position)."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True)
class CursorView:
    position: int
    n_domain: int
    n_typed: int
    happened: list[bool]          # per StepGraph node: created by this position
    finished: list[bool]          # per node: its last change (end, tokens) has happened too
    current_node: int | None      # the most recently created node


def stop_index_at(ends: list[int], position: int, preferred: int | None = None) -> int | None:
    """The stop the cursor is at, given each stop's axisEnd: the last one reached (None before the first).
    Several stops can end at one position; `preferred` (the stop a user chose) wins among those."""
    if preferred is not None and 0 <= preferred < len(ends) and ends[preferred] == position:
        return preferred
    index = bisect_right(ends, position) - 1
    return index if index >= 0 else None


def view_at(run, position: int) -> CursorView:
    position = max(0, min(position, len(run.axis)))
    n_domain, n_typed = run.at(position)
    fold = run.step_fold
    created = fold.node_created_at
    changed = fold.node_changed_at
    happened = [c < n_domain for c in created]
    finished = [c < n_domain for c in changed]
    current = bisect_right(created, n_domain - 1) - 1  # created is non-decreasing
    return CursorView(position, n_domain, n_typed, happened, finished,
                      current if current >= 0 else None)
