"""What a bug-report bundle (agentfootprint's `exportBugReport()` zip) says, as frozen values and plain words.

formats/bundle.py reads the zip and fills these; the CLI's `info` and the window's Bug report panel show them.
Everything here came from an untrusted file: it is text to show as typed, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from afp_desktop.core.jsonx import jsonio


@dataclass(frozen=True)
class ReporterStatement:
    """What the person filing the bug wrote (manifest `report`, or environment.json's `report`)."""

    title: str | None = None
    steps: str | None = None
    expected: str | None = None
    actual: str | None = None
    app_version: str | None = None

    @property
    def empty(self) -> bool:
        return not any((self.title, self.steps, self.expected, self.actual, self.app_version))


@dataclass(frozen=True)
class Unit:
    """One selectable part of the report (a conversation or a file) as the manifest lists it."""

    id: str
    kind: str
    label: str = ""
    bytes: int | None = None
    files: tuple[str, ...] = ()
    session_id: str | None = None


@dataclass(frozen=True)
class Excluded:
    """What the reporter left out of the bundle (manifest `excluded`)."""

    conversations: int = 0
    files: int = 0
    events: int = 0
    turns: int = 0
    unit_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    """One zip entry as the central directory declares it."""

    name: str
    size: int
    compressed_size: int


@dataclass(frozen=True)
class Conversation:
    """One run the bundle holds: `id` is what --conversation takes (a file holding several recordings gives
    `<id>.0`, `<id>.1`, like the library's refs); `entry` and `where` say where its recording lives."""

    id: str
    entry: str
    where: str  # e.g. "envelopes[0].recording"
    label: str = ""
    session_id: str | None = None


@dataclass(frozen=True)
class BundleInfo:
    path: str
    entries: tuple[Entry, ...]
    conversations: tuple[Conversation, ...]
    chosen: str | None = None
    manifest_version: Any = None
    created_at: str | None = None
    statement: ReporterStatement = field(default_factory=ReporterStatement)
    environment: tuple[tuple[str, str], ...] = ()
    units: tuple[Unit, ...] = ()
    selected: tuple[str, ...] = ()
    excluded: Excluded = field(default_factory=Excluded)
    included_conversations: int | None = None  # manifest counts.conversations
    redacted_keys: tuple[str, ...] = ()
    manifest_warnings: tuple[str, ...] = ()
    manifest_notes: tuple[str, ...] = ()
    missing_files: tuple[str, ...] = ()  # listed in the manifest, absent from the zip
    unlisted_entries: tuple[str, ...] = ()  # in the zip, not listed in the manifest
    narrative: str | None = None
    transcript: str | None = None
    problems: tuple[str, ...] = ()  # what could not be read, in words

    @property
    def conversation_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.conversations)

    def with_choice(self, conversation_id: str) -> "BundleInfo":
        return replace(self, chosen=conversation_id)

    @property
    def title(self) -> str:
        return self.statement.title or "untitled bug report"


# -- plain words ----------------------------------------------------------------------------------------------

LISTED_AT_MOST = 20  # names one sentence lists (lines a statement repeats) before it says how many more there are
SHOWN_CHARACTERS = 120  # of one name in a sentence
STATED_CHARACTERS = 2_000  # of one warning or note of the library


def clipped(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """A name or label fit for a sentence: very long ones cut, saying how much was left out."""
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit:,} more characters)"


def listing(names: Sequence[str], most: int = LISTED_AT_MOST) -> str:
    """'a, b, c', or past `most` names 'a, b, … and 1,234 more': a sentence's length never grows with the file."""
    shown = ", ".join(clipped(n) for n in names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most:,} more"


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def withheld_sentence(info: BundleInfo) -> str | None:
    """"1 of 2 conversations was withheld by the reporter, not lost" — or None when nothing was withheld."""
    ex = info.excluded
    if ex.conversations <= 0:
        return None
    included = info.included_conversations
    if included is None:
        withheld_ids = set(ex.unit_ids)
        included = sum(1 for u in info.units if u.kind == "conversation" and u.id not in withheld_ids)
    total = included + ex.conversations
    verb = "was" if ex.conversations == 1 else "were"
    text = f"{ex.conversations:,} of {_plural(total, 'conversation')} {verb} withheld by the reporter, not lost"
    parts = [p for p in (_plural(ex.events, "event") if ex.events else "",
                         _plural(ex.turns, "turn") if ex.turns else "") if p]
    if parts:
        text += f" ({', '.join(parts)} left out)"
    units: dict[str, Unit] = {}
    for unit in info.units:
        units.setdefault(unit.id, unit)
    labels = ex.unit_ids[:LISTED_AT_MOST]
    if labels:
        text += ": " + "; ".join(clipped(getattr(units.get(uid), "label", "") or uid) for uid in labels)
        if len(ex.unit_ids) > len(labels):
            text += f" and {len(ex.unit_ids) - len(labels):,} more"
    return text + "."


