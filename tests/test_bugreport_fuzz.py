"""Hypothesis: zips of any shape a hostile reporter could make — hostile or odd entry names, any compression,
JSON or not, nested archives, then damaged bytes — give a LoadError naming the file or a run that projects,
nothing else."""

from __future__ import annotations

import json
import zipfile

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from afp_desktop.core.formats import LoadError, load_bytes  # noqa: E402
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
