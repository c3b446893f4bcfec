"""A Trace cut off before its end (copied while it was written, a download that stopped): what it does hold.

agentfootprint writes a Trace as one JSON document, `{"version":1,"events":[…],"structure":{…},"redaction":…,
"capturedAtMs":…}`. Cut off anywhere it is not JSON, and the library's own viewer refuses it. Yet every event
before the cut is whole, and the events are nearly all of the file. `salvage_cut_trace` finds the last whole
event (or, past the events, the last whole part of the document) with the bracket scan the large-Trace reader
uses, and gives back a complete Trace text of what is whole, to be read the usual way, with a Problem saying
where the file was cut and what is not shown. Nothing is invented: a part that is cut is left out whole, and a
redaction the file never got to is unknown (null), not "none".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from afp_desktop.core.formats.errors import Problem
from afp_desktop.core.formats.prefixes import TRACE_HEAD
from afp_desktop.core.jsonx import jsonscan

_REDACTION = re.compile(rb'\s*,\s*"redaction"\s*:\s*("(?:[^"\\]|\\.){0,64}"|null)')
_REDACTION_KEY = re.compile(rb'"redaction"\s*:')
_NEXT_KEY = re.compile(rb'\s*,\s*"((?:[^"\\]|\\.){1,64})"')
UNKNOWN_REDACTION = ("The file is cut off before it says whether it was redacted: it may hold the full text of "
                     "prompts, messages, tool arguments and results.")


@dataclass
class Salvage:
    text: bytes  # a whole Trace document: what the file holds up to its last whole part
    problem: Problem  # where the file is cut off, and what is not shown
    events: int  # whole events kept
    redaction_known: bool  # the file got as far as its "redaction"


def looks_cut(data: bytes) -> bool:
    """Cheap: a JSON object's text that does not end with '}' (trailing spaces aside) was cut off."""
    tail = data[-256:].rstrip()
    return bool(tail) and tail[-1:] != b"}"


def salvage_cut_trace(data: bytes, name: str) -> Salvage | None:
    """The whole part of a Trace document cut off before its end; None when `data` is not one (not a Trace as the
    library writes it, not cut off but damaged, or cut before its first whole event)."""
    head = TRACE_HEAD.match(data)
    if head is None or jsonscan.numpy() is None:
        return None
    scan = jsonscan.brackets_outside_strings(data, cut_ok=True)
    if scan is None:
        return None
    positions, opens, depth = scan
    array_open = data.rfind(b"[", 0, head.end())
    if depth[-1] == 0 or len(positions) < 2 or positions[1] != array_open or depth[1] != 2:
        return None  # balanced (so not cut off inside it), or not the events array where a Trace has it
    np = jsonscan.np
    after = depth[2:]
    back_at_root = np.flatnonzero(after == 1)
    if not len(back_at_root):  # cut inside the events: keep the whole ones
        event_ends = np.flatnonzero((after == 2) & ~opens[2:])
        if not len(event_ends):
            return None
        count = len(event_ends)
        cut = int(positions[int(event_ends[-1]) + 2]) + 1
        text = b"".join((memoryview(data)[:cut], b'],"redaction":null}'))
        where = (f"inside event {count + 1:,} of its events: the {count:,} whole events before it are shown; what "
                 "came after them is not in the file")
        return Salvage(text, _problem(name, data, where), count, False)
    events_close = int(back_at_root[0]) + 2
    count = int(np.count_nonzero((depth[2:events_close] == 2) & ~opens[2:events_close]))
    # Past the events: keep each whole part of the document (an object or array closed at the root's level).
    last_whole = int(np.flatnonzero(depth[events_close:] == 1)[-1]) + events_close
    cut = int(positions[last_whole]) + 1
    known = any(_at_root(positions, depth, found.start())
                for found in _REDACTION_KEY.finditer(data, int(positions[events_close]), cut))
    redaction = None if known else _REDACTION.match(data, cut)
    if redaction is not None:
        cut, known = redaction.end(), True
    next_key = _NEXT_KEY.match(data, cut)
    text = b"".join((memoryview(data)[:cut], b"" if known else b',"redaction":null', b"}"))
    if next_key is None:
        where = f"after its {count:,} events: every event is shown; what came after them is not in the file"
    else:
        part = f'"{next_key.group(1).decode("utf-8", "replace")}"'
        where = (f"after its {count:,} events, inside {part}: every event is shown; {part} and what follows it "
                 "are not in the file")
    return Salvage(text, _problem(name, data, where), count, known)


def _at_root(positions, depth, offset: int) -> bool:
    before = int(jsonscan.np.searchsorted(positions, offset)) - 1
    return before >= 0 and int(depth[before]) == 1


def _problem(name: str, data: bytes, where: str) -> Problem:
    line = data.count(b"\n") + 1
    column = len(data) - data.rfind(b"\n")  # (just after the last byte)
    return Problem(name, f"the file is cut off {where}", line, column)
