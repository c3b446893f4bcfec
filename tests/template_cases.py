"""Hypothesis strategies for status-line templates (test_template_amplification, test_fuzz_hypothesis)."""

from __future__ import annotations

from hypothesis import strategies as st

_NAMES = ["appName", "toolName", "toolCallId", "progressCount", "progressMessage", "partial", "question", "other"]
_pieces = st.one_of(st.sampled_from([f"{{{{{name}}}}}" for name in _NAMES]),
                    st.text(alphabet="ab{} _\u2026é", max_size=6))


@st.composite
def amplifying_templates(draw) -> str:
    """A template of literals and placeholders (known, unknown), repeated up to thousands of times."""
    body = "".join(draw(st.lists(_pieces, max_size=8)))
    return body * draw(st.sampled_from([1, 2, 50, 3_000]))
