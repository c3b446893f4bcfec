"""Find anything in a run: one index over every text a run holds, searched in milliseconds. Pure, no Qt.

  SearchIndex(run, templates, app_name)   built once (seconds on a 50 MB run: do it off the UI thread)
  index.find(query, regex=, ignore_case=, limit=) -> SearchResult   a lazy, position-ordered list of Hits
  index.with_templates(templates, app_name)   the same content with the status lines of another template map
  find(run, query, ...)                   build and search in one call (the CLI)
  compile_query(query, regex, ignore_case)   the pattern, or QueryError with a sentence saying what is wrong

What is indexed, each text with the axis position where it became known (the position right after its event,
so moving the cursor there shows it), the StepGraph node it belongs to and a `where` for people:
step labels; tool names, arguments, results and errors; assistant text; user prompts and final answers; slot
payloads (system prompt, messages, tools) and other subflow inputs and outputs; context injections; progress
reports; pause questions; any other typed event's payload strings (route rationales, errors, …); and the
status line the chat bubble showed, rendered with the active template map.

Speed: the texts are deduplicated (a conversation repeats in every iteration's slots) and joined into one string
per part, which `re` scans in one pass; a text shared by many events is matched once and its events listed with
numpy. A large Trace's payloads (LazyJSON, kept as bytes) are parsed one at a time while building and only
their strings are kept, never the parsed payloads. Excerpts are cut only for the hits someone looks at.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from afp_desktop.core import jsonio
from afp_desktop.core.axis import anchor_domain_to_typed
from afp_desktop.core.bookmarks import ordinal_labels
from afp_desktop.core.lazyjson import resolve_quietly
from afp_desktop.core.status import DEFAULT_TEMPLATES, render_status_line

EXCERPT_BEFORE = 50
EXCERPT_AFTER = 90
_SEPARATOR = "\n\x00\n"  # between texts in a part's joined string; a match crossing it is re-checked per text
_PREFIX = "agentfootprint."
_SLOT_NAMES = {"system-prompt": "system prompt", "messages": "messages", "tools": "tools"}
# Typed events whose text is indexed under its own name (see _typed_fields); tokens are left out: the
# assistant text they stream is indexed whole at the LLM call's end.
_SKIPPED_TYPED = frozenset({"stream.token"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


class QueryError(ValueError):
    """The query cannot be searched for (an invalid regular expression); the message says why, plainly."""


def compile_query(query: str, regex: bool = False, ignore_case: bool = False) -> re.Pattern:
    if not isinstance(query, str) or query == "":
        raise QueryError("the search text is empty")
    flags = re.IGNORECASE if ignore_case else 0
    if not regex:
        return _PlainPattern(query, flags)
    try:
        pattern = re.compile(query, flags | re.MULTILINE)  # ^ and $: start and end of any line of a text
    except re.error as err:
        where = f" at position {err.pos}" if err.pos is not None else ""
        raise QueryError(f"not a valid regular expression: {err.msg}{where}") from None
    if pattern.fullmatch("") is not None:
        raise QueryError("this regular expression matches empty text, so it would match everywhere; make it "
                         "match at least one character (for example x+ instead of x*)")
    return pattern


class _PlainPattern:
    """A plain-text query: the compiled pattern, and for ignore-case also its lower-cased exact form."""

    def __init__(self, query: str, flags: int):
        self.pattern = re.compile(re.escape(query), flags)
        lowered = query.lower()
        self.lowered = re.compile(re.escape(lowered)) if flags & re.IGNORECASE and len(lowered) == len(query) \
            else None

    def finditer(self, text: str):
        return self.pattern.finditer(text)

    def search(self, text: str):
        return self.pattern.search(text)


# ── the hits ────────────────────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Hit:
    position: int               # the axis position right after the event that made the text known
    stop: int | None            # index in run.stops of the stop the position falls in
    stop_label: str | None      # that stop's label, numbered where labels repeat ("LLM turn 3")
    where: str                  # what the text is: "tool result of `walk_graph`", "status line", …
    node: int | None            # StepGraph node index, when the text belongs to one
    excerpt: str                # one line of plain text around the match ("…" where cut)
    match: tuple[int, int]      # the match's [start, end) in `excerpt`

    def to_json(self) -> dict:
        return {"position": self.position,
                "stop": None if self.stop is None else {"index": self.stop, "label": self.stop_label},
                "where": self.where, "node": self.node,
                "excerpt": {"text": self.excerpt, "match": list(self.match)}}


class SearchResult:
    """The hits of one query in axis order (ties: the order the texts were indexed), made into Hit objects only
    when read, so a query with 100,000 hits costs the scan and a sort, not 100,000 excerpts."""

    def __init__(self, index: "SearchIndex", part: np.ndarray, doc: np.ndarray, start: np.ndarray,
                 end: np.ndarray, complete: bool):
        self._index = index
        self._part, self._doc, self._start, self._end = part, doc, start, end
        self.complete = complete  # False when `limit` cut the list short
        self.positions = self._column("positions")
        self.nodes = self._column("nodes")

    def _column(self, name: str) -> np.ndarray:
        out = np.empty(len(self._doc), dtype=np.int64)
        for p, part in enumerate(self._index._parts):
            mask = self._part == p
            out[mask] = getattr(part, name)[self._doc[mask]]
        return out

    def __len__(self) -> int:
        return len(self._doc)

    def __getitem__(self, i: int) -> Hit:
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        part = self._index._parts[int(self._part[i])]
        doc = int(self._doc[i])
        text = part.texts[int(part.text_of[doc])]
        excerpt, span = make_excerpt(text, int(self._start[i]), int(self._end[i]))
        position = int(part.positions[doc])
        stop = self._index.stop_of(position)
        node = int(part.nodes[doc])
        return Hit(position, stop, None if stop is None else self._index.stop_labels[stop],
                   part.wheres[int(part.where_of[doc])], None if node < 0 else node, excerpt, span)

    def __iter__(self) -> Iterator[Hit]:
        return (self[i] for i in range(len(self)))

    def node_set(self) -> set[int]:
        return {int(n) for n in np.unique(self.nodes) if n >= 0}


def make_excerpt(text: str, start: int, end: int) -> tuple[str, tuple[int, int]]:
    """A one-line excerpt of `text` around [start, end) with the match's span in it. Line breaks and control
    characters become spaces (one for one, so offsets hold); a cut end is shown with "…"."""
    end = min(end, start + 200)  # a huge match is shown in part
    lo = max(0, start - EXCERPT_BEFORE)
    hi = min(len(text), end + EXCERPT_AFTER)
    piece = _CONTROL.sub(" ", text[lo:hi])
    lead = "…" if lo > 0 else ""
    tail = "…" if hi < len(text) else ""
    offset = len(lead) - lo
    return lead + piece + tail, (start + offset, end + offset)


# ── the index ───────────────────────────────────────────────────────────────────────────────────────────


class _Part:
    """Texts (deduplicated, joined into one string) and the documents that hold them: per document its text,
    axis position, `where` and node (-1: none). Documents are numbered in axis order."""

    def __init__(self, docs: list[tuple[int, str, str, int | None]]):
        docs.sort(key=lambda d: d[0])  # stable: same-position texts keep the order they were found in
        text_ids: dict[str, int] = {}
        where_ids: dict[str, int] = {}
        text_of, where_of = [], []
        for _position, text, where, _node in docs:
            text_of.append(text_ids.setdefault(text, len(text_ids)))
            where_of.append(where_ids.setdefault(where, len(where_ids)))
        self.texts = list(text_ids)
        self.wheres = list(where_ids)
        self.text_of = np.array(text_of, dtype=np.int64)
        self.where_of = np.array(where_of, dtype=np.int64)
        self.positions = np.array([d[0] for d in docs], dtype=np.int64)
        self.nodes = np.array([-1 if d[3] is None else d[3] for d in docs], dtype=np.int64)
        # documents of each text, in document order (CSR: docs_of[ptr[t]:ptr[t + 1]])
        order = np.argsort(self.text_of, kind="stable")
        self.docs_of = order
        self.ptr = np.zeros(len(self.texts) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.text_of, minlength=len(self.texts)), out=self.ptr[1:])
        self.blob = _SEPARATOR.join(self.texts)
        lengths = np.fromiter((len(t) for t in self.texts), dtype=np.int64, count=len(self.texts))
        self.starts = np.zeros(len(self.texts), dtype=np.int64)
        if len(lengths) > 1:
            np.cumsum(lengths[:-1] + len(_SEPARATOR), out=self.starts[1:])
        self.ends = self.starts + lengths
        lowered = self.blob.lower()
        # Plain text, ignoring case, is searched lower-cased in a lower-cased copy (`re.IGNORECASE` is ~5× slower);
        # only where lowering keeps every offset (it lengthens a few characters, like "İ").
        self.lowered = lowered if len(lowered) == len(self.blob) else None

    def __len__(self) -> int:
        return len(self.positions)

    def matches(self, pattern: re.Pattern) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(text, start, end) of every non-empty match, offsets within the text."""
        haystack = self.blob
        if getattr(pattern, "lowered", None) is not None and self.lowered is not None:
            haystack, pattern = self.lowered, pattern.lowered
        spans = [m.span() for m in pattern.finditer(haystack)]
        if not spans:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        flat = np.array(spans, dtype=np.int64)
        starts, ends = flat[:, 0], flat[:, 1]
        text = np.searchsorted(self.starts, starts, side="right") - 1
        crossing = ends > self.ends[text]
        keep = (ends > starts) & ~crossing & (starts < self.ends[text])
        t, s, e = text[keep], starts[keep] - self.starts[text[keep]], ends[keep] - self.starts[text[keep]]
        if crossing.any():
            # The match ran over a separator (a pattern like \s+ can): search each text it touched on its own,
            # and drop whatever the joined scan found in them.
            redo = set()
            for a, b in zip(text[crossing], np.searchsorted(self.starts, ends[crossing], side="right") - 1):
                redo.update(range(int(a), int(b) + 1))
            drop = np.isin(t, list(redo))
            extra = [(i, m.start(), m.end()) for i in sorted(redo)
                     for m in pattern.finditer(haystack[self.starts[i]:self.ends[i]]) if m.end() > m.start()]
            t, s, e = t[~drop], s[~drop], e[~drop]
            if extra:
                more = np.array(extra, dtype=np.int64)
                t, s, e = np.concatenate([t, more[:, 0]]), np.concatenate([s, more[:, 1]]), \
                    np.concatenate([e, more[:, 2]])
        return t, s, e

    def hits(self, pattern: re.Pattern) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(document, start, end) of every match, one row per document holding the matched text."""
        t, s, e = self.matches(pattern)
        counts = self.ptr[t + 1] - self.ptr[t]
        total = int(counts.sum())
        row = np.repeat(np.arange(len(t)), counts)
        first = np.repeat(np.cumsum(counts) - counts, counts)
        docs = self.docs_of[self.ptr[t][row] + (np.arange(total) - first)]
        return docs, s[row], e[row]


class SearchIndex:
    def __init__(self, run, templates: dict | None = None, app_name: str = "Agent", *, _content: _Part | None = None):
        self.run = run
        self.templates = dict(DEFAULT_TEMPLATES if templates is None else templates)
        self.app_name = app_name
        stops = run.stops
        self.stop_ends = [stop["axisEnd"] for stop in stops]
        self.stop_labels = ordinal_labels(stops)
        self._nodes = _NodeFinder(run)
        content = _content if _content is not None else _Part(list(_content_docs(run, self._nodes)))
        self._parts = (content, _Part(list(_status_docs(run, self._nodes, self.templates, app_name))))

    def with_templates(self, templates: dict, app_name: str) -> "SearchIndex":
        """The same index with the status lines another template map renders (the content is not rebuilt)."""
        return SearchIndex(self.run, templates, app_name, _content=self._parts[0])

    def __len__(self) -> int:
        """The number of indexed texts (with repeats)."""
        return sum(len(part) for part in self._parts)

    def stop_of(self, position: int) -> int | None:
        """The stop a position falls in: the first whose end is at or after it (the last stop past the end)."""
        if not self.stop_ends:
            return None
        i = bisect_right(self.stop_ends, position - 1)
        return min(i, len(self.stop_ends) - 1)

    def find(self, query: str, *, regex: bool = False, ignore_case: bool = False,
             limit: int | None = None) -> SearchResult:
        """Every match of `query` (plain text unless `regex`), in axis order; at most `limit` when given.
        Raises QueryError for an empty query or an invalid regular expression. Empty matches are skipped."""
        pattern = compile_query(query, regex, ignore_case)
        found = [part.hits(pattern) for part in self._parts]
        part = np.concatenate([np.full(len(f[0]), p, dtype=np.int64) for p, f in enumerate(found)])
        doc = np.concatenate([f[0] for f in found])
        start = np.concatenate([f[1] for f in found])
        end = np.concatenate([f[2] for f in found])
        positions = np.concatenate([self._parts[p].positions[f[0]] for p, f in enumerate(found)])
        order = np.lexsort((start, doc, part, positions))
        complete = limit is None or len(order) <= limit
        if not complete:
            order = order[:limit]
        return SearchResult(self, part[order], doc[order], start[order], end[order], complete)


def find(run, query: str, *, regex: bool = False, ignore_case: bool = False, templates: dict | None = None,
         app_name: str = "Agent", limit: int | None = None) -> list[Hit]:
    return list(SearchIndex(run, templates, app_name).find(query, regex=regex, ignore_case=ignore_case,
                                                           limit=limit))


# ── which node a text belongs to ────────────────────────────────────────────────────────────────────────


class _NodeFinder:
    """StepGraph node of a DomainEvent: the node it created; a tool end's or progress report's call; a slot's
    or injection's coming LLM call; else the latest node created before it."""

    def __init__(self, run):
        fold = run.step_fold
        self.created = fold.node_created_at
        self.kinds = [node.get("kind") for node in fold.nodes]
        self.created_by: dict[int, int] = {}
        for node, event_index in enumerate(self.created):
            self.created_by.setdefault(event_index, node)
        self.call_node: dict[Any, int] = {}
        self.open_subflow: dict[Any, int] = {}
        self.next_llm: list[int | None] = [None] * (len(run.domain_events) + 1)
        upcoming = None
        llm_kinds = ("user->llm", "tool->llm")
        for i in range(len(run.domain_events) - 1, -1, -1):
            node = self.created_by.get(i)
            if node is not None and self.kinds[node] in llm_kinds:
                upcoming = node
            self.next_llm[i] = upcoming

    def latest_before(self, n_domain: int) -> int | None:
        """The latest node created by the first `n_domain` DomainEvents."""
        i = bisect_right(self.created, n_domain - 1) - 1
        return i if i >= 0 else None

    def of_domain(self, i: int, event: dict) -> int | None:
        kind = event.get("type")
        node = self.created_by.get(i)
        if kind == "tool.start":
            if node is not None:
                self.call_node[_key(event.get("toolCallId"))] = node
            return node if node is not None else self.latest_before(i + 1)
        if kind == "tool.end":
            found = self.call_node.get(_key(event.get("toolCallId")))
            return found if found is not None else self.latest_before(i + 1)
        if kind in ("context.injected",) or (kind in ("subflow.entry", "subflow.exit") and event.get("slotKind")):
            return self.next_llm[i]
        if kind in ("run.entry", "subflow.entry") and node is not None:
            self.open_subflow[event.get("runtimeStageId")] = node
        if kind in ("run.exit", "subflow.exit"):
            found = self.open_subflow.get(event.get("runtimeStageId"))
            if found is not None:
                return found
        if node is not None:
            return node
        return self.latest_before(i + 1)

    def of_call(self, call_id: Any) -> int | None:
        return self.call_node.get(_key(call_id))


