"""Token totals per subflow card: the tokens of every LLM call inside each subflow box,
nested boxes counting in their parents too. One pass over the StepGraph nodes, no Qt.

A call is inside a subflow when the subflow's path prefixes the call's path and the subflow had not ended when
the call started (the same membership the layout uses for its brackets).
"""

from __future__ import annotations

import math
from typing import Any

from afp_desktop.core.jsonx import jsonio

LLM_KINDS = ("user->llm", "tool->llm")


def _number(value: Any, default: float) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def subflow_tokens(nodes: list) -> dict[int, tuple[float, float]]:
    """Subflow node index → (tokens in, tokens out) of the LLM calls inside it (subflows without calls left out)."""
    totals: dict[int, list[float]] = {}
    open_subflows: list[tuple[int, tuple, float]] = []  # (index, path, end)
    for i, node in enumerate(nodes):
        if not isinstance(node, dict):
            continue
        path = jsonio.path_key(node.get("subflowPath"))
        start = _number(node.get("startOffsetMs"), -math.inf)
        if open_subflows and any(end < start for _, _, end in open_subflows):
            open_subflows = [entry for entry in open_subflows if entry[2] >= start]
        kind = node.get("kind")
        if kind == "subflow":
            open_subflows.append((i, path, _number(node.get("endOffsetMs"), math.inf)))
        elif kind in LLM_KINDS and isinstance(node.get("tokens"), dict):
            tokens = node["tokens"]
            spent = (_number(tokens.get("in"), 0.0), _number(tokens.get("out"), 0.0))
            for index, sub_path, _end in open_subflows:
                if path[: len(sub_path)] == sub_path:
                    total = totals.setdefault(index, [0.0, 0.0])
                    total[0] += spent[0]
                    total[1] += spent[1]
    return {index: (t[0], t[1]) for index, t in totals.items()}


def format_total(total: tuple[float, float] | None) -> str:
    if not total:
        return ""
    spent = total[0] + total[1]
    return f"{spent / 1000:.1f}k tok" if spent >= 10_000 else f"{spent:g} tok"
