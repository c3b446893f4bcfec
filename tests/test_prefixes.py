"""Progressive display, the core half (core/formats/prefixes.py): the runs of the first events of a big file,
built while the rest is read, are exactly the runs of files holding only those events; the whole run is
unchanged by them."""

from __future__ import annotations

import lzma

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.formats import LoadError, open_run, prefixes
from afp_desktop.core.jsonx import jsonio
from tests.corpus_util import SCENARIOS, corpus_path, read_bytes

ONLY_WHOLE_FILE = {"incomplete", "truncated", "not-complete"}


def projections(run) -> dict:
    return {"stepgraph": run.stepgraph, "stops": run.stops, "status": run.status_states,
            "axis": list(run.axis.entries), "domain": run.domain_events}


def expected_notices(run) -> list[tuple[str, str]]:
    return [(n.code, n.text) for n in run.all_notices() if n.code not in ONLY_WHOLE_FILE]


def collect(path) -> tuple[list, object]:
    shown: list = []
    final = open_run(path, show_prefix=shown.append)
    return shown, final


@pytest.fixture(autouse=True)
def any_size(monkeypatch):
    """Prefixes for files of any size (the corpus's are small)."""
    monkeypatch.setattr(prefixes, "MIN_BYTES", 0)


@pytest.fixture
def small_steps(monkeypatch):
    """Prefixes from the 20th event on, doubling: every corpus run gets several."""
    monkeypatch.setattr(prefixes, "FIRST_EVENTS", 20)
    monkeypatch.setattr(prefixes, "GROWTH", 2)
    monkeypatch.setattr(prefixes, "LAST_FRACTION", 0.95)
    monkeypatch.setattr(prefixes, "MIN_REST_S", 0.0)  # every part, however soon the rest is read


def ndjson_lines(scenario: str) -> list[bytes]:
    return [line for line in read_bytes(scenario, "events.ndjson").splitlines() if line.strip()]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_each_ndjson_prefix_is_the_run_of_its_first_lines(scenario, small_steps, tmp_path):
    shown, final = collect(corpus_path(scenario, "events.ndjson"))
    lines = ndjson_lines(scenario)
    if len(lines) < 2000:  # (a file of a few lines is read in one batch: nothing to show early)
        assert all(len(p.typed_events) < len(lines) for p in shown)
    sizes = [len(p.typed_events) for p in shown]
    assert sizes == sorted(set(sizes)), "each prefix is longer than the last"
    for prefix in shown:
        n = len(prefix.typed_events)
        assert 0 < n < len(final.typed_events)
        assert prefix.still_reading and not final.still_reading
        assert prefix.typed_events == final.typed_events[:n]
        cut = tmp_path / f"first-{n}.ndjson"
        cut.write_bytes(b"\n".join(lines[:n]) + b"\n")
        alone = open_run(cut)
        assert projections(prefix) == projections(alone)
        notices = [(n.code, n.text) for n in prefix.all_notices()]
        assert notices[0][0] == prefixes.READING and f"first {len(prefix.axis):,} events" in notices[0][1]
        assert notices[1:] == expected_notices(alone), "what only the whole file can say is not said early"


def test_the_large_ndjson_shows_a_prefix_with_the_usual_sizes():
    shown, final = collect(corpus_path("15-large-run", "events.ndjson"))
    assert len(shown) >= 1 and len(shown[0].typed_events) >= prefixes.FIRST_EVENTS
    assert all(len(p.typed_events) < prefixes.LAST_FRACTION * len(final.typed_events) + 2000 for p in shown)


@pytest.mark.parametrize("name", ["trace.json", "trace.redacted.json"])
def test_each_large_trace_prefix_is_the_run_of_its_first_events(name, small_steps, monkeypatch, tmp_path):
    monkeypatch.setattr(prefixes, "FIRST_EVENTS", 500)
    data = lzma.open(corpus_path("15-large-run", name)).read()
    assert len(data) > 512 * 1024, "the lazy Trace path is the one with prefixes"
    doc = jsonio.loads(data)
    shown, final = collect(corpus_path("15-large-run", name))
    assert len(shown) >= 2
    for prefix in shown:
        n = len(prefix.domain_events)
        assert 0 < n < len(final.domain_events) and prefix.still_reading
        cut = tmp_path / f"first-{n}.json"
        cut.write_bytes(orjson.dumps({**doc, "events": doc["events"][:n]}))
        alone = open_run(cut)
        assert projections(prefix) == projections(alone)
        expected = expected_notices(alone)
        if prefix is shown[0]:  # read from the file's head: its redaction (after the events) is not known yet
            assert prefix.redaction is None
            expected = [notice for notice in expected if notice[0] not in ("unredacted", "redacted")]
        assert [(c.code, c.text) for c in prefix.all_notices()][1:] == expected
    assert shown[1].redaction == final.redaction, "once the file is scanned, its redaction is known"


