"""Bookmarks on a run's stops, with notes: the model, how a bookmark finds its stop again in a reloaded file,
and the JSON they are kept and exported as. Pure, no Qt (the window's store and panel are in app/).

A bookmark remembers the stop it was made on by what identifies a stop across loads — its runtimeStageId,
label and kind, and its numbered label ("LLM turn 3") — not by its index, which changes when a growing file
gains stops before it. A bookmark whose stop is not in the file any more is kept and reported as missing.

Bookmarks are kept per run: the run id (`meta.runId` of the typed events; a Trace has none, so its capture
time stands in) together with the file's absolute path.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

FORMAT = "afp-desktop-bookmarks"
VERSION = 1
MAX_POSITION = (1 << 53) - 1  # a cursor position: a whole number JSON holds exactly, never negative


def run_id_of(run) -> str | None:
    """The run's id: the first `meta.runId` of its typed events, else a Trace's `capturedAtMs`."""
    for event in run.typed_events or ():
        meta = event.get("meta") if isinstance(event, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("runId"), str) and meta["runId"]:
            return meta["runId"]
    document = run.document if isinstance(run.document, dict) else {}
    captured = document.get("capturedAtMs")
    if isinstance(captured, (int, float)) and not isinstance(captured, bool):
        return f"trace captured at {captured:g} ms"
    return None


def run_key(run_id: str | None, path: str) -> str:
    """A file-name-safe key for (run id, absolute path)."""
    text = f"{run_id or ''}\n{os.path.abspath(path)}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def ordinal_labels(stops: list[dict]) -> list[str]:
    """Each stop's label, numbered where labels repeat ("LLM turn 2"), as the timeline shows them."""
    counts = Counter(str(stop.get("label", "")) for stop in stops)
    seen: Counter = Counter()
    out = []
    for stop in stops:
        label = str(stop.get("label", ""))
        if counts[label] > 1:
            seen[label] += 1
            label = f"{label} {seen[label]}"
        out.append(label)
    return out


def stop_identity(stop: dict) -> dict:
    return {key: stop.get(key) for key in ("runtimeStageId", "label", "kind")
            if isinstance(stop.get(key), (str, int, float)) and not isinstance(stop.get(key), bool)}


@dataclass
class Bookmark:
    stop: dict                 # stop_identity() of the stop it was made on
    stop_label: str            # its numbered label then ("LLM turn 3")
    position: int              # the cursor position then (axis position of the stop)
    note: str = ""
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))

    def to_json(self) -> dict:
        return {"stop": dict(self.stop), "stopLabel": self.stop_label, "position": self.position,
                "note": self.note, "created": self.created}

    @classmethod
    def from_json(cls, value: Any) -> "Bookmark | None":
        """A bookmark from its JSON, or None when the value is not one (a damaged file loses only that entry)."""
        if not isinstance(value, dict):
            return None
        stop, label, position = value.get("stop"), value.get("stopLabel"), value.get("position")
        if not isinstance(stop, dict) or not isinstance(label, str) or type(position) is not int \
                or not 0 <= position <= MAX_POSITION:
            return None
        note: str = value["note"] if isinstance(value.get("note"), str) else ""
        created: str = value["created"] if isinstance(value.get("created"), str) else ""
        return cls(stop_identity(stop), label, position, note, created)


def bookmark_at(stops: list[dict], index: int, note: str = "") -> Bookmark:
    """A bookmark on stop `index` of the run's stops."""
    stop = stops[index]
    return Bookmark(stop_identity(stop), ordinal_labels(stops)[index], int(stop.get("axisEnd", 0)), note)


def find_stop(bookmark: Bookmark, stops: list[dict], labels: list[str] | None = None) -> int | None:
    """The index of the bookmark's stop among `stops`, or None when the file no longer has it. Several stops can
    share an identity (a stage id repeated in a loop without numbering): the one with the same numbered label
    wins, then the one nearest the remembered position."""
    labels = labels if labels is not None else ordinal_labels(stops)
    candidates = [i for i, stop in enumerate(stops) if stop_identity(stop) == bookmark.stop]
    if not candidates:
        return None
    same_label = [i for i in candidates if labels[i] == bookmark.stop_label]
    pool = same_label or candidates
    return min(pool, key=lambda i: abs(int(stops[i].get("axisEnd", 0)) - bookmark.position))


@dataclass
class BookmarkBook:
    """The bookmarks of one run (one file)."""

    run_id: str | None
    path: str
    bookmarks: list[Bookmark] = field(default_factory=list)

    @property
    def key(self) -> str:
        return run_key(self.run_id, self.path)

    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "runId": self.run_id, "file": os.path.abspath(self.path),
                "bookmarks": [b.to_json() for b in self.bookmarks]}

    @classmethod
    def from_json(cls, value: Any, run_id: str | None, path: str) -> tuple["BookmarkBook", str | None]:
        """(the book, a warning sentence or None). Never raises: what cannot be read is left out and said."""
        book = cls(run_id, path)
        if not isinstance(value, dict) or value.get("format") != FORMAT:
            return book, "the bookmarks file is not an afp-desktop bookmarks file; starting with none"
        entries: list = value["bookmarks"] if isinstance(value.get("bookmarks"), list) else []
        read = [Bookmark.from_json(entry) for entry in entries]
        book.bookmarks = [b for b in read if b is not None]
        lost = len(read) - len(book.bookmarks)
        return book, (f"{lost} damaged bookmark(s) could not be read and were left out" if lost else None)

    def resolved(self, stops: list[dict]) -> list[tuple[Bookmark, int | None]]:
        """Each bookmark with its stop index in `stops` (None: missing from this file), in stop order; missing
        ones last, in the order they were made."""
        if not self.bookmarks:
            return []  # (numbering thousands of stops is not free)
        labels = ordinal_labels(stops)
        pairs = [(b, find_stop(b, stops, labels)) for b in self.bookmarks]
        return sorted(pairs, key=lambda pair: (pair[1] is None, pair[1] if pair[1] is not None else 0))

    def export_json(self, stops: list[dict]) -> dict:
        """The bookmarks for other tools: each with its stop as found in the open file (or missing)."""
        labels = ordinal_labels(stops)
        rows = []
        for bookmark, index in self.resolved(stops):
            rows.append({"note": bookmark.note, "created": bookmark.created, "missing": index is None,
                         "stop": None if index is None else {"index": index, "label": labels[index]},
                         "position": bookmark.position if index is None else int(stops[index]["axisEnd"]),
                         "bookmarkedStop": {"label": bookmark.stop_label, **bookmark.stop}})
        return {"format": FORMAT + "-export", "version": VERSION, "runId": self.run_id,
                "file": os.path.abspath(self.path), "bookmarks": rows}


def caption(bookmark: Bookmark, index: int | None, labels: list[str]) -> str:
    """One line for an exported image: "LLM turn 3 — the note" (or the missing stop's label, said so)."""
    where = labels[index] if index is not None else f"{bookmark.stop_label} (missing from this file)"
    note = " ".join(bookmark.note.split())
    return f"{where} — {note}" if note else where
