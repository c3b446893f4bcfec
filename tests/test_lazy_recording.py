"""Large recordings are read with their execution tree, subflow results and BoundaryEvents payloads left as bytes
(core/formats/lazy_recording.py).

The lazy read must give what an ordinary parse gives (once its lazy parts are read), the mount ids it finds
without parsing the tree must be those `stops.mount_ids` finds on the parsed tree, every projection must stay
equal — on every corpus recording and on recordings built here thousands of levels deep, with strings that look
like structure and duplicate keys — and a broken value deep inside is reported, with its file, line and column,
when it is read.
"""

from __future__ import annotations

import random

import orjson
import pytest

from afp_desktop.cli import main as cli_main
from afp_desktop.core.formats import lazy_recording, lazy_trace, load_bytes
from afp_desktop.core.formats.lazy_recording import LazyExecutionTree, load_recording_lazily
from afp_desktop.core.jsonx import jsonio, jsonscan
from afp_desktop.core.jsonx.lazyjson import LazyJSON, LazyJSONError
from afp_desktop.core.library import stops as S
from afp_desktop.core.library.stepgraph import build_step_graph
from afp_desktop.core.model.replay import Replay
from tests.corpus_util import SCENARIOS, load_json, read_bytes
from tests.test_deepjson import same
from tests.test_lazy_trace import TRICKY_STRINGS, random_value


def plain(value):
    """The document with every lazy value read, as the ordinary parse would give it (any depth)."""
    return jsonio.loads(jsonio.dumps(value))


@pytest.fixture
def always_lazy(monkeypatch):
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 0)
    monkeypatch.setattr(lazy_recording, "BATCHED_BYTES", 0)  # every list a batch of elements at a time


@pytest.fixture
def tiny_steps(monkeypatch):
    """Chunks and batches of a few bytes, so their boundaries fall everywhere."""
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 0)
    monkeypatch.setattr(lazy_recording, "BATCHED_BYTES", 0)
    monkeypatch.setattr(jsonscan, "_CHUNK", 7)
    monkeypatch.setattr(jsonscan, "NATIVE_CHUNK", 7)
    monkeypatch.setattr(lazy_trace, "_BATCH", 40)


def never_lazy(monkeypatch):
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 1 << 62)


STAGES = ["sf-llm-call", "call-llm", "sf-tools", "stage", "sf-messages", "sf-system-prompt", "route"]


