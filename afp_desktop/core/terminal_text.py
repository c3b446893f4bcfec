"""Text from a file made safe to print on a terminal: every control character written as a visible escape.

A terminal acts on control characters: ESC and CSI sequences clear the screen, move the cursor or hide text,
OSC sequences retitle the window or plant a link under other words, a carriage return or backspaces write
over what was printed, and the bidirectional overrides and isolates show text in another order than it is.
Human-readable output therefore writes C0 controls (but the newline and the tab, which lay out the text), DEL,
the C1 controls and the bidirectional formatting characters as `\\xNN` / `\\uNNNN`. JSON output needs none of
this: its writer escapes control characters itself.
"""

from __future__ import annotations

import re

_BIDI_FORMATS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # marks, embeddings, overrides, isolates
_CONTROLS = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI_FORMATS}]")
_CONTROLS_AND_NEWLINES = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f{_BIDI_FORMATS}]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: str, keep_newlines: bool = True) -> str:
    """`text` with its control characters escaped (see the module); `keep_newlines=False` escapes newlines too
    (a value printed on a line of its own, which must not start another)."""
    pattern = _CONTROLS if keep_newlines else _CONTROLS_AND_NEWLINES
    return pattern.sub(_escape, text)
