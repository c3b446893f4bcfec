"""Bug-report bundles in the core and the command line: what the reporter and the manifest say, bundles of
several conversations, and hostile zips (traversal names, bombs, nested archives, lying sizes, damage, wrong
types) refused or reported with a message naming the file and entry — never a traceback, never a write."""

from __future__ import annotations

import io
import json
import random
import warnings
import struct
import zipfile

import orjson
import pytest

from afp_desktop import cli
from afp_desktop.core.formats.bugreport import statements, transcript_text, withheld_sentence
from afp_desktop.core.formats import ConversationChoiceNeeded, LoadError, load_bytes, open_run
from afp_desktop.core.formats import bundle as B
from tests.bundle_util import (
    BUNDLES,
    CHOICE_SCENARIOS,
    make_zip,
    manifest,
    several_conversations_zip,
)
from tests.corpus_util import corpus_path, read_bytes

ONE = BUNDLES / "one-conversation.zip"
EXCLUDED = BUNDLES / "two-conversations-one-excluded.zip"


def cli_run(capsysbinary, *argv) -> tuple[int, str, str]:
    code = cli.main([*map(str, argv)])
    out = capsysbinary.readouterr()
    return code, out.out.decode(), out.err.decode()


def refused(data: bytes, name="report.zip") -> str:
    with pytest.raises(LoadError) as caught:
        load_bytes(data, name)
    message = str(caught.value)
    assert name in message
    return message


# --- what a real bundle says -------------------------------------------------------------------------------

def test_the_reporters_statement_and_environment():
    info = open_run(ONE).bundle
    s = info.statement
    assert s.title == "Agent converted the temperature with a second tool call it did not need"
    assert s.steps == '1. ask "What is the weather in Oslo, in Fahrenheit too?"\n2. watch the tool calls'
    assert s.expected == "one get_weather call and a reply with both units"
    assert s.actual == "get_weather, then a separate convert_units call, then the reply"
    assert s.app_version == "4.2.0"
    env = dict(info.environment)
    assert env["agentfootprint"] == "9.62.0" and env["node"] == "v20.20.2" and env["platform"] == "linux"
    assert info.manifest_version == 2 and info.created_at == "2026-11-30T19:28:42.872Z"
    assert [e.name for e in info.entries] == ["manifest.json", "envelope.json", "conversation.json",
                                              "narrative.txt", "environment.json"]
    assert info.conversation_ids == ("conv-1",) and info.chosen == "conv-1"
    assert info.conversations[0].entry == "envelope.json" and info.conversations[0].session_id == "sess-weather-oslo"
    assert withheld_sentence(info) is None
    assert "No key was redacted by name." in statements(info)
    assert info.narrative.startswith("── conv-1 ──\nStage 1: The process began")
    assert "Tool get_weather({\"city\":\"Oslo\"}) → " in info.transcript
    assert "User: What is the weather in Oslo, in Fahrenheit too?" in info.transcript


def test_withheld_conversations_are_said_in_plain_words():
    run = open_run(EXCLUDED)
    info = run.bundle
    assert info.conversations[0].entry == "conversations/conv-1.json"
    assert info.conversations[0].where == "envelopes[0].recording"
    sentence = withheld_sentence(info)
    assert sentence.startswith("1 of 2 conversations was withheld by the reporter, not lost")
    assert "conv-2 — run-1796066922941-3" in sentence
    assert any("SUBSET" in line for line in statements(info))
    assert run.notices[0].code == "bug-report"
    assert "1 of 2 conversations was withheld by the reporter, not lost" in run.notices[0].text
    assert run.format_name == "Bug-report bundle, conversation conv-1 (Recording envelope v1)"
    assert run.path == str(EXCLUDED)


def test_several_withheld_and_redacted_keys():
    data = several_conversations_zip(excluded={"conversations": 2, "files": 1, "unitIds": ["conv-3", "conv-4"]})
    info = B.read_bundle(data, "r.zip").info
    lines = statements(info)
    assert lines[0].startswith("2 of 4 conversations were withheld by the reporter, not lost")
    assert "1 file was withheld by the reporter, not lost." in lines
    assert any(line.startswith("Redacted by name (2 keys): apiKey, email.") for line in lines)


def test_a_listed_file_missing_from_the_zip_is_lost_not_withheld():
    doc = manifest(files=[{"name": "conversations/conv-9.json"}])
    data = make_zip({"manifest.json": json.dumps(doc),
                     "recording.json": read_bytes("01-llmcall-single", "recording.json")})
    lines = statements(load_bytes(data, "r.zip").bundle)
    assert any("conversations/conv-9.json is listed in the manifest but is not in the zip: it was lost" in line
               for line in lines)
    assert "Not listed in the manifest: recording.json." in lines


