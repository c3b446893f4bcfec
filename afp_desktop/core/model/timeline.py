"""The numbers behind the timeline panel, with no Qt: stop labels, where a cursor position sits between stops,
the inner stops of a drilled mount placed on the run's axis, and the per-stop figures plotted under the stops.

The timeline's x axis is the stop number: stop i sits at x = i, so every milestone gets the same room however
many events it spans (two stops can even share one axis position). A position between two stops is drawn
proportionally between them; positions before the first stop lie in [-0.5, 0).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from typing import Any, Callable, cast

from afp_desktop.core.shapes import StopDict
from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.library.stops import commit_stops, drill, drill_source

INNER_BOOKEND_LABELS = {"start": "Start", "end": "End"}


def ordinal_labels(stops: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each stop's label, numbered when the label repeats: "LLM turn 1", "LLM turn 2" … ("Route" stays alone)."""
    counts = Counter(stop.get("label", "") for stop in stops)
    seen: Counter = Counter()
    out = []
    for stop in breathing_over(stops):
        label = stop.get("label", "")
        if counts[label] > 1:
            seen[label] += 1
            out.append(f"{label} {seen[label]}")
        else:
            out.append(label)
    return out


def has_usable_stops(stops: Sequence[Mapping[str, Any]]) -> bool:
    """More than the two bookends: something to step between besides start and end."""
    return any(stop.get("kind") not in ("start", "end") for stop in stops)


def x_of_position(ends: list[int], position: int, preferred: int | None = None) -> float:
    """The x of a cursor position, given each stop's axisEnd (non-decreasing).

    `preferred`: when several stops share this position (a Route right after its LLM turn), the one the user
    picked keeps the cursor; otherwise the last of them, as `cursor.view_at` counts it.
    """
    if not ends:
        return 0.0
    if preferred is not None and 0 <= preferred < len(ends) and ends[preferred] == position:
        return float(preferred)
    after = bisect_right(ends, position)  # first stop not reached yet
    here = after - 1
    if here < 0:
        return -0.5 * (ends[0] - position) / ends[0]
    if after >= len(ends):
        return float(here)
    return here + (position - ends[here]) / (ends[after] - ends[here])


def stop_at_x(x: float, count: int) -> int:
    """The stop nearest to x (what a click or a drag snaps to)."""
    return max(0, min(count - 1, int(round(x))))


# --- drill ----------------------------------------------------------------------------------------------------

class PreparedDrills:
    """What a window's copy of a run holds in place of its snapshot (core/views/window_copy.py): the stops inside
    each mount a drill can open (`inner`, by the mount's runtimeStageId), made from the snapshot by the engine, and
    whether the snapshot has a commit log; the snapshot itself stays in the engine."""

    __slots__ = ("inner", "has_commit_log")

    def __init__(self, inner: dict[str, list[dict] | None], has_commit_log: bool) -> None:
        self.inner, self.has_commit_log = inner, has_commit_log

    def __reduce__(self):
        return (PreparedDrills, (self.inner, self.has_commit_log))

    def opens(self, stop: Mapping[str, Any]) -> bool:
        """Whether `stop` opens onto stops of its own (replay.opens_inward, read from the drills made)."""
        return stop.get("kind") == "mount" and not stop.get("derived") \
            and self.inner.get(str(stop.get("runtimeStageId", ""))) is not None


def prepared_drills(snapshot: Any, stops: Sequence[Mapping[str, Any]], has_commit_log: bool) -> PreparedDrills:
    """The inner stops of every mount among `stops` that opens inward, and of every mount among those, and so on:
    every drill the timeline can make, made from `snapshot` (whose run has a commit log or not: Run.has_commit_log).
    """
    inner: dict[str, list[dict] | None] = {}
    todo = [stop for stop in stops if stop.get("kind") == "mount" and not stop.get("derived")]
    while todo:
        mount = todo.pop()
        key = str(mount.get("runtimeStageId", ""))
        if key in inner:
            continue
        found = inner[key] = inner_stops(snapshot, mount)
        todo.extend(stop for stop in found or () if stop.get("kind") == "mount" and not stop.get("derived"))
    return PreparedDrills(inner, has_commit_log)


