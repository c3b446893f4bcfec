"""Issue 10, point 8 and 10: file names with bytes that are not UTF-8, and lone surrogate escapes in a file."""

from __future__ import annotations

import json
import os
import shutil

from afp_desktop.core.formats import open_run
from tests.corpus_util import corpus_path
from tests.hostile_inputs import run_cli


def test_a_non_utf8_file_name_in_info_json_and_convert(tmp_path):
    folder = os.fsencode(tmp_path)
    source = os.fsdecode(folder + b"/tr\xffce.ndjson")
    shutil.copy(corpus_path("02-react-two-tools", "events.ndjson"), source)
    code, out, err = run_cli(["info", "--json", source])
    assert code == 0, err
    assert json.loads(out)["file"].endswith("tr\\xffce.ndjson")
    code, out, err = run_cli(["info", source])
    assert code == 0 and b"tr\\xffce.ndjson" in out  # the undecodable byte as an escape
    target = os.fsdecode(folder + b"/out\xfe.jsonl")
    code, _, err = run_cli(["convert", source, "-o", target])
    assert code == 0 and "Traceback" not in err
    assert sorted(os.listdir(folder)) == [b"out\xfe.jsonl", b"tr\xffce.ndjson"]  # no .part / .tmp left
    again = open_run(target)
    assert again.format == "afp-jsonl" and len(again.typed_events) == len(open_run(source).typed_events)


def test_a_lone_surrogate_escape_in_a_file_is_read_as_javascript_reads_it(tmp_path):
    lines = corpus_path("01-llmcall-single", "events.ndjson").read_bytes().splitlines()
    lines[1] = lines[1].replace(b'"meta":', b'"note":"half \\ud83d here","meta":', 1)
    path = tmp_path / "e.ndjson"
    path.write_bytes(b"\n".join(lines) + b"\n")
    run = open_run(path)
    assert run.typed_events[1]["note"] == "half \ud83d here"
    for command in (["info", "--json"], ["stepgraph"], ["status"], ["stops"]):
        code, out, err = run_cli([command[0], str(path), *command[1:]])
        assert code == 0, err
    code, _, err = run_cli(["convert", str(path), "-o", str(tmp_path / "c.jsonl")])
    assert code == 0 and b"half \\ud83d here" in (tmp_path / "c.jsonl").read_bytes()
    assert open_run(tmp_path / "c.jsonl").typed_events[1]["note"] == "half \ud83d here"
