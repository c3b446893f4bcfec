"""An event stream's line loop in C (core/formats/ndjson_c.c) reads what the Python loop reads, on any lines:
the same events, the same sharing of strings and metas, the same warnings and errors (file, line, column), and the
same breathing, progress and read-so-far points. Built when the install had a C compiler; CI sets
AFP_REQUIRE_NATIVE=1 so that a build that silently fell back to Python fails here instead of skipping."""

from __future__ import annotations

import os

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.formats import ndjson
from afp_desktop.core.formats.errors import LoadError
from tests.corpus_util import SCENARIOS, read_bytes

if os.environ.get("AFP_REQUIRE_NATIVE"):
    assert ndjson.native is not None, "the C line loop was not built (is a C compiler installed?)"
pytestmark = pytest.mark.skipif(ndjson.native is None, reason="the C line loop is not built")


def outcome(data: bytes, native) -> tuple:
    """What parse_ndjson gives with or without the C loop: its events, how their objects are shared, its warnings
    (or its error), and the events read by each report it made."""
    saved = ndjson.native
    ndjson.native = native
    reports: list = []
    try:
        events, warnings = ndjson.parse_ndjson(
            data, "f.ndjson", first_line=3, progress=lambda f: reports.append(("progress", f)),
            cancelled=lambda: False, read_so_far=lambda evs, f: reports.append(("read", len(evs), f)))
    except LoadError as err:
        return ("error", str(err), err.problem.line, err.problem.column, reports)
    finally:
        ndjson.native = saved
    return ("events", events, sharing(events), [str(w) for w in warnings], reports)


def sharing(events: list) -> list:
    """Which of the events' strings, metas and meta values are one object: each by the place it was first seen."""
    first_seen: dict[int, int] = {}
    places = []
    for event in events:
        parts = [event.get("type"), event.get("meta")]
        meta, payload = event.get("meta"), event.get("payload")
        if isinstance(meta, dict):
            parts += [meta.get(key) for key in ("runId", "runtimeStageId", "subflowPath", "compositionPath")]
        if isinstance(payload, dict):
            for value in payload.values():
                parts += list(value.values()) if isinstance(value, dict) else [value]
        for part in parts:
            if isinstance(part, (str, dict, list)):
                places.append(first_seen.setdefault(id(part), len(first_seen)))
    return places


def same_both_ways(data: bytes) -> None:
    assert outcome(data, ndjson.native) == outcome(data, None)


TEXT = st.sampled_from(["", "a", "run-1", "é", "x" * 512, "y" * 513, "tool"]) | st.text(max_size=8)
SCALAR = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | TEXT
VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                     max_leaves=6)
META = st.fixed_dictionaries({}, optional={
    "runId": st.sampled_from(["run-1", "run-2"]) | VALUE, "runtimeStageId": st.sampled_from(["s#1", "s#2"]) | VALUE,
    "subflowPath": st.sampled_from([[], ["a"], ["a", "b"]]) | st.lists(VALUE, max_size=2),
    "compositionPath": st.sampled_from([["Agent:agent"], []]) | VALUE, "wallClockMs": st.integers(0, 3),
})
EVENT = st.fixed_dictionaries({"type": st.sampled_from(["t.a", "t.b"]) | VALUE}, optional={
    "payload": st.dictionaries(TEXT, VALUE, max_size=4) | VALUE, "meta": META | VALUE})


def event_line(event: dict) -> bytes:
    return orjson.dumps(event)


DEEP_META = b'{"type":"t.a","meta":{"runId":"r","deep":' + b"[" * 300 + b"]" * 300 + b"}}"
LINE = st.one_of(
    EVENT.map(event_line), EVENT.map(event_line), EVENT.map(event_line),
    st.sampled_from([b"", b"  ", b"\t", b"\r", b"\x0b\x0c", b"[1]", b'"x"', b"3", b"{oops", b'{"payload":{}}',
                     b'{"type":"t.a","payload":{"s":"\\ud800"}}', b'{"type":"t.a","meta":{"n":18446744073709551616}}',
                     b"[" * 1100 + b"]" * 1100, DEEP_META, b'\xef\xbb\xbf{"type":"t.a"}', b'{"type":"t\xff"}']),
    EVENT.map(event_line).map(lambda line: b" \t" + line + b"\r "),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=12), st.booleans(), st.booleans(), st.integers(0, 30))
