"""From parsed pieces to a `Run`: choose the DomainEvent source (§2.8), and say what the file cannot show."""

from __future__ import annotations

from itertools import repeat
from typing import Any

from afp_desktop.core.library.events import TYPED_DOMAIN_TYPES, domain_events_from_typed
from afp_desktop.core.formats import documents
from afp_desktop.core.formats.errors import LoadError, Problem, describe_type
from afp_desktop.core.problems import Notice
from afp_desktop.core.model.run import Run
from afp_desktop.core.model.run_end import MID_WAY_TEXT, is_run_start
from afp_desktop.core.breathing import breathe, breathing_over

CHECKED_AT_ONCE = 16_384  # events checked between two breaths in _domain_list (a short stretch of C loops)

TYPED_ONLY_TEXT = ("Only the typed event stream is in this file: there is no Run box, no subflow boxes (Agent, "
                   "Sequence, Loop…), no fork or decision branches, no loop edges and no slot payloads, and times "
                   "are measured from the first event rather than the run's start.")
NO_TYPED_TEXT = ("This Trace has no typed event stream: the chat-bubble status line, streamed tokens, tool "
                 "progress reports and pauses are not in the file. What the bubble shows is derived from the "
                 "LLM and tool starts and ends.")


def run_from_typed(events: list[dict], path: str, fmt: str, warnings: list[Problem]) -> Run:
    domain, sources = domain_events_from_typed(events)
    run = Run(path=path, format=fmt, typed_events=events, domain_events=domain, domain_source="typed-stream",
              redaction="none", warnings=list(warnings), document=events)
    run.anchors = [sources[i] for i in range(len(domain))]
    finish(run)
    return run


def run_from_document(doc: Any, path: str, *, original_format: str | None = None) -> Run:
    kind = documents.classify(doc, path)
    warnings: list[Problem] = []
    if kind == "event-list":
        events = [e for e in doc if isinstance(e, dict) and isinstance(e.get("type"), str)]
        if len(events) != len(doc):
            warnings.append(Problem(path, f"{len(doc) - len(events)} list item(s) are not events and were left out"))
        run = run_from_typed(events, path, kind, warnings)
        run.document = doc
        return run
    if kind == "domain-list":
        return _finish_domain(Run(path=path, format=kind, typed_events=None, domain_events=_domain_list(doc, path, warnings),
                                  domain_source="trace", warnings=warnings, document=doc))
    if kind == "trace":
        events = doc.get("events")
        if not isinstance(events, list):
            raise LoadError(path, f"Trace: \"events\" must be a list of DomainEvents, found {describe_type(events)}")
        snapshot = doc.get("snapshot") if isinstance(doc.get("snapshot"), dict) else None
        if "snapshot" in doc and snapshot is None and doc.get("snapshot") is not None:
            warnings.append(Problem(path, "the Trace's snapshot is unreadable (not an object)"))
        run = Run(path=path, format="trace", typed_events=None, domain_events=_domain_list(events, path, warnings),
                  domain_source="trace", snapshot=snapshot, structure=doc.get("structure"),
                  redaction=doc.get("redaction") if isinstance(doc.get("redaction"), str) else None,
                  trace_summary=doc.get("summary") if isinstance(doc.get("summary"), dict) else None,
                  warnings=warnings, document=doc, original_format=original_format)
        return _finish_domain(run)
    envelope = None
    recording = doc
    if kind == "recording-envelope":
        recording = doc.get("recording")
        envelope = {k: v for k, v in doc.items() if k != "recording"}
    elif kind == "recording-packed":
        recording = documents.unpack(doc, path)
        if isinstance(recording, dict) and recording.get("format") == documents.ENVELOPE_FORMAT:
            envelope = {k: v for k, v in recording.items() if k != "recording"}
            recording = recording.get("recording")
    return _run_from_recording(recording, path, kind, envelope, warnings, doc, original_format)


def run_from_recording_events(events: list, path: str) -> Run:
    """The Run of a recording's typed events alone (its first events, shown while the rest is read)."""
    return _run_from_recording({"events": events}, path, "recording", None, [], None, None)


