"""Milestone stops placed on the run's axis: for each stop, the axis positions where it starts and ends.

A commit-based stop (§5.4) covering commits `commitIdx..lastCommitIdx` ends at the axis position where those
commits are applied: every event that fired before a later commit has happened, none after. Files without a
usable commit log get stops derived from their events (marked `derived`), which are axis positions already.
Each stop gains `axisStart` (first event of the stop) and `axisEnd` (the cursor position AT the stop).
"""

from __future__ import annotations

from afp_desktop.core.stops import derived_stops, milestone_stops


def commit_alignment_usable(run) -> bool:
    """Commit stops can be placed only when the events carry commit counts (not the legacy all-zero mode)."""
    log = run.commit_log
    if not log:
        return False
    if len(log) <= 1:
        return True
    return any(isinstance(e.get("commitIdxBefore"), int) and e.get("commitIdxBefore") > 0
               for e in run.domain_events)


def stops_for_run(run) -> list[dict]:
    axis = run.axis
    total = len(axis)
    if commit_alignment_usable(run):
        stops = [dict(s) for s in milestone_stops(run.commit_log, run.execution_tree)]
        for stop in stops:
            if stop["kind"] == "end":
                stop["axisStart"], stop["axisEnd"] = min(axis.position_after_commit(stop["commitIdx"] - 1), total), total
            else:
                stop["axisStart"] = axis.position_after_commit(stop["commitIdx"] - 1)
                stop["axisEnd"] = axis.position_after_commit(stop["lastCommitIdx"])
        return stops
    typed = run.typed_events or []
    pseudo = []
    for kind, index in axis.entries:
        event = run.domain_events[index] if kind == "d" else typed[index]
        if kind == "d":
            pseudo.append({"type": event.get("type"), "runtimeStageId": event.get("runtimeStageId") or ""})
        else:
            meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
            rid = meta.get("runtimeStageId")
            pseudo.append({"type": "typed", "runtimeStageId": rid if isinstance(rid, str) else ""})
    stops = [dict(s) for s in derived_stops(pseudo)]
    for stop in stops:
        stop["axisStart"] = max(stop["eventIdx"], 0)
        stop["axisEnd"] = total if stop["kind"] == "end" else stop["lastEventIdx"] + 1
    return stops


def stop_index_at(stops: list[dict], position: int) -> int:
    """The stop the cursor is in: the last stop whose axisEnd is ≤ position... or whose range holds it."""
    best = 0
    for i, stop in enumerate(stops):
        if stop["axisEnd"] <= position or stop["axisStart"] <= position:
            best = i
        else:
            break
    return best