def test_any_lines_read_the_same_both_ways(lines, bom, final_newline, cut):
    data = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + (b"\n" if final_newline else b"")
    same_both_ways(data)
    if cut:
        same_both_ways(data[:-cut])  # (a cut last line: a warning, or an error when it is not the last)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=1, max_size=6), st.integers(1, 5000))
def test_long_streams_read_the_same_across_the_reporting_points(kinds, count):
    """Thousands of lines: the C loop hands back at every 256th and 2,000th line, where the Python loop breathes
    and reports; a line it leaves to Python may stand anywhere among them."""
    odd = [b'{"type":"t.a","payload":{"s":"\\ud800"}}', b"", b'{"type":"t.a","meta":null}', b"{oops"]
    lines = [event_line({"type": "t.a", "payload": {"i": i % 7, "s": "x"}, "meta": {"runId": "r", "n": i % 3}})
             for i in range(count)]
    for n, kind in enumerate(kinds):
        lines.insert((n * 977) % (len(lines) + 1), odd[kind])
    same_both_ways(b"\n".join(lines) + b"\n")


def test_the_sharing_rules_hold_at_their_edges():
    """Strings of up to 512 characters are shared (in the payload and one object down), longer ones are not; a
    meta orjson cannot write again (too deep) keeps its values shared but is not matched whole."""
    lines = []
    for _ in range(2):
        for size in (511, 512, 513):
            text = "s" * size
            lines.append(event_line({"type": "t.a", "payload": {"s": text, "in": {"s": text}, "n": [text]},
                                     "meta": {"runId": text, "subflowPath": [text]}}))
        lines.append(DEEP_META)
        lines.append(event_line({"type": "t.a", "meta": {"subflowPath": [{"a": 1}], "compositionPath": [[1]]}}))
    data = b"\n".join(lines)
    same_both_ways(data)
    events = outcome(data, ndjson.native)[1]
    first, again = events[:5], events[5:]  # (511, 512 and 513 characters, the deep meta, the odd paths)
    assert first[0]["payload"]["s"] is again[0]["payload"]["s"] and first[1]["payload"]["in"]["s"] is \
        again[1]["payload"]["in"]["s"]
    assert first[2]["payload"]["s"] is not again[2]["payload"]["s"]
    assert first[2]["meta"]["runId"] is again[2]["meta"]["runId"], "a meta's values are shared at any length"
    assert first[3]["meta"] is not again[3]["meta"] and first[3]["meta"]["runId"] is again[3]["meta"]["runId"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_corpus_streams_read_the_same_both_ways(scenario):
    same_both_ways(read_bytes(scenario, "events.ndjson"))


def test_the_large_corpus_stream_reads_the_same_both_ways():
    same_both_ways(read_bytes("15-large-run", "events.ndjson"))


def test_its_arguments_are_checked():
    with pytest.raises(ValueError, match="offset"):
        ndjson.native.parse_lines(b"{}", 9, 0, 1, orjson.loads, orjson.dumps, {}, {}, {}, {}, [])
    with pytest.raises(TypeError):
        ndjson.native.parse_lines(b"{}", 0, 0, 1, orjson.loads, orjson.dumps, [], {}, {}, {}, [])


def test_an_error_raised_while_sharing_is_raised_as_the_python_loop_raises_it():
    """Only a refused line is left to the Python loop; an error in the sharing (here a failing equality) is raised
    from the C loop as it is from the Python one."""
    class Boom(Exception):
        pass

    def dumps(_meta):
        raise Boom("no")

    with pytest.raises(Boom):
        ndjson.native.parse_lines(b'{"type":"t","meta":{}}', 0, 0, 1, orjson.loads, dumps, {}, {}, {}, {}, [])
