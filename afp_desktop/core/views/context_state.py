"""The run's state at the cursor, from the commit log: each top-level state key with its value, whether it
entered, changed or left since the previous stop, and which stage wrote it last. Pure, no Qt.

A file without a commit log (NDJSON, Trace) has no state to show: `ContextStates.available` is False and
`reason` says so. A resumed run's snapshot covers only its last leg: before that leg the state is unknown.

Commits at a position: the events carry `commitIdxBefore`; at axis position p (p entries happened) the commits
applied are those before the next entry's count (`axis.commit_before[p]`), all of them at the end. A commit
stop pins its own `lastCommitIdx` instead, so two stops at one position still show their own state.

The engine answers the Context tab's requests with `ContextStates.answer` (the view at a position) and
`ContextStates.value_text` (one key's whole value), plain values that pickle small.
"""

from __future__ import annotations

import copy
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from afp_desktop.core.library.stops import PATH_DELIMITER, apply_bundle, is_commit_bundle
from afp_desktop.core.breathing import breathing_over

VALUE_CHARS = 160
DETAIL_CHARS = 20_000  # a key's whole value is cut here (the rest counted)
ENTERED, CHANGED, LEFT, SAME = "entered", "changed", "left", "same"


@dataclass(frozen=True)
class Writer:
    commit: int              # index in the commit log
    stage: str               # the bundle's stage name ("System Prompt"), else its stageId
    stage_id: str            # its runtimeStageId ("sf-system-prompt#7"); "" for the initial state


@dataclass(frozen=True)
class KeyRow:
    key: str
    status: str              # entered | changed | left | same (since the previous stop)
    value: str               # one plain line; for a key that left, its value before
    writer: Writer | None    # the last commit that wrote it, None: it came with the initial state


@dataclass(frozen=True)
class ContextView:
    rows: tuple[KeyRow, ...]
    commit: int              # commits 0..commit applied (-1: none)
    previous_commit: int | None
    note: str | None = None  # said above the rows (e.g. "state before the resumed leg is not recorded")

    def counts(self) -> dict[str, int]:
        out = {ENTERED: 0, CHANGED: 0, LEFT: 0, SAME: 0}
        for row in self.rows:
            out[row.status] += 1
        return out


@dataclass(frozen=True)
class ContextAnswer:
    """The Context tab at a position: `view` (None and `reason` said when the run has no commit log) and how many
    commits the log holds."""

    view: ContextView | None
    commits: int
    reason: str | None = None


def one_line(value: Any, limit: int = VALUE_CHARS) -> str:
    from afp_desktop.core.jsonx import jsonio

    return '""' if value == "" else jsonio.one_line(value, limit)  # (an empty string is a value, not a blank)


def key_writes(run) -> dict[str, list[int]]:
    """`find_key_writes` of the run: the prepared views' (the window's loader read them: a long run's commit log
    is too long to read on the window's thread), else read now. Treat the result as read-only."""
    return run.views.key_writes if run.views is not None else find_key_writes(run)


def find_key_writes(run) -> dict[str, list[int]]:
    """Each top-level state key → the commits (indices into the run's commit log) that wrote it, in order."""
    log = run.commit_log if isinstance(run.commit_log, list) else []
    writes: dict[str, list[int]] = {}
    for index, bundle in enumerate(breathing_over(log, every=256)):
        if not is_commit_bundle(bundle):
            continue
        trace = bundle["trace"]  # (one commit may write thousands of paths: breathe within it too)
        entries = trace if len(trace) <= 1024 else breathing_over(trace)
        for key in {str(entry.get("path", "")).split(PATH_DELIMITER)[0] for entry in entries
                    if isinstance(entry, dict)}:
            if key:
                writes.setdefault(key, []).append(index)
    return writes