# -- a recording built here: a long run's shape, its tree nested `levels` deep through `next` ---------------------
def deep_recording(levels: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    tricky = TRICKY_STRINGS
    root: dict = {}
    node = root
    mounts, commits, boundary, typed, results = [], [], [], [], {}
    for n in range(levels):
        local = STAGES[n % len(STAGES)]
        rid = f"{local}#{n}"
        text = tricky[n % len(tricky)]
        node.update({"id": local, "runtimeStageId": rid, "name": text, "logs": {}, "flowMessages": [
            {"type": "next", "description": text, "targetStage": "next"}],
            # look-alikes of a node's members, one level down: never nodes
            "stageWrites": {"next": {"runtimeStageId": f"fake#{n}", "subflowId": "fake"},
                            "children": [{"runtimeStageId": f"fake-child#{n}", "subflowId": "fake"}], "t": text}})
        if n % 7 in (0, 2):  # sf-llm-call, sf-tools
            node["subflowId"] = f"sf-{n}"
            mounts.append(rid)
            history = [{"runtimeStageId": f"inner#{n}", "stageId": "inner", "stage": "Inner", "overwrite": {"x": n}}]
            results[rid] = {"subflowId": f"sf-{n}", "treeContext": {
                "history": history, "initialState": {"t": text},
                "stageContexts": {"runtimeStageId": f"inner#{n}", "next": {"runtimeStageId": f"in2#{n}"}}}}
        if n % 11 == 5:  # slot mounts and branches hang off `children` (objects only count)
            node["children"] = [{"runtimeStageId": f"slot-{n}#{n}", "subflowId": "slot", "children": [
                {"runtimeStageId": f"slot-inner-{n}#{n}", "subflowId": "deeper"}]}, "not a node", [1, {"x": 2}],
                {"runtimeStageId": f"branch-{n}#{n}"}]
        if n % 13 == 6:
            node["runtimeStageId"] = {"not": "a string"}  # a mount without a usable id
            node["subflowId"] = "odd"
        if n % 17 == 8:
            node["subflowId"] = "empty id"
            node["runtimeStageId"] = ""
        commits.append({"runtimeStageId": rid, "stageId": local, "stage": text,
                        "overwrite": {"k": text, "n": n}, "updates": {}})
        if n % 5 == 0:
            boundary.append({"type": "subflow.entry", "runtimeStageId": rid, "subflowPath": ["__root__"],
                             "subflowName": text, "ts": 1000 + n, "commitIdxBefore": n, "commitIdxAfter": n,
                             "payload": {"text": text, "nested": [{"payload": text}]}})
            boundary.append({"type": "subflow.exit", "runtimeStageId": rid, "subflowPath": ["__root__"],
                             "ts": 1001 + n, "commitIdxBefore": n + 1, "commitIdxAfter": n + 1, "payload": [text]})
            typed.append({"type": "agentfootprint.stream.token", "payload": {"content": text, "index": n},
                          "meta": {"wallClockMs": 1000 + n, "runOffsetMs": n, "runtimeStageId": rid,
                                   "subflowPath": [], "compositionPath": ["Agent:agent"], "runId": "run-1"}})
        if n < levels - 1:
            node["next"] = {}
            node = node["next"]
    root["next"] = root.get("next")  # (the root keeps its chain)
    node["next"] = [{"runtimeStageId": "listed#0", "subflowId": "a list is not followed"}]
    boundary.insert(0, {"type": "run.entry", "runtimeStageId": "__root__#0", "subflowPath": ["__root__"],
                        "ts": 999, "commitIdxBefore": 0, "commitIdxAfter": 0, "payload": {"in": rng.random()}})
    boundary.append({"type": "run.exit", "runtimeStageId": "__root__#0", "subflowPath": ["__root__"],
                     "ts": 5000, "commitIdxBefore": levels, "commitIdxAfter": levels, "payload": {"out": "done"}})
    snapshot = {"sharedState": {"t": tricky}, "initialState": {"start": True}, "executionTree": root,
                "commitLog": commits, "subflowResults": results,
                "recorders": [{"id": "other", "name": "Other", "data": [1, {"payload": 2}]}, "not a recorder",
                              {"id": "be", "name": "BoundaryEvents", "data": boundary, "meta": {"mode": "full"}}],
                "runtimeStageIdTags": {}}
    return {"snapshot": snapshot, "events": typed, "structure": {"events": ["not", "these"], "next": {}}}


@pytest.mark.parametrize("levels,steps", [(2500, "usual"), (1100, "tiny")])
def test_a_deep_recording_reads_lazily_as_it_parses(monkeypatch, levels, steps):
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 0)
    if steps == "tiny":  # scan chunks and event batches of a few bytes: their boundaries fall everywhere
        monkeypatch.setattr(jsonscan, "_CHUNK", 61)
        monkeypatch.setattr(jsonscan, "NATIVE_CHUNK", 61)
        monkeypatch.setattr(lazy_trace, "_BATCH", 40)
    doc = deep_recording(levels)
    data = jsonio.dumps(doc)
    ordinary = jsonio.loads(data)
    assert jsonscan.brackets_outside_strings(data)[2].max() > levels  # deeper than orjson goes
    lazy = load_recording_lazily(data, "deep.json")
    assert lazy is not None
    tree = lazy["snapshot"]["executionTree"]
    assert type(tree) is LazyExecutionTree
    assert tree.known_mount_ids == S.mount_ids(ordinary["snapshot"]["executionTree"])
    assert {"sf-tools#2", "sf-llm-call#7", "slot-5#5", "slot-inner-5#5"} <= tree.known_mount_ids
    assert not {"fake#3", "fake-child#3", "listed#0", ""} & tree.known_mount_ids
    assert all(type(v) is LazyJSON for v in lazy["snapshot"]["subflowResults"].values())
    boundary = lazy["snapshot"]["recorders"][2]["data"]
    assert sum(type(e.get("payload")) is LazyJSON for e in boundary) == len(boundary)
    assert same(plain(lazy), ordinary)


