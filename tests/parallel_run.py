"""A synthetic Sequence → Parallel(Agent with a tool, Loop(Conditional(LLMCall))) run as DomainEvents, shaped
like 07-flow-sequence's trace.json (the corpus has no Parallel run). The two branches interleave in time the
way concurrent branches do, and each agent's context chips are labelled with its path."""

from __future__ import annotations

from afp_desktop.core.model.run import Run


def parallel_events() -> list[dict]:
    events: list[dict] = []
    clock = [1_000]

    def ev(kind: str, stage: str, path: list[str], **fields) -> None:
        clock[0] += 1
        events.append({"type": kind, "runtimeStageId": stage, "subflowPath": ["__root__", *path],
                       "depth": len(path), "ts": clock[0], **fields})

    def enter(stage: str, path: list[str], name: str, primitive: str, **fields) -> None:
        ev("subflow.entry", stage, path, subflowId=path[-1], subflowName=name, primitiveKind=primitive,
           isAgentInternal=False, **fields)

    def leave(stage: str, path: list[str], name: str, **fields) -> None:
        ev("subflow.exit", stage, path, subflowId=path[-1], subflowName=name, isAgentInternal=False, **fields)

    def chips(agent: str, n: int) -> None:
        for child in ("System Prompt", "Messages", "Tools"):
            ev("fork.branch", f"{agent}/context#{n}", [], parentSubflowId="selector-temp",
               childName=f"{agent}/{child}")

    def slot(agent: str, path: list[str], kind: str, n: int, payload: dict) -> None:
        name = {"system-prompt": "System Prompt", "messages": "Messages", "tools": "Tools"}[kind]
        sf = f"{agent}/sf-{kind}#{n}"
        ev("subflow.entry", sf, [*path, f"sf-{kind}"], subflowName=name, slotKind=kind, isAgentInternal=False,
           payload={"iteration": 1})
        ev("subflow.exit", sf, [*path, f"sf-{kind}"], subflowName=name, slotKind=kind, isAgentInternal=False,
           payload=payload)

    ev("run.entry", "__root__#0", [], payload={"message": "Plan a trip to Oslo"}, isRoot=True)
    enter("fan#1", ["fan"], "fan", "Parallel")
    ev("fork.branch", "fan#1", [], parentSubflowId="fan", childName="agentA")
    ev("fork.branch", "fan#1", [], parentSubflowId="fan", childName="loopB")
    enter("fan/agentA#2", ["fan", "agentA"], "agentA", "Agent", payload={"message": "weather"})
    enter("fan/loopB#3", ["fan", "loopB"], "loopB", "Loop")
    a, b = ["fan", "agentA"], ["fan", "loopB"]
    prompt = {"systemPromptInjections": [{"slot": "system-prompt", "source": "base", "contentSummary": "You check "
                                          "the weather.", "reason": "Agent.system()",
                                          "rawContent": "You check the weather."}]}
    for turn in (1, 2):
        chips("fan/agentA", 10 * turn)
        slot("fan/agentA", a, "system-prompt", 10 * turn + 1, prompt)
        ev("loop.iteration", f"fan/loopB/body#{10 * turn}", [], target="pick", iteration=turn)
        enter(f"fan/loopB/pick#{10 * turn + 2}", [*b, "pick"], "pick", "Conditional")
        ev("decision.branch", f"fan/loopB/pick/decide#{10 * turn + 3}", [], decider="pick", chosen="ask")
        slot("fan/agentA", a, "messages", 10 * turn + 4,
             {"messages": [{"role": "user", "content": "weather"}]})
        slot("fan/agentA", a, "tools", 10 * turn + 5,
             {"toolSchemas": [{"name": "get_weather", "description": "Weather for a city."}]})
        ev("llm.start", f"fan/agentA/call-llm#{10 * turn + 6}", a, model="mock", provider="mock",
           actorArrow="user→llm" if turn == 1 else "tool→llm")
        enter(f"fan/loopB/pick/ask#{10 * turn + 7}", [*b, "pick", "ask"], "ask", "LLMCall")
        ev("llm.start", f"fan/loopB/pick/ask/call-llm#{10 * turn + 8}", [*b, "pick", "ask"], model="mock",
           provider="mock", actorArrow="user→llm")
        if turn == 1:
            ev("llm.end", f"fan/agentA/call-llm#{10 * turn + 6}", a, content="Checking both.", toolCallCount=2,
               usage={"input": 10, "output": 3}, stopReason="tool_use", actorArrow="llm→tool")
            for call, city in (("w1", "Oslo"), ("w2", "Bergen")):
                ev("tool.start", f"fan/agentA/tool-calls#{20 + len(call)}", a, toolName="get_weather",
                   toolCallId=call, args={"city": city})
                ev("tool.end", f"fan/agentA/tool-calls#{20 + len(call)}", a, toolCallId=call,
                   result=f"{city}: 12°C", durationMs=2)
        else:
            ev("llm.end", f"fan/agentA/call-llm#{10 * turn + 6}", a, content="Oslo 12°C, Bergen 12°C.",
               toolCallCount=0, usage={"input": 20, "output": 6}, stopReason="stop", actorArrow="llm→user")
        ev("llm.end", f"fan/loopB/pick/ask/call-llm#{10 * turn + 8}", [*b, "pick", "ask"],
           content=f"Idea {turn}", toolCallCount=0, usage={"input": 5, "output": 2}, stopReason="stop",
           actorArrow="llm→user")
        leave(f"fan/loopB/pick/ask#{10 * turn + 7}", [*b, "pick", "ask"], "ask")
        leave(f"fan/loopB/pick#{10 * turn + 2}", [*b, "pick"], "pick")
    leave("fan/agentA#2", a, "agentA", payload="Oslo 12°C, Bergen 12°C.")
    leave("fan/loopB#3", b, "loopB")
    leave("fan#1", ["fan"], "fan")
    ev("run.exit", "__root__#0", [], payload="Oslo and Bergen are both 12°C.")
    return events


def parallel_run() -> Run:
    return Run(path="parallel.json", format="trace", typed_events=None, domain_events=parallel_events(),
               domain_source="trace")


def parallel_trace() -> dict:
    """The same run as a Trace v1 document (to open in the app)."""
    return {"version": 1, "events": parallel_events(), "structure": None, "redaction": "none",
            "capturedAtMs": 1_000}
