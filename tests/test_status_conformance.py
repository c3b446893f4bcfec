"""The status line over every corpus run matches agentfootprint's own output for every prefix (ref.status.json):
the selected state, the line rendered with the default templates, and with custom-templates.json as the whole
map, both with the app name "Ada"."""

from __future__ import annotations

import pytest

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.library.status import render_status_line, status_timeline
from tests.corpus_util import CUSTOM_TEMPLATES, load_json, read_bytes

APP_NAME = "Ada"


def load_events(scenario: str) -> list:
    """events.ndjson: one JSON object per non-empty line."""
    return [jsonio.loads(line) for line in read_bytes(scenario, "events.ndjson").splitlines() if line.strip()]


def canonical(value) -> bytes:
    """JSON equality: same JSON text with sorted keys (keeps 1, 1.0 and true apart, unlike ==)."""
    return jsonio.dumps(value, sort_keys=True)


def test_status_matches_reference_for_every_prefix(scenario):
    events = load_events(scenario)
    reference = load_json(scenario, "ref.status.json")
    custom_templates = jsonio.loads(CUSTOM_TEMPLATES.read_bytes())
    timeline = status_timeline(events)
    assert len(timeline) == len(events) + 1 == len(reference)

    for k, (state, expected) in enumerate(zip(timeline, reference)):
        assert expected["k"] == k
        actual = {
            "k": k,
            "state": state,
            "line_default": render_status_line(state, APP_NAME),
            "line_custom": render_status_line(state, APP_NAME, custom_templates),
        }
        if canonical(actual) != canonical(expected):
            pytest.fail(
                f"{scenario}: first difference at k={k} (after event {events[k - 1]['type'] if k else '-'})\n"
                f"  expected {canonical(expected).decode()}\n  actual   {canonical(actual).decode()}"
            )
