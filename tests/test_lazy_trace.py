"""Large Traces are read with their event payloads left as bytes (core/formats/lazy_trace.py, core/lazyjson.py).

The lazy read must give exactly what an ordinary parse gives, on every corpus Trace and on documents built to
trip a bracket scanner (brackets, quotes, backslash runs and `"payload":` inside strings, indentation, chunk and
batch boundaries anywhere); it must step aside for anything else; and a payload whose bytes are broken is
reported, with its file, line and column, when it is read.
"""

from __future__ import annotations

import json
import random

import orjson
import pytest

from afp_desktop.cli import main as cli_main
from afp_desktop.core.jsonx import jsonio, jsonscan
from afp_desktop.core.formats import LoadError, lazy_trace, load_bytes, open_run
from afp_desktop.core.jsonx.lazyjson import LazyJSON, LazyJSONError, resolve, resolve_quietly
from afp_desktop.core.library.stepgraph import build_step_graph
from tests.corpus_util import SCENARIOS, corpus_path, load_json, read_bytes
from tests.test_deepjson import same


def plain(value):
    """`value` with every LazyJSON parsed, all the way down."""
    value = resolve(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def lazies(doc) -> int:
    return sum(type(e.get("payload")) is LazyJSON for e in doc["events"] if isinstance(e, dict))


@pytest.fixture
def always_lazy(monkeypatch):
    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)
    monkeypatch.setattr(lazy_trace, "ONCE_MIN_BYTES", 0)  # (the command line's reads too)


@pytest.fixture
def tiny_steps(monkeypatch):
    """Chunks and batches of a few bytes, so their boundaries fall everywhere."""
    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)
    monkeypatch.setattr(lazy_trace, "ONCE_MIN_BYTES", 0)
    monkeypatch.setattr(jsonscan, "_CHUNK", 7)
    monkeypatch.setattr(jsonscan, "NATIVE_CHUNK", 7)
    monkeypatch.setattr(lazy_trace, "_BATCH", 40)


TRACES = [(s, n) for s in SCENARIOS for n in ("trace.json", "trace.redacted.json")]


@pytest.mark.parametrize("scenario,name", TRACES)
def test_every_corpus_trace_reads_lazily_as_it_parses(always_lazy, scenario, name):
    data = read_bytes(scenario, name)
    doc = lazy_trace.load_trace_lazily(data, name)
    assert doc is not None
    assert plain(doc) == orjson.loads(data)
    if name == "trace.json" and scenario != "15-large-run":
        assert lazies(doc) > 0  # unredacted Traces have object payloads (the redacted ones have markers)
    ref = "ref.stepgraph.json" if name == "trace.json" else "ref.stepgraph.redacted.json"
    assert orjson.loads(jsonio.dumps(build_step_graph(doc["events"]))) == load_json(scenario, ref)


def test_the_large_trace_takes_the_lazy_path_by_itself():
    path = corpus_path("15-large-run", "trace.json")
    run = open_run(path)
    assert sum(type(e.get("payload")) is LazyJSON for e in run.domain_events) == 1815
    assert orjson.loads(jsonio.dumps(run.stepgraph)) == load_json("15-large-run", "ref.stepgraph.json")


def test_small_files_parse_eagerly():
    data = read_bytes("02-react-two-tools", "trace.json")
    assert len(data) < lazy_trace.MIN_BYTES and lazy_trace.load_trace_lazily(data, "t") is None


TRICKY_STRINGS = [
    "", "{", "}", "[", "]", "{[}]", '"', '\\', '\\\\', '\\"', '\\\\"', 'a\\\\\\"b', '"payload":{', ',"payload":[1,',
    '{"payload": {"x": 1}}', "é → 😀", "\u2028\u2029", "\n\t\r", "\x00\x1f", "{\"events\":[]}", "]}],\"events\":[{",
]


def trace(events, **extra) -> dict:
    return {"version": 1, "events": events, "redaction": "none", **extra}


