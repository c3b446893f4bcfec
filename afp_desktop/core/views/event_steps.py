"""The StepGraph step a typed event belongs to, for the events the StepGraph fold does not fold (findings,
resilience, guards). Pure, no Qt.

In order: the tool call its payload's `toolCallId` names; else the latest step started (by then) whose
`runtimeStageId` is the event's; else the LLM or tool call in flight when it arrived; else the latest one
started (the call whose answer a route stage judges); else the open subflow. An event a consumer sent with
`runner.emit` (`runtimeStageId` `consumer-emit#…`) carries no stage: it belongs to no step.
"""

from __future__ import annotations

from bisect import bisect_left

from afp_desktop.core.library.events import event_meta, event_payload

CONSUMER_STAGE = "consumer-emit"
CALL_KINDS = frozenset(("user->llm", "tool->llm", "llm->tool"))
LLM_CALL_KINDS = frozenset(("user->llm", "tool->llm"))
STEP_KINDS = CALL_KINDS | {"subflow"}
LOOK_BACK = 200  # steps looked back at for the latest call (a run's steps between two calls are few)


class EventSteps:
    """Finds the step of typed events of one run (its index of stage ids is made once, when first needed)."""

    def __init__(self, run, facts) -> None:
        self.run, self.facts = run, facts
        self._by_stage: dict[str, list[int]] | None = None

    def _stages(self) -> dict[str, list[int]]:
        if self._by_stage is None:
            by_stage: dict[str, list[int]] = {}
            for index, node in enumerate(self.facts.nodes):
                stage = node.get("runtimeStageId")
                if isinstance(stage, str) and node.get("kind") in STEP_KINDS:  # (not the reply an LLM call gave)
                    by_stage.setdefault(stage, []).append(index)
            self._by_stage = by_stage
        return self._by_stage

    def step_of(self, j: int) -> int | None:
        """The StepGraph node index typed event `j` belongs to, or None."""
        run, facts = self.run, self.facts
        event = (run.typed_events or [])[j]
        call_id = event_payload(event).get("toolCallId")
        if isinstance(call_id, (str, int, float)) and not isinstance(call_id, bool):
            node = facts.tool_node_by_call.get(call_id)
            if node is not None:
                return node
        stage = event_meta(event).get("runtimeStageId")
        if isinstance(stage, str) and stage.startswith(CONSUMER_STAGE):
            return None
        n_domain = facts.effective_domain[run.axis.typed_after[j]]
        started = facts.nodes_started(n_domain)
        if isinstance(stage, str):
            nodes = self._stages().get(stage, [])
            k = bisect_left(nodes, started)
            if k:
                return nodes[k - 1]
        open_steps = [i for i in facts.open_nodes(n_domain) if facts.nodes[i].get("kind") in CALL_KINDS]
        if open_steps:
            return max(open_steps)
        for index in range(started - 1, max(-1, started - LOOK_BACK), -1):  # (the call whose answer it judges)
            if facts.nodes[index].get("kind") in CALL_KINDS:
                return index
        return facts.working_node(n_domain)

    def llm_step_of(self, j: int) -> int | None:
        """The LLM call typed event `j` belongs to by its payload's `iteration` (a reasoning chunk a consumer
        sent carries no stage): the latest call of that iteration started by then, else the latest call."""
        run, facts = self.run, self.facts
        iteration = event_payload((run.typed_events or [])[j]).get("iteration")
        started = facts.nodes_started(facts.effective_domain[run.axis.typed_after[j]])
        latest = None
        for index in range(started - 1, max(-1, started - LOOK_BACK), -1):
            node = facts.nodes[index]
            if node.get("kind") in LLM_CALL_KINDS:
                if latest is None:
                    latest = index
                if node.get("iterationIndex") == iteration:
                    return index
        return latest