def _key(call_id: Any) -> Any:
    return call_id if isinstance(call_id, (str, int, float, bool, type(None))) else repr(call_id)


# ── what is indexed ─────────────────────────────────────────────────────────────────────────────────────


def _as_text(value: Any) -> str | None:
    """A value as searchable text: a string itself, JSON for anything else (None for a missing value)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return jsonio.dumps(value).decode("utf-8")
    except Exception:  # noqa: BLE001 — a value that cannot be written is not worth failing a search over
        return str(value)


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, string) of every string in a JSON value, depth-first in document order, without recursion."""
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if item:
                yield where, item
        elif isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((f"{where}[{n}]", v) for n, v in reversed(list(enumerate(item))))


def _payload_docs(position: int, payload: Any, what: str, node: int | None) -> Iterator[tuple]:
    payload = resolve_quietly(payload)  # a large Trace's payload: parsed here, its strings kept, the rest dropped
    for path, text in _leaves(payload):
        yield position, text, f"{what} · {path}" if path else what, node


def _slot_name(slot: Any) -> str:
    return _SLOT_NAMES.get(slot, slot) if isinstance(slot, str) and slot else "context"


def _named(name: Any) -> str:
    return f"`{name}`" if isinstance(name, str) and name else "a tool"


def _content_docs(run, nodes: _NodeFinder) -> Iterator[tuple[int, str, str, int | None]]:
    """(position, text, where, node) of every text in the run except the status lines."""
    axis = run.axis
    domain = run.domain_events
    typed = run.typed_events or []
    fold = run.step_fold
    for index, node in enumerate(fold.nodes):
        label = node.get("label")
        if isinstance(label, str) and label:
            yield axis.domain_after[fold.node_created_at[index]], label, "step label", index

    anchors = run.anchors
    if anchors is None:
        anchors = anchor_domain_to_typed(domain, typed) if typed else [None] * len(domain)
    node_of_typed: dict[int, tuple[int | None, int]] = {}
    tool_names: dict[Any, str] = {}
    for i, event in enumerate(domain):
        if type(event) is not dict:
            continue
        node = nodes.of_domain(i, event)
        if anchors[i] is not None:
            # indexed from the typed event it was mapped from, at the DomainEvent's position (right after it)
            node_of_typed[anchors[i]] = (node, axis.domain_after[i])
            if event.get("type") == "tool.start":
                tool_names[_key(event.get("toolCallId"))] = event.get("toolName")
            continue
        yield from _domain_fields(axis.domain_after[i], event, node, tool_names)

    for j, event in enumerate(typed):
        if type(event) is not dict:
            continue
        kind = event.get("type")
        if not isinstance(kind, str):
            continue
        name = kind[len(_PREFIX):] if kind.startswith(_PREFIX) else kind
        if name in _SKIPPED_TYPED:
            continue
        payload = event.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        position = axis.typed_after[j]
        if j in node_of_typed:
            node, position = node_of_typed[j]  # so that the node exists when the cursor is moved there
        elif "toolCallId" in payload and nodes.of_call(payload.get("toolCallId")) is not None:
            node = nodes.of_call(payload.get("toolCallId"))
        else:
            node = nodes.latest_before(axis.domain_before[position])
        yield from _typed_fields(position, name, payload, node, tool_names)