def inner_stops(snapshot: Any, mount: Mapping[str, Any]) -> list[dict] | None:
    """The stops a drill into `mount` steps through: its inner milestones; a mount whose own log holds none (an
    injection engine, a context slot) shows one stop per stage it ran, named by the stage (the newer lens's
    fallback, so a drillable mount always has something inside). None when the mount cannot be drilled into or
    ran no stage of its own. `snapshot` may be the PreparedDrills a window's copy holds in its place."""
    if isinstance(snapshot, PreparedDrills):
        if mount.get("kind") != "mount":
            return None
        made = snapshot.inner.get(str(mount.get("runtimeStageId", "")))
        return None if made is None else [dict(stop) for stop in made]
    inner = drill(snapshot, dict(mount))
    if inner is None:
        return None
    if any(stop.get("kind") not in ("start", "end") for stop in inner):
        return inner
    source = drill_source(snapshot, str(mount.get("runtimeStageId", "")))
    stages = commit_stops(source["commitLog"], source["executionTree"]) if source is not None else []
    if not any(stop.get("kind") not in ("start", "end") for stop in stages):
        return None
    return [stop if stop.get("kind") in ("start", "end") else {**stop, "label": _stage_name(stop.get("label"))}
            for stop in stages]


def _stage_name(label: Any) -> str:
    """A stage's own name without the path of the subflow it ran in ("sf-tools/Compose" → "Compose")."""
    return str(label or "").rsplit("/", 1)[-1] or str(label or "")


def place_inner_stops(stage_ids: list[str], mount: Mapping[str, Any], inner: list[dict]) -> list[StopDict]:
    """Give a mount's inner stops (commit-indexed in the subflow's own history) positions on the run's axis.

    Every inner stop lies within the mount's axis range. A stage is placed at the first event inside that range
    carrying its runtimeStageId (`stage_ids[p]` is the id of axis entry p). A stage none of whose events is in the
    file is spread evenly between its placed neighbours and marked ``approximate`` — no event is invented.
    Inner bookends are relabelled "Start"/"End": "Run start" would be wrong inside a subflow.
    """
    low, high = mount["axisStart"], mount["axisEnd"]
    stages = [stop for stop in inner if stop.get("kind") not in ("start", "end")]
    starts: list[int | None] = []
    search_from = low
    for stop in stages:
        rid = stop.get("runtimeStageId", "")
        found = next((p for p in range(search_from, high) if stage_ids[p] == rid), None) if rid else None
        starts.append(found)
        if found is not None:
            search_from = found
    approximate = _fill_gaps(starts, low, high)

    out = []
    for stop in inner:
        row = dict(stop)
        kind = stop.get("kind")
        if kind in INNER_BOOKEND_LABELS:
            row["label"] = INNER_BOOKEND_LABELS[kind]
        out.append(row)
    stage_rows = [row for row in out if row.get("kind") not in ("start", "end")]
    for k, row in enumerate(stage_rows):
        row["axisStart"] = starts[k]
        row["axisEnd"] = starts[k + 1] if k + 1 < len(starts) else high
        if approximate[k]:
            row["approximate"] = True
    for row in out:
        if row.get("kind") == "start":
            row["axisStart"] = low
            row["axisEnd"] = starts[0] if starts else low
        elif row.get("kind") == "end":
            row["axisStart"] = row["axisEnd"] = high
    return cast(list[StopDict], out)


def _fill_gaps(starts: list[int | None], low: int, high: int) -> list[bool]:
    """Spread unplaced stages evenly between their placed neighbours (in place); which ones were spread."""
    approximate = [start is None for start in starts]
    k = 0
    while k < len(starts):
        if starts[k] is not None:
            k += 1
            continue
        end = k
        while end < len(starts) and starts[end] is None:
            end += 1
        left = cast(int, starts[k - 1]) if k > 0 else low  # (placed: not None)
        right = cast(int, starts[end]) if end < len(starts) else high
        gap = end - k
        for m in range(gap):
            starts[k + m] = left + round((right - left) * (m + 1) / (gap + 1))
        k = end
    return approximate


