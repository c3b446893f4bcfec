"""Whole-document JSON files (PROJECTIONS.md §7.1–7.5, decision tree §7.7): Trace v1, recording, the
recording envelope v1 and the packed recording v1."""

from __future__ import annotations

import re
from typing import Any

from afp_desktop.core.formats.errors import LoadError, Problem, describe_type
from afp_desktop.core.jsonx.jsonio import run_deep

# A recording as `recordRun` writes it begins with its snapshot (a Trace never does).
RECORDING_HEAD = re.compile(rb'[ \t\r\n]*\{[ \t\r\n]*"snapshot"[ \t\r\n]*:')

ENVELOPE_FORMAT = "agentfootprint.recording.v1"
PACKED_PREFIX = "agentfootprint.recording.packed."
PACKED_FORMAT = PACKED_PREFIX + "v1"
REF_KEY = "$af:ref"
ESC_KEY = "$af:esc"


def classify(doc: Any, path: str) -> str:
    """'trace' | 'recording' | 'recording-envelope' | 'recording-packed' | 'event-list' | 'domain-list'."""
    if isinstance(doc, list):
        sample = next((e for e in doc if isinstance(e, dict)), None)
        if sample is None:
            if doc:
                raise LoadError(path, "a JSON list, but not of events")
            raise LoadError(path, "an empty JSON list: there are no events in this file")
        return "event-list" if "meta" in sample or "payload" in sample else "domain-list"
    if not isinstance(doc, dict):
        raise LoadError(path, f"expected a JSON object (a Trace or a recording), found {describe_type(doc)}")
    fmt = doc.get("format")
    if fmt is not None:
        if fmt == ENVELOPE_FORMAT:
            return "recording-envelope"
        if isinstance(fmt, str) and fmt.startswith(PACKED_PREFIX):
            if fmt != PACKED_FORMAT:
                raise LoadError(path, f"packed recording format {fmt!r} is newer than this viewer understands "
                                      f"(it reads {PACKED_FORMAT!r})")
            return "recording-packed"
        if "recording" in doc or (isinstance(fmt, str) and fmt.startswith("agentfootprint.")):
            raise LoadError(path, f"unknown recording format {fmt!r}; this viewer reads {ENVELOPE_FORMAT!r} "
                                  f"and {PACKED_FORMAT!r}")
    if doc.get("version") == 1 and "redaction" in doc:
        return "trace"
    if "events" in doc or "snapshot" in doc:
        return "recording"
    if "version" in doc and "events" not in doc:
        raise LoadError(path, f"a Trace of version {doc.get('version')!r}; this viewer reads version 1")
    keys = ", ".join(list(doc)[:6]) or "none"
    raise LoadError(path, "not an agentfootprint file: expected a Trace {version, events, redaction}, a recording "
                          f"{{snapshot, events, structure}} or a recording envelope; found keys: {keys}")


def unpack(doc: dict, path: str) -> dict:
    """Decode a packed recording v1 (§7.5): `{"$af:ref": n}` → values[n] (decoded once, shared),
    `{"$af:esc": {...}}` → that object taken literally with its members decoded."""
    values = doc.get("values")
    if not isinstance(values, list):
        raise LoadError(path, f"packed recording: \"values\" must be a list, found {describe_type(values)}")
    if "recording" not in doc:
        raise LoadError(path, "packed recording: the \"recording\" key is missing")
    decoded: dict[int, Any] = {}
    weights: dict[int, int] = {}  # the expanded size of each decoded value, counted again at each reference
    in_progress: set[int] = set()
    budget = _expansion_budget(doc)
    total = 0

    def grow(amount: int) -> None:
        nonlocal total
        total += amount
        if total > budget:
            raise LoadError(path, f"packed recording: its references expand to more than {budget:,} values and "
                                  "characters, far more than the file itself holds (a \"billion laughs\" file?); "
                                  "it was not loaded")

    def ref(n: Any) -> Any:
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < len(values):
            raise LoadError(path, f"packed recording: reference {n!r} is out of range (0..{len(values) - 1})")
        if n in decoded:
            grow(weights[n])
            return decoded[n]
        if n in in_progress:
            raise LoadError(path, f"packed recording: value {n} refers to itself")
        in_progress.add(n)
        before = total
        decoded[n] = value = decode(values[n])
        weights[n] = total - before
        in_progress.discard(n)
        return value

    def decode(node: Any) -> Any:
        if isinstance(node, list):
            grow(1)
            return [decode(x) for x in node]
        if isinstance(node, dict):
            if len(node) == 1:
                if REF_KEY in node:
                    return ref(node[REF_KEY])
                if ESC_KEY in node and isinstance(node[ESC_KEY], dict):
                    node = node[ESC_KEY]
            grow(1 + sum(map(len, node)))
            return {k: decode(v) for k, v in node.items()}
        grow(1 + len(node) if isinstance(node, str) else 1)
        return node

    # Recordings of long runs nest deeply; decode on a thread with room for it.
    return run_deep(lambda: decode(doc["recording"]))


def _expansion_budget(doc: Any) -> int:
    """How large (values + characters) the unpacked recording may be: a hundred times the packed document,
    at least 16 M, and never past the byte limit for a file (source.max_bytes)."""
    from afp_desktop.core.formats.source import max_bytes

    packed = 0
    work = [doc]
    while work:  # iterative: a packed document may nest deeply
        node = work.pop()
        if isinstance(node, str):
            packed += 1 + len(node)
        elif isinstance(node, list):
            packed += 1
            work.extend(node)
        elif isinstance(node, dict):
            packed += 1 + sum(map(len, node))
            work.extend(node.values())
        else:
            packed += 1
    return min(max_bytes("recording"), max(16 << 20, 100 * packed))


def boundary_recorders(snapshot: Any) -> list[dict]:
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("recorders"), list):
        return []
    return [r for r in snapshot["recorders"] if isinstance(r, dict) and r.get("name") == "BoundaryEvents"]


def recording_parts(recording: Any, path: str, warnings: list[Problem]) -> tuple[Any, Any, Any]:
    """(snapshot, typed events, structure) of a recording, each None when absent or unreadable (§7.3)."""
    if not isinstance(recording, dict):
        raise LoadError(path, f"the recording must be an object {{snapshot, events, structure}}, "
                              f"found {describe_type(recording)}")
    snapshot = recording.get("snapshot")
    if snapshot is not None and not isinstance(snapshot, dict):
        warnings.append(Problem(path, f"the snapshot is unreadable ({describe_type(snapshot)}, not an object)"))
        snapshot = None
    events = recording.get("events")
    if events is not None and not isinstance(events, list):
        warnings.append(Problem(path, f"the typed events are unreadable ({describe_type(events)}, not a list)"))
        events = None
    if events is not None:
        bad = sum(1 for e in events if not isinstance(e, dict) or not isinstance(e.get("type"), str))
        if bad:
            warnings.append(Problem(path, f"{bad} typed event(s) are not event objects and were left out"))
            events = [e for e in events if isinstance(e, dict) and isinstance(e.get("type"), str)]
    structure = recording.get("structure", recording.get("blueprint"))
    return snapshot, events, structure
