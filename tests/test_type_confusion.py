"""Issue 10, point 4: valid JSON with wrong types, in every format, gives a result or a message, never a
traceback (each case here crashed a command before)."""

from __future__ import annotations

import json

import pytest

from afp_desktop.core.formats import LoadError, open_run
from tests.hostile_inputs import COMMANDS, corpus_document, encode, replaced, run_cli


def _first(events, etype, where=lambda e: True):
    return next(i for i, e in enumerate(events) if e.get("type") == etype and where(e))


def _write(tmp_path, fmt, doc, name=None):
    path = tmp_path / (name or f"case.{fmt}.json")
    path.write_bytes(encode(fmt, doc))
    return path


def _all_commands(path, tmp_path) -> dict:
    """Every JSON command and convert on the file: exit 0 or 2, no traceback, one-paragraph messages."""
    outputs = {}
    for command in [*COMMANDS, ["convert", "-o", str(tmp_path / "out.jsonl")]]:
        code, out, err = run_cli([command[0], str(path), *command[1:]])
        assert code in (0, 2) and "Traceback" not in err, (command, code, err)
        if code == 2:
            assert err.startswith("afp-desktop: ") and "\n\n" not in err
        outputs[" ".join(command[:2])] = (code, out, err)
    run = None
    try:
        run = open_run(path)
        run.prepare()  # what the window computes
    except LoadError:
        pass
    return outputs


def test_run_id_a_list_or_object(tmp_path):
    doc = corpus_document("recording")
    doc = replaced(doc, ("events", 3, "meta", "runId"), ["a", "b"])
    doc = replaced(doc, ("events", 4, "meta", "runId"), {"id": 1})
    outputs = _all_commands(_write(tmp_path, "recording", doc), tmp_path)
    assert outputs["info --json"][0] == 0


def test_depth_a_string(tmp_path):
    doc = corpus_document("trace")
    i = _first(doc["events"], "subflow.entry")
    doc = replaced(doc, ("events", i, "depth"), "1")
    code, out, _ = _all_commands(_write(tmp_path, "trace", doc), tmp_path)["info --json"]
    assert code == 0 and json.loads(out)["format"] == "Trace v1"


@pytest.mark.parametrize("slot_kind", [3, {"a": 1}, ["messages"], True])
def test_slot_kind_not_a_string(tmp_path, slot_kind):
    doc = corpus_document("trace")
    i = _first(doc["events"], "subflow.entry", lambda e: "slotKind" in e)
    doc = replaced(doc, ("events", i, "slotKind"), slot_kind)
    code, out, _ = _all_commands(_write(tmp_path, "trace", doc), tmp_path)["stepgraph"]
    assert code == 0
    if slot_kind == ["messages"]:  # a JS object key: ["messages"] is "messages"
        assert any("messages" in (n.get("slotBoundaries") or {}) for n in json.loads(out)["nodes"])


def test_token_totals_past_64_bits_print_as_javascript_would(tmp_path):
    doc = corpus_document("trace")
    for i, event in enumerate(doc["events"]):
        if event.get("type") == "llm.end" and isinstance(event.get("usage"), dict):
            doc = replaced(doc, ("events", i, "usage", "input"), 2**64 - 1)
    code, out, _ = _all_commands(_write(tmp_path, "trace", doc), tmp_path)["info --json"]
    assert code == 0 and json.loads(out)["tokensIn"] >= 2**64


@pytest.mark.parametrize("case", ["integer notes", "object notes", "non-event items", "dict storedAs",
                                  "ndjson document not a list"])
def test_lossless_files_with_wrong_types(tmp_path, case):
    doc = corpus_document("lossless")
    if case == "integer notes":
        doc = replaced(doc, (0, "notes"), 5)
    elif case == "object notes":
        doc = replaced(doc, (0, "notes"), [{"a": 1}, 2])
    elif case == "non-event items":
        doc = replaced(replaced(doc, (3, "v"), 5), (4, "v"), ["x"])
    elif case == "dict storedAs":
        doc = replaced(doc, (0, "source", "storedAs"), {"x": 1})
    else:
        doc = replaced(replaced(doc, (0, "source", "storedAs"), "ndjson"), (1, "document"), {"a": 1})
    _all_commands(_write(tmp_path, "lossless", doc, "case.jsonl"), tmp_path)


