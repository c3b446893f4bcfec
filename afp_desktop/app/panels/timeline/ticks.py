"""Where the timeline's axes put their ticks and what their labels say. Pure: no Qt.

The stop axis labels every `step`-th stop, the step chosen (1, 2, 5, 10, 20, 50 …) so that the widest label in
view and a gap fit between two labelled stops; the bars' axes have a few round values from 0 to their top."""

from __future__ import annotations

import math


def nice_step(minimum: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50 … that is at least `minimum`."""
    step = 1
    while step < minimum:
        for factor in (2, 5, 10):
            if step * factor >= minimum:
                step *= factor
                break
        else:
            step *= 10
    return step


def stop_ticks(first: int, last: int, px_per_stop: float, widest_label_px: float,
               gap_px: float) -> tuple[list[int], list[int]]:
    """(the stops labelled, the stops given an unlabelled tick) among stops first..last at this zoom. Minor ticks
    only while stops are 5 px apart or more."""
    if last < first or px_per_stop <= 0:
        return [], []
    step = nice_step((widest_label_px + gap_px) / px_per_stop)
    major = list(range(first + (-first) % step, last + 1, step))
    minor: list[int] = []
    if step > 1 and px_per_stop >= 5:
        labelled = set(major)
        minor = [i for i in range(first, last + 1) if i not in labelled]
    return major, minor


def value_ticks(top: float, most: int = 3) -> list[float]:
    """Round values from 0 up to `top` (at most `most` + 1 of them, 0 included): 0, 500, 1000 …"""
    if not (top > 0 and math.isfinite(top)):
        return [0.0]
    raw = top / most
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(factor * magnitude for factor in (1, 2, 2.5, 5, 10) if factor * magnitude >= raw)
    count = int(top / step + 1e-9)
    return [i * step for i in range(count + 1)]


def compact_number(value: float) -> str:
    """A tick's label: 0, 750, 1.5k, 20k, 3M, 1.2G …"""
    if value == 0:
        return "0"
    for size, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"
