"""The ids of one StepGraph node that the inspector shows with a copy button. Pure, no Qt.

    step_ids(run, index) -> [StepId("id", "step id", "step-llm-start-call-llm#18-1"),
                             StepId("stage id", "stage id", "call-llm#18"), ...]

Each value is the id exactly as the file holds it (untrusted text: the window shows it as plain text and copies
it as given). Only ids the file has are listed; the order is the inspector header's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from afp_desktop.core.jsonx import jsonio

RUN_ID_LOOKBACK = 200  # typed events searched backwards for a runId when the step's event mirrors none


@dataclass(frozen=True)
class StepId:
    label: str   # the row's label in the inspector header
    what: str    # what the copy button copies, in words: "Copy <what>", "Copied <what> <value>"
    value: str   # the exact id


def _text(value: Any) -> str | None:
    """An id as text: strings as they are, numbers written out; anything else (objects, booleans) is no id."""
    if isinstance(value, str):
        return value if value else None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def creating_event(run, index: int) -> tuple[int, dict]:
    """(domain index, DomainEvent) that created node `index` (an empty dict when the event is not an object)."""
    at = run.step_fold.node_created_at[index]
    event = run.domain_events[at]
    return at, event if isinstance(event, dict) else {}


def event_number(run, domain_index: int) -> int | None:
    """The 1-based number of DomainEvent `domain_index` in the Events list (axis order, as the list numbers it)."""
    after = run.axis.domain_after
    return after[domain_index] if 0 <= domain_index < len(after) else None


def run_id_at(run, domain_index: int) -> str | None:
    """The `meta.runId` of the run (leg) that was running when DomainEvent `domain_index` fired: that of the typed
    event it mirrors, else of the closest typed event before it. A resumed run has a new id per leg."""
    typed = run.typed_events or []
    if not typed:
        return None
    anchors = run.axis.anchors
    anchor = anchors[domain_index] if 0 <= domain_index < len(anchors) else None
    if anchor is None:
        number = event_number(run, domain_index)
        anchor = run.axis.typed_before[number] - 1 if number is not None else None
    if anchor is None:
        return None
    for j in range(min(anchor, len(typed) - 1), max(-1, anchor - RUN_ID_LOOKBACK), -1):
        meta = typed[j].get("meta") if isinstance(typed[j], dict) else None
        run_id = _text(meta.get("runId")) if isinstance(meta, dict) else None
        if run_id is not None:
            return run_id
    return None


def subflow_path_text(path: Any) -> str | None:
    """The subflow path as the inspector writes it: `__root__ / sf-research`."""
    return " / ".join(map(jsonio.text_of, path)) if isinstance(path, list) and path else None


def step_ids(run, index: int) -> list[StepId]:
    node = run.step_fold.nodes[index]
    at, event = creating_event(run, index)
    stage = node.get("runtimeStageId", event.get("runtimeStageId"))
    number = event_number(run, at)
    found = [
        ("id", "step id", _text(node.get("id"))),
        ("stage id", "stage id", _text(stage)),
        ("call id", "tool call id", _text(event.get("toolCallId")) if node.get("kind") == "llm->tool" else None),
        ("path", "subflow path", subflow_path_text(node.get("subflowPath"))),
        ("event", "event number", None if number is None else str(number)),
        ("run id", "run id", run_id_at(run, at)),
    ]
    return [StepId(label, what, value) for label, what, value in found if value is not None]
