"""afp-desktop's lossless line-oriented form of any run (`afp-desktop convert IN -o OUT.jsonl`).

    line 1  {"format": "afp-desktop.run.v1", "producer": …, "source": {"format", "name"}, "streams": [{"path", "count"}], "notes": [...]}
    line 2  {"document": <the source document with every stream list emptied>}
    line 3… {"s": <stream number>, "v": <one item>}        (stream items in order, one per line)

A stream is a long list of the source document (typed events, DomainEvents, the commit log) named by its path
of keys and indexes. Putting the items back at their paths rebuilds the source document exactly, so opening
the converted file gives the same projections as opening the source. Packed recordings are stored unpacked.
Each line is small (except the skeleton), so the file can be read incrementally and diffed by line.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator


from afp_desktop import __version__
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.formats.errors import LoadCancelled, LoadError, Problem, describe_type
from afp_desktop.core.problems import printable_path

FORMAT = "afp-desktop.run.v1"
_MAGIC = b'{"format":"afp-desktop.run.'


def is_lossless(data: bytes) -> bool:
    return data[:64].lstrip(b"\xef\xbb\xbf").startswith(_MAGIC)  # a small slice: never copy the whole file


def _stream_paths(run) -> list[list]:
    """Paths (in the document) of the long lists worth writing one item per line."""
    doc = run.document
    if isinstance(doc, list):
        return [[]]
    if run.format == "trace":
        return [["events"]]
    base: list = ["recording"] if run.format == "recording-envelope" else []
    recording = _get(doc, base) if run.format != "recording-packed" else None
    if run.format == "recording-packed":
        return []
    paths = []
    if isinstance(recording, dict):
        if isinstance(recording.get("events"), list):
            paths.append(base + ["events"])
        snapshot = recording.get("snapshot")
        if isinstance(snapshot, dict):
            if isinstance(snapshot.get("commitLog"), list):
                paths.append(base + ["snapshot", "commitLog"])
            recorders = snapshot.get("recorders")
            for i, rec in enumerate(recorders if isinstance(recorders, list) else ()):  # (a file may hold `1`)
                if isinstance(rec, dict) and isinstance(rec.get("data"), list):
                    paths.append(base + ["snapshot", "recorders", i, "data"])
    return paths


def _get(doc: Any, path: list) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _emptied(doc: Any, paths: list[list]) -> Any:
    """A copy of `doc` where each path holds [] — copying only the containers along the paths."""
    if [] in paths:
        return []
    root = dict(doc) if isinstance(doc, dict) else list(doc)
    for path in paths:
        node = root
        for key in path[:-1]:
            child = node[key]
            child = dict(child) if isinstance(child, dict) else list(child)
            node[key] = child
            node = child
        node[path[-1]] = []
    return root


def _document_for(run) -> tuple[Any, str]:
    if run.format == "recording-packed":
        # Store the unpacked recording: it is what every projection reads.
        recording = {"snapshot": run.snapshot, "events": run.typed_events, "structure": run.structure}
        recording = {k: v for k, v in recording.items() if v is not None}
        if run.envelope is not None:
            return {**run.envelope, "recording": recording}, "recording-envelope"
        return recording, "recording"
    return run.document, run.format


def lossless_lines(run) -> Iterator[bytes]:
    """The converted file, line by line (each ends with a newline)."""
    document, as_format = _document_for(run)

    class _View:  # the stream-path finder reads .document and .format
        pass

    view: Any = _View()
    view.document, view.format = document, as_format
    paths = _stream_paths(view)
    streams = [_get(document, p) for p in paths]
    header = {"format": FORMAT, "producer": f"afp-desktop {__version__}",
              "source": {"format": run.original_format or run.format, "storedAs": as_format,
                         "name": printable_path(run.path.rsplit("/", 1)[-1])},
              "streams": [{"path": p, "count": len(s)} for p, s in zip(paths, streams)],
              "notes": [str(w) for w in run.warnings]}
    yield jsonio.dumps(header) + b"\n"  # (jsonio: a file name with undecodable bytes is written escaped)
    yield jsonio.dumps({"document": _emptied(document, paths)}) + b"\n"
    for number, items in enumerate(streams):
        for item in items:
            yield jsonio.dumps({"s": number, "v": item}) + b"\n"


def write_lossless(run, out_path: str, inputs=()) -> None:
    """Write the converted file safely (core/safe_write.py): never over an input, never half a file."""
    from afp_desktop.core.safe_write import write_file

    def write(handle) -> None:
        for line in lossless_lines(run):
            handle.write(line)

    write_file(out_path, write, inputs)


def read_lossless(data: bytes, name: str, *, progress: Callable[[float], None] | None = None,
                  cancelled: Callable[[], bool] | None = None):
    from afp_desktop.core.formats.assemble import run_from_document, run_from_typed

    lines = data.lstrip(b"\xef\xbb\xbf").split(b"\n")
    header = _line(lines, 0, name)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise LoadError(name, f"unsupported afp-desktop file format {header.get('format')!r}; this version "
                              f"reads {FORMAT!r}", 1, 1)
    streams = header.get("streams")
    if not isinstance(streams, list) or not all(isinstance(s, dict) and isinstance(s.get("path"), list)
                                                 for s in streams):
        raise LoadError(name, "the header's \"streams\" must be a list of {path, count}", 1)
    holder = _line(lines, 1, name)
    if not isinstance(holder, dict) or "document" not in holder:
        raise LoadError(name, "expected the document skeleton {\"document\": …}", 2)
    document = holder["document"]
    targets = []
    for spec in streams:
        try:
            target = _get(document, spec["path"])
        except (KeyError, IndexError, TypeError):
            raise LoadError(name, f"stream path {spec['path']!r} is not in the document", 2) from None
        if not isinstance(target, list):
            raise LoadError(name, f"stream path {spec['path']!r} is not a list in the document", 2)
        targets.append(target)
    warnings: list[Problem] = []
    total = len(lines)
    cut = False
    for i in range(2, total):
        if progress is not None and i % 5000 == 0:
            if cancelled is not None and cancelled():
                raise LoadCancelled()
            progress(i / total)
        if not lines[i].strip():
            continue
        try:
            row = _line(lines, i, name)
        except LoadError:
            if i == total - 1:  # a cut last line, as with NDJSON
                warnings.append(Problem(name, "the last line is cut off; it was left out", i + 1))
                cut = True
                break
            raise
        number = row.get("s") if isinstance(row, dict) else None
        if not isinstance(number, int) or not 0 <= number < len(targets) or "v" not in row:
            raise LoadError(name, "expected a stream item {\"s\": n, \"v\": …}", i + 1, 1)
        targets[number].append(row["v"])
    for spec, target in zip(streams, targets):
        if isinstance(spec.get("count"), int) and spec["count"] != len(target) and not cut:
            warnings.append(Problem(name, f"stream {spec['path']!r} has {len(target)} items, the header says "
                                          f"{spec['count']}"))
    source: Any = header.get("source") if isinstance(header.get("source"), dict) else {}
    original = source.get("format") if isinstance(source.get("format"), str) else None
    stored_as = source.get("storedAs")
    notes = header.get("notes")
    if notes is not None and not isinstance(notes, list):
        warnings.append(Problem(name, f"the header's \"notes\" is {describe_type(notes)}, not a list; ignored", 1))
        notes = None
    for note in notes or []:
        warnings.append(Problem(name, f"in the original file: {note if isinstance(note, str) else jsonio.dumps(note).decode()}"))
    if stored_as == "ndjson" or (isinstance(document, list) and original == "ndjson"):
        if not isinstance(document, list):
            raise LoadError(name, f"the document of a converted event stream must be a list of events, found "
                                  f"{describe_type(document)}", 2)
        events = [e for e in document if isinstance(e, dict) and isinstance(e.get("type"), str)]
        if len(events) != len(document):
            warnings.append(Problem(name, f"{len(document) - len(events)} item(s) of the stream are not events "
                                          "{type, payload, meta} and were left out"))
        run = run_from_typed(events, name, "afp-jsonl", warnings)
    else:
        run = run_from_document(document, name, original_format=original)
        run.warnings[:0] = warnings
    run.format = "afp-jsonl"
    run.original_format = original
    return run


def _line(lines: list[bytes], index: int, name: str) -> Any:
    if index >= len(lines):
        raise LoadError(name, "the file ends early", index + 1)
    try:
        return jsonio.loads(lines[index])
    except jsonio.JSONSyntaxError as err:
        raise LoadError(name, f"not valid JSON: {err.message}", index + 1, err.column) from None
