"""A run's numbers made drawable. Token counts and durations come from an untrusted file: any JSON number,
from the smallest subnormal double to the largest, negative too, and their sums may overflow to infinity. A plot
is given only numbers it can scale: each value finite, not negative and at most PLOT_CEILING, and an axis whose
top is at least MIN_AXIS_TOP (an axis [0, 5e-324] makes an infinite scale, which Qt cannot paint). Labels and
tooltips show the run's own numbers; only the drawn height is clamped."""

from __future__ import annotations

import math
from typing import Iterable, Sequence

PLOT_CEILING = 1e12  # a bar this tall is already off any real run's scale
MIN_AXIS_TOP = 1.0
HEADROOM = 1.1


def plotted(value: float) -> float:
    """`value` as a bar can draw it: NaN and negatives are 0, anything above PLOT_CEILING (infinity too) is
    PLOT_CEILING."""
    if not value > 0:  # (NaN too)
        return 0.0
    return min(float(value), PLOT_CEILING)


def plotted_all(values: Iterable[float]) -> list[float]:
    return [plotted(value) for value in values]


def axis_top(values: Iterable[float]) -> float:
    """The top of an axis from 0 that shows every plotted value with a little room above it."""
    highest = max((plotted(value) for value in values), default=0.0)
    top = max(highest * HEADROOM, MIN_AXIS_TOP)
    assert math.isfinite(top)
    return top


def stacked(lower: Sequence[float], upper: Sequence[float]) -> tuple[list[float], list[float], list[float]]:
    """Two series drawn one on the other: (the lower bars' heights, the upper bars' bottoms, the upper bars'
    heights), the pile as a whole clamped like one value."""
    bottoms = plotted_all(lower)
    heights = [plotted(plotted(a) + plotted(b)) - bottom for a, b, bottom in zip(lower, upper, bottoms)]
    return bottoms, list(bottoms), heights
