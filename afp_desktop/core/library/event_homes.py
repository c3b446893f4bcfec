"""Where each typed event the library declares is shown, and what it says in one line.

Every one of the library's declared event types has an entry (a test holds the table to the declared list).
A place is one of:

    step      on the StepGraph step it belongs to (the LLM call, the tool call, the composition box)
    timeline  a marker or band on the timeline, at the moment it arrived
    bubble    in the chat bubble (what the chat user saw: prompt, status, answer, pause question)
    findings  in the findings list (what a reviewer must look at) — for some types only when the payload says
              so (a permission check that denied, a retry that was the last one): see views/findings.py
    header    in the run's header (configuration, how the run ended, totals)

A type the table does not know (a newer library's) is never dropped: it is counted, listed in the event list
and shown as a generic timeline marker with its payload (`home_of` gives it UNKNOWN_HOME).
"""

from __future__ import annotations

from dataclasses import dataclass

PREFIX = "agentfootprint."
PLACES = ("step", "timeline", "bubble", "findings", "header")


@dataclass(frozen=True)
class EventHome:
    places: tuple[str, ...]
    says: str  # what the event tells a person, in one line

    def shows_in(self, place: str) -> bool:
        return place in self.places


UNKNOWN_HOME = EventHome(("timeline",), "An event this version of afp-desktop does not know: shown with its payload.")

