"""The bracket scan's C loop (core/jsonx/brackets_c.c) gives the numpy scan's answer on any bytes, whatever its
chunks (that it lets go of the GIL while it runs is measured by bench/bench_scan_lets_go.py). Built when the
install had a C compiler; CI sets AFP_REQUIRE_NATIVE=1 so that a build that silently fell back to numpy fails here
instead of skipping."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.jsonx import jsonscan
from tests.corpus_util import SCENARIOS, read_bytes

if os.environ.get("AFP_REQUIRE_NATIVE"):
    assert jsonscan.native is not None, "the C bracket scan was not built (is a C compiler installed?)"
pytestmark = pytest.mark.skipif(jsonscan.native is None, reason="the C bracket scan is not built")
jsonscan.numpy()

SPECIALS = st.lists(st.sampled_from([b"{", b"}", b"[", b"]", b'"', b"\\", b"a", b",", b"\xfb", b"\x7b"]),
                    max_size=60).map(b"".join)


def by_numpy(data: bytes, **options):
    saved = jsonscan.native
    jsonscan.native = None
    try:
        return jsonscan.brackets_outside_strings(data, **options)
    finally:
        jsonscan.native = saved


def same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@settings(max_examples=400)
@given(data=st.one_of(SPECIALS, st.binary(max_size=60)), chunk=st.integers(1, 9), cut_ok=st.booleans(),
       start=st.integers(0, 8))
def test_the_c_loop_gives_the_numpy_scan_s_answer(data, chunk, cut_ok, start):
    """Escaped quotes, runs of backslashes across a chunk's end, brackets in strings, unbalanced and cut texts."""
    saved = jsonscan.NATIVE_CHUNK
    jsonscan.NATIVE_CHUNK = chunk
    try:
        native = jsonscan.brackets_outside_strings(data, cut_ok=cut_ok, start=start)
    finally:
        jsonscan.NATIVE_CHUNK = saved
    assert same(native, by_numpy(data, cut_ok=cut_ok, start=start))


@pytest.mark.parametrize("scenario", SCENARIOS[:6])
def test_the_c_loop_gives_the_numpy_scan_s_answer_on_real_runs(scenario):
    for name in ("trace.json", "recording.json"):
        try:
            data = read_bytes(scenario, name)
        except FileNotFoundError:
            continue
        assert same(jsonscan.brackets_outside_strings(data), by_numpy(data))


def test_the_c_loop_refuses_ranges_and_buffers_it_cannot_hold():
    positions, opens = np.empty(4, np.int64), np.empty(4, np.uint8)
    assert jsonscan.native.scan(b"[{}]", 0, 4, 0, positions, opens) == (4, 0)
    assert positions.tolist() == [0, 1, 2, 3] and opens.tolist() == [1, 1, 0, 0]
    for start, stop in ((-1, 4), (0, 5), (3, 2)):
        with pytest.raises(ValueError, match="within the data"):
            jsonscan.native.scan(b"[{}]", start, stop, 0, positions, opens)
    with pytest.raises(ValueError, match="too small"):
        jsonscan.native.scan(b"[{}][]", 0, 6, 0, positions, opens)
    with pytest.raises(TypeError):
        jsonscan.native.scan(b"[]", 0, 2, 0, b"read-only", opens)


def forward(data: bytes, start: int = 0):
    positions, opens = np.empty(len(data), np.int64), np.empty(len(data), np.uint8)
    count, state = jsonscan.native.scan(data, start, len(data), 0, positions, opens)
    return list(zip(positions[:count].tolist(), opens[:count].tolist())), state & 1


def backward(data: bytes, piece: int):
    """scan_back over `data` a piece at a time from its end, each call seeing only what is "read" (floor)."""
    positions, opens = np.empty(len(data), np.int64), np.empty(len(data), np.uint8)
    found, state, low, floor = [], 0, len(data), len(data)
    while low > 0:
        floor = max(0, min(floor, low) - piece)
        count, state, low, zero_at = jsonscan.native.scan_back(data, floor, floor, low, state, positions, opens)
        found += list(zip(positions[:count].tolist(), opens[:count].tolist()))
        if zero_at >= 0:
            return found[::-1], state, zero_at
    return found[::-1], state, -1


@settings(max_examples=600)
@given(data=SPECIALS, piece=st.integers(1, 70))
def test_scanned_backward_a_piece_at_a_time_the_brackets_are_those_scanned_forward(data, piece):
    """Where the quotes counted between two points are even, both directions put the same brackets outside
    strings; the backward scan stops where its first closing meets its partner, and a quote whose backslashes
    run past what is read waits for the next piece."""
    found, state, zero_at = backward(data, piece)
    assert found == backward(data, len(data) + 1)[0], "the same in pieces as in one call"
    if state & 1:
        return  # the text's start is inside a string, seen from its end
    expected, in_string = forward(data, max(zero_at, 0))
    if not in_string:
        assert found == expected
    counts = np.cumsum([-1 if opening else 1 for _, opening in reversed(found)]).tolist()
    if zero_at >= 0:  # the count (closings minus openings, going down) first came back to zero there
        assert found[0][0] == zero_at and counts[-1] == 0 and 0 not in counts[:-1]
    else:
        assert 0 not in counts


@given(data=st.lists(st.sampled_from([b'"events"', b"events", b'"', b"x", b"\\"]), max_size=12).map(b"".join),
       start=st.integers(0, 40), stop=st.integers(0, 90))
def test_find_last_is_rfind(data, start, stop):
    assert jsonscan.native.find_last(data, b'"events"', start, stop) == data.rfind(b'"events"', start, stop)


def test_the_backward_scan_refuses_ranges_and_buffers_it_cannot_hold():
    positions, opens = np.empty(4, np.int64), np.empty(4, np.uint8)
    assert jsonscan.native.scan_back(b"[{}]", 0, 0, 4, 0, positions, opens) == (4, 0, 0, 0)
    assert positions.tolist() == [3, 2, 1, 0] and opens.tolist() == [0, 0, 1, 1]
    for floor, start, stop in ((-1, 0, 4), (1, 0, 4), (0, 3, 2), (0, 0, 5)):
        with pytest.raises(ValueError, match="in order"):
            jsonscan.native.scan_back(b"[{}]", floor, start, stop, 0, positions, opens)
    with pytest.raises(ValueError, match="too small"):
        jsonscan.native.scan_back(b"[{}][]", 0, 0, 6, 0, positions, opens)
