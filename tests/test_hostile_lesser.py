"""Issue 10, point 9: wide encodings named rightly, invalid UTF-8 located, an event line over 1 MB accepted,
many tiny lines share their type strings."""

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
