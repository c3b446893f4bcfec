"""Synthetic typed streams made from the payload shapes of the library's event catalogue (agentfootprint 9.62) for
what the corpus has no run of: a provider that failed twice with 503, was retried, tripped its circuit breaker
and fell back to another provider; guards on a tool call; every kind of finding; a cost budget that stopped the
run with two tool calls pending. Meta as the file sink writes it (an Agent at the root)."""

from __future__ import annotations

from typing import Any

from afp_desktop.core.formats.assemble import run_from_typed
from afp_desktop.core.jsonx import jsonio

P = "agentfootprint."


class Stream:
    def __init__(self) -> None:
        self.events: list[dict] = []
        self.clock = 1_800_000_000_000

    def add(self, name: str, stage: str, /, **payload: Any) -> int:
        self.clock += 1
        consumer = stage.startswith("consumer-emit")
        meta = {"wallClockMs": self.clock, "runOffsetMs": 0 if consumer else self.clock - 1_800_000_000_000,
                "runtimeStageId": stage, "subflowPath": [], "compositionPath": [] if consumer else ["Agent:agent"],
                "runId": "run-facts-1"}
        self.events.append({"type": P + name, "payload": payload, "meta": meta})
        return len(self.events) - 1

    def ndjson(self) -> bytes:
        return b"".join(jsonio.dumps(event) + b"\n" for event in self.events)

    def run(self):
        return run_from_typed(self.events, "facts.ndjson", "ndjson", [])


def start(s: Stream, prompt: str = "Refund order 123") -> None:
    s.add("agent.run_configured", "run-configured#0", agentId="agent", llm={"provider": "anthropic", "model": "m1"},
          reactMode="dynamic", memories=[])
    s.add("agent.turn_start", "seed#0", turnIndex=0, userPrompt=prompt)


def resilient_llm_call(s: Stream) -> None:
    """Iteration 1: the provider fails twice with 503 (retried), the breaker opens, the fallback provider answers
    with one tool call."""
    s.add("agent.iteration_start", "iteration#10", turnIndex=0, iterIndex=1)
    s.add("stream.llm_start", "call-llm#18", iteration=1, provider="anthropic", model="m1", systemPromptChars=20,
          messagesCount=1, toolsCount=2)
    s.add("error.retried", "call-llm#18", attempt=1, maxAttempts=3, lastError="503 Service Unavailable",
          backoffMs=200, reason="transient")
    s.add("error.retried", "call-llm#18", attempt=2, maxAttempts=3, lastError="503 Service Unavailable",
          backoffMs=400, reason="transient")
    s.add("error.circuit_changed", "call-llm#18", state="open", reason="3 failures in 10 s", providerName="anthropic")
    s.add("fallback.triggered", "call-llm#18", kind="provider", primary="anthropic", fallback="openai",
          reason="circuit open")
    s.add("stream.llm_end", "call-llm#18", iteration=1, content="Looking it up.", toolCallCount=1,
          usage={"input": 12, "output": 4}, stopReason="tool_use", durationMs=900)
    s.add("cost.tick", "call-llm#18", scope="iteration", model="m1", tokensInput=12, tokensOutput=4,
          estimatedUsd=0.0021, cumulative={"tokensInput": 12, "tokensOutput": 4, "estimatedUsd": 0.0021})
    s.add("agent.route_decided", "route#20", turnIndex=0, iterIndex=1, chosen="tool-calls")


def guarded_tool_call(s: Stream) -> None:
    s.add("stream.tool_start", "tool-calls#22", toolName="scan_repo", toolCallId="tc-1", args={"depth": "deep"})
    s.add("validation.args_invalid", "tool-calls#22", toolName="scan_repo", toolCallId="tc-1", iteration=1,
          issues=[{"path": "depth", "expected": "number", "got": "string"}], enforced=False)
    s.add("permission.check", "tool-calls#22", capability="tool_call", actor="agent", target="scan_repo",
          result="deny", policyEngine="opa", policyRuleId="no-deep-scans", rationale="deep scans need approval")
    s.add("permission.check", "tool-calls#22", capability="tool_call", actor="agent", target="get_time",
          result="allow")
    s.add("tools.result_refused", "tool-calls#22", toolName="scan_repo", toolCallId="tc-1", iteration=1,
          sizeChars=90_000, maxChars=20_000, narrowBy=["path"])
    s.add("tools.repeated_call", "tool-calls#22", toolName="scan_repo", toolCallId="tc-1", iteration=1,
          occurrences=2, argsFingerprint="a1", resultFingerprint="b2", mode="arguments")
    s.add("credential.failed", "tool-calls#22", service="github", reason="token expired", tool="scan_repo")
    s.add("stream.tool_end", "tool-calls#22", toolCallId="tc-1", result="refused", durationMs=3)
    s.add("agent.iteration_end", "iteration-end#24", turnIndex=0, iterIndex=1, toolCallCount=1)


