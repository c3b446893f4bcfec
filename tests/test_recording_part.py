"""A big recording's first typed events, found from the end of the file (core/formats/recording_part.py): they
are the recording's own `events`, or nothing — never a list of the same name inside a payload."""

from __future__ import annotations

import json
import lzma

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.formats import recording_part as tail_module
from afp_desktop.core.formats import source
from afp_desktop.core.formats.recording_part import recording_tail, recording_tail_of_file
from afp_desktop.core.jsonx import jsonio, jsonscan
from tests.corpus_util import SCENARIOS, corpus_path, read_bytes

words = st.sampled_from(["events", "structure", "snapshot", "type", "payload", "a", '"events":[', '"structure":{}}',
                         "\\", '\\"events\\":[', "]", "}", "é"])
keys = st.one_of(words, st.text(max_size=4))
leaves = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), words, st.text(max_size=6))
values = st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(keys, inner, max_size=3)), max_leaves=8)
plain_event = st.builds(lambda kind, payload: {"type": kind, "payload": payload},
                        st.sampled_from(["agentfootprint.agent.turn_start", "agentfootprint.stream.llm_start"]),
                        st.dictionaries(st.sampled_from(["a", "b", "text"]), leaves, max_size=2))
# An event whose payload holds a list named "events" (or "structure"): the reader must not take it for the root's.
tricky_event = st.builds(lambda kind, inner, name: {"type": kind, "payload": {name: inner}},
                         st.just("agentfootprint.stream.tool_end"), st.lists(values, max_size=3),
                         st.sampled_from(["events", "structure"]))


def encode(doc: dict, style: int) -> bytes:
    if style == 0:
        return orjson.dumps(doc)
    if style == 1:
        return json.dumps(doc, indent=2).encode()
    return json.dumps(doc, separators=(" , ", " : "), ensure_ascii=False).encode()


def parsed_in_batches(batch: int, read):
    """`read()` with the first events parsed `batch` at a time (as 16,000 are parsed 1,000 at a time)."""
    usual, tail_module.PARSE_BATCH = tail_module.PARSE_BATCH, batch
    try:
        return read()
    finally:
        tail_module.PARSE_BATCH = usual


@settings(max_examples=300, deadline=None)
@given(snapshot=values, events=st.lists(st.one_of(plain_event, tricky_event, values), max_size=12),
       structure=values, style=st.integers(0, 2), count=st.integers(1, 15), batch=st.integers(1, 5))
def test_what_is_found_is_the_recording_s_own_first_events(snapshot, events, structure, style, count, batch):
    doc = {"snapshot": snapshot, "events": events, "structure": structure}
    found = parsed_in_batches(batch, lambda: recording_tail(encode(doc, style), count))
    if found is not None:
        assert found == (events[:count], len(events))
    plain = all(type(e) is dict for e in events) and b'"events"' not in encode(events, style) \
        and b'"structure"' not in encode({"s": structure}, style)
    if events and plain:
        assert found == (events[:count], len(events)), "a plain recording's events are found"


@settings(max_examples=100, deadline=None)
@given(before=values, after=values, events=st.lists(plain_event, min_size=1, max_size=5), style=st.integers(0, 2))
def test_other_shapes_give_nothing(before, after, events, style):
    for doc in ({"events": events, "snapshot": before, "structure": after},  # another key order
                {"format": "x", "recording": {"snapshot": before, "events": events, "structure": after}},  # envelope
                {"snapshot": before, "structure": after, "events": events},
                {"snapshot": {"events": events, "structure": after}},  # not the root's
                {"version": 1, "events": events, "structure": after},  # a Trace, its structure last
                {"version": 1, "events": events, "structure": after, "redaction": "none"},
                {"snapshot": before, "events": events, "structure": after, "redaction": "none"}):
        assert recording_tail(encode(doc, style), 5) is None


@settings(max_examples=300, deadline=None)
@given(events=st.lists(st.one_of(plain_event, tricky_event), min_size=1, max_size=6), structure=values,
       style=st.integers(0, 2), at=st.integers(0, 10_000), byte=st.sampled_from(b'{}[]",:\\ aet0'),
       count=st.integers(1, 8), batch=st.integers(1, 3))
