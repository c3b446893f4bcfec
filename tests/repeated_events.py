"""Event streams made of one real event repeated: the same tool call started over and over (one id, many times)."""

from __future__ import annotations

from tests.corpus_util import read_bytes

TOOL_START = "agentfootprint.stream.tool_start"


def first_line_of_type(scenario: str, event_type: str) -> bytes:
    """The first line of the scenario's events.ndjson whose event has this type (as it is in the file)."""
    needle = b'"type":"' + event_type.encode() + b'"'
    for line in read_bytes(scenario, "events.ndjson").splitlines():
        if needle in line:
            return line
    raise LookupError(f"{scenario} has no {event_type} event")


def repeated_tool_start(count: int) -> bytes:
    """An NDJSON stream of one `stream.tool_start` (same toolCallId, same stage) written `count` times."""
    return (first_line_of_type("03-parallel-tool-batch", TOOL_START) + b"\n") * count