def test_transcript_of_an_unknown_shape_is_shown_as_json():
    assert transcript_text([1, {"a": "<b>"}]).startswith("[")
    assert "<b>" in transcript_text({"conversations": [{"id": "c", "turns": [{"user": "<b>"}]}]})


# --- several conversations ---------------------------------------------------------------------------------

def test_several_conversations_need_a_choice(tmp_path):
    path = tmp_path / "several.zip"
    path.write_bytes(several_conversations_zip())
    with pytest.raises(ConversationChoiceNeeded) as caught:
        open_run(path)
    assert [c.id for c in caught.value.conversations] == ["conv-1", "conv-2.0", "conv-2.1"]
    assert "--conversation" in str(caught.value) and "conv-2.1" in str(caught.value)
    for conv, scenario in CHOICE_SCENARIOS.items():
        run = open_run(path, conversation=conv)
        direct = open_run(corpus_path(scenario, "recording.json"))
        assert run.bundle.chosen == conv
        assert run.stepgraph == direct.stepgraph and run.stops == direct.stops
        assert run.status_states == direct.status_states
    assert open_run(path, conversation="conv-2.1").bundle.conversations[2].where == "recordings[1]"


def test_cli_lists_the_ids_when_none_is_chosen(tmp_path, capsysbinary):
    path = tmp_path / "several.zip"
    path.write_bytes(several_conversations_zip())
    for command in ("stepgraph", "status", "stops", "export"):
        extra = ["-o", str(tmp_path / "g.png")] if command == "export" else []
        code, _out, err = cli_run(capsysbinary, command, path, *extra)
        assert code == 2 and "Traceback" not in err
        assert "holds 3 conversations" in err and "conv-1 (conv-1 — session s-1: 1 run)" in err
        assert "conv-2.0" in err and "conv-2.1" in err
    code, _out, err = cli_run(capsysbinary, "stops", path, "--conversation", "conv-3")
    assert code == 2 and "no conversation 'conv-3'" in err and "withheld by the reporter" in err
    code, out, err = cli_run(capsysbinary, "stepgraph", path, "--conversation", "conv-2.1")
    assert code == 0 and orjson.loads(out) == open_run(corpus_path("07-flow-sequence", "recording.json")).stepgraph


def test_cli_convert_takes_a_conversation(tmp_path, capsysbinary):
    path = tmp_path / "several.zip"
    path.write_bytes(several_conversations_zip())
    out = tmp_path / "conv.jsonl"
    code, _o, err = cli_run(capsysbinary, "convert", path, "--conversation", "conv-2.0", "-o", out)
    assert code == 0, err
    assert open_run(out).stepgraph == open_run(corpus_path("04-tool-progress", "recording.json")).stepgraph


def test_conversation_asked_of_a_plain_file(capsysbinary):
    code, _out, err = cli_run(capsysbinary, "stepgraph", corpus_path("01-llmcall-single", "trace.json"),
                              "--conversation", "conv-1")
    assert code == 2 and "only a bug-report bundle" in err


def test_info_lists_the_bundle_and_its_statements(capsysbinary, tmp_path):
    code, out, err = cli_run(capsysbinary, "info", EXCLUDED)
    assert code == 0, err
    assert "Bug report:  Weather agent called convert_units although the model could convert" in out
    assert "  Steps to reproduce: 1. ask the weather agent for Oslo in °F" in out
    assert "  Expected: a single tool call" in out and "  Actual: two tool calls" in out
    assert "  App version: 4.2.0" in out
    assert "1 of 2 conversations was withheld by the reporter, not lost" in out
    assert "  - conversations/conv-1.json (853,081 bytes)" in out
    assert "LLM calls:   3" in out  # and the run itself
    code, out, _err = cli_run(capsysbinary, "info", EXCLUDED, "--json")
    info = orjson.loads(out)
    assert info["bundle"]["report"]["expected"] == "a single tool call"
    assert info["bundle"]["excluded"]["unitIds"] == ["conv-2"]
    assert info["bundle"]["statements"][0].startswith("1 of 2 conversations was withheld")
    assert info["bundle"]["chosen"] == "conv-1" and info["stepGraphNodes"] == 16
    several = tmp_path / "several.zip"
    several.write_bytes(several_conversations_zip())
    code, out, err = cli_run(capsysbinary, "info", several)
    assert code == 0, err
    assert "Bug report:  Two runs, one bug" in out and "  - conv-2.1: " in out
    assert "Choose a conversation with --conversation ID" in out
    code, out, _err = cli_run(capsysbinary, "info", several, "--json")
    assert [c["id"] for c in orjson.loads(out)["bundle"]["conversations"]] == ["conv-1", "conv-2.0", "conv-2.1"]


