"""An NDJSON stream's repeated meta values are shared objects once loaded (memory), with values unchanged."""

from __future__ import annotations

import orjson

from afp_desktop.core.formats import open_run
from afp_desktop.core.formats.ndjson import parse_ndjson, share_meta
from tests.corpus_util import SCENARIOS, read_bytes


def test_equal_meta_values_become_one_object_and_stay_equal():
    for scenario in SCENARIOS:
        data = read_bytes(scenario, "events.ndjson")
        events, _warnings = parse_ndjson(data, scenario)
        assert events == [orjson.loads(line) for line in data.splitlines() if line.strip()], scenario
        objects: dict = {}  # (key, value) → the ids of the objects holding it
        for event in events:
            meta = event.get("meta") or {}
            for key in ("runId", "runtimeStageId", "subflowPath", "compositionPath"):
                value = meta.get(key)
                if isinstance(value, (str, list)):
                    objects.setdefault((key, orjson.dumps(value)), set()).add(id(value))
        assert objects and all(len(ids) == 1 for ids in objects.values()), scenario


def test_odd_meta_values_are_left_as_they_are():
    meta = {"runId": 7, "runtimeStageId": None, "subflowPath": [{"a": 1}], "compositionPath": "Agent:x"}
    before = orjson.loads(orjson.dumps(meta))
    share_meta(meta, {})
    assert meta == before
    shared: dict = {}
    one, two = {"subflowPath": ["a", "b"], "runId": "r"}, {"subflowPath": ["a", "b"], "runId": "r"}
    share_meta(one, shared)
    share_meta(two, shared)
    assert one["subflowPath"] is two["subflowPath"] and one["runId"] is two["runId"]
    three = {"subflowPath": ["a"], "compositionPath": ["a"], "runtimeStageId": "a"}
    share_meta(three, shared)
    assert three["runtimeStageId"] == "a" and three["subflowPath"] == ["a"]  # a string and a path never mix


def test_the_large_stream_loads_its_projections_unchanged(tmp_path):
    data = read_bytes("15-large-run", "events.ndjson")
    path = tmp_path / "large.ndjson"
    path.write_bytes(data)
    run = open_run(path)
    again = [orjson.loads(line) for line in data.splitlines() if line.strip()]
    assert run.typed_events == again
    ids = {id(e["meta"]["runId"]) for e in run.typed_events if isinstance(e.get("meta"), dict)}
    assert len(ids) == 1, "one run id object for the whole run"


def test_events_with_the_same_meta_share_one_meta_object():
    data = read_bytes("15-large-run", "events.ndjson")
    events, _warnings = parse_ndjson(data, "15-large-run")
    metas = [event["meta"] for event in events]
    distinct_texts = {orjson.dumps(meta) for meta in metas}
    assert len({id(meta) for meta in metas}) == len(distinct_texts) < len(metas) * 0.7


def test_metas_that_json_tells_apart_are_not_shared():
    """Python calls true and 1, 1 and 1.0 equal; JSON (and the library) does not: those metas stay apart."""
    lines = [b'{"type":"t","payload":{},"meta":{"runOffsetMs":1,"flag":true}}',
             b'{"type":"t","payload":{},"meta":{"runOffsetMs":1,"flag":1}}',
             b'{"type":"t","payload":{},"meta":{"runOffsetMs":1.0,"flag":1}}',
             b'{"type":"t","payload":{},"meta":{"flag":1,"runOffsetMs":1.0}}',
             b'{"type":"t","payload":{},"meta":{"runOffsetMs":1,"flag":true}}',
             b'{"type":"t","payload":{},"meta":{"runOffsetMs":1,"big":123456789012345678901234567890}}',
             b'{"type":"t","payload":{},"meta":{"runOffsetMs":1,"big":123456789012345678901234567890}}',
             b'{"type":"t","payload":{},"meta":{"runId":"\\ud800"}}',  # orjson cannot write it back
             b'{"type":"t","payload":{},"meta":{"runId":"\\ud800"}}']
    events, _warnings = parse_ndjson(b"\n".join(lines) + b"\n", "odd.ndjson")
    texts = [orjson.dumps(e["meta"]) for e in events[:5]]
    assert texts == [orjson.dumps(orjson.loads(line)["meta"]) for line in lines[:5]]
    assert events[0]["meta"] is events[4]["meta"]  # the same text: one object
    assert len({id(e["meta"]) for e in events[:4]}) == 4  # four texts: four objects
    assert events[5]["meta"] == events[6]["meta"] == orjson.loads(lines[5])["meta"]
    assert events[7]["meta"] == events[8]["meta"] == {"runId": "\ud800"}


def test_equal_short_payload_strings_become_one_object():
    data = read_bytes("15-large-run", "events.ndjson")
    events, _warnings = parse_ndjson(data, "15-large-run")
    assert events == [orjson.loads(line) for line in data.splitlines() if line.strip()]
    names = [e["payload"]["toolName"] for e in events if "toolName" in e.get("payload", {})]
    assert len(names) > len(set(names)) and len({id(n) for n in names}) == len(set(names))
    nested = [e["payload"]["payload"]["message"] for e in events
              if isinstance(e.get("payload", {}).get("payload"), dict) and "message" in e["payload"]["payload"]]
    assert len({id(m) for m in nested}) == len(set(nested))  # a progress report's own object: one level in


def test_long_strings_and_deeper_ones_are_left_as_they_are():
    long_text = "x" * 600
    line = orjson.dumps({"type": "t", "payload": {"a": long_text, "b": {"c": {"d": "deep"}}}, "meta": {}})
    events, _warnings = parse_ndjson(line + b"\n" + line + b"\n", "s.ndjson")
    assert events[0] == events[1] == orjson.loads(line)
    assert events[0]["payload"]["a"] is not events[1]["payload"]["a"]
    assert events[0]["payload"]["b"]["c"]["d"] is not events[1]["payload"]["b"]["c"]["d"]