class ContextStates:
    """State folds over one run's commit log, with the writer of each top-level key at every commit."""

    CACHE = 6

    def __init__(self, run) -> None:
        self.run = run
        log = run.commit_log
        self.log: list = log if isinstance(log, list) else []
        snapshot = run.snapshot if isinstance(run.snapshot, dict) else {}
        initial = snapshot.get("initialState")
        self.initial: dict = initial if isinstance(initial, dict) else {}
        self.available = bool(self.log)
        self.reason = None if self.available else (
            f"This file ({run.format_name}) has no commit log, so the run's state keys cannot be shown: only a "
            "recording (recording.json, an envelope, a packed recording or a bug-report bundle) carries one.")
        self._writes = key_writes(run)
        self._states: dict[int, dict] = {}

    # -- folding --------------------------------------------------------------------------------------------
    def state_through(self, commit: int) -> dict:
        """The state with commits 0..commit applied (-1: the initial state). Do not mutate the result."""
        commit = max(-1, min(commit, len(self.log) - 1))
        cached = self._states.get(commit)
        if cached is not None:
            return cached
        below = [c for c in self._states if c < commit]
        start = max(below) if below else -1
        state = copy.deepcopy(self._states[start] if below else self.initial)
        for index in range(start + 1, commit + 1):
            bundle = self.log[index]
            if is_commit_bundle(bundle):
                apply_bundle(state, bundle)
        if len(self._states) >= self.CACHE:
            self._states.pop(max(self._states, key=lambda c: abs(c - commit)))  # keep the neighbours
        self._states[commit] = state
        return state

    def writer(self, key: str, commit: int) -> Writer | None:
        commits = self._writes.get(key)
        if not commits:
            return None
        at = bisect_right(commits, commit) - 1
        if at < 0:
            return None
        index = commits[at]
        bundle = self.log[index]
        stage = bundle.get("stage") or bundle.get("stageId") or bundle.get("runtimeStageId") or ""
        rid = bundle.get("runtimeStageId")
        return Writer(index, str(stage), rid if isinstance(rid, str) else "")

    # -- positions --------------------------------------------------------------------------------------------
    def commit_at(self, position: int) -> int | None:
        """The last commit applied at axis `position`; None where the log does not reach (an earlier leg)."""
        axis = self.run.axis
        if position >= len(axis):
            return len(self.log) - 1
        before = axis.commit_before[max(position, 0)]
        if before < 0:
            return None
        return min(before, len(self.log)) - 1

    def first_recorded_position(self) -> int:
        """The first axis position the commit log covers (0 unless a resume started a new leg)."""
        before = self.run.axis.commit_before
        return next((p for p, c in enumerate(before) if c >= 0), len(before))

    @staticmethod
    def commit_of_stop(stop: dict | None) -> int | None:
        """A commit-log stop's own last commit (a derived stop has none)."""
        if not isinstance(stop, dict) or stop.get("derived") or stop.get("sourceIdx") is not None:
            return None
        last = stop.get("lastCommitIdx")
        return last if isinstance(last, int) and not isinstance(last, bool) else None

    # -- the view -------------------------------------------------------------------------------------------
    def view(self, commit: int | None, previous: int | None) -> ContextView:
        """Keys at `commit`, compared with `previous` (the previous stop's commit; None: compare with nothing)."""
        if commit is None:
            where = self.first_recorded_position()
            return ContextView((), -1, previous, "The commit log covers only the resumed leg of this run (from "
                               f"event {where:,}); the state before it is not recorded.")
        before = self.state_through(previous) if previous is not None else None  # first: `now` folds on from it
        now = self.state_through(commit)
        rows = []
        for key, value in now.items():
            if before is None or key not in before:
                status = ENTERED if before is not None else SAME
            else:
                status = SAME if before[key] == value else CHANGED
            rows.append(KeyRow(key, status, one_line(value), self.writer(key, commit)))
        if before is not None:
            for key, value in before.items():
                if key not in now:
                    rows.append(KeyRow(key, LEFT, one_line(value), self.writer(key, commit)))
        return ContextView(tuple(rows), commit, previous)


    # -- the engine's answers ------------------------------------------------------------------------------------
    def answer(self, position: int, stop: dict | None = None, at_stop: bool = False,
               previous_position: int | None = None, previous_stop: dict | None = None) -> ContextAnswer:
        """context_at this position (None and the reason when the run has no commit log)."""
        if not self.available:
            return ContextAnswer(None, 0, self.reason)
        view = context_at(self, position, stop, at_stop, previous_position, previous_stop)
        return ContextAnswer(view, len(self.log))

    def value_text(self, key: str, commit: int | None, limit: int = DETAIL_CHARS) -> str:
        """`key`'s whole value in the state through `commit` (None: the initial state), as plain text cut at
        `limit` characters."""
        from afp_desktop.core.views.inspect import as_text

        state = self.state_through(commit if commit is not None else -1)
        text = as_text(state.get(key))
        if len(text) > limit:
            text = text[:limit] + f"\n… ({len(text) - limit:,} more characters)"
        return text


def context_at(states: ContextStates, position: int, stop: dict | None = None, at_stop: bool = False,
               previous_position: int | None = None, previous_stop: dict | None = None) -> ContextView:
    """The view at `position`, against the state at `previous_position` (the previous stop). A commit stop the
    cursor sits at pins its own commit."""
    commit = states.commit_of_stop(stop) if at_stop else None
    if commit is None:
        commit = states.commit_at(position)
    previous = None
    if previous_position is not None:
        previous = states.commit_of_stop(previous_stop)
        if previous is None:
            previous = states.commit_at(previous_position)
        if previous is None:
            previous = -1 if commit is not None else None
    return states.view(commit, previous)


def stop_of_commit(stops: list[dict], commit: int) -> int | None:
    """The commit-log stop whose commits include `commit` (None for derived stops)."""
    for index, stop in enumerate(stops):
        first, last = stop.get("commitIdx"), stop.get("lastCommitIdx")
        if stop.get("derived") or not isinstance(first, int) or not isinstance(last, int):
            continue
        if stop.get("kind") == "start":
            first = 0
        if first <= commit <= last:
            return index
    return None