def test_the_zip_is_never_extracted_and_never_written(tmp_path, monkeypatch):
    def forbidden(*_a, **_k):
        raise AssertionError("a bundle must not be extracted")

    monkeypatch.setattr(zipfile.ZipFile, "extract", forbidden)
    monkeypatch.setattr(zipfile.ZipFile, "extractall", forbidden)
    path = tmp_path / "report.zip"
    path.write_bytes(EXCLUDED.read_bytes())
    before = path.stat().st_mtime_ns
    open_run(path).prepare()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.zip"]
    assert path.stat().st_mtime_ns == before and path.read_bytes() == EXCLUDED.read_bytes()


# --- hostile zips ------------------------------------------------------------------------------------------

def _minimal(**extra) -> dict:
    entries = {"manifest.json": json.dumps(manifest(units=[], files=[])),
               "recording.json": read_bytes("01-llmcall-single", "recording.json")}
    entries.update(extra)
    return entries


def test_the_minimal_bundle_opens():
    run = load_bytes(make_zip(_minimal()), "report.zip")
    assert run.bundle.conversation_ids == ("recording",) and run.stepgraph["nodes"]


@pytest.mark.parametrize("name", ["../evil.json", "../../etc/passwd", "/etc/passwd", "conversations/../../x.json",
                                  "C:/windows/x.json", "..\\evil.json", "a/../../b"])
def test_traversal_names_are_refused(name):
    message = refused(make_zip(_minimal(**{name: "{}"})))
    assert "outside the bundle" in message


def test_a_zip_bomb_is_refused():
    message = refused(make_zip(_minimal(**{"narrative.txt": b"\0" * (8 * 2**20)}), zipfile.ZIP_DEFLATED))
    assert "zip bomb" in message and "narrative.txt" in message


def test_a_nested_zip_is_refused_by_name_and_by_content():
    inner = make_zip(_minimal())
    assert "nested archives are refused" in refused(make_zip(_minimal(**{"inner.zip": inner})))
    entries = _minimal()
    entries["recording.json"] = inner
    message = refused(make_zip(entries))
    assert "recording.json" in message and "itself an archive" in message


def _patch_central_size(data: bytes, entry: str, size: int) -> bytes:
    """Make the central directory declare `size` bytes for `entry` (the local header is left as it was)."""
    at = data.index(b"PK\x01\x02")
    while True:
        name_len = struct.unpack("<H", data[at + 28:at + 30])[0]
        if data[at + 46:at + 46 + name_len] == entry.encode():
            return data[:at + 24] + struct.pack("<I", size) + data[at + 28:]
        at = data.index(b"PK\x01\x02", at + 4)


def test_huge_declared_sizes_are_refused_before_reading():
    data = _patch_central_size(make_zip(_minimal()), "recording.json", 0xFFFF_FFF0)
    message = refused(data)
    assert "recording.json" in message and "declares" in message


