"""Trace text as the window shows it: what a label could misdraw is made visible.

- Bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) reorder what follows them on screen, so a
  tool result could display "exe.txt" as "txt.exe". They are shown as visible markers, as code editors do.
- A lone half of a surrogate pair (the library cuts long text by UTF-16 units, so a status line can end in one)
  cannot be drawn; it becomes U+FFFD, the replacement character.
The text itself (copy value, exports, JSON) is left as it is: only what is displayed changes.
"""

from __future__ import annotations

import re

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SHOWN = re.compile(f"[{BIDI_CONTROLS}\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _marker(match: re.Match) -> str:
    char = match.group()
    if char in BIDI_CONTROLS:
        return f"\u2039U+{ord(char):04X}\u203a"  # ‹U+202E›
    return "\ufffd"


def visible_text(text: str) -> str:
    """`text` with bidi controls as ‹U+202E› markers and lone surrogates as U+FFFD (a fast no-op otherwise)."""
    if not isinstance(text, str) or _SHOWN.search(text) is None:
        return text
    if _PAIR.search(text):  # a well-formed pair in a Python str (from surrogatepass data): join it first
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return _SHOWN.sub(_marker, text)
