# Names vulture reports as unused that are used all the same (tests/test_dead_code.py runs vulture with this
# file). Each line says why; anything else vulture finds is dead code to remove.
# ruff: noqa
from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# Qt calls these overrides itself.
_.mouseClickEvent, _.mouseMoveEvent, _.dragMoveEvent, _.dropEvent, _.drawForeground, _.headerData, _.createEditor
_.paint  # QGraphicsItem.paint(painter, option, widget)

# Kept alive or read by what they serve.
_.show_playing, _.show_speed  # the panel hub calls them by name (app/panels/panel.py OPTIONAL_CALLS)
_.at_message  # what moving to a linked stop said (the stop-link tests read it)
_._previous_fd, _._previous  # the signal handlers to restore
__getattr__, __dir__  # the core's lazy front door (PEP 562)
trace_summary  # a Trace's own summary, kept with the run
typed_index  # a finding's typed event

# The library's conventions, ported whole (core/library/conventions.py mirrors the spec's tables).
RECEIPT_KEY, is_known_stage, TRAVERSAL_DOMAIN_TYPES

# TypedDict fields of the file shapes (core/shapes.py): the names of the JSON the library writes.
wallClockMs, runOffsetMs, runtimeStageId, subflowPath, compositionPath, runId, TypedEvent, DomainEvent
commitIdxBefore, commitIdxAfter, toolCallId, toolName, stopReason, startOffsetMs, endOffsetMs, iterationIndex
llmModel, toolArgs, toolResult, assistantText, slotBoundaries, entryPayload, exitPayload, primitiveKind
activeNodeId, commitIdx, lastCommitIdx, eventIdx, lastEventIdx, stageId, axisStart, axisEnd