def tricky_trace() -> dict:
    events = []
    for i, text in enumerate(TRICKY_STRINGS):
        events.append({"type": "subflow.entry", "runtimeStageId": f"s{i}#{i}", "description": text,
                       "payload": {"text": text, "nested": [{"payload": text}, {text: [text, {"]": "["}]}]},
                       "subflowPath": ["__root__", text], "ts": i})
        events.append({"type": "subflow.exit", "runtimeStageId": f"s{i}#{i}", "payload": [text, [], {}], "ts": i})
        events.append({"type": "run.exit", "payload": text, "ts": i})  # a string payload stays as it is
        events.append({"type": "run.exit", "payload": None, "ts": i})
        events.append({"type": "subflow.entry", "payload": {}, "ts": i, "x": {"payload": {"deep": text}}})
    return trace(events, structure={"payload": {"a": [1, 2]}, "events": ["not", "these"]},
                 snapshot={"events": [{"payload": {}}]})


def dumps_every_way(doc) -> list[bytes]:
    return [orjson.dumps(doc), json.dumps(doc).encode(), json.dumps(doc, indent=2).encode(),
            json.dumps(doc, indent="\t", ensure_ascii=False).encode(), orjson.dumps(doc, option=orjson.OPT_INDENT_2),
            json.dumps(doc, separators=(" , ", " : ")).encode()]


@pytest.mark.parametrize("style", range(6))
def test_strings_that_look_like_structure(tiny_steps, style):
    doc = tricky_trace()
    data = dumps_every_way(doc)[style]
    lazy = lazy_trace.load_trace_lazily(data, "tricky.json")
    if style == 5:  # `"events" : [` (a space before the colon) is not recognised: the ordinary parse reads it
        assert lazy is None
        return
    assert plain(lazy) == orjson.loads(data) == doc
    assert lazies(lazy) == 3 * len(TRICKY_STRINGS)


def random_value(rng: random.Random, depth: int):
    alphabet = 'ab{}[]":,\\ \n/é😀'
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
    if roll < 0.4:
        return rng.choice([None, True, False, 0, -1.5, 10 ** 18, "payload", "events"])
    if roll < 0.7:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {random_value(rng, 99) if rng.random() < 0.7 else "payload": random_value(rng, depth + 1)
            for _ in range(rng.randint(0, 4))}


@pytest.mark.parametrize("seed", range(40))
def test_random_documents_read_lazily_as_they_parse(tiny_steps, seed):
    rng = random.Random(seed)
    events = []
    for _ in range(rng.randint(1, 12)):
        event = {"type": rng.choice(["subflow.entry", "run.entry", "llm.start"]), "ts": rng.randint(0, 99)}
        for _ in range(rng.randint(0, 3)):
            event[random_value(rng, 99)] = random_value(rng, 1)
        if rng.random() < 0.8:
            event["payload"] = random_value(rng, 0)
        events.append(event)
    doc = trace(events, other=random_value(rng, 0))
    for data in dumps_every_way(doc)[:5]:  # (the sixth is not read lazily: see above)
        lazy = lazy_trace.load_trace_lazily(data, "random.json")
        assert lazy is not None and plain(lazy) == orjson.loads(data)


@pytest.mark.parametrize("data", [
    b'{"snapshot": {}, "events": [{"type": "x", "payload": {"a": 1}}], "structure": {}}',  # a recording
    b'{"version": 1, "redaction": "none", "events": [{"type": "x"}, 5, {"type": "y"}]}',  # a non-object event
    b'{"version": 1, "redaction": "none", "events": [[{"type": "x"}]]}',
    b'{"version": 1, "redaction": "none", "events": [5, {"type": "x", "payload": {}}]}',
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "payload": {}}, "y" ]}',
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "payload": {}}, null,\n {"type": "y"}]}',
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "payload": {}}\n, , {"type": "y"}]}',
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "payload": {"a": 1}, "payload": {"b": 2}}]}',
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "payload": {"a": 1}, "payload": null}]}',
    b'{"version": 1, "redaction": "none", "events": [], "events": [{"type": "x"}]}',
    b'{"version": 2, "redaction": "none", "events": [{"type": "x", "payload": {}}]}',
    b'{"format": "agentfootprint.recording.v1", "version": 1, "redaction": "none", "events": []}',
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "payload": {"a": "}"}]}',  # cut
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "payload": {"a": "1}}]}',  # open string
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "payload": {"a": 1}}]} []',  # trailing
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "payload": {"a": 1}} {"type": "y"}]}',
    b'{"version": 1, "redaction": "none", "events": [{"type": "x", "p\\u0061yload": {"a": 1}}]}',
    b'{"version": 1, "redaction": "none", "events": [{"type": "\xff", "payload": {"a": 1}}]}',  # bad UTF-8
])
def test_anything_else_is_left_to_the_ordinary_parse(tiny_steps, data):
    lazy = lazy_trace.load_trace_lazily(data, "odd.json")
    if lazy is not None:  # only a document the scan fully understood may come back, and then exactly
        assert plain(lazy) == orjson.loads(data) and b"p\\u0061yload" in data
        return
    try:
        expected = orjson.loads(data)
    except orjson.JSONDecodeError:
        expected = None
    try:
        run = load_bytes(data, "odd.json")
    except LoadError as err:  # invalid JSON, or not a run: the ordinary error, naming the file
        assert str(err).startswith("odd.json")
        return
    assert expected is not None
    assert run.document == expected  # the ordinary parse decided (duplicate keys: the last one counts)