def test_a_recording_damaged_in_its_first_events_is_an_error_that_says_where(small_steps, tmp_path):
    data = read_bytes("15-large-run", "recording.json")
    at = data.index(b'"type"', data.index(b'"events":['))
    damaged = tmp_path / "recording.json"
    damaged.write_bytes(data[:at] + b'"type":tru' + data[at + len(b'"type"'):])
    shown: list = []
    with pytest.raises(LoadError) as caught:
        open_run(damaged, show_prefix=shown.append)
    assert shown == [], "no preview of a damaged event"
    line = data[:at].count(b"\n") + 1
    assert "not valid JSON" in str(caught.value) and f"line {line}," in str(caught.value)


def test_a_plain_trace_is_never_taken_for_a_recording(small_steps, tmp_path):
    """A Trace's "structure" comes after its events too: read from the end of a plain (not compressed) file, it
    must still show its own head, as a Trace (this once showed its events as a recording's typed events)."""
    data = lzma.open(corpus_path("15-large-run", "trace.json")).read()
    doc = jsonio.loads(data)
    assert list(doc)[:3] == ["version", "events", "structure"]
    plain = tmp_path / "trace.json"
    plain.write_bytes(data)
    for variant in (data, orjson.dumps({k: doc[k] for k in ("version", "events", "redaction", "structure")})):
        plain.write_bytes(variant)
        shown, final = collect(plain)
        assert shown and not any(p.positions_differ for p in shown)
        n = len(shown[0].domain_events)
        assert shown[0].format == final.format and shown[0].domain_events == doc["events"][:n]


@pytest.mark.parametrize("name", ["events.ndjson", "trace.json"])
def test_the_whole_run_is_the_same_with_or_without_prefixes(name, small_steps):
    path = corpus_path("15-large-run", name)
    shown, final = collect(path)
    plain = open_run(path)
    assert shown
    assert projections(final) == projections(plain)
    assert [(n.code, n.text) for n in final.all_notices()] == [(n.code, n.text) for n in plain.all_notices()]


def test_no_prefix_for_small_files_and_bundles(monkeypatch):
    monkeypatch.setattr(prefixes, "MIN_BYTES", 4 << 20)
    assert collect(corpus_path("15-large-run", "events.ndjson"))[0] == [], "read whole in well under a second"
    monkeypatch.setattr(prefixes, "MIN_BYTES", 0)
    for scenario in SCENARIOS:
        if scenario == "15-large-run":
            continue
        assert collect(corpus_path(scenario, "events.ndjson"))[0] == []
        assert collect(corpus_path(scenario, "trace.json"))[0] == []


def test_a_recording_shows_its_first_typed_events_as_an_event_stream_does(small_steps, tmp_path):
    """Its typed events come after the snapshot, so they are found from the end (recording_part.py); the part
    is what an event stream of those events shows, and says what comes only with the whole file."""
    data = read_bytes("15-large-run", "recording.json")
    doc = jsonio.loads(data)
    for path in (corpus_path("15-large-run", "recording.json"), tmp_path / "recording.json"):
        if not path.exists():
            path.write_bytes(data)  # (plain: found from the end before the file is read whole)
        shown, final = collect(path)
        sizes = [len(part.typed_events) for part in shown]
        assert sizes == [prefixes.FIRST_EVENTS, prefixes.FIRST_EVENTS * prefixes.GROWTH], \
            "two parts, both before the rest is read (its stops come from the commit log, read with the rest)"
        for part in shown:
            n = len(part.typed_events)
            assert part.typed_events == doc["events"][:n] == final.typed_events[:n]
            assert part.still_reading and part.format == "recording" and part.positions_differ
            stream = tmp_path / f"first-{n}.ndjson"
            stream.write_bytes(b"\n".join(orjson.dumps(event) for event in doc["events"][:n]) + b"\n")
            alone = open_run(stream)
            assert projections(part) == projections(alone)
            notices = [(notice.code, notice.text) for notice in part.all_notices()]
            assert notices[0][0] == prefixes.READING
            assert f"the first {n:,} of its {len(doc['events']):,} typed events are shown" in notices[0][1]
            assert "commit log" in notices[0][1]
            codes = [code for code, _ in notices[1:]]
            assert "typed-only" not in codes and "no-commit-log" not in codes, "not true of the recording"
            assert codes == [code for code in (n.code for n in final.all_notices()) if code in codes]
        plain = open_run(path)
        assert projections(final) == projections(plain), "the whole run is as without the part"
    assert prefixes.same_moment(part, final, 0) == 0
    at = len(part.axis) // 2
    seen = part.axis.typed_before[at]
    moved = prefixes.same_moment(part, final, at)
    assert final.axis.typed_before[moved] == seen and final.axis.entries[moved - 1] == ("t", seen - 1)