# --- per-stop figures -------------------------------------------------------------------------------------------

@dataclass
class StopFigures:
    """Per stop: tokens in and out of the LLM turns and milliseconds of tool time that started there, and the
    StepGraph nodes (LLM and tool calls) summed into each."""

    tokens_in: list[float]
    tokens_out: list[float]
    tool_ms: list[float]
    nodes: list[list[int]] | None = None

    @property
    def has_tokens(self) -> bool:
        return any(self.tokens_in) or any(self.tokens_out)

    @property
    def has_tool_time(self) -> bool:
        return any(self.tool_ms)

    def known(self, i: int, fold_nodes: Sequence[Mapping[str, Any]], started: int,
              has_ended: Callable[[int], bool]) -> KnownFigure:
        """Stop i's figures as known at a moment: only the calls started (node index < `started`) that have
        ended (`has_ended`): a call's tokens and a tool's time are known at its end. A call started and not
        ended is counted as running."""
        summed = self.nodes[i] if self.nodes is not None else []
        if not summed or (summed[-1] < started and all(has_ended(n) for n in summed)):
            return KnownFigure(self.tokens_in[i], self.tokens_out[i], self.tool_ms[i], False, False)
        tokens_in = tokens_out = tool_ms = 0.0
        llm_running = tool_running = False
        for n in summed:
            if n >= started:
                break
            kind, t_in, t_out, ms = node_figure(fold_nodes[n])
            if not has_ended(n):
                llm_running, tool_running = llm_running or kind != "llm->tool", tool_running or kind == "llm->tool"
                continue
            tokens_in, tokens_out, tool_ms = tokens_in + t_in, tokens_out + t_out, tool_ms + ms
        return KnownFigure(tokens_in, tokens_out, tool_ms, llm_running, tool_running)


@dataclass(frozen=True)
class KnownFigure:
    tokens_in: float
    tokens_out: float
    tool_ms: float
    llm_running: bool   # an LLM call of the stop has started and not ended: its tokens are not known yet
    tool_running: bool  # a tool call of the stop is running: its time is not known yet


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def node_figure(node: Mapping[str, Any]) -> tuple[str, float, float, float]:
    """(kind, tokens in, tokens out, tool ms) of an LLM or tool call node."""
    kind = node.get("kind")
    if kind == "llm->tool":
        start, end = _number(node.get("startOffsetMs")), _number(node.get("endOffsetMs"))
        return kind, 0.0, 0.0, (end - start if start is not None and end is not None and end >= start else 0.0)
    tokens = node.get("tokens")
    if not isinstance(tokens, dict):
        tokens = {}
    return str(kind), _number(tokens.get("in")) or 0.0, _number(tokens.get("out")) or 0.0, 0.0


def stop_figures(run, stops: Sequence[Mapping[str, Any]]) -> StopFigures:
    """Sum each StepGraph node's tokens (LLM calls) and duration (tool calls) onto the stop whose axis range
    holds the event that created the node."""
    count = len(stops)
    figures = StopFigures([0.0] * count, [0.0] * count, [0.0] * count, [[] for _ in range(count)])
    if not count:
        return figures
    ends = [stop["axisEnd"] for stop in stops]
    fold = run.step_fold
    axis = run.axis
    nodes = cast(list, figures.nodes)
    for index, (node, created) in enumerate(breathing_over(zip(fold.nodes, fold.node_created_at), every=512)):
        if node.get("kind") not in ("user->llm", "tool->llm", "llm->tool"):
            continue
        entry = axis.position_of_domain(created)  # index of the creating event on the axis
        if entry < stops[0].get("axisStart", 0) or entry >= ends[-1]:
            continue  # outside the stops shown (a drilled mount shows only its own range)
        i = min(bisect_right(ends, entry), count - 1)
        _kind, t_in, t_out, ms = node_figure(node)
        figures.tool_ms[i] += ms
        figures.tokens_in[i] += t_in
        figures.tokens_out[i] += t_out
        nodes[i].append(index)
    return figures

