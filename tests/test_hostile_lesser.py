"""Issue 10, point 9: wide encodings named rightly, invalid UTF-8 located, an event line over 1 MB accepted,
many tiny lines share their type strings; a time stamp beyond a float is no time."""

from __future__ import annotations

import json

import pytest

from afp_desktop.core.formats import LoadError, load_bytes, open_run
from tests.corpus_util import read_bytes

EVENTS = read_bytes("01-llmcall-single", "events.ndjson")


@pytest.mark.parametrize("codec,name", [("utf-32", "UTF-32 LE"), ("utf-32-le", "UTF-32 LE"),
                                        ("utf-32-be", "UTF-32 BE"), ("utf-16", "UTF-16 LE"),
                                        ("utf-16-le", "UTF-16 LE"), ("utf-16-be", "UTF-16 BE")])
def test_wide_encodings_are_named(codec, name):
    data = EVENTS.decode().encode(codec)
    if codec == "utf-32-be":
        data = b"\x00\x00\xfe\xff" + data
    with pytest.raises(LoadError) as info:
        load_bytes(data, "w.ndjson")
    assert f"{name} encoded" in str(info.value)


@pytest.mark.parametrize("line_index", [0, 1])
def test_overlong_utf8_is_located_at_its_column(line_index):
    lines = EVENTS.split(b"\n")
    lines[line_index] = lines[line_index].replace(b'"meta":', b'"x":"ab\xc0\xafcd","meta":', 1)
    column = lines[line_index].index(b"\xc0") + 1
    with pytest.raises(LoadError) as info:
        load_bytes(b"\n".join(lines), "o.ndjson")
    assert (info.value.problem.line, info.value.problem.column) == (line_index + 1, column)


def test_an_event_line_over_one_megabyte_is_an_event(tmp_path):
    event = json.loads(EVENTS.split(b"\n")[0])
    event["payload"]["big"] = "x" * 1_200_000
    path = tmp_path / "big.ndjson"
    path.write_bytes(json.dumps(event).encode() + b"\n")
    run = open_run(path)
    assert run.format == "ndjson" and len(run.typed_events) == 1


def test_event_types_are_shared_strings():
    run = load_bytes(EVENTS + EVENTS, "twice.ndjson")
    first, second = run.typed_events[0]["type"], run.typed_events[len(run.typed_events) // 2]["type"]
    assert first == second and first is second


def _recording_with_clocks(clocks: dict[int, str], deep: bool = False) -> bytes:
    """The single-call recording with event i's wallClockMs written as clocks[i] (JSON numbers Python cannot
    write), in an envelope whose "run" is nested deeper than orjson goes when `deep` (the reader that takes
    such documents keeps a 400-digit integer as one; orjson's refuses it)."""
    recording = json.loads(read_bytes("01-llmcall-single", "recording.json"))
    for i in clocks:
        recording["events"][i]["meta"]["wallClockMs"] = f"@clock{i}@"
    text = json.dumps({"format": "agentfootprint.recording.v1", "run": "@deep@" if deep else "x",
                       "recording": recording})
    for i, clock in clocks.items():
        text = text.replace(f'"@clock{i}@"', clock)
    return text.replace('"@deep@"', "[" * 1100 + "]" * 1100).encode()


def test_a_wall_clock_beyond_a_float_is_no_time_and_says_nothing_false(tmp_path):
    """A 400-digit wallClockMs (Infinity to JSON.parse) made `info` fail with an internal error (the fuzzer's find):
    the duration divided it by 1,000. Such a stamp is not used as a time; stamps 1e308 apart give no duration."""
    from afp_desktop.core.model.summary import summarize
    from tests.hostile_inputs import run_cli

    usual = summarize(load_bytes(_recording_with_clocks({}, deep=True), "r.json"))
    assert usual.duration_ms and usual.started_at_ms
    huge = _recording_with_clocks({3: "1" + "0" * 400}, deep=True)
    summary = summarize(load_bytes(huge, "r.json"))
    assert (summary.started_at_ms, summary.duration_ms) == (usual.started_at_ms, usual.duration_ms)
    apart = _recording_with_clocks({0: "-1e308", 3: "1e308"})
    summary = summarize(load_bytes(apart, "r.json"))
    assert summary.duration_ms is None and summary.started_at_ms == int(-1e308)
    for data in (huge, apart):
        path = tmp_path / "r.json"
        path.write_bytes(data)
        code, out, err = run_cli(["info", str(path)])  # (run_cli fails on an internal error)
        assert code == 0, err
        assert (b"Duration" in out) == (data is huge)
