"""What a pause asks a person, as text. A pause request carries its question in `questionPayload`: `askHuman`
puts it in `question`; a tool's check-in, a middleware `ask` or a credential consent may name it `prompt`
(`message`, `text`), or ask it inside a `request` object. The first such string is the question; a payload with
none stays the payload itself (the caller shows it as JSON)."""

from __future__ import annotations

from typing import Any

QUESTION_KEYS = ("question", "prompt", "message", "text")


def question_in(asked: Any) -> Any:
    """The question text inside a `questionPayload`, else `asked` itself (None stays None)."""
    for holder in (asked, asked.get("request") if isinstance(asked, dict) else None):
        if isinstance(holder, dict):
            for key in QUESTION_KEYS:
                if isinstance(holder.get(key), str) and holder[key].strip():
                    return holder[key]
    return asked
