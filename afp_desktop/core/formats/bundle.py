"""agentfootprint's bug-report bundles: the zip `exportBugReport()` returns, read from bytes in memory.

    manifest.json              manifestVersion 2: report (the reporter's prose), units, selected, excluded,
                               redactedKeys, warnings, notes, environment
    envelope.json              the recording envelope (or recording.json when the run facts were not available)
    conversations/<id>.json    one per conversation when there are several: {envelopes: [...]} or {recordings: [...]}
    conversation.json          the readable transcript
    narrative.txt              the run in sentences
    environment.json           the host, and the reporter's prose again

The zip is hostile until shown otherwise: it is never extracted; entry names are only compared with the names
the library writes, never used as paths; the central directory's sizes are checked before any entry is read,
and every read is capped; an archive inside the archive, a zip bomb or too many entries is refused with a
message naming the file and the entry. Every cap scales with the input or with what the library writes: an
entry expands at most BOMB_RATIO times its compressed size (whatever its size), the entries together at most
the byte budget of any trace (source.max_bytes()), the manifest and the other entries a person reads have
their own caps, and a bundle of more than MAX_CONVERSATIONS conversations is refused.
"""

from __future__ import annotations

import io
import re
import stat
import struct
import zipfile
import zlib
import lzma
from dataclasses import replace
from typing import Any

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.jsonx.shallow import Span, TooManyItems, two_levels
from afp_desktop.core.formats.bugreport import (
    BundleInfo,
    Conversation,
    Entry,
    Excluded,
    ReporterStatement,
    Unit,
    banner_text,
    clipped,
    listing,
    transcript_text,
)
from afp_desktop.core.formats.errors import LoadError, describe_type
from afp_desktop.core.formats.lazy_recording import load_recording_lazily
from afp_desktop.core.formats.source import EMPTY_ZIP_MAGIC, MAX_BYTES_ENV, ZIP_MAGIC, describe_size, max_bytes
from afp_desktop.core.model.run import Notice, Run

MAX_ENTRIES = 2_000
MAX_CONVERSATIONS = 1_000  # recordings in all the conversation files: a bundle holds a handful
BOMB_RATIO = 200  # uncompressed / compressed, for every entry: no JSON of a run packs this tight
BOMB_ALLOWANCE = 4_096  # bytes any entry may expand beyond BOMB_RATIO (a tiny entry's headers outweigh its data)
MAX_MANIFEST_BYTES = 8 * 2**20  # manifest.json and environment.json: the library writes a few KB of each
MAX_READABLE_BYTES = 16 * 2**20  # conversation.json and narrative.txt: text for a person, shown whole
CONTAINER_BYTES = 64  # a recording's text per JSON object or list: a recording holds one per ~75 bytes
MAX_NAME_CHARACTERS = 1_000  # of an entry's name, a unit's id, label or session id: the library writes short ones
READ_CAPS = {"manifest.json": MAX_MANIFEST_BYTES, "environment.json": MAX_MANIFEST_BYTES,
             "conversation.json": MAX_READABLE_BYTES, "narrative.txt": MAX_READABLE_BYTES}
METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
ARCHIVE_SUFFIXES = (".zip", ".jar", ".7z", ".rar", ".tar", ".tgz", ".gz", ".xz", ".bz2", ".zst")
ARCHIVE_MAGICS = (ZIP_MAGIC, EMPTY_ZIP_MAGIC, b"\x1f\x8b", b"\xfd7zXZ\x00", b"7z\xbc\xaf\x27\x1c", b"Rar!",
                  b"BZh", b"\x28\xb5\x2f\xfd")
RECORDING_LISTS = ("envelopes", "recordings")  # a conversation file's lists of recordings
CONVERSATION_ENTRY = re.compile(r"conversations/([^/]+)\.json")
SINGLE_RECORDING_ENTRIES = ("envelope.json", "recording.json")
KNOWN_MANIFEST_VERSION = 2
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError, struct.error,
               NotImplementedError, RuntimeError, OverflowError, IndexError, KeyError, zlib.error,
               lzma.LZMAError, UnicodeDecodeError, TypeError)


