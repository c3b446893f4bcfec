"""One entry point, `open_run(path)`, that detects the file's shape (§7.7) and returns a `Run`.

| shape                                   | module        |
|-----------------------------------------|---------------|
| NDJSON / .jsonl typed stream (+ rotated `<path>.1`) | ndjson.py |
| Trace v1, recording, envelope v1, packed v1 | documents.py |
| afp-desktop lossless .jsonl              | lossless.py   |
| bug-report bundle (zip; one conversation) | bundle.py     |
| gzip / xz of any of these                | source.py     |
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.formats.assemble import run_from_document, run_from_recording_events, run_from_typed
from afp_desktop.core.formats.errors import LoadCancelled, LoadError, Problem
from afp_desktop.core.formats.lossless import is_lossless, read_lossless
from afp_desktop.core.formats.ndjson import EVENT_HEAD, NON_SPACE, looks_like_ndjson, parse_ndjson
from afp_desktop.core.formats.source import is_zip, read_source, rotated_pair
from afp_desktop.core.breathing import progress_span, reporting
from afp_desktop.core.problems import Notice
from afp_desktop.core.model.run import Run

if TYPE_CHECKING:  # the readers of other shapes, bundles and prefixes are imported when a file needs them
    from afp_desktop.core.formats.cut_trace import Salvage
    from afp_desktop.core.formats.prefixes import Prefixes, ShowFn
    from afp_desktop.core.formats.recording_part import RecordingTail

__all__ = ["open_run", "load_bytes", "LoadError", "LoadCancelled", "Problem", "Run", "ConversationChoiceNeeded"]


def __getattr__(name: str) -> Any:
    if name == "ConversationChoiceNeeded":  # (bundle.py is imported by the first bundle, not by every open)
        from afp_desktop.core.formats.bundle import ConversationChoiceNeeded

        return ConversationChoiceNeeded
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


ProgressFn = Callable[[float], None]


def open_run(path: str | os.PathLike, *, progress: ProgressFn | None = None,
             cancelled: Callable[[], bool] | None = None, conversation: str | None = None,
             show_prefix: ShowFn | None = None, read_once: bool = False) -> Run:
    """Open any supported trace file. Raises LoadError (with file, line, column) or LoadCancelled.
    `conversation` picks one conversation of a bug-report bundle (ConversationChoiceNeeded lists them).
    `show_prefix(run)` is given runs of the first events of a big NDJSON stream or Trace while the rest is read
    (prefixes.py); the run returned is built from the whole file either way. `read_once`: the run is used once
    and let go (the command line), not kept and shown: a Trace under lazy_trace.ONCE_MIN_BYTES is parsed whole."""
    prefixes = None
    if show_prefix is not None:
        from afp_desktop.core.formats.prefixes import Prefixes

        prefixes = Prefixes(show_prefix, cancelled=cancelled)
    return _open_run(Path(path), progress, cancelled, conversation, prefixes, read_once)


def _open_run(path: Path, progress, cancelled, conversation: str | None = None,
              prefixes: Prefixes | None = None, read_once: bool = False) -> Run:
    source_warnings: list[Problem] = []  # (trailing data after a compressed stream)
    if prefixes is not None:  # a big recording's first events, from the end of the file before it is read whole
        from afp_desktop.core.formats import prefixes as prefixes_module
        from afp_desktop.core.formats.recording_part import find_recording_tail_of_file

        tail = find_recording_tail_of_file(path, prefixes_module.MIN_BYTES)
        if tail is not None:
            _offer_recording_part(prefixes, tail, str(path))
        del tail  # (the end of the file it holds, a quarter of it, is not kept while the whole is read)
    data = read_source(path, source_warnings)
    if prefixes is not None and len(data) < prefixes_module.MIN_BYTES:
        prefixes = None  # read whole in well under a second: nothing to show early
    elif prefixes is not None:
        prefixes.reading_begins()
    if is_zip(data):
        from afp_desktop.core.formats.bundle import run_from_bundle

        return run_from_bundle(data, str(path), conversation)
    if conversation is not None:
        raise LoadError(str(path), f"conversation {conversation!r} was asked for, but only a bug-report bundle "
                                   "(a zip) holds conversations to choose from")
    if not is_lossless(data) and looks_like_ndjson(data):
        pair = rotated_pair(path)
        if len(pair) == 2:
            run = _open_rotated(pair, {path: data}, progress, cancelled)
        else:
            run = _load_ndjson(data, str(path), progress, cancelled, prefixes)
    else:
        run = load_bytes(data, str(path), progress=progress, cancelled=cancelled, stream_checked=True,
                         prefixes=prefixes, read_once=read_once)
    run.warnings[:0] = source_warnings
    return run


def _load_ndjson(data: bytes, name: str, progress, cancelled, prefixes: Prefixes | None = None) -> Run:
    events, warnings = parse_ndjson(data, name, progress=progress, cancelled=cancelled,
                                    read_so_far=_stream_prefixes(prefixes, name))
    return run_from_typed(events, name, "ndjson", warnings)


def _stream_prefixes(prefixes: Prefixes | None, name: str):
    """What an event stream's parser tells of the events read so far: the runs of them, shown (prefixes.py)."""
    if prefixes is None:
        return None
    return lambda events, fraction: prefixes.offer(events, fraction,
                                                   lambda evs: run_from_typed(evs, name, "ndjson", []))


