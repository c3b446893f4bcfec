"""Every corpus file loads; every file shape is detected; damaged input gets a clear message."""

from __future__ import annotations

import gzip
import shutil

import orjson
import pytest

from afp_desktop.core.formats import LoadError, open_run
from afp_desktop.core.formats.lossless import write_lossless
from tests.corpus_util import SCENARIOS, corpus_path, load_json, read_bytes

FILES = ["events.ndjson", "trace.json", "trace.redacted.json", "recording.json"]


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("name", FILES)
def test_every_corpus_file_loads(scenario, name):
    run = open_run(corpus_path(scenario, name))
    assert run.domain_events
    assert run.stepgraph["nodes"]
    assert run.stops and run.stops[-1]["axisEnd"] == len(run.axis)
    if name == "events.ndjson":
        assert run.format == "ndjson" and {n.code for n in run.notices} >= {"typed-only", "no-commit-log"}
    elif name.startswith("trace"):
        assert run.format == "trace" and run.typed_events is None
        assert "no-typed" in {n.code for n in run.notices}
        assert run.redaction == ("pii" if "redacted" in name else "none")
    else:
        assert run.format == "recording" and run.commit_log and run.typed_events


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_recording_graph_uses_boundary_events_and_typed_mapping_matches(scenario):
    """The typed half of BoundaryEvents is exactly §2.5 over the typed events (apart from times and commits)."""
    from afp_desktop.core.library.events import TYPED_DOMAIN_TYPES, domain_events_from_typed

    run = open_run(corpus_path(scenario, "recording.json"))
    mapped, _ = domain_events_from_typed(run.typed_events)
    typed_half = [e for e in run.domain_events if e["type"] in TYPED_DOMAIN_TYPES]
    strip = lambda e: {k: v for k, v in e.items() if k not in ("ts", "commitIdxBefore", "commitIdxAfter")}
    assert [strip(e) for e in mapped] == [strip(e) for e in typed_half]


def test_axis_keeps_both_orders_and_counts(scenario="02-react-two-tools"):
    run = open_run(corpus_path(scenario, "recording.json"))
    axis = run.axis
    assert len(axis) == len(run.domain_events) + len(run.typed_events)
    d = [i for kind, i in axis.entries if kind == "d"]
    t = [i for kind, i in axis.entries if kind == "t"]
    assert d == sorted(d) and t == sorted(t)
    # Each typed-half DomainEvent sits right after the typed event it was mapped from.
    for p, (kind, i) in enumerate(axis.entries):
        if kind == "d" and run.domain_events[i]["type"] == "llm.start":
            assert axis.entries[p - 1][0] == "t"
            assert run.typed_events[axis.entries[p - 1][1]]["type"] == "agentfootprint.stream.llm_start"


def test_stops_place_llm_turn_after_its_llm_start():
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    stop = next(s for s in run.stops if s["label"] == "LLM turn")
    n_domain, _ = run.at(stop["axisEnd"])
    happened = [e["type"] for e in run.domain_events[:n_domain]]
    assert "llm.start" in happened and "tool.start" not in happened


def test_rotated_pair_reads_older_then_newer(tmp_path):
    data = read_bytes("02-react-two-tools", "events.ndjson").splitlines(keepends=True)
    (tmp_path / "run.ndjson.1").write_bytes(b"".join(data[:30]))
    (tmp_path / "run.ndjson").write_bytes(b"".join(data[30:]))
    run = open_run(tmp_path / "run.ndjson")
    assert len(run.typed_events) == len(data)
    assert "rotated" in {n.code for n in run.notices}
    whole = open_run(corpus_path("02-react-two-tools", "events.ndjson"))
    assert run.stepgraph == whole.stepgraph


def test_truncated_last_line_loads_with_a_warning(tmp_path):
    data = read_bytes("02-react-two-tools", "events.ndjson")
    cut = data[: len(data) - 40]
    path = tmp_path / "live.ndjson"
    path.write_bytes(cut)
    before = path.read_bytes()
    run = open_run(path)
    assert len(run.typed_events) == data.count(b"\n") - 1
    assert run.warnings and run.warnings[0].line == data.count(b"\n")
    assert "truncated" in {n.code for n in run.notices}
    assert path.read_bytes() == before  # never written to


def test_bad_middle_line_names_file_line_and_column(tmp_path):
    lines = read_bytes("01-llmcall-single", "events.ndjson").splitlines()
    lines[2] = lines[2][:1] + b"," + lines[2][1:]
    path = tmp_path / "bad.ndjson"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(LoadError) as info:
        open_run(path)
    problem = info.value.problem
    assert problem.path == str(path) and problem.line == 3 and problem.column == 2
    assert "line 3" in str(info.value)


def _recording(scenario="02-react-two-tools"):
    return load_json(scenario, "recording.json")


def test_envelope_and_packed_recordings(tmp_path):
    recording = _recording()
    envelope = {"format": "agentfootprint.recording.v1",
                "producer": {"agentfootprintVersion": "9.62.0", "footprintjsVersion": "9.24.0"},
                "run": {"runId": "run-1", "startedAt": "2026-11-29T00:00:00Z", "complete": False,
                        "droppedEvents": 3, "firstRetainedEventIndex": 3},
                "privacy": {"mode": "full", "policyId": "agentfootprint.privacy.full.v1"},
                "recording": recording}
    path = tmp_path / "env.json"
    path.write_bytes(orjson.dumps(envelope))
    run = open_run(path)
    codes = {n.code for n in run.notices}
    assert run.format == "recording-envelope" and {"not-complete", "dropped", "unredacted"} <= codes
    plain = open_run(corpus_path("02-react-two-tools", "recording.json"))
    assert run.stepgraph == plain.stepgraph and run.stops == plain.stops

    # Packed: share the snapshot through a ref, escape an object that looks like a ref.
    packed = {"format": "agentfootprint.recording.packed.v1",
              "values": [recording["snapshot"], {"$af:esc": {"$af:ref": "literal"}}],
              "recording": {"snapshot": {"$af:ref": 0}, "events": recording["events"],
                            "structure": {"odd": {"$af:ref": 1}}}}
    path = tmp_path / "packed.json"
    path.write_bytes(orjson.dumps(packed))
    run = open_run(path)
    assert run.format == "recording-packed"
    assert run.structure == {"odd": {"$af:ref": "literal"}}
    assert run.stepgraph == plain.stepgraph and run.stops == plain.stops