BROKEN = (b'{"version":1,"redaction":"none","events":[\n'
          b'{"type":"run.entry","runtimeStageId":"__root__#0","subflowPath":["__root__"],"ts":1,'
          b'"payload":{"message":"hi"}},\n'
          b'{"type":"subflow.entry","runtimeStageId":"a#1","subflowPath":["__root__","a"],"ts":2,'
          b'"subflowName":"A","primitiveKind":"Agent","payload":{"ok":tru}}\n]}')


def test_a_broken_payload_loads_and_says_where_when_read(always_lazy, tmp_path, capsys):
    path = tmp_path / "broken.json"
    path.write_bytes(BROKEN)
    run = open_run(path)  # the rest of the run is there
    assert [n["kind"] for n in run.stepgraph["nodes"]] == ["subflow", "subflow"]
    payload = run.stepgraph["nodes"][1]["entryPayload"]
    with pytest.raises(LazyJSONError) as caught:
        payload.value()
    column = BROKEN.split(b"\n")[2].index(b"tru") + 1
    assert caught.value.problem.line == 3 and caught.value.problem.column == column
    assert str(caught.value) == f"{path}, line 3, column {column}: a payload is not valid JSON: " \
                                "invalid literal, expected 'true'"
    assert resolve_quietly(payload) is None
    assert run.stepgraph["nodes"][0]["entryPayload"] == {"message": "hi"}
    assert len(run.payload_problems) == 1
    assert str(run.payload_problems[0]) == str(caught.value)
    # the window's banner says so once the run is prepared
    notice = next(n for n in run.prepare().all_notices() if n.code == "unreadable-payloads")
    assert notice.text.startswith(f"1 payload(s) in this file are not valid JSON (the first at {path}, line 3, "
                                  f"column {column}: invalid literal, expected 'true')")
    # every command refuses the file as a parse of it would: a clear message, no traceback, a non-zero exit
    for command in (["stepgraph"], ["stops"], ["info"], ["convert", "-o", str(tmp_path / "out.jsonl")]):
        assert cli_main([command[0], str(path), *command[1:]]) == 2
        err = capsys.readouterr().err
        assert f"line 3, column {column}: a payload is not valid JSON" in err and "Traceback" not in err
    assert not (tmp_path / "out.jsonl").exists()
    assert path.read_bytes() == BROKEN  # never written


def test_lazy_values_compare_print_and_serialize_as_their_json():
    data = b'xx{"a": [1, 2.5, "\xc3\xa9"]}yy'
    value = LazyJSON(data, 2, len(data) - 2, "f.json")
    assert value == {"a": [1, 2.5, "é"]} and {"a": [1, 2.5, "é"]} == value
    assert value == LazyJSON(b'{"a":[1,2.5,"\\u00e9"]}', 0, 22) and value != {"a": []}
    assert resolve(value) == {"a": [1, 2.5, "é"]} and resolve(5) == 5
    assert len(value) == len(data) - 4 and "bytes" in repr(value)
    assert jsonio.dumps({"p": value}) == '{"p":{"a":[1,2.5,"é"]}}'.encode()
    with pytest.raises(TypeError):
        hash(value)


