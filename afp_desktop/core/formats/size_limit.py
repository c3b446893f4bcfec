"""How large a file may be to open: the machine's memory over what opening the file's format takes.

Opening a file takes memory in proportion to its size, by a factor that depends on its format (its expansion,
measured by bench/bench_memory_expansion.py: the peak resident memory of `afp-desktop info` less that of the
interpreter, over the file's size — decompressed, for a compressed file). The limit is the part of the memory
available that a run may take (MEMORY_SHARE) divided by that factor, so a file under the limit fits in memory
when it is opened, and nothing larger is read: a compressed file is refused as soon as what it expands to passes
the limit (a "zip bomb" costs at most the limit).

`size_limit` is the rule, a pure function of the memory available and the format; `available_memory` reads what
it is given (Linux's MemAvailable, else the physical memory); `kind_of_head` names the format from a file's
first bytes. `--max-bytes` and `AFP_DESKTOP_MAX_BYTES` replace the rule's answer (source.py).
"""

from __future__ import annotations

import os
import re
from typing import Callable

MEMORY_SHARE = 0.75  # of the memory available, what one run may take (the rest: the window, other programs)
HEAD_BYTES = 64 << 10  # the first bytes that name a file's format

WHOLE_FROM = 1 << 31  # a Trace or recording this large is parsed whole, not by its parts (lazy_trace, lazy_recording)
WHOLE_EXPANSION = 9.5  # ... and then takes this much (a whole parse of a recording or a Trace, rounded up)

# Peak memory to open a file over its size, per format (bench/bench_memory_expansion.py, rounded up).
EXPANSION = {
    "recording": 2.25,  # {snapshot, events, structure} (plain, envelope, packed): read by its parts
    "trace": 2.75,  # Trace v1: its events parsed, their payloads kept packed until shown
    "stream": 3.5,  # NDJSON (or one JSON object after another): every event parsed
    "lossless": 7.0,  # afp-desktop's lossless .jsonl: every line parsed
    "bundle": WHOLE_EXPANSION,  # a bug-report bundle (zip): its members decompressed and parsed whole
    "unknown": WHOLE_EXPANSION,  # any other head (a list, another document): parsed whole, if at all
}
_READ_BY_PARTS = ("recording", "trace")

KIND_NAMES = {"recording": "a recording", "trace": "a Trace", "stream": "an event stream",
              "lossless": "a lossless .jsonl file", "bundle": "a bug-report bundle",
              "unknown": "a file read whole"}

_SPACE = rb"[ \t\r\n]*"
_RECORDING = re.compile(_SPACE + rb"\{" + _SPACE + rb'"(snapshot|format"' + _SPACE + rb":" + _SPACE +
                        rb'"agentfootprint\.recording\.)')
_EVENT_FIRST = re.compile(_SPACE + rb'\{' + _SPACE + rb'"type"' + _SPACE + rb":")
_LOSSLESS = re.compile(_SPACE + rb'\{' + _SPACE + rb'"format"' + _SPACE + rb":" + _SPACE + rb'"afp-desktop\.run\.')
_TRACE = re.compile(_SPACE + rb'\{' + _SPACE + rb'"version"' + _SPACE + rb":" + _SPACE + rb"1" + _SPACE + rb"," +
                    _SPACE + rb'"events"' + _SPACE + rb":")


def kind_of_head(head: bytes) -> str:
    """The format a file's first bytes (decompressed) name: one of EXPANSION's keys."""
    head = head.removeprefix(b"\xef\xbb\xbf")
    if head[:2] == b"PK":
        return "bundle"
    if _LOSSLESS.match(head):
        return "lossless"
    if _RECORDING.match(head):
        return "recording"
    if _EVENT_FIRST.match(head):
        return "stream"
    if _TRACE.match(head):
        return "trace"
    return "unknown"


def expansion_at(kind: str, size: int) -> float:
    """What opening a file of this format and size takes in memory, over its size."""
    if kind in _READ_BY_PARTS and size >= WHOLE_FROM:
        return WHOLE_EXPANSION
    return EXPANSION.get(kind, EXPANSION["unknown"])


def size_limit(memory_available: int, kind: str) -> int:
    """The most bytes a file of this format may hold (decompressed) to open within `memory_available` bytes:
    MEMORY_SHARE of it over the format's expansion (an unknown format: the largest; a Trace or recording of
    WHOLE_FROM bytes or more: WHOLE_EXPANSION). Every file up to the limit fits (its size times its expansion is
    within the memory), and more memory never lowers the limit."""
    room = max(memory_available, 0) * MEMORY_SHARE
    limit = int(room / expansion_at(kind, 0))
    if limit >= WHOLE_FROM and kind in _READ_BY_PARTS:
        limit = max(WHOLE_FROM - 1, int(room / WHOLE_EXPANSION))
    return limit


def _read_meminfo() -> str:
    with open("/proc/meminfo", encoding="ascii", errors="replace") as f:
        return f.read()


def available_memory(meminfo: Callable[[], str] = _read_meminfo) -> int:
    """The memory a new run can take without pushing other programs out: Linux's MemAvailable (what `meminfo()`
    returns, /proc/meminfo's text), else the physical memory (another system, or no such line)."""
    try:
        found = re.search(r"^MemAvailable:\s*(\d+)\s*kB", meminfo(), re.MULTILINE)
    except OSError:
        found = None
    if found:
        return int(found.group(1)) * 1024
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not on every platform
        return 8 << 30
