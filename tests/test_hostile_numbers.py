"""Numbers from a run reach a plot only once they are drawable: a token count or a duration of 5e-324 made an
infinite axis scale (the window died in Qt's painter) and one of 1e308 an infinite axis top (the plotting library refused
the range). The window is run on such files through its screenshot path, in a child process so that a crash
is a failed test, not a lost test run."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from afp_desktop.core.model.plot_scale import MIN_AXIS_TOP, PLOT_CEILING, axis_top, plotted, stacked
from tests.corpus_util import corpus_path

HOSTILE_NUMBERS = [5e-324, 1e-300, 1e308, 1.7976931348623157e308, -1e308, -0.0]


def _with_numbers(value: float) -> bytes:
    """The corpus's two-tool run with every token count and LLM duration replaced by `value`."""
    lines = []
    for line in corpus_path("02-react-two-tools", "events.ndjson").read_bytes().splitlines():
        event = json.loads(line)
        payload = event.get("payload")
        if event.get("type") == "agentfootprint.stream.llm_end" and isinstance(payload, dict):
            payload["usage"] = {"input": value, "output": value}
            payload["durationMs"] = value
        lines.append(json.dumps(event).encode())
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("value", HOSTILE_NUMBERS, ids=repr)
def test_the_window_draws_a_run_whose_numbers_are_extreme(tmp_path, value):
    source = tmp_path / "run.ndjson"
    source.write_bytes(_with_numbers(value))
    shot = tmp_path / "window.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "AFP_DESKTOP_CONFIG_DIR": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "afp_desktop", str(source), "--screenshot", str(shot)],
                          capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert source.read_bytes() == _with_numbers(value)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_plotted_value_is_finite_and_in_range(value):
    drawn = plotted(value)
    assert math.isfinite(drawn) and 0.0 <= drawn <= PLOT_CEILING
    if 0 < value <= PLOT_CEILING:
        assert drawn == value  # a value a plot can draw is drawn as it is


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=20))
def test_an_axis_top_gives_a_finite_scale(values):
    top = axis_top(values)
    assert math.isfinite(top) and top >= MIN_AXIS_TOP
    assert all(plotted(v) <= top for v in values)


@given(st.lists(st.tuples(st.floats(allow_nan=True, allow_infinity=True),
                          st.floats(allow_nan=True, allow_infinity=True)), max_size=20))
def test_stacked_bars_stay_inside_the_ceiling(pairs):
    lower, upper = [a for a, _ in pairs], [b for _, b in pairs]
    bottoms, tops_from, heights = stacked(lower, upper)
    for bottom, start, height in zip(bottoms, tops_from, heights):
        assert start == bottom and height >= 0 and math.isfinite(bottom + height)
        assert bottom + height <= PLOT_CEILING