def _domain_list(events: list, path: str, warnings: list[Problem]) -> list[dict]:
    # The usual case, checked in C-speed loops: every item is an object with a string "type" — keep the list.
    # A slice at a time with a breath between: a big recording's events checked in one go would hold Python's lock
    # for a long stretch (they lie scattered over the whole heap), the window's paint waiting meanwhile.
    for start in range(0, len(events), CHECKED_AT_ONCE):
        breathe()
        piece = events[start:start + CHECKED_AT_ONCE]
        if not (set(map(type, piece)) <= {dict} and set(map(type, map(dict.get, piece, repeat("type")))) <= {str}):
            break
    else:
        return events
    good = [e for e in events if isinstance(e, dict) and isinstance(e.get("type"), str)]
    if len(good) != len(events):
        warnings.append(Problem(path, f"{len(events) - len(good)} DomainEvent(s) are not event objects with a "
                                      "\"type\" and were left out"))
    return good


def _run_from_recording(recording: Any, path: str, kind: str, envelope: dict | None, warnings: list[Problem],
                        doc: Any, original_format: str | None) -> Run:
    snapshot, typed, structure = documents.recording_parts(recording, path, warnings)
    recorders = documents.boundary_recorders(snapshot)
    boundary: list | None = None
    boundary_mode = None
    notices: list[Notice] = []
    if recorders:
        readable = [r for r in recorders if isinstance(r.get("data"), list)]
        if not readable:
            warnings.append(Problem(path, "the snapshot's BoundaryEvents data is unreadable (not a list)"))
        else:
            chosen = max(readable, key=lambda r: len(r["data"]))  # first of the longest
            boundary = _domain_list(chosen["data"], path, warnings)
            meta = chosen.get("meta")
            boundary_mode = meta.get("mode") if isinstance(meta, dict) else None
            if len(readable) > 1 and all(r["data"] == chosen["data"] for r in readable):
                notices.append(Notice("repeated-recorder", f"The snapshot holds {len(readable)} BoundaryEvents "
                                      f"recorders with the same {len(boundary)} events; they are shown once.",
                                      "info"))
            elif len(readable) > 1:
                notices.append(Notice("several-recorders", f"The snapshot holds {len(readable)} BoundaryEvents "
                                      f"recorders; the graph uses {chosen.get('id', 'the first')!r} "
                                      f"({len(boundary)} events).", "info"))
    anchors = None
    if boundary is not None:
        has_typed_half = any(e.get("type") in TYPED_DOMAIN_TYPES for e in boundary)
        if has_typed_half or not typed:
            domain, source = boundary, "boundary-events"
        else:
            domain, anchors = _merge_halves(boundary, typed)
            source = "boundary+typed"
    elif typed is not None:
        domain, sources = domain_events_from_typed(typed)
        anchors = list(sources)
        source = "typed-stream"
    else:
        domain, source = [], "none"
    redaction = None
    if envelope is not None:
        privacy = envelope.get("privacy")
        if isinstance(privacy, dict) and privacy.get("mode") == "full":
            redaction = "none"
    elif typed is not None:
        redaction = "none"  # recordRun keeps events as they were emitted
    run = Run(path=path, format=kind, typed_events=typed, domain_events=domain, domain_source=source,
              snapshot=snapshot, structure=structure, redaction=redaction, envelope=envelope, warnings=warnings,
              notices=notices, document=doc, anchors=anchors, boundary_mode=boundary_mode,
              original_format=original_format)
    if snapshot is None and typed is None:
        raise LoadError(path, "the recording holds neither a readable snapshot nor readable events")
    finish(run)
    return run


def _merge_halves(traversal: list[dict], typed: list[dict]) -> tuple[list[dict], list[int | None]]:
    """A BoundaryEvents log without its typed half: map the typed events (§2.5) and merge by ts, stable,
    traversal first on equal ts (§2.8)."""
    mapped, sources = domain_events_from_typed(typed)
    merged: list[dict] = []
    anchors: list[int | None] = []
    i = j = 0
    while i < len(traversal) or j < len(mapped):
        take_traversal = j >= len(mapped) or (i < len(traversal) and _ts(traversal[i]) <= _ts(mapped[j]))
        if take_traversal:
            merged.append(traversal[i])
            anchors.append(None)
            i += 1
        else:
            merged.append(mapped[j])
            anchors.append(sources[j])
            j += 1
    return merged, anchors


def _ts(event: dict) -> float:
    ts = event.get("ts")
    return ts if isinstance(ts, (int, float)) and not isinstance(ts, bool) else float("-inf")


def _finish_domain(run: Run) -> Run:
    finish(run)
    return run


