"""Where am I in the run: iteration bands over the stops and a readout like "Iteration 2 · stop 9 of 22".
Pure, no Qt.

An iteration starts at each stop the milestone strategy classifies as an iteration (a ReAct turn's injection
engine, an LLMCall's own subflow); a file whose stops were derived from events has none, and there each LLM
turn starts one. A band runs to the stop before the next iteration (or before the run's end stop).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass



@dataclass(frozen=True)
class IterationBand:
    number: int   # 1-based
    first: int    # stop index where it starts
    last: int     # last stop index inside it

    @property
    def label(self) -> str:
        return f"Iteration {self.number}"


def _kind(stop: dict) -> str | None:
    meta = stop.get("meta")
    return meta.get("kind") if isinstance(meta, dict) else None


def iteration_bands(stops: list[dict]) -> list[IterationBand]:
    starts = [i for i, stop in enumerate(stops) if _kind(stop) == "iteration"]
    if not starts:
        starts = [i for i, stop in enumerate(stops) if _kind(stop) == "llm-turn"]
    if not starts:
        return []
    end = len(stops) - 1 if stops and stops[-1].get("kind") == "end" else len(stops)
    bands = []
    for number, first in enumerate(starts, start=1):
        following = starts[number] if number < len(starts) else end
        bands.append(IterationBand(number, first, max(first, following - 1)))
    return bands


def run_iteration_bands(run) -> list[IterationBand]:
    """`iteration_bands` of the run's own stops: the prepared views' (the window's loader made them, so a long
    run's stops are not walked on the window's thread), else made now."""
    return run.views.iteration_bands if run.views is not None else iteration_bands(run.stops)


def band_of_stop(bands: list[IterationBand], stop_index: int | None) -> IterationBand | None:
    """The band holding stop `stop_index` (bands are in order and apart, as iteration_bands makes them: a
    binary search, for the readout asks at every move and a long run has a thousand bands)."""
    if stop_index is None:
        return None
    at = bisect_right(bands, stop_index, key=_first) - 1
    return bands[at] if at >= 0 and bands[at].first <= stop_index <= bands[at].last else None


def _first(band: IterationBand) -> int:
    return band.first


def readout(bands: list[IterationBand], stop_index: int | None, stop_count: int, at_stop: bool = True,
            step_iteration: int | None = None) -> str:
    """"Iteration 2 · stop 9 of 22" at a stop; "Iteration 2 · in stop 9 of 22" between stops.

    `step_iteration`: the iterationIndex of the step at the cursor (the one the graph rings and the inspector
    shows). Inside a stop's span the run can go on for iterations no stop marks (a second run appended to a
    stream has no stops of its own: its 1,000 iterations all lie in the first run's last stop); there the step's
    iteration is said, not the band's, or the readout would contradict the inspector."""
    if stop_index is None or not stop_count:
        return ""
    where = f"{'' if at_stop else 'in '}stop {stop_index + 1} of {stop_count}"
    band = band_of_stop(bands, stop_index)
    if band is not None and step_iteration is not None and step_iteration > band.number:
        return f"Iteration {step_iteration} · {where}"
    return f"{band.label} · {where}" if band is not None else where[0].upper() + where[1:]


def step_iteration(run, node: int | None) -> int | None:
    """The iterationIndex of StepGraph node `node` of `run`, if it has one."""
    if node is None:
        return None
    nodes = run.step_fold.nodes  # (run.stepgraph builds a dict around them at each call)
    iteration = nodes[node].get("iterationIndex") if 0 <= node < len(nodes) else None
    return iteration if isinstance(iteration, int) and not isinstance(iteration, bool) else None
