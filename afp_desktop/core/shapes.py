"""The shapes of the data the core passes around, as TypedDicts: documentation a type checker can read.

Files are untrusted, so every reader still checks each field it uses (`isinstance`); these types say what a field
holds when it is what the library writes (PROJECTIONS.md §2, §3, §5.4). `total=False`: any key may be absent.
"""

from __future__ import annotations

from typing import Any, TypedDict


class EventMeta(TypedDict, total=False):
    """`meta` of a typed event (§2.2)."""

    wallClockMs: float
    runOffsetMs: float
    runtimeStageId: str
    subflowPath: list[str]
    compositionPath: list[str]
    runId: str


class TypedEvent(TypedDict, total=False):
    """One line of the file sink's NDJSON: `agentfootprint.<domain>.<action>` (§2.1)."""

    type: str
    payload: Any
    meta: EventMeta


class DomainEvent(TypedDict, total=False):
    """One entry of the boundary log (a Trace's `events`, §2.5): run.entry/exit, subflow.entry/exit,
    fork.branch, decision.branch, loop.iteration, llm.start/end, tool.start/end, context.injected, ..."""

    type: str
    runtimeStageId: str
    subflowPath: list[str]
    depth: int
    ts: float
    commitIdxBefore: int
    commitIdxAfter: int
    payload: Any
    toolCallId: str
    toolName: str
    args: Any
    result: Any
    error: bool
    usage: dict[str, Any]
    content: str
    stopReason: str


class StepNode(TypedDict, total=False):
    """A StepGraph node (§3): one card of the graph."""

    id: str
    kind: str  # subflow | user->llm | tool->llm | llm->tool | llm->user | fork-branch | decision-branch
    label: str
    startOffsetMs: float
    endOffsetMs: float
    subflowPath: list[str]
    runtimeStageId: str
    iterationIndex: int
    llmModel: str
    toolName: str
    toolArgs: Any
    toolResult: Any
    assistantText: str
    tokens: dict[str, Any]
    injections: list[dict[str, Any]]
    slotBoundaries: dict[str, Any]
    entryPayload: Any
    exitPayload: Any
    primitiveKind: str


class StepEdge(TypedDict, total=False):
    id: str
    kind: str  # next | loop-iteration
    iteration: int


StepEdge.__annotations__["from"] = str  # (reserved words as keys)
StepEdge.__annotations__["to"] = str


class StepGraph(TypedDict, total=False):
    nodes: list[StepNode]
    edges: list[StepEdge]
    activeNodeId: str  # the subflow still open at the end of the events (a live or cut-off run)


class StopDict(TypedDict, total=False):
    """A milestone stop (§5.4), placed on the run's axis (positions.py adds axisStart/axisEnd)."""

    step: int
    runtimeStageId: str
    commitIdx: int
    lastCommitIdx: int
    eventIdx: int           # derived stops (no commit log): event indices instead of commits
    lastEventIdx: int
    stageId: str
    subflowPath: list[str]
    label: str
    kind: str               # start | mount | commit | end
    meta: dict[str, Any]
    derived: bool
    axisStart: int
    axisEnd: int
    approximate: bool