def test_a_mount_id_that_is_an_object(tmp_path):
    doc = corpus_document("recording")
    tree = doc["snapshot"]["executionTree"]
    path = ("snapshot", "executionTree")
    while "subflowId" not in tree and isinstance(tree.get("next"), dict):
        tree, path = tree["next"], path + ("next",)
    doc = replaced(doc, path + ("runtimeStageId",), {"id": "x"})
    assert _all_commands(_write(tmp_path, "recording", doc), tmp_path)["stops"][0] == 0


def test_lone_surrogate_in_a_status_line_is_escaped_as_json_stringify_does(tmp_path):
    """The library cuts progress text at 120 UTF-16 units, so a line can end in half a pair: JSON.stringify
    writes that half as the escape \\ud83d, and so must `status`."""
    events = corpus_document("ndjson", "04-tool-progress")
    i = _first(events, "agentfootprint.stream.tool_progress")
    events = replaced(events, (i, "payload", "payload", "message"), "é" + "😀" * 100)
    path = tmp_path / "e.ndjson"
    path.write_bytes(encode("ndjson", events))
    code, out, err = run_cli(["status", str(path)])
    assert code == 0, err
    assert b"\\ud83d\\u2026 (+81 more)" in out.replace("…".encode(), b"\\u2026")
    lines = [row["line"] for row in json.loads(out)]  # the standard library reads the escape back
    assert any(line and line.endswith("\ud83d\u2026 (+81 more)") for line in lines)


@pytest.mark.parametrize("literal", [b"1" + b"0" * 400, b"[" * 1100 + b"]" * 1100])
def test_an_id_past_the_double_range_or_nested_deep(tmp_path, literal):
    """Found by bench/fuzz_long.py: an id nested 1,100 levels deep is printed as JavaScript prints it (the nested
    lists joined). A 400-digit id is beyond a double: refused with a message, as orjson refuses it, also when the
    document is read by another parser (the standard library's kept it as an integer, which `info` failed on)."""
    doc = corpus_document("trace-redacted", "01-llmcall-single")
    i = _first(doc["events"], "llm.end")
    doc = replaced(doc, ("events", i, "runtimeStageId"), "@@ID@@")
    doc = replaced(doc, ("events", 0), "@@DEEP@@")  # past orjson's depth: read by another parser
    path = tmp_path / "t.json"
    path.write_bytes(encode("trace", doc).replace(b'"@@ID@@"', literal)
                     .replace(b'"@@DEEP@@"', b"[" * 1100 + b"]" * 1100))
    outputs = _all_commands(path, tmp_path)
    if literal.startswith(b"["):
        assert outputs["stepgraph"][0] == 0
    else:
        assert {code for code, _out, _err in outputs.values()} == {2}
        assert all("number is infinity when parsed as double" in err for _code, _out, err in outputs.values())


def test_convert_of_a_deep_fuzzed_envelope_does_not_abort(tmp_path):
    """Found by bench/fuzz_long.py: converting it aborted the process inside orjson.dumps with Fragments cut 200
    levels apart ('realloc(): invalid next size'); deepjson now cuts every 100 levels. In a child process: the
    failure was an abort, not an exception."""
    import lzma
    import subprocess
    import sys
    from pathlib import Path

    source = tmp_path / "deep.json"
    source.write_bytes(lzma.decompress((Path(__file__).parent / "hostile_files" /
                                        "deep-envelope-convert-abort.json.xz").read_bytes()))
    done = subprocess.run([sys.executable, "-m", "afp_desktop", "convert", str(source), "-o",
                           str(tmp_path / "out.jsonl")], capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 2), done.stderr[-500:]
