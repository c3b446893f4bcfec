"""Bug-report bundles that lie about their size or shape: every cap scales with the input or with what the library
writes. An entry of any size expands at most BOMB_RATIO times; a bundle holds at most MAX_CONVERSATIONS
conversations; the manifest and the entries a person reads have caps of their own, and the entries together the
byte budget of any trace; the manifest's names are matched against the entries in linear time; a sentence names
a few things and says how many more; a conversation file's recordings are not all parsed to open one."""

from __future__ import annotations

import json
import zipfile

import pytest

from afp_desktop import cli
from afp_desktop.core.formats import ConversationChoiceNeeded, LoadError, load_bytes
from afp_desktop.core.formats import bundle as B
from afp_desktop.core.formats.bugreport import BundleInfo, Excluded, Unit, statements, withheld_sentence
from afp_desktop.core.formats.source import byte_limit
from afp_desktop.core.jsonx import jsonio
from tests.bundle_util import make_zip, manifest
from tests.corpus_util import read_bytes

RECORDING = read_bytes("01-llmcall-single", "recording.json")
SHORT_MESSAGE = 1_000  # characters: what one message may take, however much the zip claims


def refused(data: bytes, name: str = "report.zip") -> str:
    with pytest.raises(LoadError) as caught:
        load_bytes(data, name)
    message = str(caught.value)
    assert name in message and "Traceback" not in message
    return message


def bundle_of(**entries: bytes | str) -> bytes:
    return make_zip({"manifest.json": json.dumps(manifest(units=[], files=[])), **entries})


def recordings_file(count: int) -> bytes:
    """A conversation file listing `count` recordings that differ (so that it compresses as JSON does)."""
    items = ",".join(json.dumps({"i": f"{i * 2654435761 % 2**32:08x}"}) for i in range(count))
    return f'{{"recordings":[{items}]}}'.encode()


# --- the expansion of an entry, whatever its size ------------------------------------------------------------