def test_a_damaged_recording_never_raises_and_never_shows_what_it_does_not_hold(events, structure, style, at,
                                                                               byte, count, batch):
    data = bytearray(encode({"snapshot": {"a": [1]}, "events": events, "structure": structure}, style))
    data[at % len(data)] = byte
    found = parsed_in_batches(batch, lambda: recording_tail(bytes(data), count))  # (never raises)
    if found is None:
        return
    try:
        whole = jsonio.loads(bytes(data))
    except jsonio.JSONSyntaxError:
        return  # shown, then taken away once the whole read meets the damage
    assert isinstance(whole, dict) and found == (whole["events"][:count], len(whole["events"]))


def test_a_list_named_events_in_the_last_event_is_passed_over():
    events = [{"type": "t", "n": i} for i in range(4)] + [{"type": "t", "payload": {"events": [{"type": "fake"}]}}]
    data = orjson.dumps({"snapshot": {"events": [{"type": "older"}]}, "events": events, "structure": {"s": 1}})
    assert recording_tail(data, 2) == (events[:2], 5)


def test_a_damaged_or_cut_recording_gives_nothing():
    events = [{"type": "t", "n": i} for i in range(5)]
    data = orjson.dumps({"snapshot": {}, "events": events, "structure": {}})
    assert recording_tail(data, 3) == (events[:3], 5)
    assert recording_tail(data[:-1], 3) is None, "cut off: the structure does not close the document"
    assert recording_tail(data.replace(b'"n":2', b'"n":2}'), 3) is None, "an extra bracket in the events"
    assert recording_tail(data.replace(b'{"type":"t","n":4}', b"4"), 3) is None, "an element that is no object"
    assert recording_tail(data.replace(b'"structure":{}', b'"structure":{"a":[}'), 3) is None
    assert recording_tail(data.replace(b'"n":1', b'"n":tru'), 3) is None, "a damaged event among the first"
    assert recording_tail(data.replace(b'"n":4', b'"n":tru'), 3) == (events[:3], 5), "(the whole read says where)"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_each_corpus_recording_s_first_events_are_found(scenario):
    data = read_bytes(scenario, "recording.json")
    doc = jsonio.loads(data)
    found = recording_tail(data, 7)
    if list(doc) == ["snapshot", "events", "structure"]:
        assert found == (doc["events"][:7], len(doc["events"]))
    else:
        assert found is None


def test_from_the_end_of_a_file_before_it_is_read_whole(tmp_path, monkeypatch):
    data = lzma.open(corpus_path("15-large-run", "recording.json")).read()
    doc = jsonio.loads(data)
    plain = tmp_path / "recording.json"
    plain.write_bytes(data)
    assert recording_tail_of_file(plain, 9, 0) == (doc["events"][:9], len(doc["events"]))
    assert recording_tail_of_file(plain, 9, len(data) + 1) is None, "a small file is read whole at once"
    assert recording_tail_of_file(corpus_path("15-large-run", "recording.json"), 9, 0) is None, "compressed"
    assert recording_tail_of_file(tmp_path / "missing.json", 9, 0) is None
    # the events begin before the end read: nothing found there (the whole file is tried once read)
    monkeypatch.setattr(tail_module, "TAIL_AT_LEAST", len(data) - data.index(b'"events"') - 100)
    monkeypatch.setattr(tail_module, "TAIL_FRACTION", len(data))
    assert recording_tail_of_file(plain, 9, 0) is None
    assert plain.read_bytes() == data, "never written to"


