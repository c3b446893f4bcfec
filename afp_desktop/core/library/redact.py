"""The library's ready-made content redactor (`redactContent`, PROJECTIONS.md §7.2), for DomainEvents.

Returns the same object when nothing changes. Lengths are JavaScript lengths (UTF-16 code units).
"""

from __future__ import annotations

from afp_desktop.core.library.jsstring import js_length

_MARKER = "[redacted]"
_FIELD_BY_TYPE = {
    "tool.start": "args", "tool.end": "result", "context.injected": "contentSummary",
    "run.entry": "payload", "run.exit": "payload", "subflow.entry": "payload", "subflow.exit": "payload",
    "decision.branch": "rationale",
}


def redact_content(event: dict) -> dict:
    etype = event.get("type")
    if etype == "llm.end":
        content = event.get("content")
        if not isinstance(content, str):
            return event  # a lean event has no content; the TypeScript would throw, we leave it unchanged
        return {**event, "content": f"[{js_length(content)} chars]"}
    field = _FIELD_BY_TYPE.get(etype) if isinstance(etype, str) else None
    if field is not None and field in event:
        return {**event, field: _MARKER}
    return event