def test_a_damaged_line_after_a_prefix_is_still_an_error(small_steps, tmp_path):
    lines = ndjson_lines("15-large-run")
    lines[len(lines) * 3 // 4] = b'{"type": "agentfootprint.stream.token", oops}'
    damaged = tmp_path / "damaged.ndjson"
    damaged.write_bytes(b"\n".join(lines) + b"\n")
    shown: list = []
    with pytest.raises(LoadError) as caught:
        open_run(damaged, show_prefix=shown.append)
    assert shown, "the first part was shown before the damage was met"
    assert f"line {len(lines) * 3 // 4 + 1}," in str(caught.value) and "not valid JSON" in str(caught.value)


def test_a_cut_last_line_is_said_only_of_the_whole_file(small_steps, tmp_path):
    data = read_bytes("15-large-run", "events.ndjson").rstrip(b"\n")
    cut = tmp_path / "cut.ndjson"
    cut.write_bytes(data[:-20])
    shown: list = []
    final = open_run(cut, show_prefix=shown.append)
    assert shown and all("truncated" not in {n.code for n in p.all_notices()} for p in shown)
    assert all(not p.warnings for p in shown)
    assert "truncated" in {n.code for n in final.all_notices()}


def test_the_trace_head_reader_is_strict_and_stops_where_the_head_ends():
    events = [{"type": "run.entry", "n": i, "text": "é" * (i % 5)} for i in range(50)]
    whole = orjson.dumps({"version": 1, "events": events, "structure": {}, "redaction": "none"})
    head, fraction = prefixes.trace_head(whole, 10)
    assert head["events"] == events[:10] and head["redaction"] is None and 0 < fraction < 1
    assert prefixes.trace_head(whole, 1000)[0]["events"] == events, "all of them when the head holds them"
    # a head cut inside an event (mid-character too) gives the events before it
    for cut in range(40, len(whole), 97):
        got = prefixes.trace_head(whole, 1000, max_bytes=cut)
        read = got[0]["events"] if got is not None else []
        assert read == events[:len(read)]
    spaced = jsonio.dumps({"version": 1, "events": events[:3], "redaction": "none"}, indent=True)
    assert prefixes.trace_head(spaced, 5)[0]["events"] == events[:3]
    # anything else is not read early: the whole parse decides
    for other in (b'{"events": [{"a": 1}], "version": 1}', b'{"version": 2, "events": [{"a": 1}]}', b'[{"a": 1}]',
                  b'{"version": 1, "events": [1, 2]}', b'{"version": 1, "events": []}'):
        assert prefixes.trace_head(other, 5) is None
    damaged = b'{"version": 1, "events": [{"a": 1}, {"b": 2}, {"c": oops}, {"d": 4}]}'
    assert prefixes.trace_head(damaged, 5)[0]["events"] == [{"a": 1}, {"b": 2}]
    no_comma = b'{"version": 1, "events": [{"a": 1} {"b": 2}]}'
    assert prefixes.trace_head(no_comma, 5)[0]["events"] == [{"a": 1}]


class _Run:
    """What Prefixes.offer needs of a run (its notices and warnings are marked as a part's)."""

    def __init__(self, events):
        self.typed_events, self.axis, self.notices, self.warnings = events, events, [], []


def test_a_later_part_is_built_only_while_the_rest_takes_a_while_to_read():
    """After the first part, a part is built only while the rest of the file is expected to take MIN_REST_S or more
    at the pace read so far; the time spent building and showing parts is not counted in that pace, and a
    recording's parts (fraction 0: found before the file is read) always are."""
    now = [0.0]
    shown: list[int] = []

    def show(run):
        shown.append(len(run.typed_events))
        now[0] += 5.0  # (showing a part takes long: not the file's pace)

    parts = prefixes.Prefixes(show, first=10, growth=2, last_fraction=0.9, min_rest_s=1.0, clock=lambda: now[0])
    parts.reading_begins()
    events = list(range(100))
    now[0] = 0.1
    parts.offer(events[:10], 0.1, _Run)
    assert shown == [10], "the first part, however soon the rest comes"
    now[0] = 5.2  # 0.2 s of reading for 20 % of the file: 0.8 s to go
    parts.offer(events[:20], 0.2, _Run)
    assert shown == [10], "the rest is read in under a second: no part"
    now[0] = 5.3  # 0.3 s for 20 %: 1.2 s to go
    parts.offer(events[:20], 0.2, _Run)
    assert shown == [10, 20]
    now[0] = 10.3 + 0.2  # 0.5 s for 30 %: 1.17 s to go
    parts.offer(events[:40], 0.3, _Run)
    assert shown == [10, 20, 40]
    parts.offer(events[:80], 0.0, _Run)
    assert shown == [10, 20, 40, 80], "no pace to judge by: built"


def test_the_big_stream_shows_no_second_part_when_the_rest_is_read_at_once(monkeypatch):
    """With the usual rule, a file read whole in well under a second after its first part shows just that part."""
    monkeypatch.setattr(prefixes, "FIRST_EVENTS", 20)
    monkeypatch.setattr(prefixes, "GROWTH", 2)
    monkeypatch.setattr(prefixes, "LAST_FRACTION", 0.95)
    shown, _final = collect(corpus_path("15-large-run", "events.ndjson"))
    assert len(shown) == 1
    monkeypatch.setattr(prefixes, "MIN_REST_S", 0.0)
    shown, _final = collect(corpus_path("15-large-run", "events.ndjson"))
    assert len(shown) > 1


def test_the_trace_head_reads_numbers_as_the_whole_file_does():
    """An integer past 64 bits is the double JavaScript holds, in the head read early as in the whole file (the
    standard library's decoder kept it whole: the part and the whole run showed two different numbers); a number
    beyond a double ends the head before its event, as the whole parse refuses it."""
    whole = (b'{"version":1,"events":[{"type":"run.entry","n":1180591620717411303424},{"type":"run.entry","n":12},'
             b'{"type":"x","v":1}],"redaction":"none"}')  # (2**70)
    head, _fraction = prefixes.trace_head(whole, 10)
    assert head["events"] == jsonio.loads(whole)["events"]
    assert type(head["events"][0]["n"]) is float and head["events"][1]["n"] == 12
    beyond = whole.replace(b'"v":1', b'"v":1e400')
    assert prefixes.trace_head(beyond, 10)[0]["events"] == jsonio.loads(whole)["events"][:2]



_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from('ab"\\{}[],: é\n')),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(events=st.lists(st.dictionaries(st.text(alphabet=st.sampled_from('ab"{]'), max_size=3), _json_values,
                                       max_size=4), min_size=1, max_size=12),
       count=st.integers(1, 15), cut=st.integers(1, 2000), indent=st.booleans(), where=st.integers(0, 11),
       between=st.sampled_from([None, b'{"oops": nope}, ', b"1, ", b'{"a": 1} ', b"[], ", b'"x", ']))
