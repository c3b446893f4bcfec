"""A Trace cut off before its end shows every whole event it holds, says where it was cut and what is missing,
and invents nothing (core/formats/cut_trace.py); a Trace damaged in its middle is still refused with its place."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from afp_desktop.core.formats import load_bytes, open_run
from afp_desktop.core.formats.cut_trace import looks_cut, salvage_cut_trace
from afp_desktop.core.formats.errors import LoadError
from afp_desktop.core.jsonx.lazyjson import LazyJSON
from afp_desktop.core.jsonx.lazyjson import resolve
from tests.corpus_util import read_bytes

SMALL = read_bytes("02-react-two-tools", "trace.json")  # as the library writes it (indented)
FULL_EVENTS = json.loads(SMALL)["events"]


def _layout(events: list, structure: dict) -> tuple[bytes, list[int], int, int, int]:
    """A compact Trace and where each event, the structure and the redaction end (exclusive offsets)."""
    text = b'{"version":1,"events":['
    ends = []
    for i, event in enumerate(events):
        text += (b"," if i else b"") + json.dumps(event, ensure_ascii=False).encode()
        ends.append(len(text))
    text += b'],"structure":' + json.dumps(structure).encode()
    structure_end = len(text)
    text += b',"redaction":"none"'
    redaction_end = len(text)
    text += b',"capturedAtMs":1795989469671}'
    return text, ends, structure_end, redaction_end, len(text)


COMPACT, ENDS, STRUCTURE_END, REDACTION_END, TOTAL = _layout(FULL_EVENTS, {"name": "agent", "stages": [1, [2]]})


def _events(run) -> list:
    return [{k: resolve(v) for k, v in e.items()} for e in run.domain_events]


def _codes(run) -> set[str]:
    return {notice.code for notice in run.notices}


def _check_cut(cut: int) -> None:
    data = COMPACT[:cut]
    whole = sum(1 for end in ENDS if end <= cut)
    if whole == 0:
        with pytest.raises(LoadError, match="cut off"):
            load_bytes(data, "cut.json")
        return
    run = load_bytes(data, "cut.json")
    assert _events(run) == FULL_EVENTS[:whole]  # every whole event, and nothing more
    assert "truncated" in _codes(run)
    cut_problem = next(w for w in run.warnings if "cut off" in w.message)
    assert cut_problem.line == 1 and cut_problem.column == cut + 1  # (ASCII: the column is the byte after)
    if cut < ENDS[-1] + 1:  # inside the events (or just past the last one, before the array closes)
        assert f"the {whole:,} whole events before it are shown" in cut_problem.message
    else:
        assert "every event is shown" in cut_problem.message
    assert (run.structure is not None) == (cut >= STRUCTURE_END)  # a part cut off is left out whole
    if cut >= REDACTION_END:
        assert run.redaction == "none" and "redaction-unknown" not in _codes(run)
    else:
        assert run.redaction is None and "redaction-unknown" in _codes(run)
        assert "unredacted" not in _codes(run)  # unknown is not "none"


@pytest.mark.parametrize("where", ["first event", "event", "events end", "structure", "redaction", "captured",
                                   "last brace"])
def test_cut_at_each_part_of_the_document(where):
    cut = {"first event": ENDS[0] - 5, "event": ENDS[10] + 7, "events end": ENDS[-1] + 1,
           "structure": STRUCTURE_END - 4, "redaction": REDACTION_END - 2, "captured": TOTAL - 4,
           "last brace": TOTAL - 1}[where]
    _check_cut(cut)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=1, max_value=TOTAL - 1))
def test_any_cut_shows_exactly_the_whole_events(cut):
    _check_cut(cut)


def test_the_library_s_own_indented_trace_cut_in_a_string():
    cut = SMALL.index(b'"Weather in Oslo', len(SMALL) // 2) + 9  # inside a string value
    run = load_bytes(SMALL[:cut], "trace.json")
    events = _events(run)
    assert 0 < len(events) < len(FULL_EVENTS) and events == FULL_EVENTS[:len(events)]
    problem = next(w for w in run.warnings if "cut off" in w.message)
    assert problem.line == SMALL[:cut].count(b"\n") + 1
    assert f"inside event {len(events) + 1:,}" in problem.message


def test_a_complete_trace_is_not_salvaged_and_its_run_is_unchanged():
    assert salvage_cut_trace(SMALL, "trace.json") is None
    assert not looks_cut(SMALL)
    assert "truncated" not in _codes(load_bytes(SMALL, "trace.json"))


def test_damage_in_the_middle_is_refused_with_its_place_not_shown_as_cut():
    damaged = COMPACT[:ENDS[5] - 1] + COMPACT[ENDS[5]:]  # event 6 lost its closing brace
    with pytest.raises(LoadError) as caught:
        load_bytes(damaged, "damaged.json")
    assert "cut off" not in str(caught.value) and caught.value.problem.column is not None


def test_a_recording_cut_off_is_still_refused():
    data = read_bytes("02-react-two-tools", "recording.json")
    with pytest.raises(LoadError, match="not valid JSON"):
        load_bytes(data[: len(data) // 2], "recording.json")


def test_a_large_trace_cut_off_keeps_its_payloads_lazy():
    data = read_bytes("15-large-run", "trace.json")
    assert len(data) >= 512 * 1024  # (the large-Trace reader's threshold)
    full = load_bytes(data, "trace.json")
    cut = load_bytes(data[: int(len(data) * 0.6)], "trace.json")
    count = len(cut.domain_events)
    assert 0 < count < len(full.domain_events)
    assert _events(cut) == _events(full)[:count]
    assert any(type(e.get("payload")) is LazyJSON for e in cut.domain_events)
    assert "truncated" in _codes(cut)


def test_a_compressed_trace_cut_off_shows_what_it_holds(tmp_path):
    path = tmp_path / "trace.json.gz"
    packed = gzip.compress(SMALL)
    path.write_bytes(packed[: len(packed) * 2 // 3])
    run = open_run(path)
    events = _events(run)
    assert 0 < len(events) < len(FULL_EVENTS) and events == FULL_EVENTS[:len(events)]
    messages = [w.message for w in run.warnings]
    assert any("compressed file is cut off" in m for m in messages)
    assert any("whole events before it are shown" in m for m in messages)
    assert SMALL.startswith(b"{")  # (the input is only read)


def test_a_compressed_stream_cut_off_shows_its_whole_lines(tmp_path):
    data = read_bytes("02-react-two-tools", "events.ndjson")
    path = tmp_path / "events.ndjson.gz"
    packed = gzip.compress(data, compresslevel=1)
    path.write_bytes(packed[: len(packed) // 2])
    run = open_run(path)
    lines = [json.loads(line) for line in data.splitlines() if line.strip()]
    assert 0 < len(run.typed_events) < len(lines)
    assert run.typed_events == lines[: len(run.typed_events)]
    assert any("compressed file is cut off" in w.message for w in run.warnings)


def test_nothing_whole_in_a_cut_compressed_file_is_the_old_message(tmp_path):
    path = tmp_path / "trace.json.gz"
    path.write_bytes(gzip.compress(SMALL)[:12])  # the header and hardly a byte of data
    with pytest.raises(LoadError, match="cut off"):
        open_run(path)
