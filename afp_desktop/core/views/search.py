"""Find anything in a run: one index over every text a run holds, searched at once. Pure, no Qt.

  SearchIndex(run, templates, app_name)   built once (slow on a big run: do it off the UI thread)
  index.find(query, regex=, ignore_case=, limit=, time_limit=) -> SearchResult   a lazy, position-ordered list
                                          of Hits; SearchTooSlow (a QueryError) past the time limit
  index.with_templates(templates, app_name)   the same content with the status lines of another template map
  find(run, query, ...)                   build and search in one call (the CLI)
  compile_query(query, regex, ignore_case)   the pattern, or QueryError with a sentence saying what is wrong
                                          (query.py: what a query is and how a regular expression is bounded)

What is indexed (run_texts.py finds it), each text with the axis position where it became known (right after its
event, so moving the cursor there shows it), the StepGraph node it belongs to and a `where` for people: step labels; tool names, arguments, results and errors; assistant text; user prompts and final answers; slot
payloads (system prompt, messages, tools) and other subflow inputs and outputs; context injections; progress
reports; pause questions; any other typed event's payload strings (route rationales, errors, …); and the
status line the chat bubble showed, rendered with the active template map.

Speed: the texts are deduplicated (a conversation repeats in every iteration's slots) and joined into one string
per part, scanned a range of texts at a time; a text shared by many events is matched once and its events listed
with numpy. With a limit, the scan ends once no text left can give an earlier hit, so the work is bounded by the
limit, not by the run. A large Trace's payloads (LazyJSON, kept as bytes) are parsed one at a time while building and only
their strings are kept, never the parsed payloads. Excerpts are cut only for the hits someone looks at.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from typing import Iterator

import numpy as np

from afp_desktop.core.breathing import breathe, breathing_over
from afp_desktop.core.views.bookmarks import ordinal_labels
from afp_desktop.core.views.run_texts import NodeFinder, content_texts, status_texts
from afp_desktop.core.library.status import DEFAULT_TEMPLATES
from afp_desktop.core.views.query import (  # noqa: F401 — QueryError, SearchTooSlow and compile_query: shown here too
    Query,
    QueryError,
    SearchTooSlow,
    check_deadline,
    compile_query,
    deadline_in,
    too_slow,
)
from afp_desktop.core.views.search_limits import DEFAULT_TIME_LIMIT_S

EXCERPT_BEFORE = 50
EXCERPT_AFTER = 90
FIRST_RANGE_ROWS = 1 << 16  # rows (a text's length times its documents) the first range of texts scanned can make
RANGE_ROWS = 1 << 22  # … and any range but one of a single text
RANGE_CHARS = 1 << 22  # characters of one range: the time limit and the window's breathing are checked between two
_SEPARATOR = "\n\x00\n"  # between texts in a part's joined string; a match crossing it is re-checked per text
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


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
        for p, part in enumerate(self._index.parts):
            mask = self._part == p
            out[mask] = getattr(part, name)[self._doc[mask]]
        return out

    def __len__(self) -> int:
        return len(self._doc)

    def __getitem__(self, i: int) -> Hit:
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        part = self._index.parts[int(self._part[i])]
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


class IndexPart:
    """Texts (deduplicated, joined into one string) and the documents that hold them: per document its text,
    axis position, `where` and node (-1: none). Documents are numbered in axis order."""

    def __init__(self, docs: list[tuple[int, str, str, int | None]]):
        # Axis order; stable, so same-position texts keep the order they were found in. (numpy's sort, not
        # list.sort: one long C call would hold the GIL and stall the window while a worker thread builds this.)
        order = np.argsort(np.fromiter(map(itemgetter(0), docs), dtype=np.int64, count=len(docs)), kind="stable")
        docs = [docs[i] for i in order.tolist()]
        text_ids: dict[str, int] = {}
        where_ids: dict[str, int] = {}
        text_of, where_of = [], []
        for _position, text, where, _node in breathing_over(docs):
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
        self.first_doc = self.docs_of[self.ptr[:-1]]  # each text's first document: increasing with the text
        self.blob = _SEPARATOR.join(self.texts)
        lengths = np.fromiter(map(len, self.texts), dtype=np.int64, count=len(self.texts))
        self.starts = np.zeros(len(self.texts), dtype=np.int64)
        if len(lengths) > 1:
            np.cumsum(lengths[:-1] + len(_SEPARATOR), out=self.starts[1:])
        self.ends = self.starts + lengths
        lowered = self.blob.lower()
        # Plain text, ignoring case, is searched lower-cased in a lower-cased copy (`re.IGNORECASE` is far slower);
        # only where lowering keeps every offset (it lengthens a few characters, like "İ").
        self.lowered = lowered if len(lowered) == len(self.blob) else None

    def __len__(self) -> int:
        return len(self.positions)

    def matches(self, pattern: Query, first: int = 0, stop: int | None = None, deadline: float | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(text, start, end) of every non-empty match in texts [first, stop), offsets within the text. Raises
        TimeoutError once `deadline` (time.monotonic()) has passed."""
        stop = len(self.texts) if stop is None else stop
        empty = np.zeros(0, dtype=np.int64)
        if first >= stop:
            return empty, empty, empty
        haystack, finder = self.blob, pattern.pattern
        if pattern.lowered is not None and self.lowered is not None:
            haystack, finder = self.lowered, pattern.lowered
        # (start, end) pairs straight from the match objects into numpy, with no Python loop in between; the scan
        # ends at the last text's end, so a match never runs past the texts asked for
        found = finder.finditer(haystack, int(self.starts[first]), int(self.ends[stop - 1]), deadline)
        flat = np.fromiter(chain.from_iterable(map(finder.span, found)), dtype=np.int64)
        if not len(flat):
            return empty, empty, empty
        starts, ends = flat[0::2], flat[1::2]
        text = np.searchsorted(self.starts, starts, side="right") - 1
        # a match inside a separator is no match; one reaching into a text from outside the text it starts in is
        following = np.minimum(text + 1, len(self.starts) - 1)  # the next text's start (the last text: the end)
        next_start = np.where(text + 1 < len(self.starts), self.starts[following], len(haystack))
        in_separator = (starts >= self.ends[text]) & (ends <= next_start)
        crossing = (ends > self.ends[text]) & ~in_separator
        keep = (ends > starts) & ~crossing & ~in_separator
        t, s, e = text[keep], starts[keep] - self.starts[text[keep]], ends[keep] - self.starts[text[keep]]
        if crossing.any():
            # The match ran over a separator (a pattern like \s+ can): search each text it touched on its own,
            # and drop whatever the joined scan found in them.
            redo: set[int] = set()
            for a, b in zip(text[crossing], np.searchsorted(self.starts, ends[crossing], side="right") - 1):
                redo.update(range(int(a), int(b) + 1))
            drop = np.isin(t, list(redo))
            extra = [(i, m.start(), m.end()) for i in sorted(redo)
                     for m in pattern.finditer(haystack[self.starts[i]:self.ends[i]], deadline=deadline)
                     if m.end() > m.start()]
            t, s, e = t[~drop], s[~drop], e[~drop]
            if extra:
                more = np.array(extra, dtype=np.int64)
                t, s, e = np.concatenate([t, more[:, 0]]), np.concatenate([s, more[:, 1]]), \
                    np.concatenate([e, more[:, 2]])
        return t, s, e

    def hits(self, pattern: Query, limit: int | None = None, deadline: float | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(document, start, end) of the matches, one row per document holding the matched text, in document
        order (then start); all of them, or the first `limit` + 1 when there are more (so a caller cut to `limit`
        knows the list was cut). The texts are scanned a range at a time and the scan ends as soon as no text
        left can hold an earlier row: a query matching everywhere costs `limit` rows, not the whole run."""
        keep = None if limit is None else limit + 1
        found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        rows = 0
        ranges = _Ranges(self, keep)
        first = 0
        while first < len(self.texts):
            stop = ranges.end(first)
            breathe()
            check_deadline(deadline)
            docs, s, e = self._rows(*self.matches(pattern, first, stop, deadline), keep)
            found.append((docs, s, e))
            rows += len(docs)
            if keep is not None and rows >= keep:
                docs, s, e = (np.concatenate(column) for column in zip(*found))
                order = np.lexsort((s, docs))[:keep]
                found, rows = [(docs[order], s[order], e[order])], keep
                # Texts are numbered by their first document: past the kept rows' last document, none can give an
                # earlier row. Only the texts before that are left to scan.
                ranges.last_text = int(np.searchsorted(self.first_doc, docs[order[-1]], side="right"))
            first = min(stop, ranges.last_text)
            if first == ranges.last_text:
                break
        if not found:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        docs, s, e = (np.concatenate(column) for column in zip(*found))
        order = np.lexsort((s, docs))
        return docs[order], s[order], e[order]

    def _rows(self, t: np.ndarray, s: np.ndarray, e: np.ndarray, keep: int | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The matches (text, start, end) as rows (document, start, end): one per document holding the text; with
        `keep`, only as many of each text's first documents as can give one of the first `keep` rows."""
        counts = self.ptr[t + 1] - self.ptr[t]
        if keep is not None and len(t):
            per_text = np.bincount(t, minlength=len(self.texts))[t]  # matches in the same text
            counts = np.minimum(counts, -(-keep // per_text))
        total = int(counts.sum())
        row = np.repeat(np.arange(len(t)), counts)
        first = np.repeat(np.cumsum(counts) - counts, counts)
        docs = self.docs_of[self.ptr[t][row] + (np.arange(total) - first)]
        return docs, s[row], e[row]


class _Ranges:
    """Where each range of texts scanned one after another ends: small first (a query matching everywhere stops
    after one), growing to RANGE_ROWS; sized by the rows their matches can make (a text's length times the
    documents holding it), so one range never makes more than about that many rows but for one text, nor holds
    more than RANGE_CHARS characters. `last_text` ends the scan early (no text from there on can give a row)."""

    def __init__(self, part: IndexPart, keep: int | None):
        lengths = part.ends - part.starts + len(_SEPARATOR)
        docs = np.diff(part.ptr) if keep is None else np.minimum(np.diff(part.ptr), keep)
        self.chars = np.cumsum(lengths)
        self.weight = np.cumsum(lengths * docs)
        self.budget = FIRST_RANGE_ROWS if keep is None else min(FIRST_RANGE_ROWS, 8 * keep + 1024)
        self.last_text = len(part.texts)

    def end(self, first: int) -> int:
        base_weight = self.weight[first - 1] if first else 0
        base_chars = self.chars[first - 1] if first else 0
        stop = min(int(np.searchsorted(self.weight, base_weight + self.budget, side="right")),
                   int(np.searchsorted(self.chars, base_chars + RANGE_CHARS, side="right")), self.last_text)
        self.budget = min(2 * self.budget, RANGE_ROWS)
        return max(stop, first + 1)


class SearchIndex:
    def __init__(self, run, templates: dict | None = None, app_name: str = "Agent", *,
                 _content: IndexPart | None = None):
        self.run = run
        self.templates = dict(DEFAULT_TEMPLATES if templates is None else templates)
        self.app_name = app_name
        stops = run.stops
        self.stop_ends = [stop["axisEnd"] for stop in stops]
        self.stop_labels = ordinal_labels(stops)
        self._nodes = NodeFinder(run)
        content = _content if _content is not None else IndexPart(list(content_texts(run, self._nodes)))
        # the parts searched: the content's texts, then the status lines (a hit's part is its index here)
        self.parts = (content, IndexPart(list(status_texts(run, self._nodes, self.templates, app_name))))

    def with_templates(self, templates: dict, app_name: str) -> "SearchIndex":
        """The same index with the status lines another template map renders (the content is not rebuilt)."""
        return SearchIndex(self.run, templates, app_name, _content=self.parts[0])

    def __len__(self) -> int:
        """The number of indexed texts (with repeats)."""
        return sum(len(part) for part in self.parts)

    def stop_of(self, position: int) -> int | None:
        """The stop a position falls in: the first whose end is at or after it (the last stop past the end)."""
        if not self.stop_ends:
            return None
        i = bisect_right(self.stop_ends, position - 1)
        return min(i, len(self.stop_ends) - 1)

    def find(self, query: str, *, regex: bool = False, ignore_case: bool = False, limit: int | None = None,
             time_limit: float = DEFAULT_TIME_LIMIT_S) -> SearchResult:
        """Every match of `query` (plain text unless `regex`), in axis order; at most `limit` when given (the
        result's `complete` says whether that was all). Raises QueryError for an empty query or an invalid
        regular expression, and SearchTooSlow (a QueryError) when the search takes longer than `time_limit`
        seconds. Empty matches are skipped."""
        pattern = compile_query(query, regex, ignore_case)
        deadline = deadline_in(time_limit)
        try:
            found = [part.hits(pattern, limit, deadline) for part in self.parts]
        except TimeoutError:
            raise too_slow(time_limit, regex) from None
        part = np.concatenate([np.full(len(f[0]), p, dtype=np.int64) for p, f in enumerate(found)])
        doc = np.concatenate([f[0] for f in found])
        start = np.concatenate([f[1] for f in found])
        end = np.concatenate([f[2] for f in found])
        positions = np.concatenate([self.parts[p].positions[f[0]] for p, f in enumerate(found)])
        order = np.lexsort((start, doc, part, positions))
        complete = limit is None or len(order) <= limit
        if not complete:
            order = order[:limit]
        return SearchResult(self, part[order], doc[order], start[order], end[order], complete)


def find(run, query: str, *, regex: bool = False, ignore_case: bool = False, templates: dict | None = None,
         app_name: str = "Agent", limit: int | None = None) -> list[Hit]:
    return list(SearchIndex(run, templates, app_name).find(query, regex=regex, ignore_case=ignore_case,
                                                           limit=limit))
