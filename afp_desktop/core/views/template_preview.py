"""What a status template looks like, for the template editor's preview (pure, no Qt).

The template is cut into segments: plain text, a placeholder the key can fill (shown with a sample value),
a placeholder it can never fill (shown literally, marked: the real renderer would print nothing there), and
a placeholder written with spaces (the renderer leaves it as typed). The editor draws the segments as plain
text with formats, so a template is never interpreted as markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from afp_desktop.core.library.status import variables_for_template_key
from afp_desktop.core.library.template_render import LINE_ALLOWANCE

_ANY_PLACEHOLDER = re.compile(r"\{\{(\s*)([A-Za-z0-9_]+)(\s*)\}\}")

SAMPLE_VALUES = {  # what a placeholder stands for in the preview
    "toolName": "search_docs",
    "toolCallId": "call_1",
    "progressCount": "3",
    "progressMessage": "Read 3 of 10 pages",
    "partial": "Here is what I found so far",
    "question": "Shall I go on?",
}


@dataclass(frozen=True)
class Segment:
    kind: str  # "text" | "value" | "unknown" | "spaced"
    text: str  # what the preview shows
    name: str | None = None  # the placeholder's variable


def preview_segments(key: str, template: str, app_name: str = "Agent",
                     samples: dict[str, str] | None = None) -> list[Segment]:
    available = set(variables_for_template_key(key))
    values = {**SAMPLE_VALUES, **(samples or {}), "appName": app_name}
    segments: list[Segment] = []
    at = 0
    for match in _ANY_PLACEHOLDER.finditer(template):
        if match.start() > at:
            segments.append(Segment("text", template[at:match.start()]))
        name = match.group(2)
        if match.group(1) or match.group(3):
            segments.append(Segment("spaced", match.group(0), name))
        elif name in available:
            segments.append(Segment("value", values.get(name, name), name))
        else:
            segments.append(Segment("unknown", match.group(0), name))
        at = match.end()
    if at < len(template):
        segments.append(Segment("text", template[at:]))
    return _within_budget(segments)


def _within_budget(segments: list[Segment]) -> list[Segment]:
    """The segments cut as a rendered line is (template_render): each value once plus LINE_ALLOWANCE characters,
    then `… (+N more)`, so that a template repeating a long app name does not preview as gigabytes."""
    budget = sum(len(text) for text in {s.text for s in segments if s.kind == "value"}) + LINE_ALLOWANCE
    total = sum(len(s.text) for s in segments)
    if total <= budget:
        return segments
    kept: list[Segment] = []
    length = 0
    for segment in segments:
        if length + len(segment.text) >= budget:
            kept.append(replace(segment, text=segment.text[:budget - length]))
            break
        kept.append(segment)
        length += len(segment.text)
    kept.append(Segment("text", f"\u2026 (+{total - budget} more)"))
    return kept
