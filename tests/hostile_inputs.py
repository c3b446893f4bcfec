"""Structure-aware hostile inputs for every format, and an in-process CLI runner (shared by the fuzz tests and
bench/fuzz_long.py). Documents are written by jsonio.dumps, which writes what orjson refuses (lone surrogates,
integers past 64 bits) as JSON.stringify does, at any depth."""

from __future__ import annotations

import contextlib
import io
import sys
from typing import Any, Iterator

from afp_desktop import cli
from afp_desktop.core.jsonx import jsonio
from tests.corpus_util import read_bytes

# Every JSON type, and the awkward values of each.
ODD_VALUES: list[Any] = [None, True, False, 0, -1, 2**64 + 1, -(2**70), 1e308, -0.0, 1.5, "", "x", "\ud83d",
                         "\u202e", [], [None], [1, "a"], {}, {"type": 3}, {"a": {"b": []}}]
FORMATS = ("ndjson", "jq-stream", "trace", "trace-redacted", "recording", "envelope", "packed", "event-list",
           "lossless")
COMMANDS = (["info", "--json"], ["info"], ["stepgraph"], ["stops"], ["status"])


def corpus_document(fmt: str, scenario: str = "02-react-two-tools") -> Any:
    """The parsed source document of a format ("ndjson" and "event-list": the list of typed events)."""
    if fmt in ("ndjson", "jq-stream", "event-list"):
        return [jsonio.loads(line) for line in read_bytes(scenario, "events.ndjson").splitlines() if line.strip()]
    if fmt == "trace":
        return jsonio.loads(read_bytes(scenario, "trace.json"))
    if fmt == "trace-redacted":
        return jsonio.loads(read_bytes(scenario, "trace.redacted.json"))
    recording = jsonio.loads(read_bytes(scenario, "recording.json"))
    if fmt == "recording":
        return recording
    if fmt == "envelope":
        return {"format": "agentfootprint.recording.v1", "run": {"complete": True}, "recording": recording}
    if fmt == "packed":
        return pack(recording)
    if fmt == "lossless":
        return lossless_parts(recording)
    raise ValueError(fmt)


def pack(recording: Any) -> dict:
    """A packed recording v1: every string longer than 20 characters becomes a shared `$af:ref` value."""
    values: list = []
    index: dict[str, int] = {}

    def encode(node):
        if isinstance(node, str) and len(node) > 20:
            if node not in index:
                index[node] = len(values)
                values.append(node)
            return {"$af:ref": index[node]}
        if isinstance(node, list):
            return [encode(x) for x in node]
        if isinstance(node, dict):
            inner = {k: encode(v) for k, v in node.items()}
            return {"$af:esc": inner} if len(node) == 1 and next(iter(node)) in ("$af:ref", "$af:esc") else inner
        return node

    return {"format": "agentfootprint.recording.packed.v1", "values": values, "recording": encode(recording)}


def lossless_parts(recording: dict) -> list:
    """The lines of afp-desktop's lossless form of a recording, as values (header, skeleton, items)."""
    events = recording.get("events", [])
    skeleton = {**recording, "events": []}
    header = {"format": "afp-desktop.run.v1", "producer": "test", "notes": [],
              "source": {"format": "recording", "storedAs": "recording", "name": "r.json"},
              "streams": [{"path": ["events"], "count": len(events)}]}
    return [header, {"document": skeleton}, *({"s": 0, "v": e} for e in events)]


def encode(fmt: str, document: Any) -> bytes:
    """The file's bytes for a (possibly mutated) document of a format."""
    if fmt == "ndjson" or fmt == "lossless":
        items = document if isinstance(document, list) else [document]
        return b"".join(jsonio.dumps(v) + b"\n" for v in items)
    if fmt == "jq-stream":  # one event after another over several lines each, as `jq .` prints them
        items = document if isinstance(document, list) else [document]
        return b"".join(jsonio.dumps(v, indent=True) + b"\n" for v in items)
    return jsonio.dumps(document)


def leaf_paths(value: Any, prefix: tuple = (), depth: int = 5) -> Iterator[tuple]:
    """Paths (keys and indexes) to every member down to `depth` levels."""
    if depth == 0:
        return
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield prefix + (key,)
        yield from leaf_paths(child, prefix + (key,), depth - 1)


def replaced(document: Any, path: tuple, value: Any, delete: bool = False) -> Any:
    """A copy of `document` with the member at `path` replaced (or deleted), copying only along the path."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = dict(document) if isinstance(document, dict) else list(document)
    if rest:
        copy[head] = replaced(document[head], rest, value, delete)
    elif delete:
        del copy[head]
    else:
        copy[head] = value
    return copy


def run_cli(argv: list[str]) -> tuple[int, bytes, str]:
    """cli.main in-process with stdout and stderr captured: (exit code, stdout bytes, stderr text)."""
    out = io.BytesIO()
    err = io.StringIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 2
        sys.stdout.flush()
    text = err.getvalue()
    assert "internal error" not in text, text  # cli.main's last-resort message: a bug, not a hostile file's fault
    return code, out.getvalue(), text