def test_the_first_part_is_shown_before_the_events_of_the_next_are_parsed(monkeypatch):
    """Of the 16,000 events of a big recording's two parts, the first 2,000 are parsed and shown first (parsing
    all 16,000 before the first part put ~0.12 s before the first frame of the 448 MB corpus recording); a
    damaged event among the next part's stops the part where it is (the whole read then says where)."""
    from afp_desktop.core import formats
    from afp_desktop.core.formats.prefixes import Prefixes

    events = [{"type": "agentfootprint.agent.turn_start", "payload": {"n": n}} for n in range(40)]
    data = orjson.dumps({"snapshot": {}, "events": events, "structure": {}})
    parsed: list[int] = []
    loads = jsonio.loads
    monkeypatch.setattr(tail_module.jsonio, "loads", lambda text: parsed.append(text.count(b'"n"')) or loads(text))
    shown: list[tuple[int, int]] = []  # (events shown, events parsed by then)
    prefixes = Prefixes(lambda run: shown.append((len(run.typed_events), sum(parsed))))
    prefixes.next, prefixes.growth = 4, 8
    monkeypatch.setattr(formats, "run_from_recording_events", lambda evs, _name: _FakeRun(evs))
    # private: the order of parsing and showing, checked on the one step that offers a part (no file, no thread)
    formats._offer_recording_part(prefixes, tail_module.find_recording_tail(data), "recording.json")
    assert shown == [(4, 4), (32, 32)]
    damaged = data.replace(b'"n":20', b'"n":tru')
    shown.clear(), parsed.clear()
    prefixes = Prefixes(lambda run: shown.append((len(run.typed_events), sum(parsed))))
    prefixes.next, prefixes.growth = 4, 8
    formats._offer_recording_part(prefixes, tail_module.find_recording_tail(damaged), "recording.json")  # private: as above
    assert shown == [(4, 4)]


class _FakeRun:
    """What Prefixes.offer needs of a run (its notices and warnings are marked as a part's)."""

    def __init__(self, events):
        self.typed_events, self.axis, self.notices, self.warnings = events, events, [], []


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("file-end") / "recording.json"


@pytest.mark.parametrize("scan", ["C, overlapped with the read", "numpy, after the read"])
@settings(max_examples=200, deadline=None)
@given(events=st.lists(st.one_of(plain_event, tricky_event, values), max_size=8), structure=values,
       style=st.integers(0, 2), piece=st.integers(1, 40), at=st.integers(-1, 10_000),
       byte=st.sampled_from(b'{}[]",:\\ aet0'))
def test_a_file_read_backward_in_pieces_gives_what_its_bytes_give(scratch, scan, events, structure, style, piece,
                                                                 at, byte):
    """The end of a file is read backward a piece at a time, as far as the search needs: pieces of a few bytes,
    so that every look (the structure, the spaces and comma before it, each "events" key and the backslashes
    before it, the array) meets a piece's edge somewhere. With the C loop, a reader thread reads while the
    array is scanned from its end down (core/formats/recording_end.py); the answer is the same."""
    if scan.startswith("C") and jsonscan.native is None:
        pytest.skip("the C bracket scan is not built")
    data = bytearray(encode({"snapshot": {"a": ["\\"]}, "events": events, "structure": structure}, style))
    if at >= 0:
        data[at % len(data)] = byte
    scratch.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(source.FileEnd, "PIECE", piece)
        structure_key = data.rfind(b'"structure"')
        if structure_key >= 0:  # (the end read first, before the pieces: no more than the structure)
            patch.setattr(tail_module, "STRUCTURE_WITHIN", len(data) - structure_key + 1)
            patch.setattr(tail_module, "_SPACE_WITHIN", 8)  # (and the white space before it: these encodings')
        if scan.startswith("numpy"):
            patch.setattr(jsonscan, "native", None)
        assert recording_tail_of_file(scratch, 5, 0) == recording_tail(bytes(data), 5)


def test_the_end_of_a_big_file_is_read_only_as_far_back_as_its_events(tmp_path, monkeypatch):
    """The 894 MB recording's preview read the last 224 MB of it; its events array is ~110 MB of that."""
    events = [{"type": "t", "n": i} for i in range(100_000)]  # (2 MB: more than the last 1 MB read at first)
    data = orjson.dumps({"snapshot": {"pad": "x" * (4 << 20)}, "events": events, "structure": {"s": 1}})
    plain = tmp_path / "recording.json"
    plain.write_bytes(data)
    opened: list[source.FileEnd] = []

    def keep(path, length):
        opened.append(source.open_file_end(path, length))
        return opened[-1]

    monkeypatch.setattr(tail_module, "open_file_end", keep)
    monkeypatch.setattr(source.FileEnd, "PIECE", 4096)
    assert recording_tail_of_file(plain, 3, 0) == (events[:3], 100_000)
    array_and_after = len(data) - data.index(b'"events"')
    assert opened[0].length == len(data), "(the whole file may be read: it is under the tail's 64 MB)"
    ahead = (3 if jsonscan.native is not None else 1) * 4096  # (a reader thread reads two pieces ahead)
    ahead += tail_module.LOOK_BACK  # (and the key's backslashes are looked for before it)
    assert array_and_after <= opened[0].length - opened[0].floor < array_and_after + ahead


