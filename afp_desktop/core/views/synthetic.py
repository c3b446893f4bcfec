"""A synthetic StepGraph shaped like the fold's output (PROJECTIONS.md §3) for tests and benchmarks.

It mirrors a ReAct agent run: a Run node, then per iteration three context fork-branch chips, one LLM call
(`user->llm` first, `tool->llm` after) and `tools_per_iteration` tool calls, the last iteration answering the
user. The `next` chain runs through all ReAct steps and a `loop-iteration` edge on the active subflow marks every turn.
With `iterations_per_agent`, iterations are grouped into nested Agent subflows so the layout's brackets are
exercised too. Deterministic: the same arguments always give the same graph.
"""

from __future__ import annotations

CONTEXT_SLOTS = ("System Prompt", "Messages", "Tools")


def synthetic_step_graph(n_iterations: int, tools_per_iteration: int, iterations_per_agent: int | None = None) -> dict:
    nodes: list[dict] = []
    edges: list[dict] = []
    t = 0
    run = {"id": "__root__#0", "kind": "subflow", "label": "Run", "startOffsetMs": 0, "subflowPath": ["__root__"],
           "primitiveKind": "Run", "isPrimitiveBoundary": False, "runtimeStageId": "__root__#0"}
    nodes.append(run)
    previous: str | None = None
    agent: dict | None = None
    path = ["__root__"]

    def chain(node_id: str) -> None:
        nonlocal previous
        if previous is not None:
            edges.append({"id": f"{previous}->{node_id}", "from": previous, "to": node_id, "kind": "next"})
        previous = node_id

    for it in range(1, n_iterations + 1):
        if iterations_per_agent and (it - 1) % iterations_per_agent == 0:
            if agent is not None:
                agent["endOffsetMs"] = t
            name = f"agent-{(it - 1) // iterations_per_agent + 1}"
            path = ["__root__", name]
            agent = {"id": f"{name}#{t}", "kind": "subflow", "label": name, "startOffsetMs": t, "subflowPath": path,
                     "isAgentBoundary": True, "isPrimitiveBoundary": True, "primitiveKind": "Agent",
                     "runtimeStageId": f"{name}#{t}"}
            nodes.append(agent)
        for slot in CONTEXT_SLOTS:
            nodes.append({"id": f"fork-context#{it}-{slot}", "kind": "fork-branch", "label": slot,
                          "startOffsetMs": t, "subflowPath": ["__root__"]})
        t += 2
        last = it == n_iterations
        llm_id = f"step-llm-start-call-llm#{it}-{it}"
        nodes.append({"id": llm_id, "kind": "user->llm" if it == 1 else "tool->llm",
                      "label": "user → llm" if it == 1 else "tool → llm", "startOffsetMs": t, "llmModel": "mock",
                      "subflowPath": path, "iterationIndex": it, "slotUpdated": "messages",
                      "runtimeStageId": f"call-llm#{it}", "tokens": {"in": 100 + 10 * it, "out": 20 + it % 7},
                      "endOffsetMs": t + 3})
        chain(llm_id)
        t += 3
        if last:
            end_id = f"step-llm-end-call-llm#{it}-{it}"
            nodes.append({"id": end_id, "kind": "llm->user", "label": "llm → user", "startOffsetMs": t,
                          "endOffsetMs": t, "subflowPath": path, "iterationIndex": it,
                          "runtimeStageId": f"call-llm#{it}"})
            chain(end_id)
            continue
        for k in range(tools_per_iteration):
            tool = f"tool_{k + 1}"
            tool_id = f"step-tool-start-tool-calls#{it}-tc-{it}-{k}"
            nodes.append({"id": tool_id, "kind": "llm->tool", "label": f"llm → tool ({tool})", "startOffsetMs": t,
                          "toolName": tool, "subflowPath": path, "iterationIndex": it, "slotUpdated": "tools",
                          "runtimeStageId": f"tool-calls#{it}", "endOffsetMs": t + 4})
            chain(tool_id)
            t += 5
        active = (agent or run)["id"]  # the fold puts loop edges on the most recently entered subflow
        edges.append({"id": f"loop-{active}-{it}", "from": active, "to": active, "kind": "loop-iteration",
                      "iteration": it})
    if agent is not None:
        agent["endOffsetMs"] = t
    run["endOffsetMs"] = t + 1
    return {"nodes": nodes, "edges": edges}