def statements(info: BundleInfo) -> list[str]:
    """What the manifest states, in plain sentences, most important first."""
    out: list[str] = []
    withheld = withheld_sentence(info)
    if withheld:
        out.append(withheld)
    if info.excluded.files > 0:
        verb = "was" if info.excluded.files == 1 else "were"
        out.append(f"{_plural(info.excluded.files, 'file')} {verb} withheld by the reporter, not lost.")
    missing = info.missing_files
    if len(missing) == 1:
        out.append(f"{clipped(missing[0])} is listed in the manifest but is not in the zip: it was lost on the "
                   "way, not withheld.")
    elif missing:
        out.append(f"{len(missing):,} files are listed in the manifest but are not in the zip: they were lost on "
                   f"the way, not withheld: {listing(missing)}.")
    if info.redacted_keys:
        out.append(f"Redacted by name ({_plural(len(info.redacted_keys), 'key')}): "
                   f"{listing(info.redacted_keys)}. Their values were replaced before the bundle was made.")
    else:
        out.append("No key was redacted by name.")
    out += _first_lines("The library warns: ", info.manifest_warnings, "warning")
    out += _first_lines("The library notes: ", info.manifest_notes, "note")
    if info.unlisted_entries:
        out.append(f"Not listed in the manifest: {listing(info.unlisted_entries)}.")
    out += list(info.problems)
    return out


def _first_lines(lead: str, texts: Sequence[str], what: str) -> list[str]:
    """One line per text, at most LISTED_AT_MOST of them, then how many more there are."""
    lines = [lead + clipped(text, STATED_CHARACTERS) for text in texts[:LISTED_AT_MOST]]
    if len(texts) > LISTED_AT_MOST:
        lines.append(f"{lead}{_plural(len(texts) - LISTED_AT_MOST, 'more ' + what)} (afp-desktop info --json "
                     "lists them all).")
    return lines


def banner_text(info: BundleInfo) -> str:
    """The one line the window's banner shows while a bundle is open."""
    count = len(info.conversations)
    which = f"conversation {info.chosen}" if info.chosen else "its conversation"
    if count > 1:
        which += f" (one of {count} in the bundle)"
    text = f"Bug report “{info.title}”: showing {which}."
    withheld = withheld_sentence(info)
    if withheld:
        text += " " + withheld.split(":")[0].rstrip(".") + "."
    return text + " The reporter's statement is in the Bug report panel."


def environment_text(info: BundleInfo) -> str:
    return "\n".join(f"{key}: {value}" for key, value in info.environment)


# -- the transcript (conversation.json) as readable text -----------------------------------------------------

INDENTED_AT_MOST = 16 * 2**10  # bytes of compact JSON: a transcript of another shape is indented up to this size
INDENTED_GROWTH = 3  # ... and only when that makes it at most this many times larger (plus a little)


def _compact(value: Any, limit: int = 2000) -> str:
    return clipped(jsonio.text_of(value), limit)


