"""The findings list: what a reviewer must look at in a run, each with its moment, its step and a message a
person understands (the tool, the rule, the reason, from the payload fields the library documents). Pure, no Qt.

A finding comes from a typed event whose home includes the findings list (library/event_homes.py). A few types
are findings only when their payload says so: a permission check that denied or halted, a check-in refused, a
middleware that denied, an evidence check that did not ground the answer. `Findings.known(position)`: only those
that had happened by then.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Callable

from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.library.event_homes import EVENT_HOMES, PREFIX, home_of, short_type
from afp_desktop.core.library.events import indices_of
from afp_desktop.core.model.run_end import budget_words, fail_fast_words, halt_words, limit_words, plain
from afp_desktop.core.views.event_steps import EventSteps

FINDING_TYPES = tuple(t for t, home in EVENT_HOMES.items() if home.shows_in("findings"))


@dataclass(frozen=True)
class Finding:
    position: int         # the axis position right after the event
    kind: str             # the event type without the library's prefix
    message: str
    node: int | None      # the StepGraph node index of its step
    node_id: str | None
    typed_index: int

    def as_json(self) -> dict:
        return {"position": self.position, "kind": self.kind, "message": self.message, "node": self.node_id}


def _num(value: Any) -> str | None:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _named(payload: dict, key: str, limit: int = 80) -> str | None:
    value = payload.get(key)
    return None if value is None or value == "" else plain(value, limit)


def _where(payload: dict) -> str:
    """" (json-parse at $.total)" from a stage and a path."""
    stage, path = _named(payload, "stage", 40), _named(payload, "path")
    if stage and path:
        return f" ({stage} at {path})"
    return f" ({stage or path})" if stage or path else ""


def _issues(issues: Any) -> str:
    if not isinstance(issues, list) or not issues:
        return "no issue listed"
    parts = []
    for issue in issues[:5]:
        if isinstance(issue, dict):
            path = plain(issue.get("path", ""), 60) or "(the arguments)"
            parts.append(f"{path}: expected {plain(issue.get('expected'), 60)}, got {plain(issue.get('got'), 60)}")
        else:
            parts.append(plain(issue, 100))
    more = f" (and {len(issues) - 5} more)" if len(issues) > 5 else ""
    return "; ".join(parts) + more


def _context_error(p: dict) -> str:
    text = _named(p, "message", 400) or "A problem with what the model was shown"
    subjects = p.get("subjects")
    listed = ", ".join(plain(x, 60) for x in subjects[:8]) if isinstance(subjects, list) else _named(p, "subjects")
    details = [f"{label} {value}" for label, value in (("check", _named(p, "kind", 60)), ("at", _named(p, "seam", 60)),
                                                       ("subjects", listed)) if value]
    if details:
        text += f" ({', '.join(details)})"
    return text + (" — advisory" if p.get("advisory") is True else "")


def _args_invalid(p: dict) -> str:
    tool = _named(p, "toolName") or "a tool"
    refused = "the call was refused" if p.get("enforced") is True else "observed only: the call ran"
    return f"The arguments of {tool} failed its input schema: {_issues(p.get('issues'))}; {refused}."


def _permission_check(p: dict) -> str:
    result = _named(p, "result", 20) or "deny"
    verb = "halted" if result == "halt" else "denied"
    what = " ".join(x for x in (_named(p, "capability", 40), _named(p, "target")) if x) or "a call"
    text = f"Permission {verb}: {what}"
    if _named(p, "actor"):
        text += f" for {_named(p, 'actor')}"
    rule = _named(p, "policyRuleId")
    if rule:
        engine = _named(p, "policyEngine", 40)
        text += f" by rule {rule}" + (f" ({engine})" if engine else "")
    why = _named(p, "rationale", 300) or _named(p, "reason", 300)
    return text + (f": {why}" if why else "") + "."


def _schema_retry(p: dict) -> str:
    text = f"The answer failed the output schema{_where(p)}: {_named(p, 'error', 300) or 'no message'}; asked again"
    attempt, left = _num(p.get("attempt")), _num(p.get("retriesRemaining"))
    if attempt or left:
        text += " (" + ", ".join(x for x in (attempt and f"attempt {attempt}", left and f"{left} retries left")
                                 if x) + ")"
    return text + "."


def _schema_failed(p: dict) -> str:
    attempt = _num(p.get("attempt"))
    return (f"The answer failed the output schema{_where(p)}: {_named(p, 'message', 300) or 'no message'}"
            + (f" (attempt {attempt})" if attempt else "") + ".")


def _contract_unmet(p: dict) -> str:
    attempts, spent = _num(p.get("attempts")), _num(p.get("retriesSpent"))
    text = "No valid typed answer"
    if attempts:
        text += f" after {attempts} attempt(s)" + (f" ({spent} retries)" if spent else "")
    text += f"{_where(p)}: {_named(p, 'error', 300) or 'no message'}"
    if _named(p, "brokenBy"):
        text += f"; the retries were cut by {_named(p, 'brokenBy')}"
    if p.get("fallbackConfigured") is True:
        text += "; an output fallback is configured"
    return text + "."


def _fallback_triggered(p: dict) -> str:
    stage = _named(p, "stage", 40)
    return (f"The output contract was not met{f' ({stage})' if stage else ''}: "
            f"{_named(p, 'primaryErrorMessage', 300) or 'no message'}; the output fallback ran.")


def _canned(p: dict) -> str:
    return (f"The output fallback failed too ({_named(p, 'fallbackErrorMessage', 300) or 'no message'}); the canned "
            "answer was returned, not the model's.")


def _risk(p: dict) -> str:
    severity = _named(p, "severity", 20) or "A"
    text = f"{severity[:1].upper()}{severity[1:]} risk: {_named(p, 'category', 60) or 'unnamed'}"
    if _named(p, "detector"):
        text += f", detected by {_named(p, 'detector')}"
    return text + (f"; action: {_named(p, 'action', 40)}" if _named(p, "action") else "") + "."


def _threshold(p: dict) -> str:
    text = f"{_named(p, 'metricId') or 'A score'} went {_named(p, 'direction', 20) or 'past'} its threshold"
    value, threshold = _num(p.get("value")), _num(p.get("threshold"))
    if value or threshold:
        text += f": {value or '?'} against {threshold or '?'}"
    return text + (f"; action: {_named(p, 'actionTaken', 200)}" if _named(p, "actionTaken") else "") + "."


def _result_refused(p: dict) -> str:
    text = f"The result of {_named(p, 'toolName') or 'a tool'} was refused"
    size, ceiling = _num(p.get("sizeChars")), _num(p.get("maxChars"))
    if size or ceiling:
        text += f": {size or '?'} characters, over its ceiling of {ceiling or '?'}"
    narrow = p.get("narrowBy")
    if isinstance(narrow, list) and narrow:
        text += f"; the model was asked to narrow it by {', '.join(plain(n, 40) for n in narrow[:8])}"
    return text + "."


def _repeated(p: dict) -> str:
    same = "arguments" if p.get("mode") == "arguments" else "arguments or result"
    times = _num(p.get("occurrences"))
    return (f"{_named(p, 'toolName') or 'A tool'} was called again with the same {same}"
            + (f" ({times} times this turn)" if times else "") + ".")


def _session_close(p: dict) -> str:
    scope, why = _named(p, "scope", 20), _named(p, "reason", 40)
    error = " ".join(x for x in (_named(p, "errorClass", 60) and f"{_named(p, 'errorClass', 60)}:",
                                 _named(p, "error", 300)) if x) or "no message"
    return (f"The {scope + ' ' if scope else ''}session of {_named(p, 'tool') or 'a tool'} failed to close"
            + (f" ({why})" if why else "") + f": {error}; a resource may be left open.")


def _skill_rejected(p: dict) -> str:
    text = f"The model asked for the skill {_named(p, 'requestedId') or '?'}, not reachable"
    current = _named(p, "currentSkillId")
    text += f" from {current}" if current else " from here"
    allowed = p.get("allowed")
    if isinstance(allowed, list):
        text += f"; allowed: {', '.join(plain(a, 40) for a in allowed[:10]) or 'none'}"
    return text + "."


def _thinking_failed(p: dict) -> str:
    error = " ".join(x for x in (_named(p, "errorName", 60) and f"{_named(p, 'errorName', 60)}:",
                                 _named(p, "error", 300)) if x) or "no message"
    who = _named(p, "providerName", 60)
    return f"The reasoning of {'the ' + who + ' ' if who else 'a '}response could not be read: {error}."


def _credential(p: dict) -> str:
    tool = _named(p, "tool")
    return (f"The credential for {_named(p, 'service') or 'a service'} failed" + (f" (tool {tool})" if tool else "")
            + f": {_named(p, 'reason', 300) or 'no reason given'}; the tool did not run.")


def _discovery_failed(p: dict) -> str:
    error = " ".join(x for x in (_named(p, "errorName", 60) and f"{_named(p, 'errorName', 60)}:",
                                 _named(p, "error", 300)) if x) or "no message"
    provider = _named(p, "providerId")
    return f"The tool provider{' ' + provider if provider else ''} failed to list its tools: {error}."


def _shadowed(p: dict) -> str:
    return (f"The tool {_named(p, 'toolName') or '?'} was offered with the schema of "
            f"{_named(p, 'schemaFrom', 20) or '?'} but runs the implementation of {_named(p, 'dispatchTo', 20) or '?'}.")


def _artifact_refused(p: dict) -> str:
    what = " ".join(x for x in (_named(p, "op", 20), _named(p, "ref")) if x) or "an operation"
    tool = _named(p, "tool")
    detail = _named(p, "detail", 200)
    return (f"An artifact {what} was refused" + (f" (tool {tool})" if tool else "")
            + f": {_named(p, 'reason', 80) or 'no reason given'}" + (f" — {detail}" if detail else "") + ".")


def _checkin(p: dict) -> str:
    note = _named(p, "note", 200)
    return (f"Consent for {_named(p, 'toolName') or 'a tool'} was refused by {_named(p, 'by') or 'someone'}"
            + (f": {note}" if note else "") + ".")


def _middleware(p: dict) -> str:
    tool = _named(p, "toolName")
    why = _named(p, "why", 300)
    return (f"The middleware {_named(p, 'middleware') or '?'} denied " + (f"the call of {tool}" if tool else "a message")
            + (f" ({_named(p, 'moment', 40)})" if _named(p, "moment") else "") + (f": {why}" if why else "") + ".")


def _evidence(p: dict) -> str:
    unsupported = p.get("unsupported")
    values = [plain(u.get("value"), 40) for u in unsupported[:6] if isinstance(u, dict)] \
        if isinstance(unsupported, list) else []
    return (f"The answer's evidence check: {_named(p, 'action', 40) or '?'}"
            + (f"; unsupported: {', '.join(values)}" if values else "") + ".")


_MESSAGES: dict[str, Callable[[dict], str]] = {
    "integrity.context_error": _context_error,
    "validation.args_invalid": _args_invalid,
    "permission.check": _permission_check,
    "permission.halt": halt_words,
    "agent.output_schema_retry": _schema_retry,
    "agent.output_schema_validation_failed": _schema_failed,
    "agent.output_contract_unmet": _contract_unmet,
    "resilience.output_fallback_triggered": _fallback_triggered,
    "resilience.output_canned_used": _canned,
    "risk.flagged": _risk,
    "eval.threshold_crossed": _threshold,
    "tools.result_refused": _result_refused,
    "tools.repeated_call": _repeated,
    "tools.session_close_failed": _session_close,
    "skill.rejected": _skill_rejected,
    "agent.thinking_parse_failed": _thinking_failed,
    "credential.failed": _credential,
    "cost.limit_hit": limit_words,
    "agent.budget_exhausted": budget_words,
    "reliability.fail_fast": fail_fast_words,
    "tools.discovery_failed": _discovery_failed,
    "tools.shadowed": _shadowed,
    "artifacts.refused": _artifact_refused,
    "checkin.decision": _checkin,
    "middleware.decision": _middleware,
    "agent.evidence_checked": _evidence,
}

# Types that are a finding only when the payload says so.
_ONLY_WHEN: dict[str, Callable[[dict], bool]] = {
    "permission.check": lambda p: p.get("result") in ("deny", "halt"),
    "checkin.decision": lambda p: p.get("approved") is False,
    "middleware.decision": lambda p: p.get("outcome") == "deny",
    "agent.evidence_checked": lambda p: p.get("action") not in ("grounded", None),
}
_TYPES = tuple(dict.fromkeys((*FINDING_TYPES, *(PREFIX + name for name in _ONLY_WHEN))))


def finding_message(event_type: str, payload: dict) -> str | None:
    """The finding a typed event is, in words; None when it is not one."""
    name = short_type(event_type)
    only_when = _ONLY_WHEN.get(name)
    if only_when is not None and not only_when(payload):
        return None
    words = _MESSAGES.get(name)
    if words is not None:
        return words(payload)
    return f"{home_of(event_type).says} {plain(payload, 200)}"


class Findings:
    """Every finding of a run, in axis order (computed once); `known(position)`: those that had happened."""

    def __init__(self, run, facts, steps: EventSteps | None = None) -> None:
        typed = run.typed_events or []
        steps = steps or EventSteps(run, facts)
        after = run.axis.typed_after
        found: list[Finding] = []
        for j in breathing_over(indices_of(run.typed_by_type, *_TYPES)):
            event = typed[j]
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            message = finding_message(event["type"], payload)
            if message is None:
                continue
            node = steps.step_of(j)
            node_id = facts.nodes[node].get("id") if node is not None else None
            found.append(Finding(after[j], short_type(event["type"]), message, node,
                                 node_id if isinstance(node_id, str) else None, j))
        found.sort(key=lambda finding: finding.position)
        self.all = found
        self._positions = [finding.position for finding in found]

    def known(self, position: int) -> list[Finding]:
        return self.all[:bisect_right(self._positions, position)]