class ConversationChoiceNeeded(LoadError):
    """A bundle with several conversations was opened without saying which one."""

    def __init__(self, path: str, conversations: tuple[Conversation, ...]):
        self.conversations = conversations
        listed = listing([_choice_label(c) for c in conversations])
        super().__init__(path, f"this bug-report bundle holds {len(conversations):,} conversations; choose one "
                               f"with --conversation ID: {listed}")


def is_bundle(data: bytes) -> bool:
    return data[:4] == ZIP_MAGIC


def is_empty_zip(data: bytes) -> bool:
    return data[:4] == EMPTY_ZIP_MAGIC


def run_from_bundle(data: bytes, name: str, conversation: str | None = None) -> Run:
    """The Run of one conversation of the bundle (the only one when `conversation` is None)."""
    return read_bundle(data, name).open(conversation)


def read_bundle(data: bytes, name: str) -> "Bundle":
    """Check and read the zip's entries (not yet any recording's Run). Raises LoadError."""
    if is_empty_zip(data):
        raise LoadError(name, "an empty zip archive: a bug-report bundle holds at least manifest.json")
    _check_entry_count(data, name)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except _ZIP_ERRORS as err:
        raise LoadError(name, f"the zip is damaged or not a zip ({_reason(err)})") from None
    return Bundle(archive, _checked_entries(infos, name), name)


