"""Links to a moment of a run: `afp-desktop FILE --at STAGE_ID`. Resolving a stage id to a stop, and writing
the command line that opens it. Pure, no Qt.

Resolution, in order: the stop whose runtimeStageId is exactly the id; else the stop whose span holds the
first event carrying that id; else the nearest stop (the same stage with the closest `#n` counter, else the
closest counter of any stop), with a message saying which was chosen and why.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

_COUNTER = re.compile(r"#(\d+)$")
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./#-]+")


@dataclass(frozen=True)
class Resolved:
    stop: int | None     # index among the stops given (None: the run has no stop)
    exact: bool          # the id named this very stop
    message: str         # for the status bar, plain text


def _counter(stage_id: str) -> int | None:
    match = _COUNTER.search(stage_id)
    return int(match.group(1)) if match else None


def _stage(stage_id: str) -> str:
    return _COUNTER.sub("", stage_id)


def resolve_stage(stage_id: str, spans, stage_ids_on_axis: list[str]) -> Resolved:
    """`spans`: the top-level StopSpans (replay.spans); `stage_ids_on_axis`: run.stage_ids_on_axis()."""
    stage_id = stage_id.strip()
    if not spans:
        return Resolved(None, False, f"--at {stage_id}: this run has no stops; opened at its end.")
    for span in spans:
        if span.stop.get("runtimeStageId") == stage_id and stage_id:
            return Resolved(span.index, True, f"Opened at stop {span.index + 1} of {len(spans)} · {span.label} "
                                              f"(stage {stage_id}).")
    if stage_id and stage_id in stage_ids_on_axis:
        entry = stage_ids_on_axis.index(stage_id)
        ends = [span.end for span in spans]
        index = min(bisect_left(ends, entry + 1), len(spans) - 1)
        label = spans[index].label
        return Resolved(index, False, f"{stage_id} is not a stop of this run; opened at stop {index + 1} · {label}, "
                                      f"whose span holds its first event (event {entry + 1:,}).")
    wanted = _counter(stage_id)
    candidates = [span for span in spans if span.stop.get("runtimeStageId")]
    same = [span for span in candidates if _stage(span.stop["runtimeStageId"]) == _stage(stage_id)]
    pool = same or candidates
    if wanted is not None and pool:
        numbered = [span for span in pool if _counter(span.stop["runtimeStageId"]) is not None]
        pool = numbered or pool
        chosen = min(pool, key=lambda span: abs((_counter(span.stop["runtimeStageId"]) or 0) - wanted))
    elif same:
        chosen = same[0]
    else:
        chosen = spans[0]
    return Resolved(chosen.index, False, f"No stop or event of this run has the stage id {stage_id!r}; opened at "
                                         f"the nearest stop: stop {chosen.index + 1} · {chosen.label}.")


def shell_quote_path(path: str) -> str:
    """A path in double quotes for a POSIX shell (what `"<path>"` in a pasted command needs escaped)."""
    escaped = re.sub(r'(["\\$`])', r"\\\1", path)
    return f'"{escaped}"'


def _shell_word(text: str) -> str:
    if text and _SHELL_SAFE.fullmatch(text) and not text.startswith("#"):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def link_command(path: str, stage_id: str, conversation: str | None = None) -> str:
    """`afp-desktop "<path>" --at <runtimeStageId>` (with `--conversation ID` for a bundle's conversation)."""
    parts = ["afp-desktop", shell_quote_path(path)]
    if conversation:
        parts += ["--conversation", _shell_word(conversation)]
    parts += ["--at", _shell_word(stage_id)]
    return " ".join(parts)


def stop_stage_id(span) -> str | None:
    """The stage id a link to this stop names; None for the bookends (Run start / Run end have none)."""
    if span is None:
        return None
    rid = span.stop.get("runtimeStageId")
    return rid if isinstance(rid, str) and rid else None
