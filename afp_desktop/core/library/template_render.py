"""§6.5's substitution (`{{name}}` replaced once, unknown names → ""), with a rendered line's length bounded.

  compiled(template) -> Template         the template cut once into literals and names (kept for reuse)
  Template.render(variables) -> str      the line; past its budget, cut and the cut stated
  LINE_ALLOWANCE

A template names a variable as often as it likes, so a line can be far longer than everything it is made of
(a template repeating `{{appName}}` with a long app name: a line of gigabytes, per state), and a template map may
hold megabytes of text, rendered again for every state. A line's budget is each filled variable's value
counted once plus LINE_ALLOWANCE characters (the template's own text and any repeats): a line that would be
longer is cut at its budget and ends `… (+N more)`, as a long progress message does (§6.4). A value is never
cut short by the budget (a streamed answer is shown whole); only a template's text and repeats past the
allowance are.

The work of one rendering is bounded by the line it gives, not by the template: the template is cut into
pieces once, and for each set of its variables that have text, once more without the placeholders that render
nothing (a template of a million `{{toolCallId}}` renders "" for a tool call without an id in a few steps).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import islice
import re
from sys import intern

from afp_desktop.core.library.jsstring import js_string

LINE_ALLOWANCE = 16_384  # characters a line may hold past each of its values once

PLACEHOLDER = re.compile(r"\{\{([A-Za-z0-9_]+)\}\}")  # JS /\{\{(\w+)\}\}/g: \w is ASCII there


class Template:
    """One template cut into `literals` and the `names` between them (len(literals) == len(names) + 1)."""

    __slots__ = ("literals", "names", "counts", "literal_length", "_keeping")

    def __init__(self, text: str) -> None:
        literals, names, at = [], [], 0
        for match in PLACEHOLDER.finditer(text):
            literals.append(text[at:match.start()])
            names.append(intern(match.group(1)))  # (one string per name, however often the template uses it)
            at = match.end()
        literals.append(text[at:])
        self.literals: list[str] = literals
        self.names: list[str] = names
        self.counts: dict[str, int] = {}
        for name in names:
            self.counts[name] = self.counts.get(name, 0) + 1
        self.literal_length = sum(map(len, literals))
        self._keeping: dict[frozenset, tuple[list[str], list[str]]] = {}

    def uses(self, name: str) -> bool:
        return name in self.counts

    def render(self, variables: dict) -> str:
        """The template with every `{{name}}` replaced by `variables[name]` as text ("" when absent or null),
        cut at the line's budget (see the module)."""
        filled: dict[str, str] = {}
        for name, value in variables.items():  # (a handful of variables; the template may name millions)
            if name in self.counts and value is not None:
                text = js_string(value)
                if text:
                    filled[name] = text
        total = self.literal_length + sum(self.counts[name] * len(text) for name, text in filled.items())
        budget = sum(map(len, filled.values())) + LINE_ALLOWANCE
        literals, names = self._pieces_keeping(frozenset(filled))
        parts, length = [literals[0]], len(literals[0])
        for name, literal in zip(names, islice(literals, 1, None)):
            if length >= budget:  # (only ever past the budget when the line is cut)
                break
            text = filled[name]
            parts += (text, literal)
            length += len(text) + len(literal)
        line = "".join(parts)
        return line if total <= budget else f"{line[:budget]}\u2026 (+{total - budget} more)"

    def _pieces_keeping(self, kept: frozenset) -> tuple[list[str], list[str]]:
        """The literals and names with only the placeholders of `kept` left (the others render nothing: the
        literals around them are joined)."""
        if len(kept) == len(self.counts):
            return self.literals, self.names
        pieces = self._keeping.get(kept)
        if pieces is None:
            literals, names, pending = [], [], [self.literals[0]]
            for name, literal in zip(self.names, self.literals[1:]):
                if name in kept:
                    literals.append("".join(pending))
                    names.append(name)
                    pending = []
                pending.append(literal)
            literals.append("".join(pending))
            pieces = self._keeping[kept] = (literals, names)
        return pieces


@lru_cache(maxsize=32)
def compiled(template: str) -> Template:
    """The template cut into pieces, once for as long as it stays in use (a map's few templates)."""
    return Template(template)