@pytest.mark.parametrize("size", [64 * 2**10, 2**20 - 1, 2**20, 2**20 + 1])
def test_every_entry_size_is_held_to_the_compression_ratio(size):
    empty_recordings = b'{"recordings":[' + b",".join([b"{}"] * (size // 3 - 6)) + b"]}"
    entry = empty_recordings + b" " * (size - len(empty_recordings))
    message = refused(make_zip({"manifest.json": "{}", "conversations/c.json": entry}, zipfile.ZIP_DEFLATED))
    assert "conversations/c.json" in message and "zip bomb" in message


def test_a_small_entry_may_expand_by_the_allowance():
    run = load_bytes(make_zip({"manifest.json": json.dumps(manifest(units=[], files=[])), "recording.json": RECORDING,
                               "narrative.txt": " " * B.BOMB_ALLOWANCE}, zipfile.ZIP_DEFLATED), "report.zip")
    assert run.bundle.narrative == " " * B.BOMB_ALLOWANCE


def test_the_entries_share_the_byte_budget_of_any_trace():
    data = bundle_of(**{"recording.json": RECORDING})
    with byte_limit(len(RECORDING) - 1):
        message = refused(data)
    assert "recording.json" in message and "--max-bytes" in message
    with byte_limit(len(RECORDING) + 2**16):
        message = refused(bundle_of(**{"recording.json": RECORDING, "narrative.txt": "x" * 2**16}))
    assert "in all" in message and "--max-bytes" in message
    with byte_limit(2 * len(RECORDING)):
        assert load_bytes(data, "report.zip").bundle is not None


# --- how many conversations ----------------------------------------------------------------------------------

@pytest.mark.parametrize("files", [1, 3])
def test_more_conversations_than_the_cap_are_refused_in_one_short_message(files, capsysbinary, tmp_path):
    each = B.MAX_CONVERSATIONS // files + 1
    data = bundle_of(**{f"conversations/c{i}.json": recordings_file(each) for i in range(files)})
    message = refused(data)
    assert f"more than {B.MAX_CONVERSATIONS:,} conversations" in message and len(message) < SHORT_MESSAGE
    path = tmp_path / "many.zip"
    path.write_bytes(data)
    for command in (["info"], ["stops"], ["diff", str(path)]):
        code = cli.main([command[0], str(path), *command[1:]])
        out = capsysbinary.readouterr()
        assert code == 2 and len(out.out) + len(out.err) < SHORT_MESSAGE
        assert b"more than 1,000 conversations" in out.err
    assert path.read_bytes() == data


def test_recordings_that_are_not_objects_count_too():
    entry = b'{"recordings":[' + b",".join([b"0"] * (B.MAX_CONVERSATIONS + 1)) + b"]}"
    assert "more than" in refused(bundle_of(**{"conversations/c.json": entry}))
    separate = {f"conversations/c{i}.json": '{"events": []}' for i in range(B.MAX_CONVERSATIONS + 1)}
    assert "more than" in refused(make_zip({"manifest.json": "{}", **separate}))


def test_as_many_conversations_as_the_cap_are_listed_in_a_short_message(capsysbinary, tmp_path):
    data = bundle_of(**{"conversations/c.json": recordings_file(B.MAX_CONVERSATIONS)})
    with pytest.raises(ConversationChoiceNeeded) as caught:
        load_bytes(data, "report.zip")
    message = str(caught.value)
    assert len(caught.value.conversations) == B.MAX_CONVERSATIONS
    assert "c.0, c.1," in message and f"and {B.MAX_CONVERSATIONS - 20:,} more" in message
    assert len(message) < SHORT_MESSAGE
    path = tmp_path / "at-the-cap.zip"
    path.write_bytes(data)
    assert cli.main(["info", str(path)]) == 0  # the bundle described, one line per conversation
    assert capsysbinary.readouterr().out.count(b"\n  - c.") == B.MAX_CONVERSATIONS


def test_an_unknown_conversation_is_answered_in_a_short_message():
    data = bundle_of(**{"conversations/c.json": recordings_file(B.MAX_CONVERSATIONS)})
    with pytest.raises(LoadError) as caught:
        B.read_bundle(data, "report.zip").open("x" * 100_000)
    assert "no conversation" in str(caught.value) and len(str(caught.value)) < SHORT_MESSAGE


# --- the manifest and the entries a person reads --------------------------------------------------------------

def test_a_manifest_larger_than_the_library_writes_is_refused():
    big = json.dumps(manifest(units=[], files=[], notes=["n" * B.MAX_MANIFEST_BYTES]))
    message = refused(make_zip({"manifest.json": big, "recording.json": RECORDING}))
    assert "manifest.json" in message and "refused" in message and len(message) < SHORT_MESSAGE


def test_readable_entries_larger_than_their_cap_are_left_out_and_said():
    too_big = "x" * (B.MAX_READABLE_BYTES + 1)
    run = load_bytes(bundle_of(**{"recording.json": RECORDING, "narrative.txt": too_big,
                                  "conversation.json": json.dumps([too_big]),
                                  "environment.json": json.dumps({"os": "y" * B.MAX_MANIFEST_BYTES})}),
                     "report.zip")
    assert run.bundle.narrative is None and run.bundle.transcript is None
    assert "os" not in dict(run.bundle.environment)
    said = [p for p in run.bundle.problems if "this viewer reads of it; it was left out" in p]
    assert [p.split()[0] for p in said] == ["environment.json", "narrative.txt", "conversation.json"]


# --- the manifest's names against the entries -----------------------------------------------------------------

class CountedName(str):
    """A name that counts how often it is compared."""

    comparisons = 0
    __hash__ = str.__hash__

    def __eq__(self, other):
        CountedName.comparisons += 1
        return str.__eq__(self, other)


def test_listed_files_are_matched_against_the_entries_in_linear_time(monkeypatch):
    entries = {f"e{i}.txt": "" for i in range(1_500)}
    listed = [{"name": f"f{i}"} for i in range(1_500)] + [{"name": "e0.txt"}]
    data = make_zip({"manifest.json": json.dumps(manifest(units=[], files=listed)), "recording.json": RECORDING,
                     **entries})
    listed_files = B._listed_files  # private: counting the comparisons needs the listed names it makes
    monkeypatch.setattr(B, "_listed_files", lambda value: tuple(map(CountedName, listed_files(value))))
    CountedName.comparisons = 0
    info = B.read_bundle(data, "report.zip").info
    assert CountedName.comparisons < 10 * len(listed)
    assert len(info.missing_files) == 1_500 and len(info.unlisted_entries) == 1_500  # (and recording.json)


def test_withheld_units_are_named_in_linear_time():
    count = 2_000
    units = tuple(Unit(CountedName(f"u{i}"), "conversation", f"label {i}") for i in range(count))
    info = BundleInfo("r.zip", (), (), units=units,
                      excluded=Excluded(conversations=count, unit_ids=tuple(f"u{i}" for i in range(count))))
    CountedName.comparisons = 0
    sentence = withheld_sentence(info)
    assert CountedName.comparisons < 10 * count
    assert sentence.startswith(f"{count:,} of {count:,} conversations were withheld")
    assert "label 0; label 1;" in sentence and f"and {count - 20:,} more." in sentence


# --- what a sentence lists --------------------------------------------------------------------------------------

def test_statements_name_a_few_and_say_how_many_more():
    many = [f"k{i}" for i in range(5_000)]
    doc = manifest(files=[{"name": f"lost/{i}.json"} for i in range(5_000)], redactedKeys=many, warnings=many,
                   notes=many, units=[{"id": i} for i in range(5_000)],
                   excluded={"conversations": 5_000, "unitIds": many})
    entries = {f"extra/{i}.txt": "" for i in range(1_000)}
    info = load_bytes(make_zip({"manifest.json": json.dumps(doc), "recording.json": RECORDING, **entries}),
                      "report.zip").bundle
    lines = statements(info)
    assert len(lines) < 100 and sum(map(len, lines)) < 20 * SHORT_MESSAGE
    text = "\n".join(lines)
    assert "5,000 files are listed in the manifest but are not in the zip" in text
    assert "Redacted by name (5,000 keys): k0, k1," in text and "and 4,980 more" in text
    assert "The library warns: 4,980 more warnings" in text and "The library notes: 4,980 more notes" in text
    assert "Not listed in the manifest: recording.json, extra/0.txt," in text and "and 981 more" in text
    assert "5,000 units of the manifest are not objects with an id" in text


def test_a_long_name_is_cut_in_a_sentence():
    doc = manifest(units=[], files=[{"name": "lost/" + "n" * 10_000}], redactedKeys=["k" * 10_000])
    info = load_bytes(make_zip({"manifest.json": json.dumps(doc), "recording.json": RECORDING}), "r.zip").bundle
    assert all(len(line) < SHORT_MESSAGE for line in statements(info))
    assert any("more characters" in line for line in statements(info))


# --- a conversation file of several recordings --------------------------------------------------------------

def test_opening_one_recording_does_not_parse_the_others(monkeypatch):
    junk = {"recording": {"snapshot": {}, "events": [{"n": i} for i in range(20_000)]}}
    doc = {"id": "c", "envelopes": [junk, {"format": "agentfootprint.recording.v1",
                                           "recording": json.loads(RECORDING)}, junk]}
    data = make_zip({"manifest.json": json.dumps(manifest(units=[], files=[])),
                     "conversations/c.json": json.dumps(doc)}, zipfile.ZIP_DEFLATED)
    parsed: list[int] = []
    loads = jsonio.loads
    monkeypatch.setattr(jsonio, "loads", lambda text, **how: parsed.append(len(text)) or loads(text, **how))
    run = B.read_bundle(data, "report.zip").open("c.1")
    assert run.bundle.chosen == "c.1" and run.stepgraph["nodes"]
    assert max(parsed) < len(RECORDING) + 1_000 < len(json.dumps(junk))


def test_a_broken_recording_among_several_is_said_where_it_is_in_the_entry():
    good = RECORDING.decode()
    text = '{"recordings": [\n' + good + ',\n{"snapshot": {}, "events": [1 2]}\n]}'
    bundle = B.read_bundle(bundle_of(**{"conversations/c.json": text}), "report.zip")
    with pytest.raises(LoadError) as caught:
        bundle.open("c.1")
    problem = caught.value.problem
    assert "conversations/c.json" in str(caught.value) and "not valid JSON" in problem.message
    assert problem.line == text.count("\n", 0, text.index("[1 2]")) + 1
    assert bundle.open("c.0").bundle.chosen == "c.0"


# --- the window ---------------------------------------------------------------------------------------------

def test_the_window_refuses_too_many_conversations_in_a_short_message(qtbot, window, tmp_path, capsys,
                                                                     monkeypatch):
    from afp_desktop.app.shell import conversation_picker
    from afp_desktop.app.shell.gui import run_gui

    asked: list = []  # (a picker would wait for an answer: none is given, the refusal is what is expected)
    monkeypatch.setattr(conversation_picker, "pick_conversation", lambda *args: asked.append(args))
    path = tmp_path / "many.zip"
    path.write_bytes(bundle_of(**{"conversations/c.json": recordings_file(B.MAX_CONVERSATIONS + 1)}))
    with qtbot.waitSignal(window.loader.failed, timeout=30_000) as failed:
        window.open_file(path)
    message = failed.args[0]
    assert "more than 1,000 conversations" in message and len(message) < SHORT_MESSAGE and not asked
    shot = tmp_path / "shot.png"
    assert run_gui(str(path), screenshot=str(shot)) == 2 and not shot.exists()
    err = capsys.readouterr().err
    assert "more than 1,000 conversations" in err and len(err) < SHORT_MESSAGE


def test_the_window_lists_as_many_conversations_as_the_cap(qtbot, window, tmp_path):
    from tests.test_bug_report_panel import answer_picker

    path = tmp_path / "at-the-cap.zip"
    path.write_bytes(bundle_of(**{"conversations/c.json": recordings_file(B.MAX_CONVERSATIONS)}))
    seen = answer_picker(None)
    with qtbot.waitSignal(window.loader.conversation_needed, timeout=30_000):
        window.open_file(path)
    qtbot.waitUntil(lambda: len(seen) == B.MAX_CONVERSATIONS, timeout=30_000)
    assert seen[0] == "c.0" and seen[-1] == f"c.{B.MAX_CONVERSATIONS - 1}"


# --- names that would be repeated for every conversation ----------------------------------------------------

def test_long_unit_ids_labels_and_entry_names_are_not_repeated_per_conversation(capsysbinary, tmp_path):
    long = "x" * 100_000
    units = [{"id": "c", "kind": "conversation", "label": long, "sessionId": long, "files": ["conversations/c.json"]},
             {"id": long, "kind": "conversation", "label": "L", "files": ["conversations/d.json"]}]
    data = make_zip({"manifest.json": json.dumps(manifest(units=units, files=[])),
                     "conversations/c.json": recordings_file(B.MAX_CONVERSATIONS // 2),
                     "conversations/d.json": recordings_file(B.MAX_CONVERSATIONS // 2)})
    path = tmp_path / "long.zip"
    path.write_bytes(data)
    for json_output in ([], ["--json"]):
        assert cli.main(["info", str(path), *json_output]) == 0
        out = capsysbinary.readouterr().out
        assert len(out) < 4 * B.MAX_CONVERSATIONS * B.MAX_NAME_CHARACTERS
    info = B.read_bundle(data, "r.zip").info
    assert {c.id.split(".")[0] for c in info.conversations} == {"c", "d"}  # (d: named by its file)
    assert any("A unit of the manifest has an id longer than 1,000 characters" in p for p in info.problems)
    name = "conversations/" + "n" * B.MAX_NAME_CHARACTERS + ".json"
    message = refused(make_zip({"manifest.json": "{}", name: recordings_file(2)}))
    assert "characters long" in message and len(message) < SHORT_MESSAGE


# --- nesting: facts and text are never deep -------------------------------------------------------------------

def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_a_deep_manifest_is_refused_and_deep_readable_entries_are_left_out():
    message = refused(make_zip({"manifest.json": nested(5_000), "recording.json": RECORDING}))
    assert "manifest.json" in message and "levels deep" in message and "not valid JSON" not in message
    run = load_bytes(make_zip({"manifest.json": "{}", "recording.json": RECORDING,
                               "conversation.json": nested(5_000), "environment.json": nested(5_000)}),
                     "report.zip")
    said = [p for p in run.bundle.problems if "levels deep" in p]
    assert [p.split()[0] for p in said] == ["environment.json", "conversation.json"]
    assert run.bundle.transcript is None


def test_a_transcript_of_another_shape_is_indented_only_while_that_stays_small():
    from afp_desktop.core.formats.bugreport import INDENTED_AT_MOST, transcript_text

    small = jsonio.loads(nested(100))
    assert transcript_text(small).count("\n") >= 198
    deep = jsonio.loads(nested(1_000))
    wide = [deep] * (INDENTED_AT_MOST // 1_000)
    assert len(transcript_text(wide)) < 2 * len(jsonio.dumps(wide)) + 2


def test_a_deep_transcript_is_not_multiplied_by_its_indentation():
    """A value 184 levels deep is 368 bytes compact and 67 KB indented (its indentation grows with the square of
    its depth): it is shown compact (Hypothesis found it)."""
    from afp_desktop.core.formats.bugreport import transcript_text

    deep = jsonio.loads(nested(184))
    assert len(transcript_text(deep)) <= 4 * len(jsonio.dumps(deep)) + 2**15 + 2**12


# --- what reading a conversation file costs ----------------------------------------------------------------------

def test_an_entry_holding_more_json_containers_than_the_budget_allows_is_refused():
    with byte_limit(2**16):
        most = 2**16 // B.CONTAINER_BYTES
        dense = json.dumps({"recordings": [{"events": [[]] * most}]})
        message = refused(bundle_of(**{"conversations/c.json": dense}))
        assert "conversations/c.json" in message and "JSON objects and lists" in message and "--max-bytes" in message
        within = json.dumps({"recordings": [{"events": [[]] * (most // 2)}]})
        assert B.read_bundle(bundle_of(**{"conversations/c.json": within}), "r.zip").conversations


def test_a_conversation_file_is_read_one_level_below_its_lists():
    from afp_desktop.core.jsonx.shallow import Span, TooManyItems, two_levels

    data = b'{"id": "c", "x": [[], {}, [[]]], "recordings": [{"a": [1]}, 2, []]}'
    doc = two_levels(data, ("recordings",))
    assert isinstance(doc["x"], Span) and doc["x"].bytes_of(data) == b"[[], {}, [[]]]"  # (one span, not three)
    assert [item.bytes_of(data) if isinstance(item, Span) else item for item in doc["recordings"]] == \
        [b'{"a": [1]}', 2, b"[]"]
    with pytest.raises(TooManyItems) as caught:
        two_levels(data, ("recordings",), most=1)
    assert caught.value.count == 2  # (containers: counted before anything is made for them)