class Bundle:
    """An opened bundle: its facts (`info`) and, on demand, the Run of one of its conversations."""

    def __init__(self, archive: zipfile.ZipFile, infos: dict[str, zipfile.ZipInfo], name: str):
        self._archive, self._infos, self.name = archive, infos, name
        self._places: dict[str, tuple[str, int]] = {}  # conversation id → (list key, index) in its file
        problems: list[str] = []
        if "manifest.json" not in infos:
            listed = listing([_shown(n) for n in infos], most=8) or "none"
            raise LoadError(name, "not an agentfootprint bug-report bundle: manifest.json is missing "
                                  f"(entries: {listed}). Other zips are not opened: extract the trace file "
                                  "from it and open that")
        size = infos["manifest.json"].file_size
        if size > MAX_MANIFEST_BYTES:
            raise LoadError(self._where("manifest.json"), f"the manifest is {describe_size(size)}; the library "
                                                          "writes a few KB, and this viewer reads at most "
                                                          f"{describe_size(MAX_MANIFEST_BYTES)} of it; refused")
        manifest = self._json("manifest.json")
        if not isinstance(manifest, dict):
            raise LoadError(self._where("manifest.json"), f"the manifest must be a JSON object, found "
                                                          f"{describe_type(manifest)}")
        environment = self._optional_json("environment.json", problems)
        if environment is not None and not isinstance(environment, dict):
            problems.append(f"environment.json is {describe_type(environment)}, not an object; it was left out.")
            environment = None
        version = manifest.get("manifestVersion")
        if version != KNOWN_MANIFEST_VERSION:
            problems.append(f"The manifest's version is {_shown_value(version)}; this viewer knows version "
                            f"{KNOWN_MANIFEST_VERSION}, so some of what it states may be missing here.")
        units = _units(manifest.get("units"), problems)
        self.conversations = self._find_conversations(units)
        listed_files = _listed_files(manifest.get("files"))
        listed_set = set(listed_files)
        self.info = BundleInfo(
            path=name,
            entries=tuple(Entry(n, i.file_size, i.compress_size) for n, i in infos.items()),
            conversations=tuple(self.conversations),
            manifest_version=version if _is_scalar(version) else describe_type(version),
            created_at=_text(manifest.get("createdAt")),
            statement=_statement(manifest.get("report"), (environment or {}).get("report"), problems),
            environment=_environment(manifest.get("environment"), environment),
            units=tuple(units),
            selected=_strings(manifest.get("selected"), "selected", problems),
            excluded=_excluded(manifest.get("excluded"), problems),
            included_conversations=_count(manifest.get("counts"), "conversations"),
            redacted_keys=_strings(manifest.get("redactedKeys"), "redactedKeys", problems),
            manifest_warnings=_strings(manifest.get("warnings"), "warnings", problems),
            manifest_notes=_strings(manifest.get("notes"), "notes", problems),
            missing_files=tuple(f for f in dict.fromkeys(listed_files) if f not in infos),
            unlisted_entries=tuple(_shown(n) for n in infos if listed_set and n not in listed_set
                                   and n != "manifest.json" and not n.endswith("/")),
            narrative=self._text("narrative.txt", problems),
            transcript=self._transcript(problems),
            problems=tuple(problems),
        )

    # -- choosing and opening a conversation ---------------------------------------------------------------
    def choose(self, conversation: str | None) -> Conversation:
        if not self.conversations:
            withheld = self.info.excluded.conversations
            if withheld:
                raise LoadError(self.name, "this bug-report bundle holds no conversation's recording: the reporter "
                                           f"withheld {'it' if withheld == 1 else f'all {withheld}'}; only the "
                                           "report itself is here ('afp-desktop info' shows it)")
            raise LoadError(self.name, "this bug-report bundle holds no recording (no envelope.json, "
                                       "recording.json or conversations/<id>.json)")
        if conversation is None:
            if len(self.conversations) == 1:
                return self.conversations[0]
            raise ConversationChoiceNeeded(self.name, tuple(self.conversations))
        for candidate in self.conversations:
            if candidate.id == conversation:
                return candidate
        withheld_note = " It was withheld by the reporter." if conversation in self.info.excluded.unit_ids else ""
        raise LoadError(self.name, f"no conversation {_shown(conversation)!r} in this bundle.{withheld_note} Its "
                                   f"conversations: {listing([_choice_label(c) for c in self.conversations])}")

    def open(self, conversation: str | None = None) -> Run:
        from afp_desktop.core.formats.assemble import run_from_document

        chosen = self.choose(conversation)
        where = f"{self._where(chosen.entry)} › {chosen.where}" if chosen.where else self._where(chosen.entry)
        document = self._recording_document(chosen)
        run = run_from_document(document, where)
        run.path = self.name  # reload, recent files and the title go by the zip
        run.bundle = self.info.with_choice(chosen.id)
        run.notices.insert(0, Notice("bug-report", banner_text(run.bundle), "info"))
        return run

    def _recording_document(self, chosen: Conversation) -> Any:
        place = self._places.get(chosen.id)
        if place is None:  # envelope.json, recording.json, or a conversation file that is one recording
            return self._recording(chosen.entry, self._recording_bytes(chosen.entry))
        key, index = place
        data, recordings = self._conversation_file(chosen.entry)
        item = recordings[key][index]
        if not isinstance(item, Span):
            return item
        text = item.bytes_of(data)
        del data, recordings  # (only the chosen recording's bytes are kept while it is read)
        return self._recording(chosen.entry, text, cut=True)

    def _find_conversations(self, units: list[Unit]) -> list[Conversation]:
        by_file = {f: u for u in units if u.kind == "conversation" for f in u.files}
        found: list[tuple[Conversation, tuple[str, int] | None]] = []
        for entry in self._infos:
            match = CONVERSATION_ENTRY.fullmatch(entry)
            if entry not in SINGLE_RECORDING_ENTRIES and not match:
                continue
            unit = by_file.get(entry)
            base = unit.id if unit else (match.group(1) if match else entry.removesuffix(".json"))
            label, session = (unit.label, unit.session_id) if unit else ("", None)
            recordings: dict[str, list] = {}
            if match:
                _data, recordings = self._conversation_file(entry)
            held = sum(len(recordings.get(key, ())) for key in RECORDING_LISTS)
            if len(found) + max(held, 1) > MAX_CONVERSATIONS:  # (counted before one object is made per recording)
                raise LoadError(self.name, _too_many_conversations(entry, held))
            places = [(key, i) for key in RECORDING_LISTS for i in range(len(recordings.get(key, [])))]
            if not places:  # the entry is itself one recording or envelope
                found.append((Conversation(base, entry, "", label, session), None))
            for n, (key, i) in enumerate(places):
                ident = base if len(places) == 1 else f"{base}.{n}"
                where = f"{key}[{i}]" + (".recording" if key == "envelopes" else "")
                found.append((Conversation(ident, entry, where, label, session), (key, i)))
        seen: dict[str, int] = {}
        unique = []
        for conv, place in found:  # two entries claiming the same id: keep both, told apart
            n = seen.get(conv.id, 0)
            seen[conv.id] = n + 1
            if n:
                conv = replace(conv, id=f"{conv.id}~{n + 1}")
            if place is not None:
                self._places[conv.id] = place
            unique.append(conv)
        return unique

    # -- reading entries -----------------------------------------------------------------------------------
    def _where(self, entry: str) -> str:
        return f"{self.name} › {_shown(entry)}"

    def _bytes(self, entry: str) -> bytes:
        info = self._infos[entry]
        cap = info.file_size  # (the central directory's sizes were checked against every cap: _checked_entries)
        chunks, size = [], 0
        try:
            with self._archive.open(info) as handle:
                while True:
                    chunk = handle.read(min(2**20, cap + 1 - size))
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > cap:
                        raise LoadError(self._where(entry), "the entry holds more than its declared size; refused")
                    chunks.append(chunk)
        except LoadError:
            raise
        except _ZIP_ERRORS as err:
            raise LoadError(self._where(entry), f"the entry is damaged ({_reason(err)})") from None
        data = b"".join(chunks)
        if data.startswith(ARCHIVE_MAGICS):
            raise LoadError(self._where(entry), "the entry is itself an archive (a zip or compressed file inside "
                                                "the bundle); nested archives are refused")
        return data

    def _json(self, entry: str) -> Any:
        return self._parsed(entry, self._bytes(entry))

    def _parsed(self, entry: str, data: bytes) -> Any:
        try:
            return jsonio.loads(data, deep=entry not in READ_CAPS)  # (facts and text are never deep)
        except jsonio.JSONSyntaxError as err:
            if err.message == jsonio.TOO_DEEP:
                raise LoadError(self._where(entry), f"the entry is {err.message}; refused") from None
            raise LoadError(self._where(entry), f"not valid JSON: {err.message}", err.line, err.column) from None

    def _recording(self, entry: str, text: bytes, cut: bool = False) -> Any:
        """One recording (or envelope) parsed the way a recording file is: a large one with its payloads left as
        bytes until asked for, so it costs what the same recording costs opened on its own. `cut`: `text` is a
        part of the entry; when it is broken, the whole entry is parsed to say where (line and column in it)."""
        try:
            doc = load_recording_lazily(text, self._where(entry))
            return jsonio.loads(text) if doc is None else doc
        except jsonio.JSONSyntaxError as err:
            if not cut:
                raise LoadError(self._where(entry), f"not valid JSON: {err.message}", err.line, err.column) \
                    from None
            message = err.message
        del text
        self._json(entry)  # (raises, saying where in the entry)
        raise LoadError(self._where(entry), f"not valid JSON: {message}")

    def _conversation_file(self, entry: str) -> tuple[bytes, dict[str, list]]:
        """A conversation file's bytes and its recording lists ({} when it is itself one recording), each
        recording a Span of the bytes (jsonx/shallow.py: none of them parsed yet) when the scan finds them."""
        data = self._recording_bytes(entry)
        try:
            doc = two_levels(data, RECORDING_LISTS, most=MAX_CONVERSATIONS)
        except TooManyItems as err:
            raise LoadError(self.name, _too_many_conversations(entry, err.count)) from None
        return data, _recordings_of(self._parsed(entry, data) if doc is None else doc, self._where(entry))

    def _recording_bytes(self, entry: str) -> bytes:
        """The bytes of an entry holding recordings, refused when it holds more JSON objects and lists than the
        byte budget allows a recording (reading JSON costs in proportion to them, whichever way it is read)."""
        data = self._bytes(entry)
        containers, most = data.count(b"{") + data.count(b"["), max_bytes() // CONTAINER_BYTES
        if containers > most:
            raise LoadError(self._where(entry), f"the entry holds {containers:,} JSON objects and lists, more than "
                                                f"the {most:,} a recording within the byte budget holds "
                                                f"({_budget_hint()}); refused")
        return data

    def _too_big_to_read(self, entry: str, problems: list[str]) -> bool:
        """An entry the runs do not need, larger than the library ever writes it: said, and left out."""
        size, cap = self._infos[entry].file_size, READ_CAPS[entry]
        if size <= cap:
            return False
        problems.append(f"{entry} is {describe_size(size)}, more than the {describe_size(cap)} this viewer reads "
                        "of it; it was left out.")
        return True

    def _optional_json(self, entry: str, problems: list[str]) -> Any:
        """An entry the runs do not need: too big or broken JSON is said and skipped (a refused entry still
        refuses)."""
        if entry not in self._infos or self._too_big_to_read(entry, problems):
            return None
        data = self._bytes(entry)
        try:
            return jsonio.loads(data, deep=False)
        except jsonio.JSONSyntaxError as err:
            if err.message == jsonio.TOO_DEEP:
                problems.append(f"{entry} is {err.message}; it was left out.")
                return None
            where = f", line {err.line}, column {err.column}" if err.line is not None else ""
            problems.append(f"{entry}{where} is not valid JSON ({err.message}); it was left out.")
            return None

    def _text(self, entry: str, problems: list[str]) -> str | None:
        if entry not in self._infos or self._too_big_to_read(entry, problems):
            return None
        data = self._bytes(entry)
        text = data.decode("utf-8", "replace")
        if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
            problems.append(f"{entry} is not valid UTF-8; the unreadable bytes show as �.")
        return text

    def _transcript(self, problems: list[str]) -> str | None:
        if "conversation.json" not in self._infos:
            return None
        doc = self._optional_json("conversation.json", problems)
        return None if doc is None else transcript_text(doc)


