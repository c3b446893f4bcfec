"""Where a run paused for a person, for the graph and the timeline: the question (from the event's
`questionPayload`, not the library's generic reason), the answer given on resume, how long the run waited, the
paused tool's StepGraph node and the axis positions of the pause and the resume. Pure, no Qt; the facts come
from `inspect.pauses`, the inspector's own reading of the typed events."""

from __future__ import annotations

from dataclasses import dataclass

from afp_desktop.core.views.inspect import message_text, pauses


@dataclass(frozen=True)
class PauseMark:
    position: int                 # axis position right after the pause request
    resume_position: int | None   # right after the resume; None: never resumed in this file
    question: str
    answer: str | None
    waited_ms: float | None
    tool_name: str | None
    node: int | None              # the paused tool's StepGraph node

    def resumed_at(self, position: int) -> bool:
        return self.resume_position is not None and position >= self.resume_position

    def tooltip(self, position: int | None = None) -> str:
        """What the timeline marker says; at a `position` before the resume the answer is not known yet."""
        lines = [f"⏸ Paused for a person{f' in {self.tool_name}' if self.tool_name else ''}",
                 f"Question: {self.question}"]
        if self.resume_position is None:
            lines.append("Never resumed in this file.")
        elif position is not None and not self.resumed_at(position):
            lines.append("Answer: not given yet at this moment.")
        else:
            lines.append(f"Answer: {self.answer if self.answer is not None else '(none)'}")
            if self.waited_ms is not None:
                lines.append(f"Waited {format_wait(self.waited_ms)}")
        return "\n".join(lines)


def format_wait(ms: float) -> str:
    if ms < 1000:
        return f"{ms:g} ms"
    seconds = ms / 1000
    if seconds < 120:
        return f"{seconds:.1f} s"
    minutes, seconds = divmod(int(round(seconds)), 60)
    if minutes < 120:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def pause_marks(run, tool_node_by_call: dict | None = None) -> list[PauseMark]:
    """Every pause of the run in order. `tool_node_by_call` (ReplayFacts.tool_node_by_call) finds the card."""
    axis = run.axis
    out = []
    for pause in pauses(run):
        question = pause["question"]
        answer = pause["answer"]
        waited = pause["waitedMs"]
        call = pause["toolCallId"]
        node = (tool_node_by_call or {}).get(call) if isinstance(call, (str, int, float)) else None
        out.append(PauseMark(
            axis.typed_after[pause["request"]],
            axis.typed_after[pause["resume"]] if pause["resume"] is not None else None,
            message_text(question) if question is not None else (pause["reason"] or "(no question)"),
            message_text(answer) if answer is not None else None,
            float(waited) if isinstance(waited, (int, float)) and not isinstance(waited, bool) else None,
            pause["toolName"] if isinstance(pause["toolName"], str) else None,
            node))
    return out


def pause_at(marks: list[PauseMark], position: int) -> PauseMark | None:
    """The pause the run is waiting in at `position` (asked, not yet answered)."""
    for mark in marks:
        if mark.position <= position and not mark.resumed_at(position):
            return mark
    return None
