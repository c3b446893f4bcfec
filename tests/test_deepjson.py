"""JSON deeper than orjson goes (core/deepjson.py through core/jsonio.py): read and written exactly, at any depth,
on every supported Python (from 3.12 the standard library's parser stops at ~1,500 levels)."""

from __future__ import annotations

import json
import random

import pytest

from afp_desktop.cli import main as cli_main
from afp_desktop.core.jsonx import deepjson, jsonio
from afp_desktop.core.formats import open_run
from tests.corpus_util import SMALL_SCENARIOS, read_bytes


def same(a, b, ordered: bool = True) -> bool:
    """Equality without recursion (Python's own == stops at ~1,500 levels from 3.12); key order counts unless
    `ordered` is False."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is dict:
            if (list(x) != list(y)) if ordered else (x.keys() != y.keys()):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif type(x) is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif x != y:
            return False
    return True


KEYS = ["next", "", 'q"uote', "back\\slash", "é", "[{", "a,b", "\\\"", " sp ace "]


def deep_value(rng: random.Random, levels: int):
    """A chain `levels` deep of objects and arrays, with siblings (scalars, strings full of commas and
    brackets, small containers) before and after each step down."""
    value: object = rng.choice([None, 1, "end", [], {}])
    for _ in range(levels):
        siblings = [rng.choice(["x,y", "]", "{", '","', 2.5, True, None, [1, [2]], {"k": "v,"}])
                    for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.5:
            before = rng.randint(0, len(siblings))
            value = siblings[:before] + [value] + siblings[before:]
        else:
            key = rng.choice(KEYS)
            obj = {f"s{i},{KEYS[i % len(KEYS)]}": s for i, s in enumerate(siblings)}
            obj[key] = value
            value = obj
    return value


def text_of(value, style: int) -> bytes:
    """JSON text of `value`, written without recursion and without the code under test: 0 compact, 1 indented
    by two spaces, 2 ASCII-only with spaces after separators."""
    indent = "  " if style == 1 else ""
    comma, colon = (",", ":") if style == 0 else (", ", ": ") if style == 2 else (",", ": ")

    def scalar(x) -> str:
        return json.dumps(x, ensure_ascii=style == 2)

    out: list[str] = []
    stack: list = [("value", value, 0)]
    while stack:
        kind, item, level = stack.pop()
        if kind == "text":
            out.append(item)
            continue
        if type(item) not in (dict, list) or not item:
            out.append(scalar(item) if type(item) not in (dict, list) else ("{}" if type(item) is dict else "[]"))
            continue
        opening, closing = ("{", "}") if type(item) is dict else ("[", "]")
        inner = "\n" + indent * (level + 1) if indent else ""
        members = list(item.items()) if type(item) is dict else list(enumerate(item))
        todo: list = [("text", opening, level)]
        for i, (key, member) in enumerate(members):
            todo.append(("text", (comma if i else "") + inner, level))
            if type(item) is dict:
                todo.append(("text", scalar(key) + colon, level))
            todo.append(("value", member, level + 1))
        todo.append(("text", ("\n" + indent * level if indent else "") + closing, level))
        stack.extend(reversed(todo))
    return "".join(out).encode()


@pytest.mark.parametrize("seed", range(8))
def test_deep_documents_read_and_write_exactly(seed):
    rng = random.Random(seed)
    levels = rng.choice([1100, 2500, 6000])
    value = deep_value(rng, levels)
    for style in (0, 1, 2) if levels < 2000 else (0, 2):  # (indented text grows with the square of the depth)
        data = text_of(value, style)
        if style == 0:
            assert data == jsonio.dumps(value)  # and writing gives exactly the compact text
        assert same(jsonio.loads(data), value)
    assert same(jsonio.loads(jsonio.dumps(value, indent=True)), value)
    assert same(jsonio.loads(jsonio.dumps(value, sort_keys=True)), value, ordered=False)


@pytest.fixture
def tiny_cuts(monkeypatch):
    """Cut every few levels, so ordinary documents are read and written in many pieces."""
    monkeypatch.setattr(deepjson, "CUT", 3)
    monkeypatch.setattr(deepjson, "WRITE_CUT", 2)


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)  # (the large run: through jsonio in every other test)
def test_every_corpus_file_reads_and_writes_the_same_in_pieces(tiny_cuts, scenario):
    for name in ("events.ndjson", "trace.json", "recording.json"):
        data = read_bytes(scenario, name)
        if name == "events.ndjson":
            data = b"[" + b",".join(line for line in data.splitlines() if line.strip()) + b"]"
        expected = jsonio.loads(data)
        assert same(jsonio.run_deep(lambda data=data: deepjson.loads(data)), expected)
        written = jsonio.run_deep(lambda expected=expected: deepjson.dumps(expected, 0, None))
        assert written == text_of(expected, 0)


@pytest.mark.parametrize("data", [
    b"[" * 3000 + b"1" + b"]" * 2999,                       # cut off
    b"[" * 3000 + b"tru" + b"]" * 3000,                     # a bad literal deep down
    b'{"a":' * 3000 + b'"x\\q"' + b"}" * 3000,              # a bad escape
    b"[" * 3000 + b"1," + b"]" * 3000,                      # a trailing comma
    b"[" * 3000 + b"]" * 3000 + b"]",                       # one bracket too many
])
def test_invalid_deep_documents_get_a_clear_error(data):
    with pytest.raises(jsonio.JSONSyntaxError) as caught:
        jsonio.loads(data)
    assert caught.value.message


def test_a_recording_deeper_than_any_parser_limit_opens_and_converts(tmp_path, capsys):
    tree: dict = {"name": "end"}
    for i in range(4000):
        tree = {"name": f"stage {i}", "next": tree}
    recording = jsonio.loads(read_bytes("07-flow-sequence", "recording.json"))
    recording["snapshot"]["executionTree"] = tree
    path = tmp_path / "deep.json"
    path.write_bytes(jsonio.dumps(recording))
    run = open_run(path)
    assert same(run.snapshot["executionTree"], tree)
    assert cli_main(["stops", str(path)]) == 0
    stops = capsys.readouterr().out
    out = tmp_path / "deep.jsonl"
    assert cli_main(["convert", str(path), "-o", str(out)]) == 0
    capsys.readouterr()
    assert cli_main(["stops", str(out)]) == 0
    assert capsys.readouterr().out == stops
    assert same(open_run(out).snapshot["executionTree"], tree)


def test_a_duplicate_key_keeps_its_last_value_as_parsers_do():
    """A piece cut off under the first of two equal keys: JSON's last one counts, so the piece must not be put
    back there (its placeholder is not where expected) and the standard library decides."""
    outer = deepjson.CUT - 2  # the object sits at depth CUT - 1: the containers under its "a" are cut off
    data = b"[" * outer + b'{"a": ' + b"[" * 100 + b"]" * 100 + b', "a": 1}' + b"]" * outer
    expected: object = {"a": 1}
    for _ in range(outer):
        expected = [expected]
    assert same(jsonio.loads(data), expected)
    assert jsonio.run_deep(lambda: deepjson.loads(data)) is None


def test_a_deep_packed_recording_unpacks(tmp_path):
    """The packed form's references are decoded level by level too (in Python frames, not C ones)."""
    tree: dict = {"name": "end"}
    for i in range(4000):
        tree = {"name": f"stage {i}", "next": tree}
    recording = jsonio.loads(read_bytes("07-flow-sequence", "recording.json"))
    recording["snapshot"]["executionTree"] = {"$af:ref": 0}
    packed = {"format": "agentfootprint.recording.packed.v1", "values": [tree], "recording": recording}
    path = tmp_path / "packed.json"
    path.write_bytes(jsonio.dumps(packed))
    run = open_run(path)
    assert run.format == "recording-packed" and same(run.snapshot["executionTree"], tree)