def test_every_lazy_slice_equals_its_parse(always_lazy):
    doc = deep_recording(1200, seed=3)
    data = jsonio.dumps(doc, indent=True)  # (indented, as a person might save it)
    lazy = load_recording_lazily(data, "deep.json")
    ordinary = jsonio.loads(data)
    snapshot, expected = lazy["snapshot"], ordinary["snapshot"]
    assert same(snapshot["executionTree"].value(), expected["executionTree"])
    for key, result in snapshot["subflowResults"].items():
        assert result.value() == expected["subflowResults"][key]
    for event, original in zip(snapshot["recorders"][2]["data"], expected["recorders"][2]["data"]):
        assert event["payload"].value() == original["payload"]
        assert orjson.loads(event["payload"].raw()) == original["payload"]


def runs(monkeypatch, data: bytes):
    """The same bytes opened the lazy way and the ordinary way."""
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 0)
    lazy = load_bytes(data, "r.json")
    never_lazy(monkeypatch)
    eager = load_bytes(data, "r.json")
    assert type(lazy.snapshot["executionTree"]) is LazyExecutionTree
    assert type(eager.snapshot["executionTree"]) is dict
    return lazy, eager


def drillable(run) -> list[bool]:
    """For each of the run's own stops: does it open onto stops of its own (as the timeline asks)?"""
    replay = Replay(run)
    return [replay.can_drill(i) for i in range(len(replay.spans))]


def test_projections_of_a_deep_recording_equal_the_ordinary_read(monkeypatch):
    lazy, eager = runs(monkeypatch, jsonio.dumps(deep_recording(3000, seed=1)))
    assert lazy.stops == eager.stops and any(s["kind"] == "mount" for s in lazy.stops)
    assert jsonio.dumps(lazy.stepgraph) == jsonio.dumps(eager.stepgraph)
    assert lazy.status_states == eager.status_states
    assert drillable(lazy) == drillable(eager) and any(drillable(lazy))
    mount = next(s for s in lazy.stops if s["kind"] == "mount")
    assert S.drill(lazy.snapshot, mount) == S.drill(eager.snapshot, mount) is not None
    assert [n.code for n in lazy.all_notices()] == [n.code for n in eager.all_notices()]
    assert S.state_at(lazy.snapshot, 40) == S.state_at(eager.snapshot, 40)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_corpus_recording_reads_lazily_as_it_parses(monkeypatch, scenario):
    data = read_bytes(scenario, "recording.json")
    lazy, eager = runs(monkeypatch, data)
    assert same(plain(lazy.document), jsonio.loads(data))
    ref = load_json(scenario, "ref.milestones.json")
    log, tree = lazy.commit_log, lazy.execution_tree
    assert orjson.loads(jsonio.dumps(S.commit_stops(log, tree))) == ref["commitStops"]
    assert orjson.loads(jsonio.dumps(S.milestone_stops(log, tree))) == ref["milestoneStops"]
    assert lazy.stops == eager.stops
    assert jsonio.dumps(lazy.stepgraph) == jsonio.dumps(eager.stepgraph)
    assert lazy.status_states == eager.status_states
    assert drillable(lazy) == drillable(eager)


def test_the_large_corpus_recording_takes_the_lazy_path_by_itself(monkeypatch):
    data = read_bytes("15-large-run", "recording.json")
    run = load_bytes(data, "recording.json")
    assert type(run.snapshot["executionTree"]) is LazyExecutionTree
    graph = jsonio.dumps(build_step_graph(run.domain_events))
    never_lazy(monkeypatch)
    assert graph == jsonio.dumps(build_step_graph(load_bytes(data, "recording.json").domain_events))


