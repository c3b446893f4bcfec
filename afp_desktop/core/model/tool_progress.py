"""Where each tool call reported progress: typed-event indices of `stream.tool_progress`, by toolCallId."""

from __future__ import annotations

from typing import Any
from afp_desktop.core.breathing import breathing_over

PROGRESS_TYPE = "agentfootprint.stream.tool_progress"


def progress_reports_by_call(run) -> dict[Any, list[int]]:
    """Typed-event indices of every `stream.tool_progress`, grouped by toolCallId (built once per run)."""
    by_call: dict[Any, list[int]] = {}
    typed = run.typed_events or []
    for j in breathing_over(run.typed_by_type.get(PROGRESS_TYPE, ())):
        payload = typed[j].get("payload")
        if isinstance(payload, dict):
            call_id = payload.get("toolCallId")
            if isinstance(call_id, (str, int, float)):
                by_call.setdefault(call_id, []).append(j)
    return by_call
