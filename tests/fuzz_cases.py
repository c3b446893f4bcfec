"""Structure-aware Hypothesis strategies and the property every hostile file must satisfy (issue 10). Shared by
tests/test_fuzz_hypothesis.py (a bounded run in the suite) and bench/fuzz_long.py (a long run).

A case is a valid corpus document of one format with a few mutations: a member replaced by a value of any JSON
type (huge numbers, lone surrogates, bidi controls, deep nesting), deleted, an event duplicated (same ids), or
one event's ids copied onto another (colliding ids). The property: every JSON command, run in-process, exits 0
with a result (valid JSON for the JSON commands) or 2 with a one-paragraph message, never a traceback, in
bounded time, and the input file's bytes are unchanged."""

from __future__ import annotations

import functools
import json
import os
import tempfile
import time
from typing import Any

from hypothesis import strategies as st

from tests.hostile_inputs import FORMATS, corpus_document, encode, leaf_paths, replaced, run_cli

SCENARIO = "01-llmcall-single"  # the smallest run: many examples per second
HUGE = "\x00huge-number\x00"  # written as a 400-digit integer literal (no Python value gives that text)
DEEP = "\x00deep\x00"
JSON_COMMANDS = (["info", "--json"], ["stepgraph"], ["stops"], ["status"])
TEXT_COMMANDS = (["info"],)
SECONDS_PER_COMMAND = 20.0  # the long run's bound (bench/fuzz_long.py); the suite's tests bound no time

odd_text = st.one_of(st.text(max_size=8), st.sampled_from(["\ud83d", "\ude00", "a\ud83d", "\u202etxt.exe",
                                                            "{{toolName}}", "<b>x</b>", "\x1b[31m", ""]))
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=False, allow_infinity=False), odd_text, st.just(HUGE), st.just(DEEP))
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                            st.dictionaries(odd_text, inner, max_size=3)),
                           max_leaves=6)


@functools.lru_cache(maxsize=None)
def _base(fmt: str, scenario: str = SCENARIO) -> tuple[Any, tuple]:
    document = corpus_document(fmt, scenario)
    return document, tuple(leaf_paths(document, depth=6))


def _event_lists(document: Any) -> list[tuple]:
    """Paths of the lists of events in a document (where duplicates and collisions are made)."""
    found = []
    if isinstance(document, list) and document and isinstance(document[0], dict):
        found.append(())
    for path in leaf_paths(document, depth=4):
        value = document
        for key in path:
            value = value[key]
        if isinstance(value, list) and len(value) > 1 and all(isinstance(v, dict) for v in value[:3]):
            found.append(path)
    return found


def _get(document: Any, path: tuple) -> Any:
    for key in path:
        document = document[key]
    return document


@st.composite
def hostile_documents(draw, fmt: str, scenario: str = SCENARIO) -> tuple[str, Any]:
    document, paths = _base(fmt, scenario)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "duplicate", "collide"]))
        if action in ("duplicate", "collide"):
            lists = _event_lists(document)
            if not lists:
                continue
            where = draw(st.sampled_from(lists))
            items = _get(document, where)
            i = draw(st.integers(0, len(items) - 1))
            j = draw(st.integers(0, len(items) - 1))
            if action == "duplicate":
                document = replaced(document, where, items[: j + 1] + [items[i]] + items[j + 1:])
            elif isinstance(items[i], dict) and isinstance(items[j], dict):
                ids = {k: v for k, v in items[i].items() if "id" in k.lower()}
                document = replaced(document, where + (j,), {**items[j], **ids})
            continue
        path = draw(st.sampled_from(paths))
        try:
            _get(document, path)
        except (KeyError, IndexError, TypeError):  # an earlier mutation removed it
            continue
        if action == "delete":
            document = replaced(document, path, None, delete=True)
        else:
            document = replaced(document, path, draw(json_values))
    return fmt, document


def file_bytes(fmt: str, document: Any, depth: int = 1100) -> bytes:  # (orjson stops at 1024)
    data = encode(fmt, document)
    data = data.replace(json.dumps(HUGE).encode(), b"1" + b"0" * 400)
    return data.replace(json.dumps(DEEP).encode(), b"[" * depth + b"]" * depth)


def check_file(data: bytes, suffix: str, commands=None, max_seconds: float | None = None) -> None:
    """The property, for one file: see the module's docstring (with `max_seconds`, each command's time bounded
    too). Raises AssertionError naming what failed."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "case" + suffix)
        with open(path, "wb") as handle:
            handle.write(data)
        out_path = os.path.join(folder, "out.jsonl")
        for command in commands or (*JSON_COMMANDS, *TEXT_COMMANDS, ["convert", "-o", out_path]):
            started = time.monotonic()
            code, out, err = run_cli([command[0], path, *command[1:]])
            elapsed = time.monotonic() - started
            assert "Traceback" not in err and "internal error" not in err, (command, err)
            assert code in (0, 2), (command, code, err)
            assert max_seconds is None or elapsed < max_seconds, (command, elapsed)
            if code == 2:
                assert err.startswith("afp-desktop: ") and "\n\n" not in err.strip(), (command, err)
                assert err.strip().count("\n") <= 2, (command, err)  # a message, not a dump
            elif command in JSON_COMMANDS:
                json.loads(out)  # a result, valid JSON (lone surrogates escaped as JSON.stringify does)
            elif command[0] == "convert":
                code2, _, err2 = run_cli(["info", "--json", out_path])  # our own output reads back
                assert code2 == 0, err2
            with open(path, "rb") as handle:
                assert handle.read() == data, f"{command} changed the input file"
            assert sorted(os.listdir(folder)) in (["case" + suffix], ["case" + suffix, "out.jsonl"]), \
                os.listdir(folder)


def suffix_of(fmt: str) -> str:
    return ".jsonl" if fmt in ("ndjson", "lossless") else ".json"


__all__ = ["FORMATS", "hostile_documents", "file_bytes", "check_file", "suffix_of", "json_values"]