def test_a_long_commit_log_is_parsed_a_batch_of_commits_at_a_time(monkeypatch):
    """The 1,000-iteration recording's commit log is 16 MB: parsed in one call it held Python 89 ms (the window's
    thread waited that long). A list past BATCHED_BYTES is parsed in batches of elements, with the same result."""
    data = read_bytes("15-large-run", "recording.json")
    eager = jsonio.loads(data)
    log_bytes = len(orjson.dumps(eager["snapshot"]["commitLog"]))
    batched: list[int] = []
    parse = lazy_trace.parse_events

    def spy(data, name, spans, regions):
        batched.append(len(spans[0]))
        return parse(data, name, spans, regions)

    monkeypatch.setattr(lazy_trace, "parse_events", spy)
    monkeypatch.setattr(lazy_recording, "BATCHED_BYTES", log_bytes - 1)
    document = load_recording_lazily(data, "recording.json")
    assert len(eager["snapshot"]["commitLog"]) in batched
    assert same(plain(document), eager)
    batched.clear()
    monkeypatch.setattr(lazy_recording, "BATCHED_BYTES", log_bytes + 1)
    assert same(plain(load_recording_lazily(data, "recording.json")), eager)
    assert len(eager["snapshot"]["commitLog"]) not in batched


def test_duplicate_keys_resolve_as_the_parser_resolves_them(always_lazy):
    tree = (b'{"runtimeStageId":"a#1","subflowId":"x","next":{"runtimeStageId":"lost#2","subflowId":"y"},'
            b'"next":{"runtimeStageId":"kept#3","subflowId":"z","children":[{"runtimeStageId":"c#4","subflowId":1}],'
            b'"children":"no longer a list"},"runtimeStageId":"a#1b"}')
    data = (b'{"snapshot":{"executionTree":' + tree + b',"commitLog":[{"runtimeStageId":"a#1b"}],'
            b'"executionTree":' + tree + b'},"events":[]}')
    lazy = load_recording_lazily(data, "dup.json")
    expected = S.mount_ids(orjson.loads(data)["snapshot"]["executionTree"])
    assert expected == {"a#1b", "kept#3"}
    assert lazy["snapshot"]["executionTree"].known_mount_ids == expected
    assert plain(lazy) == orjson.loads(data)


@pytest.mark.parametrize("seed", range(30))
def test_random_recordings_read_lazily_as_they_parse(tiny_steps, seed):
    rng = random.Random(seed)

    def node(depth: int) -> dict:
        value = {"runtimeStageId": random_value(rng, 3) if rng.random() < 0.2 else f"n{depth}#{rng.randint(0, 9)}",
                 "junk": random_value(rng, 0)}
        if rng.random() < 0.5:
            value["subflowId"] = random_value(rng, 3)
        if depth < 30 and rng.random() < 0.9:
            value["next"] = node(depth + 1) if rng.random() < 0.9 else random_value(rng, 2)
        if depth < 30 and rng.random() < 0.3:
            value["children"] = [node(depth + 5) if rng.random() < 0.6 else random_value(rng, 3)
                                 for _ in range(rng.randint(0, 3))]
        return value

    recording = {"snapshot": {"executionTree": node(0), "commitLog": [random_value(rng, 1) for _ in range(5)],
                              "subflowResults": {random_value(rng, 9): random_value(rng, 1) for _ in range(4)},
                              "recorders": [{"name": "BoundaryEvents", "data": [
                                  {"type": "run.entry", "payload": random_value(rng, 1), "x": random_value(rng, 1)}
                                  for _ in range(rng.randint(0, 6))]}, random_value(rng, 1)],
                              "other": random_value(rng, 0)},
                 "events": [random_value(rng, 0) if rng.random() < 0.1 else
                            {"type": "t", "payload": random_value(rng, 1)} for _ in range(rng.randint(0, 8))],
                 random_value(rng, 9): random_value(rng, 0)}
    data = orjson.dumps(recording) if seed % 2 else jsonio.dumps(recording, indent=True)
    lazy = load_recording_lazily(data, "random.json")
    assert lazy is not None
    assert plain(lazy) == orjson.loads(data)
    assert lazy["snapshot"]["executionTree"].known_mount_ids == S.mount_ids(recording["snapshot"]["executionTree"])


