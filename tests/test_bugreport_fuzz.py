"""Hypothesis: zips of any shape a hostile reporter could make — hostile or odd entry names, any compression,
JSON or not, nested archives, then damaged bytes — give a LoadError naming the file or a run that projects,
nothing else. Manifests of any shape and length, and conversation files claiming any number of recordings, give
messages and statements of bounded length (a few names and how many more), the cap on conversations exactly;
a document read two levels deep (a conversation file's lists) is the document parsed whole."""

from __future__ import annotations

import json
import zipfile

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from afp_desktop.core.formats import ConversationChoiceNeeded, LoadError, load_bytes  # noqa: E402
from afp_desktop.core.formats import bundle as B  # noqa: E402
from afp_desktop.core.formats.bugreport import describe_lines, statements  # noqa: E402
from afp_desktop.core.jsonx import jsonio  # noqa: E402
from afp_desktop.core.jsonx.shallow import Span, two_levels  # noqa: E402
from tests.bundle_util import make_zip, manifest  # noqa: E402
from tests.corpus_util import read_bytes  # noqa: E402

RECORDING = read_bytes("01-llmcall-single", "recording.json")
NAMES = st.sampled_from(["manifest.json", "envelope.json", "recording.json", "conversation.json", "narrative.txt",
                         "environment.json", "conversations/c-1.json", "conversations/c 2.json", "../x.json",
                         "/abs.json", "a\\b.json", "dir/", "inner.zip", "conversations/../m.json", "x.gz",
                         "conversations/c-1.json/extra.json", "ω.json"])
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                               st.sampled_from(["envelopes", "recordings", "recording", "format", "report",
                                                "excluded", "units", "title", "snapshot", "events"]),
                               inner, max_size=3), max_leaves=10)
ENVELOPE = {"format": "agentfootprint.recording.v1", "recording": json.loads(RECORDING)}
CONVERSATION_DOCS = st.dictionaries(  # conversation files of every shape: lists or not, good recordings or not
    st.sampled_from(["envelopes", "recordings", "id"]),
    st.one_of(st.integers(1, 9), st.just(True), st.text(min_size=1, max_size=3), JSON_VALUES,
              st.dictionaries(st.text(max_size=2), JSON_VALUES, min_size=1, max_size=2),
              st.lists(st.one_of(st.just(ENVELOPE), st.just(json.loads(RECORDING)), JSON_VALUES), max_size=3)),
    max_size=2).map(lambda v: json.dumps(v).encode())
CONTENTS = st.one_of(
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    CONVERSATION_DOCS,
    st.just(RECORDING),
    st.just(json.dumps(manifest()).encode()),
    st.just(json.dumps({"envelopes": [ENVELOPE]}).encode()),
    st.binary(max_size=64),
    st.just(make_zip({"manifest.json": "{}"})),
)
METHODS = st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])


@st.composite
def shaped_bundles(draw) -> bytes:
    """Whole zips with a good manifest and conversation files of every shape: the reading of the contents."""
    entries = {"manifest.json": json.dumps(manifest()).encode()}
    for name in draw(st.lists(st.sampled_from(["conversations/c-1.json", "conversations/c-2.json",
                                               "envelope.json", "recording.json"]), min_size=1, max_size=3)):
        entries[name] = draw(CONVERSATION_DOCS)
    for name in draw(st.lists(st.sampled_from(["conversation.json", "narrative.txt", "environment.json"]),
                              max_size=3)):
        entries[name] = draw(CONTENTS)
    return make_zip(entries, draw(METHODS))