# -- checks on the central directory ---------------------------------------------------------------------------

def _check_entry_count(data: bytes, name: str) -> None:
    """The end-of-central-directory record's entry count, read before zipfile builds one object per entry."""
    tail = data[-(65_535 + 22):]
    at = tail.rfind(EMPTY_ZIP_MAGIC)
    if at < 0 or at + 22 > len(tail):
        raise LoadError(name, "the zip is damaged or cut off: its central directory (the list of entries at the "
                              "end) is missing")
    count = struct.unpack("<H", tail[at + 10:at + 12])[0]
    if count == 0xFFFF:  # zip64: the real count is in the zip64 record; zipfile reads it, checked after
        return
    if count > MAX_ENTRIES:
        raise LoadError(name, f"the zip declares {count:,} entries; a bug-report bundle has a handful "
                              f"(at most {MAX_ENTRIES:,} are read); refused")


def _checked_entries(infos: list[zipfile.ZipInfo], name: str) -> dict[str, zipfile.ZipInfo]:
    if len(infos) > MAX_ENTRIES:
        raise LoadError(name, f"the zip holds {len(infos):,} entries; at most {MAX_ENTRIES:,} are read; refused")
    entries: dict[str, zipfile.ZipInfo] = {}
    total, budget = 0, max_bytes()
    for info in infos:
        entry = info.filename
        where = f"{name} › {_shown(entry)}"
        if len(entry) > MAX_NAME_CHARACTERS:
            raise LoadError(where, f"the entry's name is {len(entry):,} characters long; the library writes short "
                                   f"names (this viewer reads names of up to {MAX_NAME_CHARACTERS:,}); refused")
        if _climbs_out(entry):
            raise LoadError(where, "the entry's name is a path outside the bundle (absolute, a drive, a "
                                   "backslash or '..'); exportBugReport never writes one, so the zip is refused")
        if entry in entries:
            raise LoadError(where, "two entries have this name; the zip is ambiguous and refused")
        if info.flag_bits & 0x1:
            raise LoadError(where, "the entry is encrypted; a bug-report bundle is never encrypted")
        if info.compress_type not in METHODS:
            raise LoadError(where, f"the entry is compressed with method {info.compress_type}, which this viewer "
                                   "does not read (stored, deflate, bzip2 and lzma are)")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise LoadError(where, "the entry is a symbolic link; a bug-report bundle holds only files")
        if entry.lower().endswith(ARCHIVE_SUFFIXES):
            raise LoadError(where, "the entry is an archive inside the bundle; nested archives are refused")
        if info.file_size > budget:
            raise LoadError(where, f"the entry declares {info.file_size:,} bytes uncompressed, more than the "
                                   f"{describe_size(budget)} a trace may hold ({_budget_hint()}); refused")
        if info.file_size > BOMB_RATIO * info.compress_size + BOMB_ALLOWANCE:
            raise LoadError(where, f"the entry would expand {info.file_size // max(info.compress_size, 1):,} "
                                   f"times ({info.compress_size:,} → {info.file_size:,} bytes): a zip bomb; refused")
        total += info.file_size
        if total > budget:
            raise LoadError(name, f"the entries declare more than {describe_size(budget)} uncompressed in all, "
                                  f"more than a trace may hold ({_budget_hint()}); refused")
        entries[entry] = info
    return entries


