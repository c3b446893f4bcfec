"""What the timeline draws for a list of stops: each stop's label, axis end, milestone kind and marker symbol,
and the token and tool-time bars (clamped for drawing, plot_scale.py) as arrays of doubles, with the tops of their
axes. Pure, no Qt.

The engine makes it for the run's own stops among the window's prepared views (prepared_views.py; read through
`run_timeline_series`), so the timeline only draws it; a drilled level's few stops are prepared when they are shown.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from afp_desktop.core.model.plot_scale import axis_top, plotted, plotted_all
from afp_desktop.core.model.timeline import StopFigures, has_usable_stops, ordinal_labels, stop_figures

BOOKEND_KINDS = ("start", "end")


@dataclass(frozen=True)
class TimelineSeries:
    """The timeline's projection of `count` stops; x of stop i is i (core/model/timeline.py)."""

    labels: list[str]
    ends: list[int]                 # each stop's axisEnd: where its marker sits on the event axis
    kinds: list[str | None]         # each stop's milestone kind (its meta.kind), None when it names none
    symbols: list[str]              # "s" a drillable stop, "d" the start or the end, "o" any other
    drillable: list[bool]
    usable: bool                    # more than the two bookends: a stop axis worth drawing
    figures: StopFigures | None     # the per-stop figures the bars show (None: no stops)
    tokens_in: array                # arrays of doubles, one value per stop (x of stop i is i): the lower bars'
    tokens_out: array               # heights (tokens in), the upper bars' heights, standing on tokens_in (tokens
    tool_ms: array                  # out), the tool-time bars' heights
    token_top: float                # the tops of the token axis and of the tool-time axis
    tool_top: float

    @property
    def count(self) -> int:
        return len(self.labels)

    @property
    def has_bars(self) -> bool:
        return self.figures is not None and (self.figures.has_tokens or self.figures.has_tool_time)


def milestone_kind(stop: Mapping[str, Any]) -> str | None:
    meta = stop.get("meta")
    kind = meta.get("kind") if isinstance(meta, dict) else None
    return kind if isinstance(kind, str) else None  # (from the file: a list for a kind must not break the strip)


def timeline_series(stops: Sequence[Mapping[str, Any]], labels: Sequence[str] | None, ends: Sequence[int],
                    drillable: Sequence[bool], figures: StopFigures | None) -> TimelineSeries:
    """The series of `stops`: `labels` as the spans name them (None: numbered here, ordinal_labels), `ends`
    each stop's axis end, `drillable` whether each opens onto stops of its own, `figures` their StopFigures."""
    count = len(stops)
    if labels is None or len(labels) != count:
        labels = ordinal_labels(stops)
    drillable = list(drillable)
    symbols = ["s" if drillable[i] else ("d" if stop.get("kind") in BOOKEND_KINDS else "o")
               for i, stop in enumerate(stops)]
    if figures is not None and count:
        tokens_in = array("d", plotted_all(figures.tokens_in))
        tokens_out = array("d", (plotted(low + plotted(high)) - low
                                 for low, high in zip(tokens_in, figures.tokens_out)))
        tool_ms = array("d", plotted_all(figures.tool_ms))
    else:
        tokens_in, tokens_out, tool_ms = array("d", bytes(8 * count)), array("d", bytes(8 * count)), \
            array("d", bytes(8 * count))
    return TimelineSeries(
        labels=list(labels), ends=list(ends), kinds=[milestone_kind(stop) for stop in stops], symbols=symbols,
        drillable=drillable, usable=has_usable_stops(stops), figures=figures if count else None,
        tokens_in=tokens_in, tokens_out=tokens_out, tool_ms=tool_ms,
        token_top=axis_top(map(float.__add__, tokens_in, tokens_out)), tool_top=axis_top(tool_ms))


def drilled_series(run, stops: Sequence[Mapping[str, Any]], spans: Sequence[Any],
                   drillable: Sequence[bool]) -> TimelineSeries:
    """The series of a drilled level's stops (placed on the run's axis, `spans` their StopSpans)."""
    return timeline_series(stops, [span.label for span in spans], [span.end for span in spans], drillable,
                           stop_figures(run, stops) if stops else None)


def run_timeline_series(run) -> TimelineSeries:
    """The series of the run's own stops: the prepared views' (the loader made them off the window's thread),
    else made now."""
    return run.views.timeline_series if run.views is not None else own_stops_series(run)


def own_stops_series(run, spans: Sequence[Any] | None = None, drillable: Sequence[bool] | None = None,
                     figures: StopFigures | None = None) -> TimelineSeries:
    """The series of the run's own stops, from their spans, drillable flags and figures (each made now when not
    given: prepare_views gives the ones it made already)."""
    from afp_desktop.core.model.replay import opens_inward, spans_for

    spans = spans if spans is not None else spans_for(run.stops, run.axis, 0)
    drillable = drillable if drillable is not None else [opens_inward(run, span.stop) for span in spans]
    if figures is None and run.stops:
        figures = stop_figures(run, run.stops)
    return timeline_series(run.stops, [span.label for span in spans], [span.end for span in spans], drillable,
                           figures if run.stops else None)
