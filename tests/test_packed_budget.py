"""Issue 10, point 5: a packed recording whose references double at each level ("billion laughs") is refused
while it is unpacked, in bounded time and memory; ordinary packed recordings still open."""

from __future__ import annotations

import json

from afp_desktop.core.formats import open_run
from tests.hostile_inputs import corpus_document, encode, pack, run_cli


def _laughs(levels: int) -> dict:
    recording = corpus_document("recording")
    values = ["ha" * 500]
    for i in range(1, levels):
        values.append([{"$af:ref": i - 1}, {"$af:ref": i - 1}])  # each value twice the one before
    recording["snapshot"] = {**recording["snapshot"], "laughs": {"$af:ref": levels - 1}}
    return {"format": "agentfootprint.recording.packed.v1", "values": values, "recording": recording}


def test_billion_laughs_is_refused_quickly(tmp_path):
    path = tmp_path / "laughs.json"
    path.write_bytes(encode("packed", _laughs(40)))  # 2^39 copies of a 1 KB string
    code, out, err = run_cli(["convert", str(path), "-o", str(tmp_path / "out.jsonl")])
    assert code == 2 and "billion laughs" in err and str(path) in err
    assert not (tmp_path / "out.jsonl").exists() and len(list(tmp_path.iterdir())) == 1  # no .part left


def test_ordinary_packed_recordings_still_open(tmp_path):
    for scenario in ("02-react-two-tools", "04-tool-progress", "07-flow-sequence", "14-context-injections"):
        path = tmp_path / f"{scenario}.packed.json"
        path.write_bytes(encode("packed", pack(corpus_document("recording", scenario))))
        run = open_run(path)
        assert run.format == "recording-packed" and run.domain_events


def test_a_small_reuse_is_within_the_budget(tmp_path):
    path = tmp_path / "few.json"
    path.write_bytes(encode("packed", _laughs(8)))  # 128 copies: an honest amount of sharing
    code, out, err = run_cli(["info", "--json", str(path)])
    assert code == 0, err
    assert json.loads(out)["format"]