# -- what is not read this way ------------------------------------------------------------------------------------
def test_a_recording_in_an_envelope_reads_lazily(monkeypatch):
    envelope = {"format": "agentfootprint.recording.v1", "privacy": {"mode": "full"}, "run": {"complete": True},
                "recording": deep_recording(1300, seed=6)}
    lazy, eager = runs(monkeypatch, jsonio.dumps(envelope))
    assert lazy.format == eager.format == "recording-envelope" and lazy.envelope == eager.envelope
    assert same(plain(lazy.document), jsonio.loads(jsonio.dumps(envelope)))
    assert lazy.stops == eager.stops and drillable(lazy) == drillable(eager)


@pytest.mark.parametrize("text", [
    b'{"version":1,"redaction":"none","events":[],"snapshot":{}}',  # a Trace
    b'{"format":"agentfootprint.recording.packed.v1","recording":{},"values":[]}',  # packed: decoded eagerly
    b'{"snapshot":{"executionTree":{}},"events":[]} {}',  # a second value after it
    b'{"snapshot":{"executionTree":{}},"events":[]} x',  # something after it
    b'{"snapshot":{"executionTree":{"a":1,}},"events":[]}',  # invalid where the tree's node is read
    b'{"snapshot":{"executionTree":{}},"events":[}',  # unbalanced
    b'[{"snapshot":{}}]',
])
def test_what_is_not_a_plain_recording_is_left_to_the_ordinary_parse(always_lazy, text):
    assert load_recording_lazily(text, "x.json") is None


def test_small_recordings_parse_eagerly():
    data = read_bytes("02-react-two-tools", "recording.json")
    assert len(data) < lazy_recording.MIN_BYTES and load_recording_lazily(data, "r") is None


# -- a broken value deep inside: reported with the file, line and column when read --------------------------------
def broken(data: bytes, marker: bytes) -> tuple[bytes, int, int]:
    """`data` with the first `"marker":` made invalid (its colon a semicolon), and the line and column of it."""
    at = data.index(b'"' + marker + b'":') + len(marker) + 2
    line = data[:at].count(b"\n") + 1
    column = at - data.rfind(b"\n", 0, at)
    return data[:at] + b";" + data[at + 1:], line, column


def test_a_broken_value_deep_in_the_tree_is_reported_when_read(monkeypatch, tmp_path):
    doc = deep_recording(1500, seed=2)
    doc["snapshot"]["executionTree"]["next"]["next"]["stageWrites"]["broken-here"] = 1
    data, line, column = broken(jsonio.dumps(doc, indent=True), b"broken-here")
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 0)
    run = load_bytes(data, "deep-broken.json")
    assert run.stops and run.execution_tree is not None  # the stops never read that part
    with pytest.raises(LazyJSONError) as caught:
        run.execution_tree.value()
    problem = caught.value.problem
    assert problem.path == "deep-broken.json" and (problem.line, problem.column) == (line, column)
    assert "not valid JSON" in problem.message
    # writing the document reads it: the command line says where, and writes nothing
    path = tmp_path / "deep-broken.json"
    path.write_bytes(data)
    out = tmp_path / "out.jsonl"
    assert cli_main(["convert", str(path), "-o", str(out)]) != 0
    assert not out.exists()


def test_a_broken_subflow_result_is_reported_when_read(monkeypatch, capsys):
    doc = deep_recording(400, seed=4)
    first = next(iter(doc["snapshot"]["subflowResults"].values()))
    first["treeContext"]["initialState"]["broken-result"] = 1
    good = jsonio.dumps(doc)
    data, line, column = broken(good, b"broken-result")
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 0)
    run, whole = load_bytes(data, "broken-result.json"), load_bytes(good, "good.json")
    result = next(iter(run.snapshot["subflowResults"].values()))
    with pytest.raises(LazyJSONError) as caught:
        result.value()
    assert (caught.value.problem.path, caught.value.problem.line, caught.value.problem.column) == (
        "broken-result.json", line, column)
    # that mount is no longer drillable (drilling reads it); every other one still is
    broken_mount = next(iter(doc["snapshot"]["subflowResults"]))
    assert drillable(run) == [drillable and stop["runtimeStageId"] != broken_mount
                                   for drillable, stop in zip(drillable(whole), whole.stops)]
    assert drillable(run) != drillable(whole)