@st.composite
def hostile_bundles(draw) -> bytes:
    """Any names, any contents, then bytes changed or cut: the reading of the zip itself."""
    entries = draw(st.dictionaries(NAMES, CONTENTS, max_size=5))
    data = bytearray(make_zip(entries, draw(METHODS)))
    for _ in range(draw(st.integers(0, 4))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        data = data[: draw(st.integers(4, len(data)))]
    return bytes(data)


def _load_or_refuse(data: bytes) -> None:
    try:
        run = load_bytes(data, "fuzz.zip")
    except LoadError as err:
        assert "fuzz.zip" in str(err) and err.problem.message
        return
    assert run.bundle is not None
    run.stepgraph, run.stops, run.status_states, len(run.axis)


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(shaped_bundles())
def test_any_conversation_shape_is_a_load_error_or_a_run(data):
    _load_or_refuse(data)


@SETTINGS
@given(hostile_bundles())
def test_any_damaged_zip_is_a_load_error_or_a_run(data):
    if data.startswith(b"PK"):  # (a damaged magic number is not a zip any more: other tests cover those)
        _load_or_refuse(data)


# --- manifests of any shape and length; conversation files claiming any number of recordings ------------------

MESSAGE_MOST = 4_000  # characters of one message or one statement, whatever the zip holds
STATEMENTS_MOST = 60
TEXTS = st.one_of(st.text(max_size=6), st.text(min_size=200, max_size=400), st.sampled_from(
    ["conversations/c-1.json", "recording.json", "manifest.json", "lost.json", "\x1b]0;x\x07"]))


def repeated(items, most: int = 2_000):
    """A list of up to `most` values made cheaply: a few drawn values repeated (a lying manifest's long lists)."""
    return st.builds(lambda values, n: (values * n)[:n] if values else [], st.lists(items, max_size=3),
                     st.integers(0, most))


MANIFEST_VALUES = {
    "units": repeated(st.one_of(JSON_VALUES, st.fixed_dictionaries(
        {"id": TEXTS, "kind": st.sampled_from(["conversation", "file"]), "label": TEXTS,
         "files": repeated(TEXTS, 5)}))),
    "files": repeated(st.one_of(st.fixed_dictionaries({"name": TEXTS}), JSON_VALUES)),
    "excluded": st.one_of(JSON_VALUES, st.fixed_dictionaries(
        {"conversations": st.integers(-1, 10**6), "files": st.integers(0, 10**6), "unitIds": repeated(TEXTS)})),
    "redactedKeys": st.one_of(JSON_VALUES, repeated(TEXTS)),
    "warnings": st.one_of(JSON_VALUES, repeated(TEXTS)),
    "notes": repeated(st.one_of(TEXTS, JSON_VALUES)),
    "selected": repeated(TEXTS),
    "counts": st.one_of(JSON_VALUES, st.fixed_dictionaries({"conversations": st.integers(-1, 10**6)})),
    "report": st.one_of(JSON_VALUES, st.fixed_dictionaries({"title": TEXTS, "actual": TEXTS})),
    "environment": st.one_of(JSON_VALUES, st.dictionaries(TEXTS, JSON_VALUES, max_size=5)),
    "manifestVersion": JSON_VALUES,
}


READABLE_CONTENTS = st.one_of(  # what a person reads: deep, wide, of another shape, repetitive
    st.integers(1, 3_000).map(lambda depth: b"[" * depth + b"]" * depth),
    st.integers(0, 2_000).map(lambda n: json.dumps({"conversations": [{"id": "c", "turns": [
        {"index": i, "user": "u" * (i % 50), "steps": [{"kind": "tool", "name": "t", "args": {"a": [i]}}]}
        for i in range(n)]}]}).encode()),
    st.builds(lambda text, n: (text * n).encode(), st.text(min_size=1, max_size=20), st.integers(0, 20_000)),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
)


@st.composite
def lying_bundles(draw) -> tuple[bytes, int]:
    """A manifest of any shape and length, conversation files claiming any number of recordings, entries the
    manifest does or does not list; and how many conversations the files claim in all."""
    doc = manifest()
    for key in draw(st.lists(st.sampled_from(sorted(MANIFEST_VALUES)), unique=True)):
        doc[key] = draw(MANIFEST_VALUES[key])
    entries = {"manifest.json": json.dumps(doc).encode()}
    claimed = 0
    around_the_cap = st.sampled_from([0, 1, 2, B.MAX_CONVERSATIONS - 1, B.MAX_CONVERSATIONS,
                                      B.MAX_CONVERSATIONS + 1, 3 * B.MAX_CONVERSATIONS])
    for i in range(draw(st.integers(0, 3))):
        count = draw(st.one_of(around_the_cap, st.integers(0, 600)))
        key = draw(st.sampled_from(["recordings", "envelopes"]))
        item = draw(st.sampled_from([b"{}", b"0", b'{"recording": {}}', b"[]"]))
        entries[f"conversations/c{i}.json"] = b'{"%s": [%s]}' % (key.encode(), b",".join([item] * count))
        claimed += max(count, 1) if count else 0
    if draw(st.booleans()):
        entries["recording.json"] = RECORDING
        claimed += 1
    for name in draw(st.lists(TEXTS.filter(lambda n: n and "/" not in n and "\\" not in n), max_size=4)):
        entries.setdefault(f"extra/{abs(hash(name))}.txt", name.encode())
    for name in draw(st.lists(st.sampled_from(["conversation.json", "environment.json", "narrative.txt"]),
                              unique=True, max_size=3)):
        entries[name] = draw(READABLE_CONTENTS)
    if draw(st.booleans()):  # a name as long as a zip allows, or just at the cap
        entries["conversations/" + "n" * draw(st.sampled_from([B.MAX_NAME_CHARACTERS - 19, 60_000])) + ".json"] = \
            b'{"recordings": [{}]}'
        claimed += 1
    return make_zip(entries, draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))), claimed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(lying_bundles())