def test_a_size_that_lies_low_is_damage_not_a_longer_read():
    data = make_zip(_minimal())
    size = zipfile.ZipFile(io.BytesIO(data)).getinfo("recording.json").file_size
    message = refused(_patch_central_size(data, "recording.json", size // 2))
    assert "recording.json" in message and ("damaged" in message or "valid JSON" in message)


def test_too_many_entries_are_refused_before_they_are_listed():
    entries = _minimal(**{f"extra/{i}.txt": "" for i in range(B.MAX_ENTRIES + 1)})
    message = refused(make_zip(entries))
    assert f"{B.MAX_ENTRIES + 3:,} entries" in message and "at most" in message


def test_duplicate_encrypted_and_symlink_entries_are_refused():
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w") as archive:
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate it is asked to write
        for name, value in [*_minimal().items(), ("recording.json", "{}")]:
            archive.writestr(name, value)
    assert "two entries have this name" in refused(buf.getvalue())
    data = make_zip(_minimal())
    at = data.index(b"PK\x01\x02")  # the first entry's central header: its flag bits say "encrypted"
    flagged = data[:at + 8] + struct.pack("<H", 1) + data[at + 10:]
    assert "encrypted" in refused(flagged)
    link = zipfile.ZipInfo("narrative.txt")
    link.external_attr = (0o120777 << 16)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, value in _minimal().items():
            archive.writestr(name, value)
        archive.writestr(link, "/etc/passwd")
    assert "symbolic link" in refused(buf.getvalue())


@pytest.mark.parametrize("entries,expected", [
    ({"recording.json": "{}"}, "manifest.json is missing"),
    ({"manifest.json": "[1, 2]"}, "the manifest must be a JSON object, found a list"),
    ({"manifest.json": "{\"manifestVersion\": 2,"}, "not valid JSON"),
    ({"manifest.json": "{}", "conversations/c.json": "\"a string\""},
     "a conversation file must be a JSON object, found a string"),
    ({"manifest.json": "{}", "conversations/c.json": "{\"envelopes\": \"x\"}"}, "\"envelopes\" must be a list"),
    ({"manifest.json": "{}", "conversations/c.json": "{\"envelopes\": []}"}, "recording lists are empty"),
    ({"manifest.json": "{}", "conversations/c.json": "{\"who\": 1}"}, "found keys: who"),
    ({"manifest.json": "{}", "conversations/c.json": "{\"envelopes\": [3]}"}, "found a number"),
    ({"manifest.json": "{}", "envelope.json": "{\"format\": \"agentfootprint.recording.v1\", \"recording\": 7}"},
     "the recording must be an object"),
    ({"manifest.json": "{}"}, "holds no recording"),
    ({"manifest.json": json.dumps(manifest(excluded={"conversations": 2, "unitIds": ["a", "b"]}))},
     "the reporter withheld all 2"),
])
def test_wrong_shapes_get_clear_messages(entries, expected):
    message = refused(make_zip(entries))
    assert expected in message


def test_wrong_types_in_the_manifest_are_reported_and_the_run_opens():
    doc = manifest(report="oops", units={"a": 1}, excluded=[1], redactedKeys="apiKey", warnings=7,
                   manifestVersion="two")
    entries = _minimal()
    entries["manifest.json"] = json.dumps(doc)
    entries["environment.json"] = "[1]"
    entries["narrative.txt"] = b"caf\xe9"
    run = load_bytes(make_zip(entries), "report.zip")
    problems = " ".join(run.bundle.problems)
    for part in ("report is a string", "units are an object", "excluded is a list", "redactedKeys is a string",
                 "warnings is a number", "version is 'two'", "environment.json is a list", "not valid UTF-8"):
        assert part in problems
    assert run.bundle.statement.empty and run.bundle.narrative == "caf\ufffd"


def test_broken_side_files_are_said_and_the_run_opens():
    entries = _minimal(**{"environment.json": "{\"node\": ", "conversation.json": "nope"})
    run = load_bytes(make_zip(entries), "report.zip")
    problems = " ".join(run.bundle.problems)
    assert "environment.json, line 1, column 10 is not valid JSON" in problems
    assert "conversation.json, line 1, column 1 is not valid JSON" in problems
    assert run.bundle.transcript is None and run.stepgraph["nodes"]
    entries["conversation.json"] = make_zip({"a": "b"})  # but an archive inside is still refused
    assert "conversation.json" in refused(make_zip(entries))


def test_an_empty_zip_and_a_bare_header():
    assert "an empty zip archive" in refused(make_zip({}))
    assert "central directory" in refused(b"PK\x03\x04" + b"\0" * 40)


def test_damaged_bundles_never_raise_anything_else(capsysbinary, tmp_path):
    """Cuts and byte flips of a real bundle: a LoadError (or a run that projects), nothing else."""
    data = several_conversations_zip()
    rng = random.Random(12)
    samples = [data[:cut] for cut in rng.sample(range(1, len(data)), 40)]
    for _ in range(120):
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(flipped)) if rng.random() < 0.5 else len(flipped) - rng.randrange(1, 200)
            flipped[at] = rng.randrange(256)
        samples.append(bytes(flipped))
    for sample in samples:
        try:
            run = B.run_from_bundle(sample, "fuzz.zip", "conv-2.0")
        except LoadError as err:
            assert "fuzz.zip" in str(err)
        else:
            _ = (run.stepgraph, run.stops, run.status_states)  # computing them must not raise
    path = tmp_path / "cut.zip"
    path.write_bytes(data[: len(data) // 2])
    code, _out, err = cli_run(capsysbinary, "info", path)
    assert code == 2 and "Traceback" not in err and "cut.zip" in err