def test_the_trace_heads_quick_way_reads_what_the_decoder_reads(events, count, cut, indent, where, between):
    """The head found by the bracket scan and one parse is the decoder's, event for event, wherever the head is
    cut and whatever comes between two events (a damaged one, a number, a missing comma, a list): or it leaves
    the head to the decoder."""
    whole = jsonio.dumps({"version": 1, "events": events, "redaction": "none"}, indent=indent)
    start = prefixes.TRACE_HEAD.match(whole).end()
    if between is not None:  # (before the event at `where`, the first after the head that reads as it)
        at = whole.find(jsonio.dumps(events[min(where, len(events) - 1)]), start) if not indent else -1
        if at >= start:
            whole = whole[:at] + between + whole[at:]
    quick = prefixes.head_by_brackets(whole, start, count, cut)
    slow = prefixes.head_by_decoder(whole, start, count, cut)
    if quick is not None:
        assert slow is not None and quick[0]["events"] == slow[0]["events"]
    assert prefixes.trace_head(whole, count, max_bytes=cut) == (quick or slow)


def test_the_quick_way_reads_a_plain_head_and_one_that_holds_the_whole_list():
    """(So that the test above compares two ways: a usual Trace's head is read by the scan.)"""
    events = [{"type": "run.entry", "n": i, "x": [{"y": "}"}]} for i in range(50)]
    whole = orjson.dumps({"version": 1, "events": events, "redaction": "none"})
    start = prefixes.TRACE_HEAD.match(whole).end()
    head = prefixes.head_by_brackets(whole, start, 10, 1 << 20)
    assert head is not None and head[0]["events"] == events[:10]
    assert whole[:int(head[1] * len(whole)) + 2].endswith(b"}]},{")
    head = prefixes.head_by_brackets(whole, start, 1000, 1 << 20)
    assert head is not None and head[0]["events"] == events
    assert prefixes.head_by_brackets(whole, start, 10, 200)[0]["events"] == events[:len(
        prefixes.head_by_brackets(whole, start, 10, 200)[0]["events"])]
