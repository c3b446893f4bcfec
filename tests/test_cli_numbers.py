"""Every numeric option of every command is checked as it is read (afp_desktop/cli_numbers.py): nan, inf, a
number past its range or a negative index is refused up front with a sentence naming the option, before any file
is read; never a hang (`tail --timeout nan`), never "internal error" (`tail --poll-interval 1e300`).

The command line runs in a child process with a timeout: a hang guard (an unchecked timeout of nan waits
forever), not a measure of speed.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from tests.corpus_util import corpus_path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUARD_S = 60
STREAM = str(corpus_path("02-react-two-tools", "events.ndjson"))
TRACE = str(corpus_path("01-llmcall-single", "trace.json"))

CASES = [
    *[("tail", "--timeout", bad) for bad in ("nan", "inf", "-inf", "-1", "1e300", "abc")],
    *[("tail", "--poll-interval", bad) for bad in ("nan", "inf", "1e300", "0", "-0.5", "1e-9")],
    *[("tail", "--max-bytes", bad) for bad in ("nan", "inf", "0.1", "-5", "1e300")],
    *[("view", "--position", bad) for bad in ("-1", "1e3", "nan", "9" * 40)],
    ("view", "--stop", "-1"), ("view", "--typed", "-2"),
    ("inspect", "--node", "-1"), ("inspect", "--node", "nan"),
    ("export", "--stop", "-1"), ("export", "--scale", "inf"),
    ("status", "--max-bytes", "inf"),
    ("window", "--stop", "-1"), ("window", "--stop", "nan"),
]


def _argv(command: str, option: str, value: str, tmp_path) -> list[str]:
    missing = str(tmp_path / "not-written-yet.ndjson")  # (tail would wait for it)
    return {
        "tail": ["tail", missing],
        "view": ["view", TRACE],
        "inspect": ["inspect", TRACE, *([] if option == "--node" else ["--node", "0"])],
        "export": ["export", TRACE, "-o", str(tmp_path / "graph.svg")],
        "status": ["status", TRACE],
        "window": [TRACE, "--screenshot", str(tmp_path / "window.png")],
    }[command] + [f"{option}={value}"]


@pytest.mark.parametrize("command,option,value", CASES, ids=[" ".join(case) for case in CASES])
def test_a_number_out_of_range_is_refused_up_front(command, option, value, tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "afp_desktop", *_argv(command, option, value, tmp_path)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    try:
        out, err = proc.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{option} {value} was taken and the command never ended (hang guard)")
    text = err.decode("utf-8", "replace")
    assert proc.returncode == 2 and out == b""
    assert "Traceback" not in text and "internal error" not in text
    assert f"argument {option}: " in text and ("must be a" in text or "not a size" in text), text
    assert repr(value) in text
    assert not any(tmp_path.iterdir())  # nothing written, nothing waited for


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=12), st.floats().map(repr), st.integers().map(str)))
def test_a_parsed_number_is_finite_and_in_range_or_refused(text):
    from afp_desktop.cli_numbers import number_arg, whole_arg

    for parse, low, high in ((number_arg(least=0.001, most=3600), 0.001, 3600),
                             (number_arg(above=0, most=64), math.ulp(0), 64)):
        try:
            value = parse(text)
        except argparse.ArgumentTypeError as err:
            assert repr(text) in str(err)
        else:
            assert math.isfinite(value) and low <= value <= high
    try:
        whole = whole_arg()(text)
    except argparse.ArgumentTypeError as err:
        assert repr(text) in str(err)
    else:
        assert isinstance(whole, int) and 0 <= whole < 10 ** 18


def test_numbers_in_range_are_taken(tmp_path):
    path = tmp_path / "e.ndjson"
    path.write_bytes(b"")
    code = subprocess.run([sys.executable, "-m", "afp_desktop", "tail", str(path), "--timeout", "0",
                           "--poll-interval", "0.001", "--max-bytes", "1M"], cwd=ROOT, capture_output=True,
                          timeout=GUARD_S)
    assert code.returncode == 1 and b"no new events for 0 s" in code.stderr
