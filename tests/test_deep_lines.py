"""A stream line nested deeper than orjson goes (1,024 levels) is valid JSON that JSON.parse reads, so the stream
loads with it — opened whole and followed live alike (it was refused with "depth limit exceeded")."""

from __future__ import annotations

import json

from afp_desktop.core.formats import load_bytes
from afp_desktop.core.formats.follow import Line, parse_lines
from tests.corpus_util import read_bytes

DEPTH = 3_000


def _depth(value) -> int:
    depth = 0
    while isinstance(value, list) and value:
        value, depth = value[0], depth + 1
    return depth


def _stream() -> tuple[bytes, int]:
    lines = read_bytes("02-react-two-tools", "events.ndjson").splitlines()
    index = next(i for i, line in enumerate(lines) if b"stream.tool_end" in line)
    event = json.loads(lines[index])
    text = json.dumps(event).replace(json.dumps(event["payload"]["result"]), "[" * DEPTH + "1" + "]" * DEPTH, 1)
    lines[index] = text.encode()
    return b"\n".join(lines) + b"\n", index


def test_a_deeply_nested_line_loads():
    data, index = _stream()
    run = load_bytes(data, "events.ndjson")
    assert len(run.typed_events) == len(data.splitlines())
    assert _depth(run.typed_events[index]["payload"]["result"]) == DEPTH


def test_following_reads_it_too():
    data, index = _stream()
    lines = [Line("events.ndjson", n + 1, raw) for n, raw in enumerate(data.splitlines())]
    lines.append(Line("events.ndjson", len(lines) + 1, b'{"type":"x","payload":{"m":"\\ud83d"}}'))
    events, notices = parse_lines(lines)
    assert not notices and len(events) == len(lines)
    assert _depth(events[index]["payload"]["result"]) == DEPTH
    assert events[-1]["payload"]["m"] == "\ud83d"  # a lone surrogate escape, as JSON.parse keeps it


def test_the_windows_copy_of_a_run_with_a_deep_line_is_made_whole_and_kept(tmp_path):
    """The copy sent to the window pickles the events it keeps (here the deep one, last) and, made whole, the run:
    the pickler recurses into nested values, past Python's recursion limit at this depth."""
    import io

    from afp_desktop.core.views.window_copy import load_with_stand_ins, whole_run, window_copy, write_window_copy
    from afp_desktop.engine.service import load_run

    data, index = _stream()
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"\n".join(data.splitlines()[:index + 1]) + b"\n")  # (the deep event last: the copy keeps it)
    run = load_run(str(path))
    out = io.BytesIO()
    write_window_copy(run, out)
    shown = load_with_stand_ins(io.BytesIO(out.getvalue()))
    assert _depth(shown.typed_events[-1]["payload"]["result"]) == DEPTH
    assert _depth(whole_run(window_copy(run)).typed_events[-1]["payload"]["result"]) == DEPTH