def _too_many_conversations(entry: str, held: int) -> str:
    alone = f" ({_shown(entry)} alone lists {held:,} recordings)" if held > 1 else ""
    return (f"this bug-report bundle holds more than {MAX_CONVERSATIONS:,} conversations{alone}; a bundle holds "
            "a handful, so it is refused")


def _budget_hint() -> str:
    return f"to raise the limit, set {MAX_BYTES_ENV} (for example {MAX_BYTES_ENV}=4G) or pass --max-bytes 4G"


def _climbs_out(entry: str) -> bool:
    if not entry or entry.startswith(("/", "\\")) or "\\" in entry or re.match(r"[A-Za-z]:", entry):
        return True
    return any(part == ".." for part in entry.split("/"))


# -- manifest fields -------------------------------------------------------------------------------------------

def _recordings_of(doc: Any, where: str) -> dict[str, list]:
    """A conversation file's recordings: {"envelopes": [...]} and/or {"recordings": [...]}; {} when the file is
    itself a recording (or an envelope)."""
    if not isinstance(doc, dict):
        raise LoadError(where, f"a conversation file must be a JSON object, found {describe_type(doc)}")
    found = {}
    for key in RECORDING_LISTS:
        if key in doc:
            value = doc[key]
            if not isinstance(value, list):
                found_type = "an object" if isinstance(value, Span) else describe_type(value)  # (read shallowly)
                raise LoadError(where, f"\"{key}\" must be a list of recordings, found {found_type}")
            found[key] = value
    if not found and not ("format" in doc or "snapshot" in doc or "events" in doc):
        keys = ", ".join(_shown(str(k)) for k in list(doc)[:6]) or "none"
        raise LoadError(where, f"a conversation file holds \"envelopes\" or \"recordings\"; found keys: {keys}")
    if found and not any(found.values()):
        raise LoadError(where, "the conversation file's recording lists are empty")
    return found


