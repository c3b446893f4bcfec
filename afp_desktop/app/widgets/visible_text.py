"""Trace text as the window shows it: what a label would misdraw, or draw as an empty box, is made visible.

- A character shown as a marker `‹U+XXXX›` (its code point, as code editors show it):
  - a control character: C0 (U+0000–U+001F) except line feed and tab, DEL (U+007F) and C1 (U+0080–U+009F);
    a carriage return directly before a line feed is part of the line break and is shown as that line break;
  - a bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE and its kin), which reorders what follows it on
    screen ("exe.txt" displayed as "txt.exe");
  - a private-use or unassigned code point (no meaning a font could show);
  - any other character no font of the window can draw (app/widgets/drawable_glyphs.py).
- A lone half of a surrogate pair (the library cuts long text by UTF-16 units, so a status line can end in one)
  becomes U+FFFD, the replacement character.
A marker is at most 10 characters, so the shown text is at most 10 times as long as the text.
The text itself (copy value, exports, JSON) is left as it is: only what is displayed changes.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable

from afp_desktop.app.widgets.drawable_glyphs import drawable_test

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
CONTROLS = "".join(chr(c) for c in (*range(0x20), *range(0x7F, 0xA0)) if chr(c) not in "\n\t")
_ASCII_SHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def marker(char: str) -> str:
    """The visible marker of one code point: ‹U+001B›, ‹U+2000B›."""
    return f"\u2039U+{ord(char):04X}\u203a"


def always_marked(char: str) -> bool:
    """Whether `char` is shown as a marker whatever fonts there are: a control, a bidi control, a private-use or
    unassigned code point."""
    return char in CONTROLS or char in BIDI_CONTROLS or unicodedata.category(char) in ("Co", "Cn")


def _shown_as_itself(char: str, drawable: Callable[[str], bool]) -> bool:
    if char < "\x80":
        return char not in CONTROLS
    if "\ud800" <= char <= "\udfff":
        return False
    return not always_marked(char) and drawable(char)


def _shown(char: str) -> str:
    return "\ufffd" if "\ud800" <= char <= "\udfff" else marker(char)


def shown_text(text: str, drawable: Callable[[str], bool]) -> str:
    """`text` as displayed, given which characters some font can draw (see the module's rules)."""
    if not isinstance(text, str):
        return text
    if text.isascii() and _ASCII_SHOWN.search(text) is None:
        return text
    if _SURROGATE.search(text) and _PAIR.search(text):
        # a well-formed pair in a Python str (from surrogatepass data): join it first
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    hidden = [char for char in set(text) if not _shown_as_itself(char, drawable)]
    if not hidden:
        return text
    if "\r" in hidden:
        text = text.replace("\r\n", "\n")
    return text.translate({ord(char): _shown(char) for char in hidden})


def first_line(value) -> str:
    """Trace text for a one-line place (a graph card, a route label): its first line, tabs as spaces. Its other
    characters are kept for `visible_text` to mark."""
    text = "" if value is None else str(value)
    return text.strip().split("\n", 1)[0].removesuffix("\r").replace("\t", " ")


def visible_text(text: str) -> str:
    """`text` as the window shows it: markers for controls and undrawable characters, U+FFFD for a lone surrogate
    (the text unchanged, and cheap, when there are none)."""
    if isinstance(text, str) and text.isascii() and _ASCII_SHOWN.search(text) is None:
        return text
    return shown_text(text, drawable_test())