def finish(run: Run) -> None:
    """Add the plain-words notices: what this file cannot show."""
    add = run.notices.append
    if run.typed_events is None:
        add(Notice("no-typed", NO_TYPED_TEXT))
    if run.domain_source == "typed-stream":
        add(Notice("typed-only", TYPED_ONLY_TEXT))
    if run.typed_events and not is_run_start(run.typed_events[0]):
        add(Notice("mid-way", MID_WAY_TEXT))
    if run.commit_log is None:
        add(Notice("no-commit-log", "This file has no commit log, so the timeline's stops are derived from the "
                                    "events (the first event of each stage), not from the engine's commits."))
    elif not run.commit_log:
        add(Notice("empty-commit-log", "The commit log is empty; the timeline's stops are derived from the events."))
    if run.boundary_mode == "lean":
        add(Notice("lean", "The boundary log was recorded in lean mode: payloads, tool arguments and results, "
                           "assistant text and injection summaries are not in the file."))
    if run.redaction == "none":
        add(Notice("unredacted", "Unredacted: this file holds the full text of prompts, messages, tool arguments "
                                 "and results. Take care before sharing it."))
    elif run.redaction in ("pii", "policy"):
        add(Notice("redacted", f"Redacted ({run.redaction}): assistant text, tool arguments and results, "
                               "injection summaries and payloads are replaced by markers.", "info"))
    _envelope_notices(run)
    failure = run_failure(run)
    if failure is not None:
        add(Notice("failed", f"The run failed: {failure}", "error"))
    elif run.domain_events and not _run_closed(run):  # cheap: stops at the first root event found
        add(Notice("incomplete", "The run never reached its end in this file: it was paused, cut off, or still "
                                 "running when the file was written."))
    for problem in run.warnings:
        if "cut off" in problem.message:
            add(Notice("truncated", f"Truncated file: {problem}"))
            break
    if run.typed_events is not None and run.snapshot is not None:
        run_ids = {e["meta"].get("runId") for e in run.typed_events if isinstance(e.get("meta"), dict)
                   and isinstance(e["meta"].get("runId"), str)}  # (a run id of another type names no run)
        run_ids.discard("consumer-scope")
        if len(run_ids) > 1:
            add(Notice("several-legs", f"The events span {len(run_ids)} runs (for example a pause and its resume); "
                                       "the snapshot and its commit log cover only the last of them."))


def _envelope_notices(run: Run) -> None:
    env = run.envelope
    if not isinstance(env, dict):
        return
    info: Any = env.get("run") if isinstance(env.get("run"), dict) else {}
    if info.get("complete") is False:
        run.notices.append(Notice("not-complete", "The recording says the run did not complete."))
    dropped = info.get("droppedEvents")
    if isinstance(dropped, int) and dropped > 0:
        first = info.get("firstRetainedEventIndex")
        where = f" the stream starts at event #{first}" if isinstance(first, int) else ""
        run.notices.append(Notice("dropped", f"{dropped} early event(s) were dropped by the recorder's cap;{where}. "
                                             "The status line and graph start late."))


def run_failure(run: Run) -> str | None:
    """The message of the error that ended the run (agentfootprint's `error.fatal`, or a root run.exit whose
    payload is `{error}`), or None when the run did not end in a failure."""
    from afp_desktop.core.jsonx.lazyjson import resolve_quietly

    fatal = run.typed_by_type.get("agentfootprint.error.fatal")
    if fatal:  # the last one
        event = (run.typed_events or [])[fatal[-1]]
        payload: Any = event.get("payload") if isinstance(event.get("payload"), dict) else {}
        error = payload.get("error")
        return error if isinstance(error, str) else "the run ended with a fatal error"
    for event in breathing_over(reversed(run.domain_events)):
        if isinstance(event, dict) and event.get("type") == "run.exit":
            payload = resolve_quietly(event.get("payload"))
            if isinstance(payload, dict) and "error" in payload:
                error = payload["error"]
                return error if isinstance(error, str) else "the run exited with an error"
            return None
    return None


def _run_closed(run: Run) -> bool:
    """True when the file shows the run's end: a root run.exit, or (typed-only) a final agent turn end."""
    if run.domain_source in ("trace", "boundary-events", "boundary+typed"):
        events = run.domain_events
        if any(e.get("type") == "run.entry" for e in events[:50]):
            return any(e.get("type") == "run.exit" for e in reversed(events))
    typed = run.typed_events or []
    for event in reversed(typed):
        etype = event.get("type", "")
        if etype in ("agentfootprint.agent.turn_end", "agentfootprint.composition.exit"):
            return True
        if etype.startswith("agentfootprint.stream.") or etype.startswith("agentfootprint.pause."):
            return False
    return not typed
