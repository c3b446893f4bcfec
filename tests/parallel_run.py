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


def root_parallel_events() -> list[dict]:
    """A Parallel at the root: Parallel(agentA: Agent with a tool, agentB: Agent, brief: LLMCall), shaped the way
    the library writes it. The root chart is the Parallel's own (its seed stage forks, its merge stage ends it),
    so there is no Parallel subflow: the branches are subflows right under the Run, named by the fork's
    `fork.branch` events, and they interleave in time."""
    events: list[dict] = []
    clock = [5_000]

    def ev(etype: str, stage: str, path: list[str], **fields) -> None:
        clock[0] += 1
        events.append({"type": etype, "runtimeStageId": stage, "subflowPath": ["__root__", *path],
                       "depth": len(path), "ts": clock[0], **fields})

    def llm(stage: str, path: list[str], arrow: str, out_arrow: str, content: str, tools: int = 0) -> None:
        ev("llm.start", stage, path, model="mock", provider="mock", actorArrow=arrow)
        ev("llm.end", stage, path, content=content, toolCallCount=tools, usage={"input": 9, "output": 3},
           stopReason="tool_use" if tools else "stop", actorArrow=out_arrow)

    ev("run.entry", "__root__#0", [], payload={"message": "Review the plan"}, isRoot=True)
    ev("composition.start", "seed#0", [], kind="Parallel", compositionId="review", name="Review")
    for child in ("agentA", "agentB", "brief"):
        ev("fork.branch", "seed#0", [], parentSubflowId="seed", childName=child)
    for stage, child, primitive in (("agentA#1", "agentA", "Agent"), ("agentB#2", "agentB", "Agent"),
                                    ("brief#3", "brief", "LLMCall")):
        ev("subflow.entry", stage, [child], subflowId=child, subflowName=child, primitiveKind=primitive,
           isAgentInternal=False, payload={"message": "Review the plan"})
    for agent in ("agentA", "agentB"):
        ev("fork.branch", f"{agent}/context#5", [], parentSubflowId="selector-temp", childName=f"{agent}/Messages")
    ev("subflow.entry", "brief/sf-llm-call#6", ["brief", "sf-llm-call"], subflowId="brief/sf-llm-call",
       subflowName="LLMCall", isAgentInternal=True)
    llm("agentA/call-llm#7", ["agentA"], "user→llm", "llm→tool", "Checking the budget.", tools=1)
    llm("agentB/call-llm#8", ["agentB"], "user→llm", "llm→user", "The dates work.")
    llm("brief/sf-llm-call/call-llm#9", ["brief", "sf-llm-call"], "user→llm", "llm→user", "A short brief.")
    ev("subflow.exit", "brief/sf-llm-call#6", ["brief", "sf-llm-call"], subflowId="brief/sf-llm-call",
       isAgentInternal=True)
    ev("subflow.exit", "brief#3", ["brief"], subflowId="brief", subflowName="brief", isAgentInternal=False,
       payload="A short brief.")
    ev("subflow.exit", "agentB#2", ["agentB"], subflowId="agentB", subflowName="agentB", isAgentInternal=False,
       payload="The dates work.")
    ev("tool.start", "agentA/tool-calls#10", ["agentA"], toolName="budget", toolCallId="b1", args={})
    ev("tool.end", "agentA/tool-calls#10", ["agentA"], toolCallId="b1", result="within budget", durationMs=1)
    ev("fork.branch", "agentA/context#11", [], parentSubflowId="selector-temp", childName="agentA/Messages")
    llm("agentA/call-llm#12", ["agentA"], "tool→llm", "llm→user", "Within budget.")
    ev("subflow.exit", "agentA#1", ["agentA"], subflowId="agentA", subflowName="agentA", isAgentInternal=False,
       payload="Within budget.")
    ev("composition.end", "merge#13", [], kind="Parallel", compositionId="review", name="Review", status="ok",
       durationMs=20)
    ev("run.exit", "__root__#0", [], payload="Within budget; the dates work; a short brief.")
    return events


def root_parallel_run() -> Run:
    return Run(path="root-parallel.json", format="trace", typed_events=None, domain_events=root_parallel_events(),
               domain_source="trace")


def root_parallel_trace() -> dict:
    """The root Parallel as a Trace v1 document (to open in the app)."""
    return {"version": 1, "events": root_parallel_events(), "structure": None, "redaction": "none",
            "capturedAtMs": 5_000}