def test_a_broken_boundary_payload_is_named_like_a_large_traces(monkeypatch, tmp_path, capsys):
    doc = deep_recording(300, seed=5)
    doc["snapshot"]["recorders"][2]["data"][3]["payload"]["broken-payload"] = 1
    data, line, column = broken(jsonio.dumps(doc, indent=True), b"broken-payload")
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 0)
    run = load_bytes(data, "broken-payload.json")
    [problem] = run.payload_problems
    assert (problem.problem.line, problem.problem.column) == (line, column)
    assert any(n.code == "unreadable-payloads" for n in run.all_notices())
    path = tmp_path / "broken-payload.json"
    path.write_bytes(data)
    assert cli_main(["stops", str(path)]) != 0
    assert f"broken-payload.json, line {line}" in capsys.readouterr().err


# -- the bracket pairing the reader walks by ------------------------------------------------------------------
def pairs_by_stack(data: bytes) -> list[int]:
    positions, _, _ = jsonscan.brackets_outside_strings(data)
    partner, stack = [0] * len(positions), []
    for index, at in enumerate(positions.tolist()):
        if data[at] in b"[{":
            stack.append(index)
        else:
            opened = stack.pop()
            partner[opened], partner[index] = index, opened
    return partner


@pytest.mark.parametrize("text", [
    b'[]', b'{"a":[1,{"b":"]["}],"c":{}}', b'[[],[[]],{"x":[{}]}]',
    b'[' * 70_000 + b']' * 70_000,  # deeper than a 16-bit sort key holds
    orjson.dumps([random_value(random.Random(7), 0) for _ in range(200)]),
])
def test_every_bracket_is_paired_with_its_partner(text):
    _, opens, depth = jsonscan.brackets_outside_strings(text)
    assert jsonscan.matching_brackets(opens, depth).tolist() == pairs_by_stack(text)


@pytest.mark.parametrize("name", ["recording.json", "trace.json"])
def test_the_progress_of_a_big_document_moves_forward_while_it_is_read(monkeypatch, name):
    """The progress bar moves while a big recording or Trace is read (it sat at 0 % for the 5 s of the 448 MB
    recording): the bracket scan and each part made tell how far they are, never going back."""
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 0)
    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)
    monkeypatch.setattr(jsonscan, "_CHUNK", 1024)  # (numpy: a report every 64 chunks; the C loop: every 8)
    monkeypatch.setattr(jsonscan, "NATIVE_CHUNK", 1024)
    monkeypatch.setattr(lazy_trace, "_BATCH", 4096)
    told: list[float] = []
    run = load_bytes(read_bytes("15-large-run", name), name, progress=told.append)
    assert told == sorted(told), "never going back"
    assert told[-1] == 0.8 and told[0] < 0.1
    assert len({round(f, 2) for f in told if 0 < f < 0.75}) >= 10, "many steps on the way"
    assert run.stops


def test_a_recording_is_not_searched_whole_for_a_trace_s_redaction(monkeypatch):
    """The lazy Trace reader's first check searched the whole 448 MB recording for a root "redaction" (~0.2 s):
    a document that begins with its snapshot is a recording, and is passed on at once."""
    searched: list[bytes] = []
    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)
    monkeypatch.setattr(lazy_trace, "rfind_breathing", lambda data, needle, end: searched.append(needle) or -1)
    assert lazy_trace.load_trace_lazily(b' {\n "snapshot": {}, "events": [], "structure": {}}', "r.json") is None
    assert searched == []
    lazy_trace.load_trace_lazily(b'{"version": 1, "events": []}', "t.json")
    assert searched == [b'"redaction"'], "a Trace is still checked"