def test_lying_manifests_and_conversation_counts_give_bounded_words(case):
    data, claimed = case
    try:
        bundle = B.read_bundle(data, "fuzz.zip")
    except LoadError as err:
        message = str(err)
        assert "fuzz.zip" in message and len(message) < MESSAGE_MOST
        if "more than 1,000 conversations" in message:
            assert claimed > B.MAX_CONVERSATIONS
        return
    assert len(bundle.conversations) == claimed <= B.MAX_CONVERSATIONS
    lines = statements(bundle.info)
    assert len(lines) < STATEMENTS_MOST and all(len(line) < MESSAGE_MOST for line in lines)
    assert len(describe_lines(bundle.info)) < STATEMENTS_MOST + len(bundle.info.entries) + claimed + 20
    written = {e.name: e.size for e in bundle.info.entries}
    assert len(bundle.info.transcript or "") <= 4 * written.get("conversation.json", 0) + 2**16
    try:
        bundle.open(None)
    except ConversationChoiceNeeded as err:
        assert len(str(err)) < MESSAGE_MOST and len(err.conversations) == claimed
    except LoadError as err:
        assert "fuzz.zip" in str(err) and len(str(err)) < MESSAGE_MOST


DEEP_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) |
                           st.text(alphabet=st.sampled_from('ab"\\{}[],: \n\u00e9'), max_size=6),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                               st.one_of(st.sampled_from(["recordings", "envelopes"]), st.text(max_size=3)), inner,
                               max_size=4),
                           max_leaves=30)


def _resolved(value, data: bytes):
    if isinstance(value, Span):
        return jsonio.loads(value.bytes_of(data))
    if isinstance(value, list):
        return [_resolved(v, data) for v in value]
    if isinstance(value, dict):
        return {k: _resolved(v, data) for k, v in value.items()}
    return value


@settings(max_examples=150, deadline=None)
@given(DEEP_VALUES, st.sampled_from([None, 1, 2]))
def test_a_document_read_two_levels_deep_is_the_document(value, indent):
    data = json.dumps(value, indent=indent, ensure_ascii=False).encode()
    shallow = two_levels(data, ("recordings", "envelopes"))
    if shallow is None:  # (no bracket to scan: a scalar; the caller parses it whole)
        assert not isinstance(value, (list, dict)) or not data.strip("[]{} \n".encode())
        return
    assert _resolved(shallow, data) == jsonio.loads(data)