def test_small_files_do_not_import_numpy():
    """numpy takes ~0.1 s to import: the command line on an ordinary file must not pay for it."""
    import subprocess
    import sys

    code = ("import sys; from afp_desktop.core.formats import open_run; "
            f"open_run({str(corpus_path('02-react-two-tools', 'trace.json'))!r}); print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_large_recording_is_not_parsed_twice(always_lazy, monkeypatch):
    """The lazy reader steps aside before parsing anything when the root has no "redaction" (not a Trace)."""
    def parse_root(*_):
        raise AssertionError("the root of a recording was parsed by the lazy reader")

    monkeypatch.setattr(lazy_trace, "_root_without_events", parse_root)
    recording = {"snapshot": {"redaction": "nested, not at the root"}, "events": [{"type": "t", "payload": {}}]}
    assert lazy_trace.load_trace_lazily(orjson.dumps(recording), "rec.json") is None
    assert lazy_trace.load_trace_lazily(orjson.dumps({"events": []}), "rec.json") is None
    with pytest.raises(AssertionError):  # (and a Trace does reach it)
        lazy_trace.load_trace_lazily(orjson.dumps(trace([{"type": "t"}])), "t.json")


def test_a_trace_whose_snapshot_nests_deeper_than_orjson_goes(always_lazy):
    """A long run's snapshot nests its execution tree through `next` beyond 1,024 levels: the events are still
    read lazily, the snapshot by the deep parser."""
    tree: dict = {"name": "end"}
    for i in range(1500):
        tree = {"name": f"stage {i}", "next": tree}
    doc = trace([{"type": "run.entry", "payload": {"message": "hi"}, "ts": 1},
                 {"type": "run.exit", "payload": {"answer": [1, 2]}, "ts": 2}], snapshot={"executionTree": tree})
    data = jsonio.dumps(doc)
    lazy = lazy_trace.load_trace_lazily(data, "deep.json")
    assert lazy is not None and lazies(lazy) == 2
    assert lazy["snapshot"] is not None and same(lazy["snapshot"], doc["snapshot"])  # (1,500 levels: no ==)
    assert plain(lazy["events"]) == doc["events"]


_REDACTION_PLACES = ["root", "nested", "value", "in-text", "root-spaced", "after"]


def _doc_with_redactions(places: list[str]) -> bytes:
    """A Trace-like document with `"redaction"` written at each place: as a root key, as a key one level down,
    as a string value, inside a longer string, as a root key written `"redaction" :`, and one level down in a
    root key after the events."""
    parts, extra = [], []
    for n, place in enumerate(places):
        if place == "root":
            parts.append(b'"redaction":%d' % n)
        elif place == "root-spaced":
            parts.append(b'"redaction" :%d' % n)
        elif place == "after":
            parts.append(b'"after%d":{"redaction":"redaction"}' % n)
        elif place == "nested":
            extra.append(b'{"type":"x","payload":{"redaction":%d}}' % n)
        elif place == "value":
            extra.append(b'{"type":"x","payload":{"k":"redaction"}}')
        else:
            extra.append(b'{"type":"x","payload":{"k":"a \\"redaction\\": b"}}')
    head = b'{"version":1,"events":[' + b",".join(extra) + b"]"
    return head + b"".join(b"," + part for part in parts) + b"}"


@pytest.mark.parametrize("seed", range(40))
def test_the_root_redaction_key_is_told_from_the_others_wherever_they_stand(seed):
    """It is looked for from the end of the file (where the library writes it): the answer is that of a parse,
    whatever stands before or after it."""
    rng = random.Random(seed)
    places = [rng.choice(_REDACTION_PLACES) for _ in range(rng.randint(0, 6))]
    data = _doc_with_redactions(places)
    jsonscan.numpy()
    lazy_trace.np = jsonscan.np
    positions, _opens, depth = jsonscan.brackets_outside_strings(data)
    expected = "redaction" in orjson.loads(data)
    # private: the backwards key search against a parse; the public load only shows it as one notice or none
    assert lazy_trace._has_root_key(data, positions, depth, b"redaction") is expected, places
