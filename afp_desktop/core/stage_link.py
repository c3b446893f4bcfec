"""`afp-desktop FILE --at STAGE_ID` and "Copy link to this stop" (issue 15): where a runtimeStageId opens.

    stop_for_stage(run, "call-llm#18") -> StageTarget(stop, position, message)

Exact: a stop of that stage. Else the stop whose span encloses the stage's first event ("… is inside stop …").
Else the stop whose stage number (#n, the engine's execution counter) is nearest ("no stage … in this run;
the nearest stop is …"). None when the run has no stops.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

_NUMBER = re.compile(r"#(\d+)$")


@dataclass(frozen=True)
class StageTarget:
    stop: int
    position: int
    message: str | None  # None when the stage is a stop itself


def _number(stage_id: str) -> int | None:
    match = _NUMBER.search(stage_id)
    return int(match.group(1)) if match else None


def stop_for_stage(run, stage_id: str) -> StageTarget | None:
    stops = run.stops
    if not stops:
        return None
    ends = [int(stop.get("axisEnd", 0)) for stop in stops]
    for index, stop in enumerate(stops):
        if stage_id and stop.get("runtimeStageId") == stage_id:
            return StageTarget(index, ends[index], None)
    label = lambda i: f"{stops[i].get('label', 'stop')} ({stops[i].get('runtimeStageId') or 'no stage id'})"  # noqa: E731
    ids = run.stage_ids_on_axis()
    if stage_id in ids:
        position = ids.index(stage_id) + 1  # just after its first event
        index = min(bisect_left(ends, position), len(stops) - 1)
        return StageTarget(index, ends[index], f"{stage_id} is not a stop; it is inside stop {index} {label(index)}.")
    wanted = _number(stage_id)
    numbered = [(abs(number - wanted), index) for index, stop in enumerate(stops)
                if wanted is not None and (number := _number(str(stop.get("runtimeStageId") or ""))) is not None]
    index = min(numbered)[1] if numbered else 0
    return StageTarget(index, ends[index], f"There is no stage {stage_id} in this run; the nearest stop is "
                                           f"{index} {label(index)}.")


def stop_link(path: str, stop: dict | None) -> str:
    """A command line that opens `path` at `stop` (by its stage id; a bookend without one opens the file)."""
    import shlex

    stage = stop.get("runtimeStageId") if isinstance(stop, dict) else None
    if isinstance(stage, str) and stage:
        return f"afp-desktop {shlex.quote(path)} --at {shlex.quote(stage)}"
    return f"afp-desktop {shlex.quote(path)}"
