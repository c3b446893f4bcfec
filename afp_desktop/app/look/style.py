"""Colours of the step graph, light and dark. Plain hex strings (no Qt), so exports and tests can use them too.

Every card has a pale (light theme) or deep (dark theme) fill tinted by its kind plus a saturated accent stripe
that carries the kind's hue; text sits on the fill, never on the accent, and keeps a WCAG contrast of at least
4.5:1 (tests check this). Kind hues: LLM calls blue, tool calls amber, answers green, subflows violet, context
forks teal, decisions rose. The cursor (the step being replayed) is orange and the selection blue, so the two
stay distinguishable when both mark the same card.
"""

from __future__ import annotations

from dataclasses import dataclass

Theme = str  # "light" | "dark"


@dataclass(frozen=True)
class KindColours:
    fill: str
    accent: str


@dataclass(frozen=True)
class GraphPalette:
    background: str
    text: str
    text_muted: str
    card_border: str
    kinds: dict[str, KindColours]
    unknown_kind: KindColours
    edge: str
    loop_edge: str
    edge_label: str
    bracket: str
    selection: str
    cursor: str
    message: str
    dim_opacity: float  # how visible not-yet-happened steps are in "dim" mode

    def kind(self, kind: str) -> KindColours:
        return self.kinds.get(kind, self.unknown_kind)


def _kinds(llm, tool, user, subflow, fork, decision, framework) -> dict[str, KindColours]:
    return {
        "framework": KindColours(*framework),  # the framework's own steps, when drawn: grey, plumbing
        "user->llm": KindColours(*llm),
        "tool->llm": KindColours(*llm),
        "llm->tool": KindColours(*tool),
        "llm->user": KindColours(*user),
        "subflow": KindColours(*subflow),
        "fork-branch": KindColours(*fork),
        "decision-branch": KindColours(*decision),
    }


LIGHT = GraphPalette(
    background="#f5f6f8",
    text="#1b2030",
    text_muted="#4a5263",
    card_border="#c3c8d2",
    kinds=_kinds(
        llm=("#e8f0fe", "#2f62d0"),
        tool=("#fff3dc", "#c07000"),
        user=("#e4f5ea", "#23824a"),
        subflow=("#efeafb", "#7351c2"),
        fork=("#e2f4f3", "#16837f"),
        decision=("#fbe8ef", "#c0386f"),
        framework=("#eceef2", "#6b7280"),
    ),
    unknown_kind=KindColours("#eceef2", "#6b7280"),
    edge="#5d6679",
    loop_edge="#7351c2",
    edge_label="#3d3463",
    bracket="#9aa1b0",
    selection="#1a66ff",
    cursor="#e8590c",
    message="#4a5263",
    dim_opacity=0.28,
)

DARK = GraphPalette(
    background="#1a1d23",
    text="#e8ebf1",
    text_muted="#b3bac7",
    card_border="#3e4451",
    kinds=_kinds(
        llm=("#1f2c46", "#6f9bff"),
        tool=("#3a2d15", "#f0a73a"),
        user=("#1c3326", "#52c07f"),
        subflow=("#2c2544", "#a98cf0"),
        fork=("#173332", "#45c2bc"),
        decision=("#3b1f2b", "#ef7aa8"),
        framework=("#2a2e36", "#9aa1ae"),
    ),
    unknown_kind=KindColours("#2a2e36", "#9aa1ae"),
    edge="#8d96a8",
    loop_edge="#a98cf0",
    edge_label="#d4c8f7",
    bracket="#5b6271",
    selection="#5c9bff",
    cursor="#ff8a3d",
    message="#b3bac7",
    dim_opacity=0.3,
)


def palette_for(theme: Theme) -> GraphPalette:
    if theme not in ("light", "dark"):
        raise ValueError(f"unknown theme {theme!r}: use 'light' or 'dark'")
    return DARK if theme == "dark" else LIGHT


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two '#rrggbb' colours (1 … 21)."""

    def luminance(colour: str) -> float:
        channels = [int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
