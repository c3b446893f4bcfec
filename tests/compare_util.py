"""Runs for the compare tests: corpus runs, and corpus Traces edited to make an extra tool call or iteration."""

from __future__ import annotations

import copy
import re

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.formats import load_bytes
from tests.corpus_util import corpus_path, load_json

REACT = "02-react-two-tools"


def open_corpus(scenario: str, name: str = "trace.json"):
    from afp_desktop.core.formats import open_run

    return open_run(corpus_path(scenario, name)).prepare()


def run_from_trace(trace: dict, name: str = "edited.json"):
    return load_bytes(jsonio.dumps(trace), name).prepare()


def _index(events: list, **match) -> int:
    return next(i for i, e in enumerate(events) if all(e.get(k) == v for k, v in match.items()))


def trace_with_extra_tool_call() -> dict:
    """02-react-two-tools where the first LLM turn's tool call is followed by a second one (tc-extra)."""
    trace = load_json(REACT, "trace.json")
    events = trace["events"]
    end = _index(events, type="tool.end", toolCallId="tc-weather")
    start = copy.deepcopy(events[end - 1])
    finish = copy.deepcopy(events[end])
    start.update(toolCallId="tc-extra", args={"city": "Bergen"})
    finish.update(toolCallId="tc-extra", result="Bergen: 12°C, drizzle")
    events[end + 1:end + 1] = [start, finish]
    return trace


def _renumbered(value):
    """A copied stage id or path made unique: "call-llm#40" → "call-llm#940" (the stage name stays)."""
    if isinstance(value, str):
        return re.sub(r"#(\d+)", r"#9\1", value)
    if isinstance(value, list):
        return [_renumbered(v) for v in value]
    return value


def trace_with_extra_iteration() -> dict:
    """02-react-two-tools with its second iteration (context, LLM turn, convert_units call) run twice."""
    trace = load_json(REACT, "trace.json")
    events = trace["events"]
    first = _index(events, type="tool.end", toolCallId="tc-weather") + 2  # after the loop.iteration edge
    last = _index(events, type="tool.end", toolCallId="tc-convert") + 1  # its loop.iteration edge too
    extra = copy.deepcopy(events[first:last + 1])
    for event in extra:
        for key in ("runtimeStageId", "subflowPath"):
            if key in event:
                event[key] = _renumbered(event[key])
        if event.get("toolCallId") == "tc-convert":
            event["toolCallId"] = "tc-convert-again"
            if event["type"] == "tool.start":
                event["args"] = {"celsius": 19}
    events[last + 1:last + 1] = extra
    return trace
