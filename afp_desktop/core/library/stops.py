"""Milestone stops / time travel over a recorded commit log (PROJECTIONS.md §5.1, §5.4).

Pure Python, no Qt. A port of footprintjs' ``commitStops`` / ``filterStops`` / ``tagStops`` / ``stateAt`` and
agentfootprint's ``milestoneStops`` strategy, checked stop for stop against the reference corpus.

A **stop** is a dict: ``step``, ``runtimeStageId`` (``""`` on bookends), ``commitIdx`` (first commit; -1 on
start), ``lastCommitIdx`` (stops partition the log), ``stageId``, ``subflowPath`` (only inside a subflow),
``label``, ``kind`` (start | mount | commit | end), ``meta`` (the strategy's classification; never on bookends),
``prologue`` (True only on a start that absorbed stages) and ``sourceIdx`` (chained pause/resume legs only).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from sys import intern
from typing import Any

from afp_desktop.core.jsonx.lazyjson import resolve_quietly
from afp_desktop.core.library.conventions import milestone_for, milestone_from_tags, parse_runtime_stage_id
from afp_desktop.core.breathing import breathing_over

Stop = dict[str, Any]
# What a keep rule returns for one stage stop (footprintjs StopFilter): falsy drops it, True keeps it as is,
# a dict keeps it with an optional "label" override and "meta".
KeepDecision = bool | dict | None

PATH_DELIMITER = "\u001f"  # joins the segments of a commit-trace path


# --- §5.4 step 1: commitStops ---------------------------------------------------------------------------------

def mount_ids(execution_tree: Any) -> set[str]:
    """runtimeStageIds the execution tree marks as subflow mounts (nodes carrying a ``subflowId`` key).

    Iterative on purpose: a long run's tree nests thousands of levels deep through ``next``; slot mounts and
    Route branches (``final#22``, ``tool-calls#22``) hang off ``children``.
    """
    known = getattr(execution_tree, "known_mount_ids", None)
    if known is not None:  # a large recording's tree left as bytes, its mounts found while reading it
        return set(known)  # (core/formats/lazy_recording.py)
    ids: set[str] = set()
    work = [execution_tree] if isinstance(execution_tree, dict) else []
    while work:
        node = work.pop()
        rid = node.get("runtimeStageId")
        if "subflowId" in node and rid and isinstance(rid, str):  # (another type can match no row's id)
            ids.add(rid)
        following = node.get("next")
        if isinstance(following, dict):
            work.append(following)
        children = node.get("children")
        if isinstance(children, list):
            work.extend(child for child in children if isinstance(child, dict))
    return ids


def _rid_of(row: Any) -> str:
    rid = row.get("runtimeStageId") if isinstance(row, dict) else None
    return rid if isinstance(rid, str) else ""


def _stage_stops(rows: list, is_mount: Callable[[int, str], bool], label_of: Callable[[Any], str]) -> list[Stop]:
    """One stop per distinct non-empty runtimeStageId at its first row, between start/end bookends.

    Shared by commit logs and DomainEvent lists: positions are row indices (``commitIdx`` / ``lastCommitIdx``).
    """
    return _stops_of_ids([_rid_of(row) for row in rows], is_mount, lambda i: rows[i].get("stageId", ""),
                         lambda i: label_of(rows[i]))


def _first_rows(rids: list[str]) -> list[int]:
    """The row of each distinct non-empty runtimeStageId's first appearance, in order."""
    firsts: list[int] = []
    seen: set[str] = set()
    for index, rid in enumerate(breathing_over(rids)):
        if rid and rid not in seen:
            seen.add(rid)
            firsts.append(index)
    return firsts


def _stops_of_ids(rids: list[str], is_mount: Callable[[int, str], bool], stage_id_at: Callable[[int], Any],
                  label_at: Callable[[int], str]) -> list[Stop]:
    """_stage_stops over each row's runtimeStageId ('' when it has none); the stage id and label of a row are
    asked only of the rows that start a stop."""
    if not rids:
        return []
    firsts = _first_rows(rids)
    last_index = len(rids) - 1
    stops: list[Stop] = [{
        "step": 0, "runtimeStageId": "", "commitIdx": -1,
        # covers leading id-less rows (a subflow's input-seed commit)
        "lastCommitIdx": (firsts[0] if firsts else len(rids)) - 1,
        "stageId": "", "label": "Run start", "kind": "start",
    }]
    for position, first in enumerate(breathing_over(firsts)):
        rid = rids[first]
        stop: Stop = {
            "step": len(stops), "runtimeStageId": rid, "commitIdx": first,
            "lastCommitIdx": firsts[position + 1] - 1 if position + 1 < len(firsts) else last_index,
            "stageId": stage_id_at(first),
        }
        subflow_path = parse_runtime_stage_id(rid)[0]
        if subflow_path is not None:
            stop["subflowPath"] = subflow_path
        stop["label"] = label_at(first)
        stop["kind"] = "mount" if is_mount(first, rid) else "commit"
        stops.append(stop)
    stops.append({
        "step": len(stops), "runtimeStageId": "", "commitIdx": last_index, "lastCommitIdx": last_index,
        "stageId": "", "label": "Run end", "kind": "end",
    })
    return stops


def _bundle_label(bundle: dict) -> str:
    return bundle.get("stage") or bundle.get("stageId") or bundle.get("runtimeStageId") or ""


def commit_stops(commit_log: list, execution_tree: Any = None) -> list[Stop]:
    """footprintjs ``commitStops``: one stop per executed stage plus ``start``/``end`` bookends; [] for an empty log.

    ``kind`` is ``mount`` when the execution tree marks the stage as a subflow mount; only when NO tree is given,
    a stage whose very next commit has the same runtimeStageId (the entry/exit pair) counts as a mount.
    (``None`` means "no tree"; JS would treat a stored ``null`` tree as a tree with no mounts.)
    """
    commit_log = commit_log or []
    mounts = mount_ids(execution_tree)
    have_tree = execution_tree is not None

    def is_mount(first: int, rid: str) -> bool:
        if rid in mounts:
            return True
        return not have_tree and first + 1 < len(commit_log) and _rid_of(commit_log[first + 1]) == rid

    return _stage_stops(commit_log, is_mount, _bundle_label)


# --- §5.4 step 3: filterStops ---------------------------------------------------------------------------------

def _without_meta(stop: Stop) -> Stop:
    return {key: value for key, value in stop.items() if key != "meta"}


def filter_stops(stops: list[Stop], keep: Callable[[Stop], KeepDecision]) -> list[Stop]:
    """footprintjs ``filterStops``: keep the stages ``keep`` recognises and give the survivors the log back.

    Dropped stages' commits fold into the preceding kept stop (``lastCommitIdx`` runs to just before the next kept
    stop); ``start`` absorbs what precedes the first survivor and says ``prologue: True`` when that included a
    stage. Steps are renumbered; any ``meta`` already on the input is discarded — only the decision's own rides.
    """
    if not stops:
        return []
    start, stages, end = stops[0], stops[1:-1], stops[-1]
    if len(stops) < 2 or start.get("kind") != "start" or end.get("kind") != "end":
        kinds = ", ".join(str(stop.get("kind")) for stop in stops)
        raise ValueError(f"filter_stops: expected a bookended axis [start, ...stages, end], got kinds [{kinds}]")

    kept: list[tuple[Stop, dict]] = []
    for stop in breathing_over(stages):
        decision = keep(stop)
        if decision:
            kept.append((stop, decision if isinstance(decision, dict) else {}))

    last_index = end["lastCommitIdx"]
    out_start = {**_without_meta(start), "step": 0,
                 "lastCommitIdx": kept[0][0]["commitIdx"] - 1 if kept else last_index}
    if (kept and kept[0][0]["step"] > 1) or (not kept and stages):
        out_start["prologue"] = True
    out = [out_start]
    for position, (stop, decision) in enumerate(breathing_over(kept)):
        following = kept[position + 1][0] if position + 1 < len(kept) else None
        row = {**_without_meta(stop), "step": len(out),
               "lastCommitIdx": following["commitIdx"] - 1 if following else last_index}
        if decision.get("label") is not None:
            row["label"] = decision["label"]
        if decision.get("meta") is not None:
            row["meta"] = decision["meta"]
        out.append(row)
    out.append({**_without_meta(end), "step": len(out)})
    return out


# --- §5.4 step 2: the keep rules ------------------------------------------------------------------------------

def _string_tags_at(commit_log: list, commit_idx: int) -> list[str]:
    """The string tags on the stop's FIRST bundle (where the engine stamps them); [] when none."""
    bundle = commit_log[commit_idx] if 0 <= commit_idx < len(commit_log) else None
    raw = bundle.get("tags") if isinstance(bundle, dict) else None
    return [tag for tag in raw if isinstance(tag, str)] if isinstance(raw, list) else []


def milestone_of_stop(commit_log: list, stop: Stop) -> dict | None:
    """agentfootprint's keep rule: the tag is the fact, the id is the fallback.

    A bundle with any string tag is classified by its tags alone (a tagged bundle with no milestone tag is NOT a
    milestone, whatever its id); only an untagged bundle falls back to ``milestone_for(runtimeStageId)``.
    """
    tags = _string_tags_at(commit_log, stop["commitIdx"])
    if tags:
        return milestone_from_tags(tags, stop.get("label"))
    return milestone_for(stop["runtimeStageId"])


def _as_milestone_decision(milestone: dict | None) -> KeepDecision:
    return {"label": milestone["label"], "meta": milestone} if milestone else None


def milestone_stops(commit_log: list, execution_tree: Any = None) -> list[Stop]:
    """agentfootprint ``milestoneStops``: commit stops filtered to milestones, ``label``/``meta`` from the milestone."""
    commit_log = commit_log or []
    return filter_stops(commit_stops(commit_log, execution_tree),
                        lambda stop: _as_milestone_decision(milestone_of_stop(commit_log, stop)))


def tag_stops(commit_log: list, execution_tree: Any = None, tags: Iterable[str] | None = None) -> list[Stop]:
    """footprintjs ``tagStops(tags)``: the stages whose first bundle carries a declared tag.

    Any-of: with ``tags`` given (non-empty) a stop survives when it shares one name with them; otherwise every
    tagged stop survives. The label stays the stage's own; ``meta`` is the bundle's whole string-tag list. An
    untagged run (every 9.62 recording) yields the two bookends only.
    """
    commit_log = commit_log or []
    wanted = set(tags or ())

    def keep(stop: Stop) -> KeepDecision:
        stamped = _string_tags_at(commit_log, stop["commitIdx"])
        if not stamped or (wanted and wanted.isdisjoint(stamped)):
            return None
        return {"meta": stamped}

    return filter_stops(commit_stops(commit_log, execution_tree), keep)


# --- files without a commit log -------------------------------------------------------------------------------

def derived_stops(domain_events: list) -> list[Stop]:
    """Milestone stops DERIVED from a DomainEvent list, for files that carry no commit log (trace, NDJSON).

    Same machinery as ``milestone_stops``, with events in place of commits: one candidate per distinct non-empty
    ``runtimeStageId`` at its first event, in order; ``kind`` is ``mount`` when a ``subflow.entry`` carries that
    id; kept when ``milestone_for(runtimeStageId)`` classifies it (events carry no tags), relabelled with the
    milestone. Bookends included (none for an empty list). Positions are EVENT indices, so the keys are
    ``eventIdx`` / ``lastEventIdx`` instead of ``commitIdx`` / ``lastCommitIdx``, and every stop says
    ``"derived": True`` — there is no state to fold at such a stop.

    The event list is flat: milestones inside nested subflows (a Sequence step's agent, an LLMCall's inner
    ``sf-llm-call``) land on this one axis, where the commit-log axis shows only the top level and reaches them
    by ``drill``. On the corpus' flat agent runs both axes name the same stops in the same order.
    """
    events = [event for event in (domain_events or []) if isinstance(event, dict)]
    return derived_stops_of([event.get("type") for event in events], [_rid_of(event) for event in events])


def derived_stops_of(types: list, rids: list[str]) -> list[Stop]:
    """``derived_stops`` of events given as two lists: each one's type and runtimeStageId ('' when it has none).
    (A long run's axis has 100,000s of rows: no dict per row.)"""
    return derived_stops_from_ids(rids, {rid for etype, rid in breathing_over(zip(types, rids))
                                         if etype == "subflow.entry"})


def derived_stops_from_ids(rids: list[str], mounts: set[str], on_axis: bool = False) -> list[Stop]:
    """``derived_stops`` of rows given by their runtimeStageIds ('' when none) and the ids a ``subflow.entry``
    carries. ``_stops_of_ids`` then ``filter_stops`` with the milestone rule, made in one pass that builds a dict
    for the stops kept alone (on a long run, a part of its stages). `on_axis`: each row is an axis
    entry, and each stop also says ``axisStart`` / ``axisEnd`` (core/model/positions.py)."""
    if not rids:
        return []
    firsts = _first_rows(rids)
    kept: list[tuple[int, str, dict]] = []  # (first row, runtimeStageId, milestone) of each stage kept, in order
    # By the id before its '#' (a few dozen stage ids): each stage's milestone, one dict that every stop of that
    # stage holds as its meta (read, never changed: a long run has thousands of stops and a handful of metas).
    milestone_of: dict[str, dict | None] = {}
    for first in breathing_over(firsts):
        rid = rids[first]
        stage = rid.split("#", 1)[0]
        if stage in milestone_of:
            found = milestone_of[stage]
        else:
            milestone = milestone_for(stage)
            found = milestone_of[stage] = {"kind": milestone["kind"], "label": milestone["label"]} if milestone else None
        if found is not None:
            kept.append((first, rid, found))
    prologue = (kept[0][0] != firsts[0]) if kept else bool(firsts)
    return derived_stop_rows(kept, prologue, len(rids), mounts, on_axis)


def derived_stop_rows(kept: list[tuple[int, str, dict]], prologue: bool, rows: int, mounts: set[str],
                      on_axis: bool = False) -> list[Stop]:
    """The derived stops, bookends included, of the stages kept: each one's first row, runtimeStageId and
    milestone, in order (also core/formats/live_run.py's, kept as a file grows). `prologue`: a stage came before
    the first one kept; `rows` (≥ 1): how many rows there are; `on_axis`: see derived_stops_from_ids."""
    last_index = rows - 1
    start: Stop = {"step": 0, "runtimeStageId": "", "stageId": "", "label": "Run start", "kind": "start"}
    if prologue:
        start["prologue"] = True
    start.update(eventIdx=-1, lastEventIdx=kept[0][0] - 1 if kept else last_index, derived=True)
    out = [start]
    for position, (first, rid, milestone) in enumerate(breathing_over(kept)):
        stop: Stop = {"step": position + 1, "runtimeStageId": rid,  # (the stage id path-prefixed, like a stageId;
                      "stageId": intern(rid[:rid.rfind("#")]) if "#" in rid else rid}  # one text per stage)
        subflow_path = parse_runtime_stage_id(rid)[0]
        if subflow_path is not None:
            stop["subflowPath"] = subflow_path
        label = milestone.get("label")
        stop["label"] = label if label is not None else rid
        stop["kind"] = "mount" if rid in mounts else "commit"
        stop["meta"] = milestone
        stop["eventIdx"] = first
        stop["lastEventIdx"] = kept[position + 1][0] - 1 if position + 1 < len(kept) else last_index
        stop["derived"] = True
        out.append(stop)
    out.append({"step": len(out), "runtimeStageId": "", "stageId": "", "label": "Run end", "kind": "end",
                "eventIdx": last_index, "lastEventIdx": last_index, "derived": True})
    if on_axis:
        for stop in out:
            stop["axisStart"] = max(stop["eventIdx"], 0)
            stop["axisEnd"] = stop["lastEventIdx"] + 1
        out[-1]["axisEnd"] = rows
    return out


# --- drill and chains -----------------------------------------------------------------------------------------

def _legs_of(snapshot_or_legs: Any) -> list[dict]:
    if isinstance(snapshot_or_legs, list):
        return [leg for leg in snapshot_or_legs if isinstance(leg, dict)]
    return [snapshot_or_legs] if isinstance(snapshot_or_legs, dict) else []


def drill_source(snapshot_or_legs: Any, mount_runtime_stage_id: str) -> dict | None:
    """The subflow's own source for a mount, as a snapshot-shaped dict, or None when not drillable.

    ``{commitLog: treeContext.history, initialState, executionTree: treeContext.stageContexts, subflowResults}``
    — ``subflowResults`` is the same flat, dual-keyed map, so the result can be drilled again. Every leg of a
    chain (a list of snapshots) is searched.
    """
    for leg in _legs_of(snapshot_or_legs):
        results = leg.get("subflowResults")
        result: Any = results.get(mount_runtime_stage_id) if isinstance(results, dict) else None
        result = resolve_quietly(result)  # (a large recording keeps each result as bytes until drilled into)
        tree = result.get("treeContext") if isinstance(result, dict) else None
        if isinstance(tree, dict) and isinstance(tree.get("history"), list):
            return {
                "commitLog": tree["history"],
                "initialState": tree.get("initialState"),
                "executionTree": tree.get("stageContexts"),
                "subflowResults": results,
                "subflowId": result.get("subflowId") or mount_runtime_stage_id,
            }
    return None


def drill(snapshot_or_leg: Any, stop: Stop,
          stops_for: Callable[[list, Any], list[Stop]] = milestone_stops) -> list[Stop] | None:
    """Stops over a ``mount`` stop's own inner log (§5.4 "Drill"), or None when the stop is not drillable.

    Uses the same strategy (milestone stops by default) over ``treeContext.history`` with
    ``treeContext.stageContexts`` as the execution tree; classification reads only local ids, so an inner
    ``sf-llm-call`` history yields its own llm-turn / tool-call / decision stops.
    """
    if stop.get("kind") != "mount":
        return None
    source = drill_source(snapshot_or_leg, stop.get("runtimeStageId", ""))
    if source is None:
        return None
    return stops_for(source["commitLog"], source["executionTree"])


def chain_legs(legs: list[list[Stop]]) -> list[Stop]:
    """One axis over a pause/resume chain: each leg's stops (computed on its own log) joined end to end.

    The inner bookends are merged away — an earlier leg's ``end`` and a later leg's ``start`` — so the total is
    the sum minus 2 per join. Commit indices stay LEG-LOCAL; every stop carries ``sourceIdx`` (its leg's index in
    ``legs``) and steps are renumbered across the chain. Empty legs (empty logs) contribute nothing.
    """
    present = [(source_idx, stops) for source_idx, stops in enumerate(legs) if stops]
    out: list[Stop] = []
    for position, (source_idx, stops) in enumerate(present):
        first = 0 if position == 0 else 1
        stop_at = len(stops) if position == len(present) - 1 else len(stops) - 1
        for stop in stops[first:stop_at]:
            out.append({**stop, "step": len(out), "sourceIdx": source_idx})
    return out


# --- §5.4 "Folding a stop": stateAt ---------------------------------------------------------------------------

_MISSING = object()


def _copied(value: Any) -> Any:
    """A detached copy of a recorded value (the absent marker passes through as itself)."""
    return value if value is _MISSING else copy.deepcopy(value)


def _is_index(segment: str, container: list) -> bool:
    return segment.isdigit() and str(int(segment)) == segment and int(segment) < len(container)


def _get(root: Any, segments: list[str]) -> Any:
    """Own-property read along the path; _MISSING when any step is absent."""
    current = root
    for segment in segments:
        if isinstance(current, dict) and segment in current:
            current = current[segment]
        elif isinstance(current, list) and _is_index(segment, current):
            current = current[int(segment)]
        else:
            return _MISSING
    return current


def _put(container: Any, segment: str, value: Any) -> None:
    if isinstance(container, list):
        if segment.isdigit() and str(int(segment)) == segment:
            index = int(segment)
            container.extend([None] * (index + 1 - len(container)))  # JS leaves holes; JSON writes them as null
            container[index] = None if value is _MISSING else value
        return  # a named property on an array does not survive JSON; drop it
    if value is _MISSING:
        container.pop(segment, None)  # `undefined` in JS: absent once serialised
    else:
        container[segment] = value


def _set(root: dict, segments: list[str], value: Any) -> None:
    """nativeSet: create missing / non-object intermediates as objects, then write the leaf."""
    current = root
    for segment in segments[:-1]:
        existing = _get(current, [segment])
        if not isinstance(existing, (dict, list)):
            existing = {}
            _put(current, segment, existing)
        current = existing
    _put(current, segments[-1], value)


def _delete(root: dict, segments: list[str]) -> None:
    parent = _get(root, segments[:-1])
    if isinstance(parent, dict):
        parent.pop(segments[-1], None)


def _union_key(value: Any) -> Any:
    """JS Set identity for an array union: primitives by value (and type), objects by reference."""
    if isinstance(value, (dict, list)):
        return ("ref", id(value))
    if isinstance(value, bool) or value is None:
        return ("lit", value)
    if isinstance(value, (int, float)):
        return ("num", float(value))
    return (type(value).__name__, value)


def _smart_merge(dst: Any, src: Any) -> Any:
    """footprintjs deepSmartMerge: objects key-wise, arrays de-duplicated union (``[]`` clears), scalars replace."""
    if src is _MISSING or not isinstance(src, (dict, list)):
        return src
    if isinstance(src, list):
        if not src:
            return []
        if not isinstance(dst, list):
            return list(src)
        seen: set = set()
        union = []
        for item in (*dst, *src):
            key = _union_key(item)
            if key not in seen:
                seen.add(key)
                union.append(item)
        return union
    out = dict(dst) if isinstance(dst, dict) else {}
    for key, value in src.items():
        merged = _smart_merge(out.get(key, _MISSING), value)
        _put(out, key, merged)
    return out


def apply_bundle(state: dict, bundle: dict) -> None:
    """Replay one commit bundle's ``trace`` onto ``state`` in place (footprintjs replayRows)."""
    trace = bundle.get("trace") or []
    overwrite = bundle.get("overwrite") or {}
    deltas = None
    for index, entry in enumerate(trace):
        path, verb = entry.get("path", ""), entry.get("verb", "merge")
        following = trace[index + 1] if index + 1 < len(trace) else None
        if verb == "set" and following and following.get("verb") == "set" and following.get("path") == path:
            continue  # superseded by the next row: unobservable
        segments = path.split(PATH_DELIMITER)
        if verb == "set":
            _set(state, segments, _copied(_get(overwrite, segments)))
        elif verb == "append":
            tail = _copied(_get(overwrite, segments))
            current = _get(state, segments)
            both_lists = isinstance(current, list) and isinstance(tail, list)
            _set(state, segments, [*current, *tail] if both_lists else tail)
        elif verb == "delete":
            _delete(state, segments)
        else:
            # detached once per bundle: merge rows of one bundle must see the same delta objects
            deltas = copy.deepcopy(bundle.get("updates") or {}) if deltas is None else deltas
            current = _get(state, segments)
            _set(state, segments, _smart_merge({} if current is _MISSING or current is None else current,
                                               _get(deltas, segments)))


def is_commit_bundle(row: Any) -> bool:
    return isinstance(row, dict) and isinstance(row.get("trace"), list)


def state_at(snapshot: dict, last_commit_idx: int) -> dict:
    """footprintjs ``stateAt``: fold the log from its base through ``last_commit_idx`` (inclusive).

    ``snapshot`` is a run snapshot (``commitLog``) or a subflow source (``history`` / ``drill_source``), with an
    optional ``initialState``. Returns ``{"state", "basis": "initial+log" | "log-only", "throughCommitIdx",
    "redactedPaths", "skipped"}``; rows that are not bundles are skipped and reported by index. -1 folds nothing.
    """
    log: Any = snapshot.get("commitLog")
    if not isinstance(log, list):
        log = snapshot.get("history") if isinstance(snapshot.get("history"), list) else []
    base = snapshot.get("initialState")
    basis = "initial+log" if isinstance(base, dict) else "log-only"
    state = copy.deepcopy(base) if isinstance(base, dict) else {}
    through = min(int(last_commit_idx), len(log) - 1)
    redacted: set[str] = set()
    skipped: list[int] = []
    for index in range(through + 1):
        bundle = log[index]
        if not is_commit_bundle(bundle):
            skipped.append(index)
            continue
        paths = bundle.get("redactedPaths")
        redacted.update(path for path in (paths if isinstance(paths, list) else ()) if isinstance(path, str))
        apply_bundle(state, bundle)
    return {"state": state, "basis": basis, "throughCommitIdx": max(through, -1),
            "redactedPaths": sorted(redacted), "skipped": skipped}
