"""The pieces that keep a big load from freezing the window: NDJSON read a few hundred lines at a time (same lines,
same line numbers and the same cut-last-line rule as one whole split), the GIL switch interval shortened only while a
load runs, and the collector's objects frozen when it is switched back on."""

from __future__ import annotations

import gc

import pytest

# private: the stream's last content offset, a helper of the parser tested on its own
from afp_desktop.core.formats.ndjson import _last_content_offset, parse_ndjson
from afp_desktop.core.formats.errors import LoadError
from afp_desktop.engine.collector import collector_paused

SAMPLES = [b"", b"\n", b"a", b"a\n", b"a\nb", b"a\nb\n", b"\n\n\nabc\n\n", b"x" * 30 + b"\n" + b"y" * 3,
           b"one\r\ntwo\r\n", b"  \n{}\n  \n", b"\n".join(b"line %d" % i for i in range(50))]


@pytest.mark.parametrize("data", SAMPLES)
@pytest.mark.parametrize("native", [True, False])
def test_lines_and_their_numbers_are_those_of_one_split(data, native, monkeypatch):
    """The first line that is not blank is the one a damaged stream's error names (these lines are no JSON)."""
    from afp_desktop.core.formats import ndjson

    if native and ndjson.native is None:
        pytest.skip("the C line loop is not built")
    if not native:
        monkeypatch.setattr(ndjson, "native", None)
    lines = (data + b"\n").split(b"\n")  # (a final newline ended: no line cut off, so every bad line is an error)
    bad = next((n for n, line in enumerate(lines, start=1) if line.strip()), None)
    if bad is None:
        assert parse_ndjson(data + b"\n", "f.ndjson") == ([], [])
        return
    with pytest.raises(LoadError) as caught:
        parse_ndjson(data + b"\n", "f.ndjson")
    assert caught.value.problem.line == bad


@pytest.mark.parametrize("data", SAMPLES)
def test_last_content_offset(data):
    stripped = data.rstrip()
    assert _last_content_offset(data) == len(stripped) - 1


def _event(i: int) -> bytes:
    return b'{"type":"agentfootprint.stream.token","payload":{"i":%d},"meta":{"wallClockMs":%d}}' % (i, i)


def test_a_cut_last_line_is_a_warning_and_a_bad_middle_line_an_error():
    data = b"\n".join(_event(i) for i in range(5)) + b"\n" + _event(5)[:20]
    events, warnings = parse_ndjson(data, "f.ndjson")
    assert len(events) == 5 and "cut off" in str(warnings[0])
    broken = b"\n".join(_event(i) for i in range(3)) + b"\n{oops\n" + _event(4) + b"\n"
    with pytest.raises(LoadError) as caught:
        parse_ndjson(broken, "f.ndjson")
    assert caught.value.problem.line == 4
    # blank lines after a complete last event: no warning
    events, warnings = parse_ndjson(b"\n".join(_event(i) for i in range(5)) + b"\n\n  \n", "f.ndjson")
    assert len(events) == 5 and not warnings


def test_objects_built_while_paused_are_frozen_out_of_collections():
    before = gc.get_freeze_count()
    with collector_paused():
        built = [{"n": [i]} for i in range(10_000)]  # (a dict of only numbers is never tracked: a list in it is)
    assert gc.isenabled()
    assert all(gc.is_tracked(item) for item in built)
    assert gc.get_freeze_count() >= before + 2 * len(built)
    in_collections = {id(obj) for obj in gc.get_objects()}  # (the frozen generation is not listed)
    assert not any(id(item) in in_collections for item in built)
    gc.unfreeze()