# type (without the prefix) → (places, what it says)
_TABLE: dict[str, tuple[str, str]] = {
    # stream
    "stream.llm_start": ("step timeline", "An LLM call began: model, provider, prompt size, tools offered."),
    "stream.llm_end": ("step timeline bubble", "An LLM call ended: its answer, tool calls asked for, tokens, stop reason."),
    "stream.token": ("bubble", "A chunk of the streamed answer."),
    "stream.tool_start": ("step timeline bubble", "A tool call began: the tool and its arguments."),
    "stream.tool_progress": ("step bubble", "A running tool reported progress."),
    "stream.tool_end": ("step timeline", "A tool call ended: its result, or its error, and its status."),
    "stream.thinking_delta": ("step", "A chunk of the model's reasoning, as it streamed."),
    "stream.thinking_end": ("step", "The model's reasoning for the call: blocks, size, tokens."),
    # agent
    "agent.turn_start": ("step bubble timeline", "A turn began: the user's message."),
    "agent.turn_end": ("step bubble header", "A turn ended: the final answer, token totals, and why it stopped early."),
    "agent.iteration_start": ("timeline", "An iteration of the agent's loop began."),
    "agent.iteration_end": ("timeline", "An iteration of the agent's loop ended."),
    "agent.route_decided": ("step timeline", "What the loop does next: call tools, answer, retry, nudge."),
    "agent.handoff": ("timeline", "One agent handed the conversation to another."),
    "agent.output_schema_validation_failed": ("step findings", "An answer failed the output schema."),
    "agent.output_contract_unmet": ("step findings header", "The output schema's retries ran out: no valid answer."),
    "agent.output_schema_retry": ("step timeline findings", "An answer failed the output schema; the model is asked again."),
    "agent.evidence_checked": ("step", "The final answer's names and numbers were checked against tool evidence."),
    "agent.run_configured": ("header", "How the agent was configured: model, memories, window, gates."),
    "agent.thinking_parse_failed": ("step findings", "The model's reasoning could not be read."),
    "agent.budget_exhausted": ("step timeline header findings", "A limit (iterations or cost) stopped the agent."),
    # context
    "context.injected": ("step", "Content put into a slot of an LLM call, and why."),
    "context.evicted": ("step timeline", "Content dropped from a slot, and why."),
    "context.slot_composed": ("step", "A slot of an LLM call assembled: budget used, sources, dropped items."),
    "context.budget_pressure": ("step timeline", "A slot was over its budget before eviction."),
    "context.evaluated": ("step", "Which injections were active this iteration, which skipped, and why."),
    # tools
    "tools.offered": ("step", "Which tools the model could see, and why others were withheld."),
    "tools.activated": ("timeline", "A tool became available."),
    "tools.deactivated": ("timeline", "A tool was withdrawn."),
    "tools.discovery_started": ("step", "The tool provider was asked for its tools."),
    "tools.discovery_completed": ("step", "The tool provider answered: how many tools, how long."),
    "tools.discovery_failed": ("step timeline findings", "The tool provider failed to list its tools."),
    "tools.shadowed": ("step findings", "A tool's offered schema and its implementation come from different places."),
    "tools.session_started": ("step timeline", "A tool opened a session (a sandbox, a browser)."),
    "tools.session_reused": ("step", "A tool reused its open session."),
    "tools.session_closed": ("timeline", "A tool session was closed."),
    "tools.effect": ("step", "A tool result asked for a skill move or an instruction: accepted or refused."),
    "tools.result_refused": ("step findings", "A tool result was too large and refused."),
    "tools.repeated_call": ("step findings", "The same tool call was made again in the turn."),
    "tools.absent": ("step", "A tool found nothing, and says what it checked."),
    "tools.code_run": ("step", "A code tool ran staged code."),
    "tools.coverage_declared": ("step", "A tool said what it checked and what it could not."),
    "tools.semantics_declared": ("step", "A tool result carried structured data and its provenance."),
    "tools.session_close_failed": ("timeline findings", "A tool session's cleanup failed (a resource may leak)."),
    # skill
    "skill.activated": ("timeline", "A skill became active."),
    "skill.graph_declared": ("header", "The skill graph the agent routes over."),
    "skill.deactivated": ("timeline", "A skill ended."),
    "skill.rejected": ("step timeline findings", "The model asked for a skill it may not reach from here."),
    "skill.reroute_superseded": ("timeline", "A skill the model proposed lost to another route."),
    "skill.route_conflict": ("timeline", "Several tools proposed different skills; one won."),
    "skill.turn_routed": ("timeline", "Which skill the turn started in, and why."),
    "skill.step_advanced": ("step", "A skill procedure moved to its next step."),
    "skill.step_skipped": ("step", "A skill procedure step was skipped, with the reason."),
    "skill.steps_unfinished": ("step timeline", "The model tried to finish with procedure steps left."),
    "skill.escalated": ("step timeline", "The rest of the turn moved to the escalation model."),
    # memory
    "memory.strategy_applied": ("step", "A memory strategy condensed the memories."),
    "memory.attached": ("step", "A memory was put into the context of the call."),
    "memory.retrieved": ("step timeline", "A retrieval ran: candidates considered and admitted."),
    "memory.detached": ("timeline", "A memory was removed from use."),
    "memory.written": ("timeline", "A memory was stored."),
    # permission
    "permission.check": ("step findings", "A permission check on a tool call: allowed, denied or halted."),
    "permission.gate_opened": ("timeline", "A permission gate opened."),
    "permission.gate_closed": ("timeline", "A permission gate closed."),
    "permission.halt": ("step timeline findings header", "A permission policy halted the run."),
    # credential
    "credential.requested": ("step", "A tool asked for a credential."),
    "credential.acquired": ("step", "A credential was issued (never the secret)."),
    "credential.authorization_required": ("step timeline bubble", "A credential needs the user's consent."),
    "credential.failed": ("step findings", "Getting a credential failed; the tool did not run."),
    # cost
    "cost.tick": ("step header", "The cost of an LLM call and the run's running total."),
    "cost.limit_hit": ("timeline findings header", "A cost or iteration limit was reached."),
    # error (provider decorators)
    "error.retried": ("step timeline", "A provider call failed and is retried after a wait."),
    "error.recovered": ("step timeline", "A provider call succeeded after retries."),
    "error.fatal": ("step timeline bubble header", "The run failed."),
    "error.circuit_changed": ("step timeline", "A provider's circuit breaker changed state."),
    # reliability
    "reliability.fail_fast": ("step timeline findings header", "A reliability rule stopped the run."),
    "reliability.retried": ("step timeline", "A reliability rule retried the call (maybe on another provider)."),
    "reliability.recovered": ("step timeline", "The call succeeded after failures."),
    # resilience
    "resilience.output_fallback_triggered": ("step timeline findings", "The output contract was not met: the fallback ran."),
    "resilience.output_canned_used": ("step findings", "The fallback failed too: the canned answer was used."),
    # fallback
    "fallback.triggered": ("step timeline", "The primary failed and the fallback took the call."),
    # integrity
    "integrity.context_error": ("step timeline findings", "A problem with what the model was shown."),
    "integrity.disposition": ("header", "Which integrity checks ran at the end of the run, and what they found."),
    # eval
    "eval.score": ("step timeline", "An evaluation score."),
    "eval.threshold_crossed": ("timeline findings", "An evaluation score crossed its threshold."),
    # risk
    "risk.flagged": ("timeline findings", "A guardrail flagged a risk."),
    # artifacts
    "artifacts.minted": ("step", "A tool stored an artifact."),
    "artifacts.resolved": ("step", "A tool read an artifact."),
    "artifacts.expired": ("timeline", "An artifact was removed by retention."),
    "artifacts.refused": ("step findings", "An artifact operation was refused."),
    "artifacts.presented": ("step", "An artifact was shown to the model instead of inline content."),
    # composition
    "composition.enter": ("step timeline", "A composition (Sequence, Parallel, Conditional, Loop) began."),
    "composition.exit": ("step timeline", "A composition ended, with its status."),
    "composition.fork_start": ("step", "A Parallel started its branches."),
    "composition.branch_complete": ("step", "A Parallel branch finished."),
    "composition.merge_end": ("step", "A Parallel merged its branches."),
    "composition.route_decided": ("step timeline", "A Conditional chose a branch."),
    "composition.iteration_start": ("timeline", "A Loop's pass began."),
    "composition.iteration_exit": ("step timeline", "A Loop ended, with the reason."),
    # pause
    "pause.request": ("step timeline bubble header", "The run paused for a human: the question."),
    "pause.resume": ("timeline bubble", "The run resumed: the human's answer."),
    # checkin
    "checkin.request": ("step bubble", "A tool asked for consent before running."),
    "checkin.decision": ("step findings", "The consent decision for a tool: approved or refused."),
    # map
    "map.engaged": ("timeline", "A tool family was engaged for the coming call."),
    "map.parked": ("timeline", "A tool family was parked after unused calls."),
    # middleware
    "middleware.decision": ("step findings", "A middleware decision on a tool call or message: allow, deny or ask."),
    # embedding
    "embedding.generated": ("step", "An embedder ran."),
    # validation
    "validation.args_invalid": ("step findings", "A tool call's arguments failed the tool's input schema."),
}

EVENT_HOMES: dict[str, EventHome] = {PREFIX + name: EventHome(tuple(places.split()), says)
                                     for name, (places, says) in _TABLE.items()}


def home_of(event_type: object) -> EventHome:
    """Where an event of this type is shown (UNKNOWN_HOME for a type the table does not know)."""
    return EVENT_HOMES.get(event_type, UNKNOWN_HOME) if isinstance(event_type, str) else UNKNOWN_HOME


def short_type(event_type: str) -> str:
    """The type without the library's prefix: "permission.check"."""
    return event_type[len(PREFIX):] if event_type.startswith(PREFIX) else event_type
