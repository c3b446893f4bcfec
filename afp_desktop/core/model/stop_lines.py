"""The distinct status lines the chat user saw during a stop's span, in order — rendered when read.

With the default streaming template (`{{partial}}`) every token of an answer is a new line holding the whole
answer so far: an answer of n tokens is n lines, their text growing with the square of n — far too much to build
on every move onto that stop, and more than memory holds for a long answer. So a streaming line is kept as its
call's final text, the length of it shown and the streaming template, and rendered when read; two consecutive
ones of the same call differ exactly when their lengths do. The lines read are what rendering every state gives.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence, overload

from afp_desktop.core.breathing import EVERY, breathe
from afp_desktop.core.library.status import StreamingTemplate, render_status_line, streaming_template


class _Streaming:
    """A streaming status line: the streaming `template`'s line of the partial `text[:length]`."""

    __slots__ = ("text", "length", "template")

    def __init__(self, text: str, length: int, template: StreamingTemplate) -> None:
        self.text, self.length, self.template = text, length, template

    def render(self) -> str:
        return self.template.line(self.text[:self.length])

    def __bool__(self) -> bool:  # (non-empty, as the line it renders)
        return self.length > 0 or not self.template.blank


Item = Any  # a str, or a _Streaming


def streaming_line(item: Item) -> bool:
    """A streamed line, kept as its call's text and a length (line_of)."""
    return type(item) is _Streaming


def _same(a: Item, b: Item) -> bool:
    if type(a) is _Streaming and type(b) is _Streaming and a.text is b.text and a.template is b.template:
        return a.length == b.length
    return _rendered(a) == _rendered(b)  # (a call's first line after another state: once per call)


def _rendered(item: Item) -> str:
    return item.render() if type(item) is _Streaming else item


class StopLines(Sequence[str]):
    """Reads like the tuple of lines: len, index, slice, iteration, == (with a tuple or list too)."""

    __slots__ = ("_items", "pending")

    def __init__(self, items: list[Item], pending: bool = False) -> None:
        self._items = items
        self.pending = pending  # not walked yet (a long span, walked beside the window: Replay.defer_long_walks)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, k: int) -> str: ...

    @overload
    def __getitem__(self, k: slice) -> list[str]: ...

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [_rendered(item) for item in self._items[k]]
        return _rendered(self._items[k])

    def __iter__(self) -> Iterator[str]:
        return (_rendered(item) for item in self._items)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (StopLines, tuple, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # like a list

    def __repr__(self) -> str:
        return f"StopLines({len(self)} lines)"

    def first(self, count: int) -> "StopLines":
        """The first `count` lines (what was seen partway through the span walked: stop_lines_walk)."""
        return StopLines(self._items[:count], self.pending)


def line_of(timeline, k: int, streaming: StreamingTemplate | None, app_name: str, templates: dict) -> Item:
    """The line a StatusTimeline's state k renders: a str, None (no line), or a _Streaming rendered when read —
    a streaming state's partial is never copied. `streaming`: streaming_template(app_name, templates)."""
    stream = timeline.stream_of(k)
    if stream is None:
        return render_status_line(timeline[k], app_name, templates)
    if streaming is None:
        return None  # (no streaming template: such a state renders no line)
    if streaming.fixed is not None:
        return streaming.fixed  # (a template without the partial: the same line for every token)
    return _Streaming(stream[0], stream[1], streaming)


def stop_lines(states, prefix_span: tuple[int, int], templates: dict, app_name: str) -> StopLines:
    """The lines rendered after each event of the span (an empty line too: the chat showed it; None is no
    bubble), consecutive repeats merged. Consecutive
    prefixes share one state (one slot of a StatusTimeline), so each distinct state is looked at once."""
    return stop_lines_walk(states, prefix_span, templates, app_name)[0]


def stop_lines_walk(states, prefix_span: tuple[int, int], templates: dict, app_name: str,
                    resume: tuple["StopLines", list[int], int] | None = None) -> tuple[StopLines, list[int]]:
    """stop_lines, and the prefix after which each line was first seen: the lines of the span cut at prefix p are
    the first `bisect_right(seen_at, p)` of them (the walk to p is the start of the walk to the span's end).
    `resume`: (lines, seen_at, p) of a walk of the same span's start up to prefix p, with the same templates, of a
    run this one extends (File ▸ Follow): only the states after p are looked at."""
    timeline = states if hasattr(states, "stream_of") else None
    streaming = streaming_template(app_name, templates) if timeline is not None else None
    items: list[Item] = []
    seen_at: list[int] = []
    previous: Any = object()
    line: Item = None
    low, high = prefix_span[0] + 1, prefix_span[1] + 1
    if resume is not None and prefix_span[0] < resume[2] <= prefix_span[1]:
        items, seen_at = list(resume[0]._items), list(resume[1])  # (copies: the lines already shown stay as they were)
        # After state k the walk's `previous` is always state k's slot (or the state itself).
        previous = timeline.slot(resume[2]) if timeline is not None else states[resume[2]]
        low = resume[2] + 1
    for chunk in range(low, high, EVERY):  # (a span can hold 100,000 states: a loader walks it, and breathes)
        breathe()
        for k in range(chunk, min(chunk + EVERY, high)):
            if timeline is not None:
                slot = timeline.slot(k)
                if slot == previous:
                    continue
                previous = slot
                line = line_of(timeline, k, streaming, app_name, templates)
            else:
                state = states[k]
                if state is previous:
                    continue
                previous = state
                line = render_status_line(state, app_name, templates)
            if line is not None and (not items or not _same(items[-1], line)):  # (an empty line was seen too)
                items.append(line)
                seen_at.append(k)
    return StopLines(items), seen_at
