"""The run's state at a position (the Context tab, issue 15): every top-level key of the state the commit log
has built by then, which stage wrote it last (and where on the axis, to jump there), and what entered, changed
or left since another position (the previous stop). Pure, no Qt.

The commits applied at axis position p are those done before the next event fires: the axis records, per event,
how many commits were done when it fired (`commit_before`). A resumed run's earlier legs count as "before
the first commit" (the snapshot covers only the last leg).
"""

from __future__ import annotations

from typing import Any

from afp_desktop.core import jsonio
from afp_desktop.core.stops import PATH_DELIMITER, is_commit_bundle, state_at

VALUE_CHARS = 200


def last_commit_at(run, position: int) -> int:
    """The index of the last commit applied at axis `position` (-1: none): every commit done before the next
    event fires (the convention of `Axis.position_after_commit`, so a jump to a commit shows it applied)."""
    counts = run.axis.commit_before
    log = run.commit_log or []
    if position >= len(counts):
        return len(log) - 1
    return max(-1, counts[max(position, 0)] - 1)


def _compact(value: Any) -> str:
    if isinstance(value, str):
        text = value
    else:
        try:
            text = jsonio.dumps(value).decode("utf-8", "replace")
        except Exception:  # noqa: BLE001 - a value that cannot be written is still listed
            text = repr(value)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def writers(log: list, through: int) -> dict[str, tuple[int, dict]]:
    """Top-level key → (commit index, bundle) of the last commit through `through` that wrote under it."""
    out: dict[str, tuple[int, dict]] = {}
    for index in range(min(through, len(log) - 1) + 1):
        bundle = log[index]
        if not is_commit_bundle(bundle):
            continue
        for entry in bundle["trace"]:
            path = entry.get("path") if isinstance(entry, dict) else None
            if isinstance(path, str) and path:
                out[path.split(PATH_DELIMITER, 1)[0]] = (index, bundle)
    return out


def context_at(run, position: int, since: int | None = None) -> dict | None:
    """{"throughCommit", "rows": [{"key", "value", "writtenBy", "commit", "position", "change"}]} at `position`;
    `change` is "entered" | "changed" | "" against the state at `since`, and keys gone since then are listed
    with change "left". None when the file has no commit log."""
    log = run.commit_log
    if not log or not isinstance(run.snapshot, dict):
        return None
    last = last_commit_at(run, position)
    state = state_at(run.snapshot, last)["state"]
    before = state_at(run.snapshot, last_commit_at(run, since))["state"] if since is not None else None
    wrote = writers(log, last)
    rows = []
    for key in sorted(state, key=str):
        written = wrote.get(key)
        index, bundle = written if written is not None else (None, {})
        change = ""
        if before is not None:
            change = "entered" if key not in before else ("changed" if before[key] != state[key] else "")
        rows.append({"key": str(key), "value": _compact(state[key]),
                     "writtenBy": str(bundle.get("stage") or bundle.get("runtimeStageId") or ""),
                     "stage": str(bundle.get("runtimeStageId") or ""),
                     "commit": index, "position": None if index is None else run.axis.position_after_commit(index),
                     "change": change})
    if before is not None:
        rows += [{"key": str(key), "value": _compact(before[key]), "writtenBy": "", "stage": "", "commit": None,
                  "position": None, "change": "left"} for key in sorted(before, key=str) if key not in state]
    rows.sort(key=lambda row: (row["change"] == "", row["key"]))  # what changed first, then by name
    return {"throughCommit": last, "rows": rows}