def _open_rotated(pair: list[Path], already_read: dict[Path, bytes], progress, cancelled) -> Run:
    events: list[dict] = []
    warnings: list[Problem] = []
    for part in pair:
        data = already_read.get(part)
        if data is None:
            data = read_source(part)
        part_events, part_warnings = parse_ndjson(data, str(part), progress=progress, cancelled=cancelled)
        events.extend(part_events)
        warnings.extend(part_warnings)
    run = run_from_typed(events, str(pair[1]), "ndjson", warnings)
    run.notices.insert(0, Notice("rotated", f"Read the rotated pair: {pair[0].name} (older) then {pair[1].name}.",
                                 "info"))
    return run


OBJECT_STREAM_TEXT = ("This file holds one JSON event after another, each over several lines (as jq prints them), "
                      "not one per line: it was read as the event stream it is.")


def load_bytes(data: bytes, name: str, *, progress: ProgressFn | None = None,
               cancelled: Callable[[], bool] | None = None, stream_checked: bool = False,
               prefixes: Prefixes | None = None, read_once: bool = False) -> Run:
    """Detect the shape of `data` (already decompressed) and build the Run (`read_once`: as open_run's)."""
    if NON_SPACE.search(data) is None:  # (a search, not data.strip(): no copy of a large file)
        raise LoadError(name, "the file is empty")
    if is_zip(data):
        from afp_desktop.core.formats.bundle import run_from_bundle

        return run_from_bundle(data, name)
    wide = _wide_encoding(data)
    if wide:
        raise LoadError(name, f"the file is {wide} encoded; agentfootprint writes UTF-8 (re-save it as UTF-8)")
    if b"\x00" in data[:4096]:
        raise LoadError(name, "this is a binary file, not a JSON or NDJSON trace")
    if is_lossless(data):
        return read_lossless(data, name, progress=progress, cancelled=cancelled)
    if not stream_checked and looks_like_ndjson(data):
        return _load_ndjson(data, name, progress, cancelled, prefixes)
    lead = len(data[:4096]) - len(data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n"))
    stripped = data[lead:] if lead else data  # no copy in the usual case
    if lead == 4096:  # a head of pure whitespace: strip all of it
        stripped = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped[:1] not in (b"{", b"["):
        raise LoadError(name, "not JSON: a trace file starts with '{' (Trace, recording) or is one JSON event "
                              "per line (NDJSON)", 1, 1)
    from afp_desktop.core.formats.cut_trace import looks_cut, salvage_cut_trace
    from afp_desktop.core.formats.lazy_recording import load_recording_lazily
    from afp_desktop.core.formats.lazy_trace import (MIN_BYTES as LAZY_MIN_BYTES, ONCE_MIN_BYTES,
                                                     load_trace_lazily)

    salvage_tried = False
    try:
        told = None
        if prefixes is not None:
            told = lambda events, fraction, root: prefixes.offer(  # noqa: E731
                events, fraction, lambda evs: run_from_document({**root, "events": evs}, name))
            if len(stripped) >= LAZY_MIN_BYTES:  # the first events at once, before the whole file is scanned
                from afp_desktop.core.formats.prefixes import trace_head
                from afp_desktop.core.formats.recording_part import find_recording_tail

                head = trace_head(stripped, prefixes.next)
                if head is not None:
                    prefixes.offer(head[0]["events"], head[1], lambda evs: run_from_document(
                        {**head[0], "events": evs}, name))
                elif not prefixes.shown:  # a recording's typed events, found from its end (its snapshot is first)
                    tail = find_recording_tail(stripped)
                    if tail is not None:
                        _offer_recording_part(prefixes, tail, name)
        with reporting(progress), progress_span(0.0, 0.75):  # (the bar moves while a big document is read)
            doc = load_trace_lazily(stripped, name, told,  # None unless a large Trace
                                    ONCE_MIN_BYTES if read_once else LAZY_MIN_BYTES)
            if doc is None:
                doc = load_recording_lazily(stripped, name)  # None unless a large recording: then parse it all
        if doc is None and EVENT_HEAD.match(stripped):  # an event first: objects one after another, as jq prints
            from afp_desktop.core.formats.value_stream import object_spans

            found = object_spans(stripped)  # them? (before a whole parse that would fail after the first)
            if found is not None:
                return _object_stream(found, data, stripped, name, progress, cancelled, prefixes)
        salvage_tried = doc is None and looks_cut(stripped)  # (before a parse that would fail only at the end)
        if salvage_tried:
            salvage = salvage_cut_trace(stripped, name)
            if salvage is not None:
                return _salvaged(salvage, data, stripped, name, progress, cancelled, prefixes)
        if doc is None:
            doc = jsonio.loads(stripped)
    except jsonio.JSONSyntaxError as err:
        line = err.line + _lines_before(data, stripped) if err.line is not None else None
        # (orjson counts characters, not bytes: its position alone misses the end of a non-ASCII text)
        cut = "end of data" in err.message or (err.pos is not None and err.pos >= len(stripped.rstrip()) - 1)
        salvage = salvage_cut_trace(stripped, name) if cut and not salvage_tried else None
        if salvage is not None:
            return _salvaged(salvage, data, stripped, name, progress, cancelled, prefixes)
        hint = " (the file seems cut off)" if cut else ""
        raise LoadError(name, f"not valid JSON: {err.message}{hint}", line, err.column) from None
    if progress is not None:
        progress(0.8)
    return run_from_document(doc, name)


def _offer_recording_part(prefixes: Prefixes, tail: RecordingTail, name: str) -> None:
    """A recording's first events (recording_part.py), shown; then GROWTH times as many, grown in place (both
    before the rest of the file is read: its stops need the commit log and the snapshot, read with the rest).
    The events of the second part are parsed once the first is shown."""
    from afp_desktop.core.formats.prefixes import mark_as_recording_part

    mark = mark_as_recording_part(tail.total)
    for _ in range(2):
        events = tail.first(prefixes.next)
        if events is None:
            return  # a damaged event among them: no more of the part (the whole read says where)
        prefixes.offer(events, 0.0, lambda evs: run_from_recording_events(evs, name), mark)


def _lines_before(data: bytes, stripped: bytes) -> int:
    """The line breaks before the document's first character (what load_bytes stripped: a BOM, blank lines)."""
    return data[: len(data) - len(stripped)].count(b"\n")


def _salvaged(salvage: Salvage, data: bytes, stripped: bytes, name: str, progress, cancelled,
              prefixes: Prefixes | None) -> Run:
    """The run of the whole part of a Trace cut off before its end (cut_trace.py), saying so."""
    from afp_desktop.core.formats.cut_trace import UNKNOWN_REDACTION

    run = load_bytes(salvage.text, name, progress=progress, cancelled=cancelled, stream_checked=True,
                     prefixes=prefixes)
    problem = salvage.problem
    if problem.line is not None and stripped is not data:
        problem = replace(problem, line=problem.line + _lines_before(data, stripped))
    run.warnings.append(problem)
    # First: what is missing matters more than what the file's kind never holds.
    run.notices[:0] = [Notice("truncated", f"Truncated file: {problem}"),
                       *([] if salvage.redaction_known else [Notice("redaction-unknown", UNKNOWN_REDACTION)])]
    return run


def _object_stream(found, data: bytes, stripped: bytes, name: str, progress, cancelled,
                   prefixes: Prefixes | None) -> Run:
    """The event stream of a file of objects written one after another over several lines (value_stream.py)."""
    from afp_desktop.core.formats.value_stream import parse_object_stream

    spans, cut = found
    lead = _lines_before(data, stripped)
    try:
        events, warnings = parse_object_stream(stripped, spans, cut, name, progress, cancelled,
                                               _stream_prefixes(prefixes, name))
    except LoadError as err:
        problem = err.problem
        raise LoadError(name, problem.message, problem.line + lead if problem.line else None, problem.column) \
            from None
    warnings = [replace(w, line=w.line + lead) if w.line else w for w in warnings]
    run = run_from_typed(events, name, "ndjson", warnings)
    run.notices.append(Notice("object-stream", OBJECT_STREAM_TEXT, "info"))
    return run


def _wide_encoding(data: bytes) -> str | None:
    """'UTF-32 LE' etc. when the text is in a wide encoding (by its byte-order mark, or the zero bytes around
    its first character), else None."""
    head = data[:4]
    for bom, name in ((b"\xff\xfe\x00\x00", "UTF-32 LE"), (b"\x00\x00\xfe\xff", "UTF-32 BE"),
                      (b"\xff\xfe", "UTF-16 LE"), (b"\xfe\xff", "UTF-16 BE")):
        if head.startswith(bom):
            return name
    start = b"{[ \t\r\n"  # without a mark: a JSON text's first character, next to zero bytes
    if len(head) == 4 and head[0] in start and head[1:] == b"\x00\x00\x00":
        return "UTF-32 LE"
    if len(head) == 4 and head[:3] == b"\x00\x00\x00" and head[3] in start:
        return "UTF-32 BE"
    if len(head) >= 2 and head[0] in start and head[1] == 0:
        return "UTF-16 LE"
    if len(head) >= 2 and head[0] == 0 and head[1] in start:
        return "UTF-16 BE"
    return None
