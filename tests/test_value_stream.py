"""An event stream printed one object after another over several lines (`jq . events.ndjson`) reads as the
stream it is (core/formats/value_stream.py): the same events and projections as the NDJSON, a cut last object
left out with a warning, damage refused at the file's own line and column."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from afp_desktop.core.formats import load_bytes
from afp_desktop.core.formats.errors import LoadError
from tests.corpus_util import SMALL_SCENARIOS, read_bytes



def _events(scenario: str) -> list[dict]:
    return [json.loads(line) for line in read_bytes(scenario, "events.ndjson").splitlines() if line.strip()]


def _pretty(events: list[dict], newline: str = "\n") -> bytes:
    return "".join(json.dumps(e, indent=2, ensure_ascii=False).replace("\n", newline) + newline
                   for e in events).encode()


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_jq_output_reads_as_its_stream(scenario):
    stream = load_bytes(read_bytes(scenario, "events.ndjson"), "events.ndjson")
    pretty = load_bytes(_pretty(_events(scenario)), "events.json")
    assert pretty.typed_events == stream.typed_events
    assert pretty.stepgraph == stream.stepgraph
    assert pretty.stops == stream.stops
    assert [pretty.status_at(p) for p in range(len(pretty.axis) + 1)] == \
        [stream.status_at(p) for p in range(len(stream.axis) + 1)]
    assert "object-stream" in {n.code for n in pretty.notices}
    assert "object-stream" not in {n.code for n in stream.notices}


def test_crlf_and_blank_lines_between_objects():
    events = _events("02-react-two-tools")
    text = _pretty(events, "\r\n").replace(b"}\r\n{", b"}\r\n\r\n\t{")
    assert load_bytes(text, "events.json").typed_events == events


def test_a_cut_last_object_is_left_out_with_the_file_s_line():
    events = _events("02-react-two-tools")
    text = _pretty(events)
    last_start = text.rindex(b"\n{") + 1
    cut = text[: last_start + 40]
    run = load_bytes(cut, "events.json")
    assert run.typed_events == events[:-1]
    warning = next(w for w in run.warnings if "cut off" in w.message)
    assert warning.line == text[:last_start].count(b"\n") + 1


@pytest.mark.parametrize("lost", ["a quote", "a colon"])
def test_damage_in_an_object_is_refused_at_the_file_s_line_and_column(lost):
    events = _events("02-react-two-tools")
    text = _pretty(events)
    third = [i for i in range(len(text)) if text.startswith(b"\n{", i)][2] + 1
    bad_at = text.index(b'"type": "', third) + len(b'"type"') + (2 if lost == "a quote" else 0)
    damaged = text[:bad_at] + b"?" + text[bad_at + 1:]  # a quote lost leaves the rest of the file "open"
    with pytest.raises(LoadError) as caught:
        load_bytes(damaged, "events.json")
    problem = caught.value.problem
    line_start = damaged.rindex(b"\n", 0, bad_at) + 1
    assert problem.line == damaged[:bad_at].count(b"\n") + 1
    assert problem.column == bad_at - line_start + 1


@pytest.mark.parametrize("text", [
    b'{"version": 1, "events": [], "redaction": "none"}\n{"version": 1, "events": [], "redaction": "none"}\n',
    b'{"type": "a", "payload": {}}\n42\n{"type": "b", "payload": {}}\n',
    b'{"type": "a", "payload": {}}\n[{"type": "b"}]\n',
    b'{"type": "a", "payload": {}} x {"type": "b", "payload": {}}',
])
def test_what_is_not_objects_one_after_another_keeps_its_error(text):
    with pytest.raises(LoadError, match="not valid JSON|not JSON|expected"):
        load_bytes(text, "x.json")


@settings(max_examples=40, deadline=None)
@given(indent=st.one_of(st.none(), st.integers(0, 4)), separator=st.sampled_from(["\n", "\n\n", " ", "\r\n", "\t\n"]),
       compact=st.booleans())
def test_any_spacing_gives_the_same_events(indent, separator, compact):
    events = _events("04-tool-progress")
    seps = (",", ":") if compact else (", ", ": ")
    text = separator.join(json.dumps(e, indent=indent, separators=seps) for e in events).encode()
    if b"\n" not in text.strip():
        return  # one line of objects side by side: not a stream this reader takes
    assert load_bytes(text, "events.json").typed_events == events
