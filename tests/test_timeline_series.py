"""The timeline's series (core/views/timeline_series.py): what it draws of the stops, prepared by the loader off the
window's thread, so that the panel showing a run only draws it."""

from __future__ import annotations

import math
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.app.loading.loader import RunLoader
from afp_desktop.app.panels.timeline.timeline import TimelinePanel
from afp_desktop.app.session import Session
from afp_desktop.core.formats import open_run
from afp_desktop.core.views.prepared_views import prepare_views
from afp_desktop.core.model.plot_scale import PLOT_CEILING, axis_top, plotted_all, stacked
from afp_desktop.core.model.timeline import StopFigures, ordinal_labels
from afp_desktop.core.views.timeline_series import run_timeline_series, timeline_series
from tests.corpus_util import corpus_path

# Where the timeline's per-run numbers are worked out: none of these may run on the window's thread when a loaded
# run is shown (per-move look-ups such as x_of_position may).
PREPARING = {
    ("plot_scale.py", name) for name in ("plotted", "plotted_all", "axis_top", "stacked")
} | {("timeline.py", name) for name in ("ordinal_labels", "stop_figures", "node_figure", "has_usable_stops")} | {
    ("timeline_series.py", name) for name in ("timeline_series", "milestone_kind")}


def _calls_on_this_thread(work) -> set[tuple[str, str]]:
    """The core functions `work()` calls on this thread, as (file name, function name)."""
    called: set[tuple[str, str]] = set()

    def profile(frame, event, _arg):
        if event == "call" and "afp_desktop/core/" in frame.f_code.co_filename.replace("\\", "/"):
            called.add((frame.f_code.co_filename.replace("\\", "/").rsplit("/", 1)[-1], frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return called


def test_a_loaded_run_reaches_the_timeline_with_its_series_prepared(qtbot):
    """The loader thread works out the run's labels, markers and bars; showing the run in the timeline works out
    none of them on the window's thread (it once stacked every stop's bars and scaled both axes there)."""
    loader = RunLoader()
    with qtbot.waitSignal(loader.loaded, timeout=30_000) as loaded:
        loader.start(corpus_path("15-large-run", "recording.json"))
    run = loaded.args[0]
    session = Session()
    panel = shown_alone(session, TimelinePanel(session))
    qtbot.addWidget(panel)
    panel.resize(1200, 300)

    def show() -> None:
        session.set_run(run)
        session.flush()

    called = _calls_on_this_thread(show)
    assert panel.series is run_timeline_series(run) and panel.series.has_bars
    assert not called & PREPARING, sorted(called & PREPARING)
    loader.wait()


def test_the_series_is_made_on_the_loader_thread(qtbot, monkeypatch):
    from afp_desktop.core.views import timeline_series as module

    threads: list[threading.Thread] = []
    real = module.timeline_series

    def noted(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "timeline_series", noted)
    loader = RunLoader()
    with qtbot.waitSignal(loader.loaded, timeout=30_000):
        loader.start(corpus_path("02-react-two-tools", "recording.json"))
    loader.wait()
    assert threads and threading.main_thread() not in threads


def test_the_series_of_a_real_run(qtbot):
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    run.views = prepare_views(run)
    series = run_timeline_series(run)
    figures = run.views.stop_figures
    lower, upper_from, upper = stacked(figures.tokens_in, figures.tokens_out)
    assert series.count == len(run.stops) == len(series.tokens_in) == len(series.tokens_out) == len(series.tool_ms)
    assert series.labels == [span.label for span in run.views.stop_spans]
    assert series.ends == [span.end for span in run.views.stop_spans]
    assert series.tokens_in.tolist() == lower == upper_from
    assert series.tokens_out.tolist() == pytest.approx(upper)
    assert series.tool_ms.tolist() == plotted_all(figures.tool_ms)
    assert series.symbols[0] == "d" and series.symbols[-1] == "d"
    assert [symbol == "s" for symbol in series.symbols] == run.views.stops_drillable
    assert series.kinds.count("llm-turn") >= 2 and series.usable


NUMBERS = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10**30, 10**30).map(float)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(NUMBERS, NUMBERS, NUMBERS), min_size=1, max_size=12))
def test_bars_from_any_numbers_are_drawable_and_as_plot_scale_clamps_them(rows):
    """Token counts and durations come from the file: whatever they are, the bars are what plot_scale makes of
    them, each finite, not negative and at most PLOT_CEILING, and the axes' tops finite."""
    tokens_in, tokens_out, tool_ms = (list(column) for column in zip(*rows))
    stops = [{"kind": "commit", "label": "LLM turn"} for _ in rows]
    series = timeline_series(stops, None, list(range(len(rows))), [False] * len(rows),
                             StopFigures(tokens_in, tokens_out, tool_ms))
    lower, _from, upper = stacked(tokens_in, tokens_out)
    assert series.tokens_in.tolist() == lower
    assert series.tokens_out.tolist() == pytest.approx(upper)
    assert series.tool_ms.tolist() == plotted_all(tool_ms)
    piles = [a + b for a, b in zip(series.tokens_in, series.tokens_out)]
    for bars in (series.tokens_in, series.tokens_out, series.tool_ms, piles):
        assert all(0.0 <= value <= PLOT_CEILING for value in bars)
    assert math.isfinite(series.token_top) and series.token_top == axis_top(
        [a + b for a, b in zip(lower, upper)])
    assert math.isfinite(series.tool_top)
    assert series.labels == ordinal_labels(stops)