@pytest.mark.parametrize("doc,message", [
    ({"format": "agentfootprint.recording.v2", "recording": {}}, "unknown recording format"),
    ({"format": "agentfootprint.recording.packed.v2", "values": [], "recording": {}}, "newer than this viewer"),
    ({"format": "agentfootprint.recording.packed.v1", "values": [{"$af:ref": 0}],
      "recording": {"snapshot": {"$af:ref": 0}}}, "refers to itself"),
    ({"format": "agentfootprint.recording.packed.v1", "values": [], "recording": {"events": {"$af:ref": 5}}},
     "out of range"),
    ({"version": 1, "redaction": "none", "events": {}}, "must be a list"),
    ({"hello": 1}, "not an agentfootprint file"),
    ([1, 2], "not of events"),
])
def test_refused_documents(tmp_path, doc, message):
    path = tmp_path / "doc.json"
    path.write_bytes(orjson.dumps(doc))
    with pytest.raises(LoadError) as info:
        open_run(path)
    assert message in str(info.value)


def test_compressed_files_load(tmp_path):
    path = tmp_path / "events.ndjson.gz"
    path.write_bytes(gzip.compress(read_bytes("01-llmcall-single", "events.ndjson")))
    assert open_run(path).format == "ndjson"


def test_deeply_nested_recording_loads():
    run = open_run(corpus_path("15-large-run", "recording.json"))
    assert len(run.stepgraph["nodes"]) == 1056
    assert len(run.stops) == len(load_json("15-large-run", "ref.milestones.json")["milestoneStops"])


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("name", FILES)
def test_lossless_round_trip(tmp_path, scenario, name):
    if scenario == "15-large-run" and name != "recording.json":
        pytest.skip("one large-run conversion is enough")
    source = open_run(corpus_path(scenario, name))
    out = tmp_path / "run.jsonl"
    write_lossless(source, str(out))
    again = open_run(out)
    assert again.format == "afp-jsonl" and again.original_format == source.format
    assert again.stepgraph == source.stepgraph
    assert again.stops == source.stops
    assert again.status_states == source.status_states
    assert again.typed_events == source.typed_events
    assert again.domain_events == source.domain_events
    assert [n.code for n in again.notices] == [n.code for n in source.notices]
    # line-oriented: every line is one JSON value
    for line in out.read_bytes().splitlines()[:50]:
        orjson.loads(line) if len(line) < 2_000_000 else None


@pytest.mark.parametrize("recorders", [1, True, 2.5, "rec", {"name": "BoundaryEvents"}, None])
def test_a_recording_whose_recorders_are_not_a_list_converts(tmp_path, recorders):
    """Found by the long fuzz (bench/fuzz_long.py): `"recorders": 1` made `convert` fail with an internal error."""
    document = orjson.loads(read_bytes("01-llmcall-single", "recording.json"))
    document["snapshot"]["recorders"] = recorders
    for shape in (document, {"format": "agentfootprint.recording.v1", "recording": document}):
        src, out = tmp_path / "recording.json", tmp_path / "run.jsonl"
        src.write_bytes(orjson.dumps(shape))
        source = open_run(src)
        write_lossless(source, str(out))
        again = open_run(out)
        assert again.stepgraph == source.stepgraph and again.stops == source.stops


def test_convert_cli_refuses_to_overwrite_input(tmp_path, capsys):
    from afp_desktop import cli

    src = tmp_path / "events.ndjson"
    shutil.copy(corpus_path("01-llmcall-single", "events.ndjson"), src)
    before = src.read_bytes()
    assert cli.main(["convert", str(src), "-o", str(src)]) == 2
    assert "refusing to overwrite the input" in capsys.readouterr().err
    assert src.read_bytes() == before
    assert cli.main(["convert", str(src), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert (tmp_path / "out.jsonl").exists() and not (tmp_path / "out.jsonl.part").exists()


def test_trace_with_snapshot_gets_commit_stops(tmp_path):
    trace = load_json("02-react-two-tools", "trace.json")
    trace["snapshot"] = _recording()["snapshot"]
    path = tmp_path / "trace.json"
    path.write_bytes(orjson.dumps(trace))
    run = open_run(path)
    assert run.commit_log and not run.stops[0].get("derived")
    assert "no-commit-log" not in {n.code for n in run.notices}


def test_recording_without_typed_half_merges_by_time(tmp_path):
    from afp_desktop.core.library.events import TYPED_DOMAIN_TYPES

    recording = _recording()
    for rec in recording["snapshot"]["recorders"]:
        if rec["name"] == "BoundaryEvents":
            rec["data"] = [e for e in rec["data"] if e["type"] not in TYPED_DOMAIN_TYPES]
    path = tmp_path / "rec.json"
    path.write_bytes(orjson.dumps(recording))
    run = open_run(path)
    assert run.domain_source == "boundary+typed"
    kinds = [n["kind"] for n in run.stepgraph["nodes"]]
    assert kinds.count("subflow") == 1 and "llm->user" in kinds
