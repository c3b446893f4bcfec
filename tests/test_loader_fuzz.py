"""Fuzz-style: damaged input of every kind gives a LoadError or a load with warnings, never anything else."""

from __future__ import annotations

import random
import zlib

import orjson
import pytest

from afp_desktop.core.formats import LoadError, load_bytes, open_run
from tests.corpus_util import SMALL_SCENARIOS, read_bytes


def _try(data: bytes, name="fuzz.json"):
    try:
        run = load_bytes(data, name)
    except LoadError as err:
        assert err.problem.message and name in str(err)
        return None
    # A run that loads must project without raising.
    run.stepgraph, run.stops, run.status_states, len(run.axis)
    return run


@pytest.mark.parametrize("name", ["events.ndjson", "trace.json", "recording.json"])
def test_truncations(name):
    data = read_bytes("02-react-two-tools", name)
    rng = random.Random(7)
    for cut in sorted(rng.sample(range(1, len(data)), 40)) + [len(data) - 1]:
        _try(data[:cut])


def test_invalid_utf8_names_line_and_column():
    data = read_bytes("01-llmcall-single", "events.ndjson").replace(b"What", b"Wh\xff\xfe", 1)
    with pytest.raises(LoadError) as info:
        load_bytes(data, "x.ndjson")
    assert info.value.problem.line is not None


@pytest.mark.parametrize("data,message", [
    (b"", "empty"), (b"   \n\n", "empty"), (b"\x00\x01\x02binary\x00", "binary"),
    (b"\xff\xfe{\x00", "UTF-16"), (b"hello world", "not JSON"), (b"42", "not JSON"),
    (b'"just a string"', "not JSON"), (b"[]", "empty JSON list"), (b"{", "not valid JSON"),
])
def test_garbage(data, message):
    with pytest.raises(LoadError) as info:
        load_bytes(data, "g.json")
    assert message in str(info.value)


def test_directory_and_missing_file(tmp_path):
    with pytest.raises(LoadError, match="folder"):
        open_run(tmp_path)
    with pytest.raises(LoadError, match="no such file"):
        open_run(tmp_path / "nope.json")


def _mutations(value, rng, depth=0):
    """Yield copies of `value` with one member replaced by a value of a wrong type, or removed."""
    wrong = [None, 0, -1, 1.5, "x", "", [], {}, True, [None], {"type": 3}]
    if isinstance(value, dict) and value:
        for key in rng.sample(list(value), min(4, len(value))):
            for w in rng.sample(wrong, 3):
                yield {**value, key: w}
            yield {k: v for k, v in value.items() if k != key}
            if depth < 2:
                for inner in _mutations(value[key], rng, depth + 1):
                    yield {**value, key: inner}
    elif isinstance(value, list) and value:
        for i in rng.sample(range(len(value)), min(3, len(value))):
            for w in rng.sample(wrong, 3):
                yield value[:i] + [w] + value[i + 1:]
            if depth < 2:
                for inner in _mutations(value[i], rng, depth + 1):
                    yield value[:i] + [inner] + value[i + 1:]


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS[:4])
@pytest.mark.parametrize("name", ["trace.json", "recording.json"])
def test_wrong_types_and_missing_keys(scenario, name):
    doc = orjson.loads(read_bytes(scenario, name))
    rng = random.Random(zlib.crc32(f"{scenario}/{name}".encode()))
    count = 0
    for mutated in _mutations(doc, rng):
        _try(orjson.dumps(mutated))
        count += 1
    assert count > 30


def test_ndjson_event_with_wrong_member_types():
    lines = read_bytes("04-tool-progress", "events.ndjson").splitlines()
    rng = random.Random(3)
    for _ in range(150):
        i = rng.randrange(len(lines))
        event = orjson.loads(lines[i])
        key = rng.choice(["payload", "meta", "type"])
        event[key] = rng.choice([None, 1, "s", [], {"toolCallId": []}])
        mutated = lines[:i] + [orjson.dumps(event)] + lines[i + 1:]
        _try(b"\n".join(mutated) + b"\n", "e.ndjson")
