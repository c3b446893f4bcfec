"""What a graph card says, as plain strings before eliding: its title, corner, detail and footer lines, the
step's duration and tokens. Pure functions of the step's node (no Qt of their own): the painter (graph_art.py)
elides and draws them."""

from __future__ import annotations

from afp_desktop.app.widgets.visible_text import first_line
from afp_desktop.core.model.layout import CHIP_KINDS, LLM_START_KINDS, SUBFLOW_KIND, chip_text


def format_duration(node: dict) -> str:
    start, end = node.get("startOffsetMs"), node.get("endOffsetMs")
    if not isinstance(start, (int, float)) or not isinstance(end, (int, float)):
        return ""
    ms = max(0.0, float(end) - float(start))
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    return f"{int(ms // 60_000)}m {int(ms % 60_000 // 1000):02d}s"


def format_tokens(node: dict) -> str:
    tokens = node.get("tokens")
    if not isinstance(tokens, dict):
        return ""
    return f"{tokens.get('in', '?')} in · {tokens.get('out', '?')} out"


def card_lines(node: dict) -> tuple[str, str, str, str]:
    """(title, corner, detail, footer-left) of a card, before eliding; the duration goes footer-right."""
    kind = str(node.get("kind", ""))
    label = first_line(node.get("label"))
    if kind == SUBFLOW_KIND:
        primitive = first_line(node.get("primitiveKind")) or "subflow"
        return label, "", primitive, ""
    if kind in CHIP_KINDS:
        return chip_text(label), "", "", ""
    if kind == "fold":  # similar iterations folded into one card (core/fold_iterations.py)
        return label, "", first_line(node.get("detail")), first_line(node.get("hint"))
    iteration = node.get("iterationIndex")  # numbered once per row, on the LLM call that opens the iteration
    corner = f"#{iteration}" if iteration is not None and kind in LLM_START_KINDS else ""
    detail = first_line(node.get("toolName") or node.get("llmModel") or node.get("assistantText"))
    return label, corner, detail, format_tokens(node)

