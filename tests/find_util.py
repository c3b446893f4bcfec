"""Runs made for the Find tests: a small synthetic NDJSON stream with as many events as a test needs."""

from __future__ import annotations


def write_many_calls(path, calls: int, result=lambda i: f"result {i}: " + "e" * 40) -> str:
    """A small synthetic NDJSON stream with many events: one turn of `calls` tool calls."""
    from afp_desktop.core.jsonx import jsonio

    def event(i, kind, payload):
        return jsonio.dumps({"type": f"agentfootprint.{kind}", "payload": payload,
                             "meta": {"wallClockMs": i, "runtimeStageId": f"s#{i}", "subflowPath": [], "runId": "r"}})

    lines = [event(0, "agent.turn_start", {"userPrompt": "probe every shard"})]
    for i in range(calls):
        lines.append(event(2 * i + 1, "stream.tool_start", {"toolName": "probe", "toolCallId": f"c{i}",
                                                             "args": {"shard": i}}))
        lines.append(event(2 * i + 2, "stream.tool_end", {"toolCallId": f"c{i}", "result": result(i)}))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return str(path)