def transcript_text(doc: Any) -> str:
    """conversation.json `{conversations: [{id, sessionId, turns: [{index, user, steps, final}]}]}` as lines a
    person reads; any other shape is shown as JSON, indented while it is small (it is still the file's content, as
    typed)."""
    conversations = doc.get("conversations") if isinstance(doc, dict) else None
    if not isinstance(conversations, list):
        compact = jsonio.dumps(doc)
        shown = compact
        if len(compact) <= INDENTED_AT_MOST:  # indented while small, and while indenting does not multiply it (a deep
            indented = jsonio.dumps(doc, indent=True)  # value's indentation grows with the square of its depth)
            if len(indented) <= INDENTED_GROWTH * len(compact) + 2**15:
                shown = indented
        return shown.decode("utf-8", "replace")
    lines: list[str] = []
    for conv in conversations:
        if not isinstance(conv, dict):
            lines.append(_compact(conv))
            continue
        head = f"── {conv.get('id', 'conversation')}"
        if conv.get("sessionId"):
            head += f" (session {conv['sessionId']})"
        lines += [head + " ──", ""]
        turns: Any = conv.get("turns") if isinstance(conv.get("turns"), list) else []
        for position, turn in enumerate(turns):
            if not isinstance(turn, dict):
                lines.append(_compact(turn))
                continue
            index = turn.get("index")
            number = index + 1 if isinstance(index, int) and not isinstance(index, bool) else position + 1
            lines.append(f"Turn {number}")
            if "user" in turn:
                lines.append(f"  User: {_compact(turn['user'])}")
            steps: Any = turn.get("steps") if isinstance(turn.get("steps"), list) else []
            for step in steps:
                lines.append("  " + _step_line(step))
            if "final" in turn:
                lines.append(f"  Final answer: {_compact(turn['final'])}")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _step_line(step: Any) -> str:
    if not isinstance(step, dict):
        return _compact(step)
    kind = step.get("kind")
    if kind == "assistant":
        calls = step.get("toolCallCount")
        tail = f"  [asks for {_plural(calls, 'tool call')}]" if isinstance(calls, int) and calls > 0 else ""
        return f"Assistant: {_compact(step.get('content', ''))}{tail}"
    if kind == "tool":
        line = f"Tool {step.get('name', '?')}({_compact(step.get('args', {}))})"
        if "result" in step:
            line += f" → {_compact(step['result'])}"
        if "error" in step:
            line += f" ✖ {_compact(step['error'])}"
        return line
    return _compact(step)


# -- for `afp-desktop info` -----------------------------------------------------------------------------------

def as_dict(info: BundleInfo) -> dict:
    """The bundle's facts as JSON-ready values (`info --json`)."""
    s, ex = info.statement, info.excluded
    return {
        "file": info.path,
        "entries": [{"name": e.name, "bytes": e.size, "compressedBytes": e.compressed_size} for e in info.entries],
        "conversations": [{"id": c.id, "entry": c.entry, "where": c.where or None, "label": c.label or None,
                           "sessionId": c.session_id} for c in info.conversations],
        "chosen": info.chosen,
        "manifestVersion": info.manifest_version, "createdAt": info.created_at,
        "report": {"title": s.title, "stepsToReproduce": s.steps, "expected": s.expected, "actual": s.actual,
                   "appVersion": s.app_version},
        "environment": dict(info.environment),
        "selected": list(info.selected),
        "excluded": {"conversations": ex.conversations, "files": ex.files, "events": ex.events, "turns": ex.turns,
                     "unitIds": list(ex.unit_ids)},
        "redactedKeys": list(info.redacted_keys),
        "statements": statements(info),
        "missingFiles": list(info.missing_files), "unlistedEntries": list(info.unlisted_entries),
        "narrative": info.narrative, "transcript": info.transcript,
    }


def describe_lines(info: BundleInfo) -> list[str]:
    """The bundle for a person: the reporter's statement, what the manifest states, the contents."""
    s = info.statement
    out = [f"Bug report:  {s.title or '(no title)'}"]
    for label, text in (("Steps to reproduce", s.steps), ("Expected", s.expected), ("Actual", s.actual)):
        if text:
            body = text.splitlines() or [""]
            out.append(f"  {label}: {body[0]}")
            out += [f"    {line}" for line in body[1:]]
    if s.app_version:
        out.append(f"  App version: {s.app_version}")
    if info.environment:
        out.append("  Environment: " + ", ".join(f"{k} {v}" for k, v in info.environment))
    made = info.created_at or "unknown time"
    out.append(f"  Made: {made} (manifest version {info.manifest_version})")
    out.append("Conversations:")
    for conv in info.conversations:
        mark = "  (shown below)" if conv.id == info.chosen else ""
        where = f"{conv.entry} → {conv.where}" if conv.where else conv.entry
        out.append(f"  - {conv.id}: {conv.label or 'no label'} [{where}]{mark}")
    if not info.conversations:
        out.append("  (none in the zip)")
    out.append("The manifest states:")
    out += [f"  - {line}" for line in statements(info)]
    out.append("Entries:")
    out += [f"  - {e.name} ({e.size:,} bytes)" for e in info.entries]
    extras = [name for name, text in (("narrative.txt", info.narrative), ("transcript", info.transcript)) if text]
    if extras:
        out.append(f"Readable in the window's Bug report panel: {', '.join(extras)}")
    return out
