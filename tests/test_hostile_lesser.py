"""Issue 10, point 9: wide encodings named rightly, invalid UTF-8 located, an event line over 1 MB accepted,
many tiny lines share their type strings; numbers read alike by every parser, and stamps too far apart for a
duration."""

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


PARSERS = ["orjson", "deep", "lone-surrogate"]  # what reads the document: orjson, or the parsers that read what it
# refuses (deepjson.py, nested deeper than it goes; the standard library's, a lone surrogate escape in a string)


def _recording_with_clocks(clocks: dict[int, str], parser: str = "orjson") -> bytes:
    """The single-call recording with event i's wallClockMs written as clocks[i] (JSON numbers Python cannot
    write), in an envelope whose "run" only the `parser` reads (PARSERS)."""
    recording = json.loads(read_bytes("01-llmcall-single", "recording.json"))
    for i in clocks:
        recording["events"][i]["meta"]["wallClockMs"] = f"@clock{i}@"
    run = {"orjson": "x", "deep": "@deep@", "lone-surrogate": "\ud83d"}[parser]
    text = json.dumps({"format": "agentfootprint.recording.v1", "run": run, "recording": recording})
    for i, clock in clocks.items():
        text = text.replace(f'"@clock{i}@"', clock)
    return text.replace('"@deep@"', "[" * 1100 + "]" * 1100).encode()


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("number", ["1" + "0" * 400, "-1e400", "1" + "0" * 5000])
def test_a_number_beyond_a_double_is_refused_by_every_parser(tmp_path, parser, number):
    """What orjson refuses is read by other parsers: the standard library's kept a 400-digit integer whole, and
    `info` stopped with an internal error dividing it by 1,000 (the fuzzer's find). Every parser refuses it now,
    saying why, as orjson does."""
    from tests.hostile_inputs import run_cli

    data = _recording_with_clocks({3: number}, parser)
    with pytest.raises(LoadError, match="number is infinity when parsed as double"):
        load_bytes(data, "r.json")
    path = tmp_path / "r.json"
    path.write_bytes(data)
    code, _out, err = run_cli(["info", str(path)])  # (run_cli fails on an internal error)
    assert code == 2 and "number is infinity when parsed as double" in err


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json_to_any_parser(parser, literal):
    """JSON.parse refuses them, and so does orjson; the standard library's parser took them."""
    with pytest.raises(LoadError):
        load_bytes(_recording_with_clocks({3: literal}, parser), "r.json")


@pytest.mark.parametrize("parser", PARSERS)
def test_numbers_read_alike_by_every_parser(parser):
    """Past 64 bits an integer is the double JavaScript holds, whichever parser reads it."""
    from afp_desktop.core.model.summary import summarize

    big = str(2**64 + 1)
    run = load_bytes(_recording_with_clocks({3: big, 4: "1.5e3"}, parser), "r.json")
    clocks = [event["meta"]["wallClockMs"] for event in run.typed_events[3:5]]
    assert clocks == [float(2**64 + 1), 1500.0] and all(type(clock) is float for clock in clocks)
    assert summarize(run).duration_ms is not None


def test_stamps_too_far_apart_give_no_duration(tmp_path):
    """Two stamps 1e308 apart: their difference is no number (infinity), so no duration is said."""
    from afp_desktop.core.model.summary import summarize
    from tests.hostile_inputs import run_cli

    apart = _recording_with_clocks({0: "-1e308", 3: "1e308"})
    summary = summarize(load_bytes(apart, "r.json"))
    assert summary.duration_ms is None and summary.started_at_ms == int(-1e308)
    path = tmp_path / "r.json"
    path.write_bytes(apart)
    code, out, err = run_cli(["info", str(path)])  # (run_cli fails on an internal error)
    assert code == 0 and b"Duration" not in out, err