def _units(value: Any, problems: list[str]) -> list[Unit]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(f"The manifest's units are {describe_type(value)}, not a list; they were left out.")
        return []
    units = []
    left_out = long_ids = 0
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            left_out += 1
            continue
        if len(item["id"]) > MAX_NAME_CHARACTERS:  # (it would name every conversation of its file)
            long_ids += 1
            continue
        files = item.get("files")
        session = _text(item.get("sessionId"))
        units.append(Unit(item["id"], _text(item.get("kind")) or "",
                          clipped(_text(item.get("label")) or "", MAX_NAME_CHARACTERS), _count(item, "bytes"),
                          tuple(f for f in files if isinstance(f, str)) if isinstance(files, list) else (),
                          None if session is None else clipped(session, MAX_NAME_CHARACTERS)))
    if left_out == 1:
        problems.append("A unit of the manifest is not an object with an id; it was left out.")
    elif left_out:
        problems.append(f"{left_out:,} units of the manifest are not objects with an id; they were left out.")
    if long_ids == 1:
        problems.append(f"A unit of the manifest has an id longer than {MAX_NAME_CHARACTERS:,} characters; it was "
                        "left out.")
    elif long_ids:
        problems.append(f"{long_ids:,} units of the manifest have ids longer than {MAX_NAME_CHARACTERS:,} "
                        "characters; they were left out.")
    return units


