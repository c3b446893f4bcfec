"""Milestone stops placed on the run's axis: for each stop, the axis positions where it starts and ends.

A commit-based stop (§5.4) covering commits `commitIdx..lastCommitIdx` ends at the axis position where those
commits are applied: every event that fired before a later commit has happened, none after. Files without a
usable commit log get stops derived from their events (marked `derived`), which are axis positions already.
Each stop gains `axisStart` (first event of the stop) and `axisEnd` (the cursor position AT the stop).
"""

from __future__ import annotations

from typing import cast

from afp_desktop.core.library.events import domain_indices_of
from afp_desktop.core.problems import Notice
from afp_desktop.core.shapes import StopDict
from afp_desktop.core.library.stops import derived_stops_from_ids, milestone_stops
from afp_desktop.core.breathing import breathing_over


def commit_alignment_usable(run) -> bool:
    """Commit stops can be placed only when the events carry commit counts (not the legacy all-zero mode)."""
    log = run.commit_log
    if not log:
        return False
    if len(log) <= 1:
        return True
    return any(isinstance(e.get("commitIdxBefore"), int) and e.get("commitIdxBefore") > 0
               for e in run.domain_events)


def stops_for_run(run) -> tuple[list[StopDict], Notice | None]:
    """The stops the timeline shows. Commit-log milestone stops when the events can be placed among the
    commits; stops derived from the events otherwise — and also when the commit log's top level holds no
    milestone at all (a composition whose steps all ran inside subflows), where the derived stops still find
    the nested LLM turns and tool calls. Returns the stops and, when they were derived for that reason, the
    notice that says so in plain words (the Run shows it; nothing is appended here)."""
    if commit_alignment_usable(run) and run.axis.legs > 1:
        derived = _derived_stops_on_axis(run)
        if len(derived) > 2:
            return derived, Notice("stops-derived-legs", f"This recording holds {run.axis.legs} legs of the run "
                                   "(a pause and its resume), and its commit log covers only the last, so the "
                                   "timeline's stops are derived from the events of every leg.", "info")
    if commit_alignment_usable(run):
        stops = _commit_stops_on_axis(run)
        if len(stops) > 2:
            return stops, None
        derived = _derived_stops_on_axis(run)
        if len(derived) > 2:
            return derived, Notice("stops-derived-nested", "The commit log has no milestones at its top level "
                                   "(this run's steps ran inside subflows), so the timeline's stops are derived "
                                   "from the events instead.", "info")
        return stops, None
    return _derived_stops_on_axis(run), None


def _commit_stops_on_axis(run) -> list[StopDict]:
    axis, total = run.axis, len(run.axis)
    stops = [cast(StopDict, dict(s)) for s in milestone_stops(run.commit_log, run.execution_tree)]
    for stop in stops:
        stop["axisStart"] = min(axis.position_after_commit(stop["commitIdx"] - 1), total)
        stop["axisEnd"] = total if stop["kind"] == "end" else axis.position_after_commit(stop["lastCommitIdx"])
    return stops


def _derived_stops_on_axis(run) -> list[StopDict]:
    # derived stops read each entry's runtimeStageId, and the ids a subflow.entry carries (its mounts: only a
    # DomainEvent is one).
    domain = run.domain_events
    mounts = {rid for i in breathing_over(domain_indices_of(run, "subflow.entry"))
              if isinstance(rid := domain[i].get("runtimeStageId"), str)}
    return cast(list[StopDict], derived_stops_from_ids(run.stage_ids_on_axis(), mounts, on_axis=True))