def _domain_fields(position: int, event: dict, node: int | None, tool_names: dict) -> Iterator[tuple]:
    kind = event.get("type")
    get = event.get
    if kind == "run.entry":
        payload = resolve_quietly(get("payload"))
        if isinstance(payload, dict) and isinstance(payload.get("message"), str):
            yield position, payload["message"], "user message", node
        else:
            yield from _payload_docs(position, payload, "run input", node)
    elif kind == "run.exit":
        payload = resolve_quietly(get("payload"))
        if isinstance(payload, str):
            yield position, payload, "final answer", node
        else:
            yield from _payload_docs(position, payload, "run output", node)
    elif kind in ("subflow.entry", "subflow.exit"):
        side = "input" if kind == "subflow.entry" else "output"
        slot = get("slotKind")
        what = f"{_slot_name(slot)} slot {side}" if isinstance(slot, str) and slot else \
            f"{side} of `{get('subflowName') or get('subflowId') or 'a subflow'}`"
        if "payload" in event and not get("isAgentInternal"):  # the engine's own bookkeeping: noise
            yield from _payload_docs(position, get("payload"), what, node)
    elif kind == "fork.branch":
        if isinstance(get("childName"), str):
            yield position, get("childName"), "fork branch", node
    elif kind == "decision.branch":
        for key in ("chosen", "rationale"):
            if isinstance(get(key), str):
                yield position, get(key), f"decision ({key})", node
    elif kind == "llm.start":
        if isinstance(get("model"), str):
            yield position, get("model"), "model of an LLM call", node
    elif kind == "llm.end":
        if isinstance(get("content"), str) and get("content"):
            yield position, get("content"), "assistant text", node
    elif kind == "tool.start":
        name = get("toolName")
        tool_names[_key(get("toolCallId"))] = name
        if isinstance(name, str):
            yield position, name, "tool name", node
        text = _as_text(get("args"))
        if text:
            yield position, text, f"tool arguments of {_named(name)}", node
    elif kind == "tool.end":
        name = tool_names.get(_key(get("toolCallId")))
        text = _as_text(get("result"))
        if text:
            yield position, text, f"tool {'error' if get('error') else 'result'} of {_named(name)}", node
        if get("error") and not isinstance(get("error"), bool):
            yield position, _as_text(get("error")), f"tool error of {_named(name)}", node
    elif kind == "context.injected":
        slot = get("slot")
        for key in ("contentSummary", "reason"):
            if isinstance(get(key), str) and get(key):
                yield position, get(key), f"{_slot_name(slot)} injection ({key})", node
    elif kind in ("composition.start", "composition.end"):
        if isinstance(get("name"), str) and get("name"):
            yield position, get("name"), "composition", node