def test_a_file_cut_while_its_end_is_read_gives_nothing(tmp_path, monkeypatch):
    events = [{"type": "t", "n": i} for i in range(3000)]
    data = orjson.dumps({"snapshot": {"pad": "x" * 100_000}, "events": events, "structure": {"s": 1}})
    plain = tmp_path / "recording.json"
    plain.write_bytes(data)

    def cut_after_open(path, length):
        end = source.open_file_end(path, length)
        with open(plain, "r+b") as handle:
            handle.truncate(len(data) // 2)
        return end

    monkeypatch.setattr(tail_module, "open_file_end", cut_after_open)
    monkeypatch.setattr(source.FileEnd, "PIECE", 4096)
    assert recording_tail_of_file(plain, 3, 0) is None


def test_each_look_back_reads_the_bytes_it_looks_at_first(tmp_path, monkeypatch):
    """The spaces and comma before the structure may lie before the last bytes read for it, and the backslashes
    before an "events" key before the piece it was found in: each is read before it is looked at (unread bytes
    are zeros)."""
    data = b'{"snapshot":{},"events":[{"a":1}]   ,    "structure":{}}'
    plain = tmp_path / "recording.json"
    plain.write_bytes(data)
    monkeypatch.setattr(source.FileEnd, "PIECE", 1)
    monkeypatch.setattr(tail_module, "STRUCTURE_WITHIN", len(data) - data.index(b'"structure"'))
    assert recording_tail_of_file(plain, 3, 0) == ([{"a": 1}], 1)

    escaped = b'{"x":"\\\\\\"events'
    plain.write_bytes(escaped)
    end = source.open_file_end(plain, len(escaped))
    quote = escaped.rindex(b'"')
    end.need(quote)
    assert tail_module.is_escaped(end.buffer, quote, end.need)
    end.close()


@pytest.mark.parametrize("run", [0, 1, 2, 4095, 4096, 4097, 9000, 9001])
def test_a_run_of_backslashes_before_a_key_is_counted_across_pieces(tmp_path, run):
    """However long the run (and wherever the pieces read and the 4 KiB looked at end), an odd one escapes."""
    text = b'{"a":"x' + b"\\" * run + b'"'
    plain = tmp_path / "run.json"
    plain.write_bytes(text)
    end = source.open_file_end(plain, len(text))
    quote = len(text) - 1
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(source.FileEnd, "PIECE", 1000)
        end.need(quote)
        assert tail_module.is_escaped(end.buffer, quote, end.need) == (run % 2 == 1)
    assert tail_module.is_escaped(text, quote, lambda _i: None) == (run % 2 == 1)
    assert tail_module.is_escaped(b"\\" * run + b'"', run, lambda _i: None) == (run % 2 == 1), "(from the start)"
    end.close()


@pytest.mark.parametrize("scan", ["C, overlapped with the read", "numpy, after the read"])
def test_a_list_of_another_name_before_the_structure_is_not_taken_for_the_events(tmp_path, monkeypatch, scan):
    """The `]` before the structure closes a list whose key is not "events": the "events" key further back opens
    an array that ends earlier, so nothing is found (from the bytes, or from the file either way)."""
    if scan.startswith("C") and jsonscan.native is None:
        pytest.skip("the C bracket scan is not built")
    if scan.startswith("numpy"):
        monkeypatch.setattr(jsonscan, "native", None)
    data = b'{"snapshot":{},"events":[{"a":1}],"other":[{"b":2}],"structure":{}}'
    plain = tmp_path / "recording.json"
    plain.write_bytes(data)
    assert recording_tail(data, 3) is None
    assert recording_tail_of_file(plain, 3, 0) is None
