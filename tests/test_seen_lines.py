"""The lines the chat user saw during a stop are the lines the chat showed, character for character: an empty
line the chat showed is listed, and a tool's name keeps its underscores."""

from __future__ import annotations

import json

from afp_desktop.core.formats import load_bytes
from afp_desktop.core.model.replay import Replay
from tests.corpus_util import read_bytes

EVENTS = [json.loads(line) for line in read_bytes("02-react-two-tools", "events.ndjson").splitlines() if line.strip()]


def _with_tool_named(name: str):
    events = []
    for event in EVENTS:
        if event["type"] == "agentfootprint.stream.tool_start" and event["payload"]["toolName"] == "get_weather":
            event = {**event, "payload": {**event["payload"], "toolName": name}}
        events.append(event)
    return load_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in events), "events.ndjson").prepare()


def _lines_of_tool_call(run) -> list[str]:
    replay = Replay(run)
    span = next(s for s in replay.spans if s.label == "Tool call 1")
    return list(replay.moment(span.end).bubble.stop_lines)


def test_an_empty_line_the_chat_showed_is_listed():
    # a tool named `progress` reaches the library's "tool.progress" template: {{progressMessage}}, empty here
    run = _with_tool_named("progress")
    replay = Replay(run)
    span = next(s for s in replay.spans if s.label == "Tool call 1")
    shown = [replay.moment(p).bubble.line for p in range(span.start + 1, span.end + 1)]
    assert "" in shown  # the bubble showed an empty line during the tool call
    assert "" in _lines_of_tool_call(run)


def test_a_tool_name_keeps_its_underscores():
    assert _lines_of_tool_call(_with_tool_named("scan_repo"))[0] == "Working on `scan_repo`…"
    assert _lines_of_tool_call(_with_tool_named("scan repo"))[0] == "Working on `scan repo`…"
