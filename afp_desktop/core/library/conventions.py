"""agentfootprint's id conventions: one table of constants and the small readers built on it.

Pure Python, no Qt. Where each piece comes from (the shared spec, PROJECTIONS.md):

* §4.1 SUBFLOW_IDS (12 in v9.62 + the newer ``sf-inputs`` / ``sf-results``)
* §4.2 STAGE_IDS (21 in v9.62 + the newer inputs/results/answer-layer ids), RECEIPT_KEY
* §4.3 RESERVED_SUBFLOW_PREFIX, agent-name resolution (``agent_name_for_path``)
* §2.3 capture-time tags: AGENT_INTERNAL_IDS / ``is_agent_internal``, ``primitive_kind_from_description``
* §4.4 id grammar: ``parse_runtime_stage_id``, ``split_stage_id``
* §4.5 slot helpers and INJECTION_KEYS
* §4.6 ``stage_role``          (local segment after the last '/', ``#n`` NOT stripped)
* §4.7 ``milestone_for``       (cut at the FIRST '#', then the last '/' segment)
* §4.8 milestone tags: MILESTONE_KINDS, ``milestone_tags_for``, ``milestone_from_tags``
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# --- §4.1 / §4.2 ----------------------------------------------------------------------------------------------

SUBFLOW_IDS: dict[str, str] = {
    "INJECTION_ENGINE": "sf-injection-engine",
    "LLM_CALL": "sf-llm-call",
    "SYSTEM_PROMPT": "sf-system-prompt",
    "MESSAGES": "sf-messages",
    "TOOLS": "sf-tools",
    "ROUTE": "sf-route",
    "TOOL_CALLS": "sf-tool-calls",
    "MERGE": "sf-merge",
    "FINAL": "final",  # the Route branch key doubles as the mount id, hence no "sf-"
    "CACHE": "sf-cache",
    "CACHE_DECISION": "sf-cache-decision",
    "THINKING": "sf-thinking",
    "INPUTS": "sf-inputs",  # newer: inputs layer (armed only)
    "RESULTS": "sf-results",  # newer: results layer (armed only)
}

STAGE_IDS: dict[str, str] = {
    "SEED": "seed",
    "PICK_ENTRY": "pick-entry",
    "CONTEXT": "context",
    "CLIENT": "client",
    "CALL_LLM": "call-llm",
    "EXTRACT_FINAL": "extract-final",
    "FINAL": "final",
    "OUTPUT_RETRY": "output-retry",
    "STEP_NUDGE": "step-nudge",
    "EVIDENCE_RECHECK": "evidence-recheck",
    "NEGATIVE_RECHECK": "negative-recheck",  # newer
    "WRAP_UP": "wrap-up",
    "PREPARE_FINAL": "prepare-final",  # newer (a milestone since 9.98.1; kind/label unknown, read from tags)
    "FORMAT_MERGE": "format-merge",
    "MERGE_LLM": "merge-llm",
    "EXTRACT_MERGE": "extract-merge",
    "COMPACT": "compact",
    "DELIVER": "deliver",
    "UPDATE_SKILL_HISTORY": "update-skill-history",
    "CACHE_GATE": "cache-gate",
    "APPLY_MARKERS": "apply-markers",
    "SKIP_CACHING": "no-markers",
    "BUILD_LLM_REQUEST": "build-llm-request",
    # newer: the inputs / results / answer layers
    "DECLARE_ARGUMENTS": "declare-arguments",
    "VERIFY_ARGUMENTS": "verify-arguments",
    "RECORD_ARGUMENTS": "record-arguments",
    "RESOLVE_ARGUMENTS": "resolve-arguments",
    "DECLARE_RESULTS": "declare-results",
    "VERIFY_RESULTS": "verify-results",
    "RECORD_RESULTS": "record-results",
    "RESOLVE_RESULTS": "resolve-results",
    "ASSESS_ANSWER": "assess-answer",
}

RECEIPT_KEY = "receipt"
ROOT_SEGMENT = "__root__"

_SUBFLOW_ID_VALUES = frozenset(SUBFLOW_IDS.values())
_STAGE_ID_VALUES = frozenset(STAGE_IDS.values())


def is_known_subflow(id_: str) -> bool:
    return id_ in _SUBFLOW_ID_VALUES


def is_known_stage(id_: str) -> bool:
    return id_ in _STAGE_ID_VALUES

# --- §4.3 reserved prefix and agent names ---------------------------------------------------------------------

RESERVED_SUBFLOW_PREFIX = "sf-"


def is_reserved_subflow_segment(segment: str) -> bool:
    return segment.startswith(RESERVED_SUBFLOW_PREFIX)


def agent_name_for_path(subflow_path: Iterable[str] | str | None, app_name: str) -> str:
    """The user-facing agent name for a ``meta.subflowPath`` (§4.3).

    Walks right to left, skipping library plumbing (``sf-*``, ``thinking-*``, ``final``) and the root segment
    ``__root__`` (so a DomainEvent path works too); the first remaining segment, minus a leading ``step-``, wins.
    A string path is split on '/'. No usable segment → ``app_name``.
    """
    segments = subflow_path.split("/") if isinstance(subflow_path, str) else list(subflow_path or [])
    for segment in reversed(segments):
        if not isinstance(segment, str) or not segment or segment == ROOT_SEGMENT:
            continue
        if segment.startswith((RESERVED_SUBFLOW_PREFIX, "thinking-")) or segment == SUBFLOW_IDS["FINAL"]:
            continue
        return segment[len("step-"):] if segment.startswith("step-") else segment
    return app_name


# --- §2.3 capture-time tags -----------------------------------------------------------------------------------

# A CLOSED list (v9.62 + the newer sf-inputs / sf-results): "every sf- id" is NOT internal.
AGENT_INTERNAL_IDS: frozenset[str] = frozenset({
    "sf-injection-engine", "sf-llm-call", "sf-route", "sf-tool-calls", "final", "sf-merge", "sf-cache",
    "sf-cache-decision", "sf-thinking", "cache-gate", "client", "extract-final",
    "sf-inputs", "sf-results",
})


def _local(id_: str) -> str:
    """The segment after the last '/'."""
    return id_.rsplit("/", 1)[-1]


def is_agent_internal(local_id: str) -> bool:
    """True for library plumbing the StepGraph hides. A path-qualified id is reduced to its last segment."""
    local = _local(local_id)
    return local in AGENT_INTERNAL_IDS or local.startswith("thinking-")


# JavaScript's String.prototype.trim set (Python's str.strip() also eats \x1c-\x1f and \x85, JS does not).
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    return text.strip(_JS_WHITESPACE)


def primitive_kind_from_description(desc: Any) -> str | None:
    """The text before the first ':' of a build-time description, trimmed (§2.3, §8 E7).

    None when there is no ':', when ':' is the first character, or when the trimmed prefix is empty. Any prefix
    is accepted here ("Subflow"); the known set is applied later by the StepGraph.
    """
    if not isinstance(desc, str):
        return None
    colon = desc.find(":")
    if colon <= 0:
        return None
    return js_trim(desc[:colon]) or None


# --- §4.4 id grammar ------------------------------------------------------------------------------------------

_JS_PARSE_INT = re.compile(r"[+-]?\d+")


def _js_parse_int(text: str) -> int | None:
    """JavaScript parseInt(text, 10): leading whitespace, optional sign, leading digits; None for NaN."""
    match = _JS_PARSE_INT.match(js_trim(text))
    return int(match.group()) if match else None


def parse_runtime_stage_id(rid: str) -> tuple[str | None, str, int | None]:
    """footprintjs parseRuntimeStageId: ``(subflow_path or None, local stage id, execution index)``.

    Splits at the LAST '#' (no '#' → the whole string is the stage id, index 0, no path — even if it has a '/'),
    then the part before at the LAST '/'. The index follows JS parseInt: ``"x#7b"`` → 7, ``"x#"`` → None (NaN).
    """
    hash_at = rid.rfind("#")
    if hash_at == -1:
        return None, rid, 0
    before = rid[:hash_at]
    index = _js_parse_int(rid[hash_at + 1:])
    slash = before.rfind("/")
    if slash == -1:
        return None, before, index
    return before[:slash], before[slash + 1:], index


def split_stage_id(prefixed_stage_id: str) -> tuple[str | None, str]:
    """footprintjs splitStageId (no '#' expected): ``(subflow_path or None, local stage id)``."""
    slash = prefixed_stage_id.rfind("/")
    if slash == -1:
        return None, prefixed_stage_id
    return prefixed_stage_id[:slash], prefixed_stage_id[slash + 1:]


# --- §4.5 slots -----------------------------------------------------------------------------------------------

SLOT_SUBFLOW_IDS: dict[str, str] = {
    "sf-system-prompt": "system-prompt",
    "sf-messages": "messages",
    "sf-tools": "tools",
}

INJECTION_KEYS: dict[str, str] = {
    "SYSTEM_PROMPT": "systemPromptInjections",
    "MESSAGES": "messagesInjections",
    "TOOLS": "toolsInjections",
}
_INJECTION_KEY_BY_SLOT = {
    "system-prompt": INJECTION_KEYS["SYSTEM_PROMPT"],
    "messages": INJECTION_KEYS["MESSAGES"],
    "tools": INJECTION_KEYS["TOOLS"],
}


def is_slot_subflow(id_: str) -> bool:
    """Exact match against the three slot subflow ids."""
    return id_ in SLOT_SUBFLOW_IDS


def slot_from_subflow_id(id_: str) -> str | None:
    """The slot of a (possibly path-qualified) subflow id, from its last '/' segment."""
    return SLOT_SUBFLOW_IDS.get(_local(id_))


def slot_from_runtime_stage_id(rid: str) -> str | None:
    """The innermost slot subflow enclosing a write, read off its runtimeStageId (cut at the FIRST '#')."""
    for segment in reversed(rid.split("#", 1)[0].split("/")):
        if segment in SLOT_SUBFLOW_IDS:
            return SLOT_SUBFLOW_IDS[segment]
    return None


def injection_key_for_slot(slot: str) -> str:
    return _INJECTION_KEY_BY_SLOT[slot]


def is_injection_key(key: str) -> bool:
    return key in _INJECTION_KEY_BY_SLOT.values()


# --- §4.6 stage roles -----------------------------------------------------------------------------------------

_ROLE_BY_LOCAL_ID: dict[str, str] = {
    **dict.fromkeys(("sf-system-prompt", "sf-messages", "sf-tools"), "hero-slot"),
    **dict.fromkeys(("call-llm", "merge-llm"), "hero-llm"),
    **dict.fromkeys(("tool-calls", "sf-tool-calls"), "hero-action"),
    **dict.fromkeys(("seed", "final", "output-retry", "step-nudge", "evidence-recheck", "wrap-up"), "boundary"),
    **dict.fromkeys((
        "sf-injection-engine", "sf-llm-call", "sf-route", "sf-merge", "sf-cache", "sf-cache-decision",
        "sf-thinking", "context", "client", "extract-final", "format-merge", "extract-merge",
        "update-skill-history", "cache-gate", "apply-markers", "no-markers", "build-llm-request",
    ), "plumbing"),
}


def stage_role(id_: str) -> str:
    """hero-slot | hero-llm | hero-action | plumbing | boundary, from the segment after the last '/'.

    Does NOT strip ``#n``: ``stage_role("call-llm#18")`` is ``boundary`` (as in the library). Pass a stage id.
    """
    return _ROLE_BY_LOCAL_ID.get(_local(id_), "boundary")


# --- §4.7 / §4.8 milestones -----------------------------------------------------------------------------------

MILESTONE_KINDS: tuple[str, ...] = ("iteration", "slot", "llm-turn", "tool-call", "decision")
MILESTONE_TAG_PREFIX = "milestone:"
MILESTONE_LABEL_TAG_PREFIX = "milestone-label:"

_MILESTONE_BY_LOCAL_ID: dict[str, tuple[str, str]] = {
    "sf-injection-engine": ("iteration", "Iteration"),
    "sf-llm-call": ("iteration", "Iteration"),
    "sf-system-prompt": ("slot", "System prompt"),
    "sf-messages": ("slot", "Messages"),
    "sf-tools": ("slot", "Tools"),
    "call-llm": ("llm-turn", "LLM turn"),
    "merge-llm": ("llm-turn", "LLM turn"),
    "tool-calls": ("tool-call", "Tool call"),
    "sf-tool-calls": ("tool-call", "Tool call"),
    "sf-route": ("decision", "Route"),
    "output-retry": ("decision", "Schema retry"),
    "step-nudge": ("decision", "Step nudge"),
    "evidence-recheck": ("decision", "Evidence recheck"),
    "wrap-up": ("decision", "Wrap up"),
}


def milestone_for(id_: str) -> dict | None:
    """``{"kind", "label"}`` for a milestone stage, else None (§4.7).

    Accepts a runtimeStageId, a path-qualified id or a local id: cut at the FIRST '#', then the last '/' segment.
    """
    found = _MILESTONE_BY_LOCAL_ID.get(_local(id_.split("#", 1)[0]))
    return {"kind": found[0], "label": found[1]} if found else None


def milestone_tag(kind: str) -> str:
    return MILESTONE_TAG_PREFIX + kind


def milestone_tags(milestone: dict) -> list[str]:
    """The two declaring tags, kind first then label."""
    return [milestone_tag(milestone["kind"]), MILESTONE_LABEL_TAG_PREFIX + milestone["label"]]


def milestone_tags_for(local_id: str) -> list[str]:
    """The tags a chart declares on the stage with this id. Raises ValueError for an id that is no milestone."""
    milestone = milestone_for(local_id)
    if milestone is None:
        raise ValueError(f"milestone_tags_for: {local_id!r} is not a milestone stage")
    return milestone_tags(milestone)


def milestone_from_tags(tags: Any, label_when_undeclared: str | None = None) -> dict | None:
    """Read a milestone back off a commit bundle's ``tags`` (§4.8), or None.

    Non-list → None; non-strings ignored; kind = the first ``milestone:<k>`` whose k is a known kind (an unknown
    one is skipped, not blocking); label = the first ``milestone-label:`` text if non-empty, else
    ``label_when_undeclared`` if given, else the kind.
    """
    if not isinstance(tags, list):
        return None
    names = [tag for tag in tags if isinstance(tag, str)]
    kind = next((
        name[len(MILESTONE_TAG_PREFIX):] for name in names
        if name.startswith(MILESTONE_TAG_PREFIX) and name[len(MILESTONE_TAG_PREFIX):] in MILESTONE_KINDS
    ), None)
    if kind is None:
        return None
    declared = next((name[len(MILESTONE_LABEL_TAG_PREFIX):] for name in names
                     if name.startswith(MILESTONE_LABEL_TAG_PREFIX)), "")
    # JS `declared || fallback ?? kind`: an empty fallback string is kept only when it was given.
    if declared:
        label = declared
    elif label_when_undeclared is not None:
        label = label_when_undeclared
    else:
        label = kind
    return {"kind": kind, "label": label}
