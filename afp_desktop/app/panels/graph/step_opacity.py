"""How a step not yet happened at the moment shown is drawn: dimmed, or hidden. Shared by the painter, the
scene's items, the overview and the keyboard (no Qt)."""

from __future__ import annotations

from collections.abc import Sequence


def has_happened(happened: Sequence[bool] | None, index: int) -> bool:
    """Whether step `index` has happened at the moment shown. Missing entries count as happened, so a short list
    never hides the end of a graph by accident."""
    return happened is None or index >= len(happened) or happened[index]


def node_opacity(happened: Sequence[bool] | None, index: int, future_mode: str, dim_opacity: float) -> float:
    """1 for a step that has happened, dim_opacity or 0 (hidden) for one that has not (see has_happened)."""
    if has_happened(happened, index):
        return 1.0
    return 0.0 if future_mode == "hide" else dim_opacity