def _listed_files(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(f["name"] for f in value if isinstance(f, dict) and isinstance(f.get("name"), str))


def _statement(report: Any, fallback: Any, problems: list[str]) -> ReporterStatement:
    if report is not None and not isinstance(report, dict):
        problems.append(f"The manifest's report is {describe_type(report)}, not an object; it was left out.")
        report = None
    report = report or {}
    other = fallback if isinstance(fallback, dict) else {}

    def pick(key: str) -> str | None:
        return _text(report.get(key)) or _text(other.get(key))

    return ReporterStatement(pick("title"), pick("stepsToReproduce"), pick("expected"), pick("actual"),
                             pick("appVersion"))


def _environment(library: Any, host: Any) -> tuple[tuple[str, str], ...]:
    pairs: dict[str, str] = {}
    for source in (library, host):
        if not isinstance(source, dict):
            continue
        for key, value in source.items():
            if key == "report" or value is None:
                continue
            pairs.setdefault(str(key), value if isinstance(value, str) else
                             jsonio.dumps(value).decode("utf-8", "replace"))
    return tuple(pairs.items())


def _excluded(value: Any, problems: list[str]) -> Excluded:
    if value is None:
        return Excluded()
    if not isinstance(value, dict):
        problems.append(f"The manifest's excluded is {describe_type(value)}, not an object; what was withheld "
                        "is unknown.")
        return Excluded()
    ids = value.get("unitIds")
    return Excluded(_count(value, "conversations") or 0, _count(value, "files") or 0, _count(value, "events") or 0,
                    _count(value, "turns") or 0,
                    tuple(i for i in ids if isinstance(i, str)) if isinstance(ids, list) else ())


def _strings(value: Any, key: str, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append(f"The manifest's {key} is {describe_type(value)}, not a list; it was left out.")
        return ()
    return tuple(map(jsonio.text_of, value))


def _count(obj: Any, key: str) -> int | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _shown_value(value: Any) -> str:
    return repr(value) if _is_scalar(value) else describe_type(value)


def _shown(entry: str, limit: int = 120) -> str:
    """An entry name fit for a message: control characters escaped, very long names cut."""
    text = entry if entry.isprintable() else repr(entry)[1:-1]
    return text if len(text) <= limit else text[:limit] + "…"


def _choice_label(conv: Conversation) -> str:
    return f"{conv.id} ({conv.label})" if conv.label and conv.label != conv.id else conv.id


def _reason(err: Exception) -> str:
    text = str(err) or type(err).__name__
    return text if len(text) <= 200 else text[:200] + "…"


def read_bundle_file(path) -> BundleInfo | None:
    """The facts of the bundle at `path` without opening any conversation; None when it is not a bundle."""
    from afp_desktop.core.formats.source import read_source

    data = read_source(path)
    return read_bundle(data, str(path)).info if is_bundle(data) or is_empty_zip(data) else None