def _typed_fields(position: int, name: str, payload: dict, node: int | None, tool_names: dict) -> Iterator[tuple]:
    get = payload.get
    if name == "agent.turn_start" and isinstance(get("userPrompt"), str):
        yield position, get("userPrompt"), "user message", node
    elif name == "agent.turn_end" and isinstance(get("finalContent"), str):
        yield position, get("finalContent"), "final answer", node
    elif name == "stream.llm_start":
        if isinstance(get("model"), str):
            yield position, get("model"), "model of an LLM call", node
    elif name == "stream.llm_end":
        if isinstance(get("content"), str) and get("content"):
            yield position, get("content"), "assistant text", node
    elif name == "stream.tool_start":
        tool = get("toolName")
        tool_names[_key(get("toolCallId"))] = tool
        if isinstance(tool, str):
            yield position, tool, "tool name", node
        text = _as_text(get("args"))
        if text:
            yield position, text, f"tool arguments of {_named(tool)}", node
    elif name == "stream.tool_end":
        tool = tool_names.get(_key(get("toolCallId")))
        text = _as_text(get("result"))
        if text:
            yield position, text, f"tool {'error' if get('error') else 'result'} of {_named(tool)}", node
        if get("error") and not isinstance(get("error"), bool):
            yield position, _as_text(get("error")), f"tool error of {_named(tool)}", node
    elif name == "stream.tool_progress":
        report = get("payload")  # the tool author's own payload: {message, …} or a bare string
        message = report.get("message") if isinstance(report, dict) else report
        if isinstance(message, str) and message.strip():  # whole (the bubble cuts it at 120 characters)
            yield position, message, f"progress report of {_named(tool_names.get(_key(get('toolCallId'))))}", node
    elif name == "context.injected":
        slot = get("slot")
        text = get("rawContent") if isinstance(get("rawContent"), str) and get("rawContent") else get("contentSummary")
        if isinstance(text, str) and text:
            yield position, text, f"{_slot_name(slot)} injection", node
    elif name == "pause.request":
        yield from _payload_docs(position, payload, "question to the user", node)
    elif "error" in name:
        yield from _payload_docs(position, payload, f"error `{name}`", node)
    else:
        yield from _payload_docs(position, payload, f"`{name}`", node)


def _status_docs(run, nodes: _NodeFinder, templates: dict, app_name: str) -> Iterator[tuple]:
    """Each stretch of the chat bubble showing one status line, at the position where it starts. A streamed
    reply grows one token at a time; its lines are kept as one text, the longest, where it is complete (every
    shorter line is a prefix of it: indexing each would make the index quadratic in the reply's length)."""
    from afp_desktop.core.bubble import status_states_for

    states, _derived, prefix_at = status_states_for(run)
    domain_before = run.axis.domain_before
    previous_state: Any = object()
    previous_line = None
    pending = None  # the last line seen, held back while the next one may extend it
    for position in range(len(run.axis) + 1):
        state = states[prefix_at[position]]
        if state is previous_state:
            continue
        previous_state = state
        line = render_status_line(state, app_name, templates)
        if line is not None and line != previous_line:
            doc = (position, line, "status line", nodes.latest_before(domain_before[position]))
            growing = pending is not None and state.get("state") == "streaming" and line.startswith(pending[1])
            if pending is not None and not growing:
                yield pending
            pending = doc
        previous_line = line
    if pending is not None:
        yield pending