def other_findings(s: Stream) -> None:
    s.add("agent.iteration_start", "iteration#30", turnIndex=0, iterIndex=2)
    s.add("stream.llm_start", "call-llm#38", iteration=2, provider="openai", model="m2", systemPromptChars=20,
          messagesCount=3, toolsCount=2)
    s.add("integrity.context_error", "call-llm#38", kind="dangling-reference", seam="compose",
          subjects=["tc-1"], witnesses=[], message="The result of scan_repo slid out of the context window",
          iteration=2)
    s.add("agent.thinking_parse_failed", "sf-thinking/normalize#39", providerName="openai",
          subflowId="thinking-openai", error="unexpected block", errorName="TypeError", iteration=2)
    s.add("stream.llm_end", "call-llm#38", iteration=2, content='{"total": "x"}', toolCallCount=0,
          usage={"input": 30, "output": 8}, stopReason="stop", durationMs=500)
    s.add("agent.output_schema_validation_failed", "route#40", message="total must be a number",
          stage="schema-validate", path="$.total", attempt=1, cumulativeRetries=0)
    s.add("agent.output_schema_retry", "route#40", attempt=1, retriesRemaining=0, iteration=2,
          stage="schema-validate", error="total must be a number", path="$.total", correctiveMessageHash="h")
    s.add("agent.output_contract_unmet", "route#40", stage="schema-validate", error="total must be a number",
          path="$.total", attempts=2, retriesSpent=1, fallbackConfigured=True, iteration=2)
    s.add("resilience.output_fallback_triggered", "route#40", stage="schema-validate",
          rawOutputPreview='{"total": "x"}', primaryErrorMessage="total must be a number", retriesSpent=1)
    s.add("skill.rejected", "route#40", requestedId="billing", currentSkillId="triage", allowed=["support"],
          iteration=2)
    s.add("tools.session_close_failed", "tool-calls#44", tool="browser", scope="run", keyHash="k",
          reason="run-end", durationMs=10, error="socket closed", errorClass="Error")
    s.add("risk.flagged", "consumer-emit#0", severity="high", category="pii", detector="llama_guard",
          evidence={"field": "email"}, action="redact")
    s.add("eval.threshold_crossed", "consumer-emit#0", metricId="faithfulness", direction="below", value=0.42,
          threshold=0.7, actionTaken="flagged for review")


def budget_stop(s: Stream) -> None:
    s.add("cost.tick", "call-llm#38", scope="iteration", model="m2", tokensInput=30, tokensOutput=8,
          estimatedUsd=0.004, cumulative={"tokensInput": 42, "tokensOutput": 12, "estimatedUsd": 0.0061})
    s.add("cost.limit_hit", "route#40", kind="max_cost", limit=0.005, actual=0.0061, action="abort")
    s.add("agent.budget_exhausted", "route#40", reason="cost-budget", iteration=2, limit=0.005, pendingToolCalls=2,
          action="cut-short")
    s.add("agent.turn_end", "final#42", turnIndex=0, finalContent="", totalInputTokens=42, totalOutputTokens=12,
          iterationCount=2, durationMs=1500,
          stoppedEarly={"reason": "cost-budget", "iteration": 2, "pendingToolCalls": 2})


def facts_stream() -> Stream:
    """Every part above, in order: a run that ends stopped by its cost budget."""
    s = Stream()
    start(s)
    resilient_llm_call(s)
    guarded_tool_call(s)
    other_findings(s)
    budget_stop(s)
    return s


def halted_stream() -> Stream:
    s = Stream()
    start(s)
    resilient_llm_call(s)
    s.add("stream.tool_start", "tool-calls#22", toolName="delete_repo", toolCallId="tc-9", args={})
    s.add("permission.check", "tool-calls#22", capability="tool_call", actor="agent", target="delete_repo",
          result="halt", policyRuleId="never-delete")
    s.add("permission.halt", "tool-calls#22", checkerId="opa", target="delete_repo",
          reason="destructive tools are never allowed", tellLLM="Stopped.", iteration=1, sequenceLength=1)
    s.add("error.fatal", "__root__#0", error="PolicyHaltError: destructive tools are never allowed",
          stage="__root__", scope="run")
    return s


def paused_stream() -> Stream:
    s = Stream()
    start(s)
    resilient_llm_call(s)
    s.add("stream.tool_start", "tool-calls#22", toolName="ask_human", toolCallId="tc-ask",
          args={"question": "Refund $42.99?"})
    s.add("pause.request", "tool-calls#22", reason="stage requested pause",
          questionPayload={"question": "Refund $42.99 for order #123?"})
    return s


def thinking_stream() -> Stream:
    """A reasoning model's call: its thinking streamed (sent with runner.emit, as 9.62 allows) and summarised."""
    s = Stream()
    start(s)
    s.add("stream.llm_start", "call-llm#18", iteration=1, provider="anthropic", model="m1", systemPromptChars=20,
          messagesCount=1, toolsCount=0)
    for k, chunk in enumerate(["The user ", "wants a ", "refund."]):
        s.add("stream.thinking_delta", "consumer-emit#0", iteration=1, tokenIndex=k, content=chunk)
    s.add("stream.llm_end", "call-llm#18", iteration=1, content="Done.", toolCallCount=0,
          usage={"input": 12, "output": 4}, stopReason="stop", durationMs=90)
    s.add("stream.thinking_end", "sf-thinking/normalize#19", iteration=1, blockCount=1, totalChars=26, tokens=7)
    s.add("cost.tick", "call-llm#18", scope="iteration", model="m1", tokensInput=12, tokensOutput=4,
          estimatedUsd=0.0021, cumulative={"tokensInput": 12, "tokensOutput": 4, "estimatedUsd": 0.0021})
    s.add("agent.turn_end", "final#20", turnIndex=0, finalContent="Done.", totalInputTokens=12, totalOutputTokens=4,
          iterationCount=1, durationMs=100)
    return s
