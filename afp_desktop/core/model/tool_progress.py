"""Where each tool call reported progress: typed-event indices of `stream.tool_progress`, by toolCallId."""

from __future__ import annotations

from typing import Any
from afp_desktop.core.breathing import breathing_over

PROGRESS_TYPE = "agentfootprint.stream.tool_progress"


def progress_reports_by_call(run) -> dict[Any, list[int]]:
    """Typed-event indices of every `stream.tool_progress`, grouped by toolCallId (built once per run)."""
    by_call: dict[Any, list[int]] = {}
    for j, event in enumerate(breathing_over(run.typed_events or [])):
        payload = event.get("payload") if isinstance(event, dict) else None
        if event.get("type") == PROGRESS_TYPE and isinstance(payload, dict):
            call_id = payload.get("toolCallId")
            if isinstance(call_id, (str, int, float)):
                by_call.setdefault(call_id, []).append(j)
    return by_call
