"""Compare two runs: align their StepGraphs by structure and say what differs, step by step and in total.

Every node gets a *shape key* — kind, stage name without its `#n`, tool name, subflow or branch label, primitive
kind, subflow path without `#n` — and a *content key*: its shape key plus a digest of the compared fields.
Alignment runs in two passes of difflib's SequenceMatcher (longest common blocks first, no junk heuristic):
  1. over the content keys, which anchors the steps that are the same in both runs;
  2. inside each gap between two anchors, over the shape keys, which pairs steps of the same shape whose content
     changed (another tool result, other tokens, a redacted prompt).
What is left in a gap is removed (only in A) or added (only in B). An extra tool call or an extra iteration is one
gap of added steps; the steps around it stay aligned, because no key holds an iteration number or a `#n`.

`compare_runs(a, b)` gives a `Comparison` (node indices, for the window); `diff(a, b)` its JSON form with node
ids. `PositionMap` carries a cursor position of one run to the aligned position of the other; `word_diff` is the
word-level diff of two payload texts.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any, cast

from afp_desktop.core.breathing import breathe, breathing_over
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.jsonx.lazyjson import resolve_quietly

LLM_START_KINDS = ("user->llm", "tool->llm")
SLOT_FIELDS = {"systemPrompt": "system prompt", "messages": "messages", "tools": "tools"}
# Compared per step, in the order a difference list names them. `durationMs` and `tokens` are numbers with
# deltas; the rest are payloads shown as word-level diffs.
NUMBER_FIELDS = ("tokens", "durationMs")
PAYLOAD_FIELDS = ("error", "assistantText", "toolArgs", "toolResult", "systemPrompt", "messages", "tools",
                  "injections", "entryPayload", "exitPayload", "llmModel", "label")
FIELD_NAMES = {"tokens": "tokens", "durationMs": "duration", "error": "error", "assistantText": "assistant text",
               "toolArgs": "tool arguments", "toolResult": "tool result", "systemPrompt": "system prompt",
               "messages": "messages", "tools": "tools", "injections": "injections",
               "entryPayload": "input", "exitPayload": "output", "llmModel": "model", "label": "label"}
_COUNTER = re.compile(r"#\d+$")


# -------------------------------------------------------------------------------------------- per step

def _stage(value: Any) -> str:
    """A stage or path segment without its execution counter: "call-llm#18" → "call-llm"."""
    return _COUNTER.sub("", value) if isinstance(value, str) else ""


def shape_key(node: dict) -> tuple:
    """What a step is, independent of when it ran and what it carried."""
    kind = node.get("kind")
    path = node.get("subflowPath")
    path = tuple(_stage(p) for p in path) if isinstance(path, list) else ()
    label = node.get("label") if kind in ("subflow", "fork-branch", "decision-branch") else None
    return (kind if isinstance(kind, str) else "", _stage(node.get("runtimeStageId")), _text_key(label),
            _text_key(node.get("toolName")), _text_key(node.get("primitiveKind")), path)


def _text_key(value: Any) -> str | None:
    return None if value is None else jsonio.text_of(value)


def step_values(run, index: int) -> dict[str, Any]:
    """The compared fields of node `index` of `run.stepgraph` (absent ones are left out)."""
    node = run.stepgraph["nodes"][index]
    if not isinstance(node, dict):
        return {}
    values: dict[str, Any] = {}
    kind = node.get("kind")
    if isinstance(node.get("tokens"), dict):
        values["tokens"] = node["tokens"]
    start: Any = node.get("startOffsetMs")
    end: Any = node.get("endOffsetMs")
    if _is_number(start) and _is_number(end):
        values["durationMs"] = end - start
    for key in ("assistantText", "toolArgs", "toolResult", "injections", "entryPayload", "exitPayload",
                "llmModel", "label"):
        if key in node:
            values[key] = resolve_quietly(node[key])
    slots = node.get("slotBoundaries")
    if isinstance(slots, dict):
        for key in SLOT_FIELDS:
            boundary = slots.get(key)
            if isinstance(boundary, dict):  # its runtimeStageId's #n differs between any two runs: not content
                values[key] = {k: resolve_quietly(v) for k, v in boundary.items() if k != "runtimeStageId"}
    end_event = _tool_end_event(run, index) if kind == "llm->tool" else None
    if end_event is not None:
        if "result" in end_event:  # the step graph puts a call's result on the next LLM step; it is this call's
            values["toolResult"] = resolve_quietly(end_event["result"])
        if end_event.get("error"):
            result = values.get("toolResult")
            values["error"] = result if isinstance(result, str) and result else True
    elif kind == "subflow":
        payload = values.get("exitPayload")
        if isinstance(payload, dict) and "error" in payload:  # a run.exit {error: …}: the run failed
            values["error"] = payload["error"]
    return values


def _tool_end_event(run, index: int) -> dict | None:
    """The tool.end that closed tool-call node `index` (the event that last changed it), if it has ended."""
    fold = run.step_fold
    at = fold.node_changed_at[index]
    if at == fold.node_created_at[index] or not 0 <= at < len(run.domain_events):
        return None
    event = run.domain_events[at]
    return event if isinstance(event, dict) and event.get("type") == "tool.end" else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _digest(values: dict[str, Any]) -> str:
    content = {k: v for k, v in values.items() if k != "durationMs"}  # timing alone never anchors or splits
    try:
        data = jsonio.dumps(content, sort_keys=True)
    except Exception:  # an unreadable lazy payload, a value JSON cannot hold: compare its repr instead
        data = repr(sorted(content.items(), key=lambda kv: kv[0])).encode("utf-8", "replace")
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def changed_fields(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The compared fields whose values differ, in the order of NUMBER_FIELDS then PAYLOAD_FIELDS."""
    missing = object()
    return [key for key in (*NUMBER_FIELDS, *PAYLOAD_FIELDS) if a.get(key, missing) != b.get(key, missing)]


# ------------------------------------------------------------------------------------------- alignment

def align(shapes_a: list, shapes_b: list, contents_a: list, contents_b: list) -> list[tuple[int, int]]:
    """Aligned index pairs (ascending in both): identical content first, then equal shapes inside the gaps."""
    pairs: list[tuple[int, int]] = []
    i = j = 0
    for block in _blocks(contents_a, contents_b, 0, len(contents_a), 0, len(contents_b)):
        breathe()  # (the gaps of two long runs take long: a window closing need not wait for them all)
        for gi, gj, size in _blocks(shapes_a, shapes_b, i, block.a, j, block.b):
            pairs.extend((gi + k, gj + k) for k in range(size))
        pairs.extend((block.a + k, block.b + k) for k in range(block.size))
        i, j = block.a + block.size, block.b + block.size
    return pairs


def _blocks(a: list, b: list, a0: int, a1: int, b0: int, b1: int):
    """Matching blocks of a[a0:a1] and b[b0:b1] in absolute indices, the last one the zero-size sentinel."""
    if a1 <= a0 or b1 <= b0:
        return [_Block(a1, b1, 0)]
    matcher = SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
    return [_Block(a0 + m.a, b0 + m.b, m.size) for m in matcher.get_matching_blocks()]


def slide_gaps(pairs: list[tuple[int, int]], contents_a: list, contents_b: list, openers_a: list[bool],
               openers_b: list[bool]) -> list[tuple[int, int]]:
    """Move each block of steps only in one run to where it reads best. A repeated iteration can be matched in
    several equally long ways ([forks, LLM, tool] added, or [LLM, tool, forks]); like a text diff sliding a hunk
    to a blank line, the block is slid along equal content until it starts and ends on an *opener* (the first
    step of an iteration or subflow), the latest such place on a tie."""
    partner_b: list[int | None] = [None] * len(contents_b)
    for pa, pb in pairs:
        partner_b[pb] = pa
    _slide_side(partner_b, contents_b, openers_b)
    partner_a: list[int | None] = [None] * len(contents_a)
    for pb, partner in enumerate(partner_b):
        if partner is not None:
            partner_a[partner] = pb
    _slide_side(partner_a, contents_a, openers_a)
    return [(pa, pb) for pa, pb in enumerate(partner_a) if pb is not None]


def _slide_side(partner: list[int | None], keys: list, openers: list[bool]) -> None:
    n, s = len(partner), 0
    while s < n:
        if partner[s] is not None:
            s += 1
            continue
        e = s
        while e < n and partner[e] is None:
            e += 1
        size = e - s
        lo = s
        while lo > 0 and partner[lo - 1] is not None and keys[lo - 1] == keys[lo - 1 + size]:
            lo -= 1
        hi = s
        while hi + size < n and partner[hi + size] is not None and keys[hi] == keys[hi + size]:
            hi += 1
        if lo != hi:
            def score(t: int, size: int = size) -> tuple[int, int]:
                return int(openers[t]) + int(t + size >= n or openers[t + size]), t
            best = max(range(lo, hi + 1), key=score)
            kept = [partner[k] for k in range(lo, hi + size) if partner[k] is not None]
            slots = [k for k in range(lo, hi + size) if not best <= k < best + size]
            for k in range(lo, hi + size):
                partner[k] = None
            for k, value in zip(slots, kept):
                partner[k] = value
            e = best + size
        s = e


def _openers(nodes: list) -> list[bool]:
    """Per node: it starts an iteration or a subflow (a context chip or LLM turn not preceded by a chip)."""
    out = []
    previous = None
    for node in nodes:
        kind = node.get("kind") if isinstance(node, dict) else None
        opens = kind == "subflow" or ((kind in ("fork-branch", "decision-branch") or kind in LLM_START_KINDS)
                                      and previous not in ("fork-branch", "decision-branch"))
        out.append(opens)
        previous = kind
    return out


@dataclass(frozen=True)
class _Block:
    a: int
    b: int
    size: int

    def __iter__(self):  # unpacks like difflib's Match
        return iter((self.a, self.b, self.size))


@dataclass(frozen=True)
class StepPair:
    """One row of the merged sequence: an aligned pair, or a step only in A (`b` None) or only in B (`a` None)."""

    a: int | None
    b: int | None
    fields: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        if self.a is None:
            return "added"
        if self.b is None:
            return "removed"
        return "changed" if self.fields else "same"


@dataclass
class Comparison:
    nodes_a: list[dict]
    nodes_b: list[dict]
    values_a: list[dict]
    values_b: list[dict]
    rows: list[StepPair]  # the merged sequence in run order: in a gap, A's removed steps before B's added ones
    partner_a: list[int | None] = field(default_factory=list)  # per A node: its aligned B node
    partner_b: list[int | None] = field(default_factory=list)
    edges_a: list = field(default_factory=list)  # the StepGraphs' edges (for the merged graph)
    edges_b: list = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return all(row.status == "same" for row in self.rows)

    def rows_with(self, status: str) -> list[StepPair]:
        return [row for row in self.rows if row.status == status]

    def step_deltas(self, row: StepPair) -> dict[str, Any]:
        """Token, time and error deltas of a row: B minus A (an added step counts from zero, a removed one to)."""
        va = self.values_a[row.a] if row.a is not None else {}
        vb = self.values_b[row.b] if row.b is not None else {}
        out: dict[str, Any] = {}
        if "tokens" in va or "tokens" in vb:
            ta, tb = va.get("tokens") or {}, vb.get("tokens") or {}
            out["tokens"] = {side: _num(tb.get(side)) - _num(ta.get(side)) for side in ("in", "out")}
        if "durationMs" in va or "durationMs" in vb:
            out["durationMs"] = _num(vb.get("durationMs")) - _num(va.get("durationMs"))
        if va.get("error") != vb.get("error"):
            out["error"] = {"a": va.get("error"), "b": vb.get("error")}
        return out

    def totals(self) -> dict[str, Any]:
        a, b = _run_totals(self.nodes_a, self.values_a), _run_totals(self.nodes_b, self.values_b)
        counts = {status: len(self.rows_with(status)) for status in ("added", "removed", "changed")}
        return {"a": a, "b": b, "delta": {k: _delta(a[k], b[k]) for k in a},
                "aligned": sum(1 for row in self.rows if row.a is not None and row.b is not None), **counts}

    def to_json(self) -> dict[str, Any]:
        ids_a, ids_b = node_ids(self.nodes_a), node_ids(self.nodes_b)
        changed = []
        for row in self.rows_with("changed"):
            entry = {"a": ids_a[cast(int, row.a)], "b": ids_b[cast(int, row.b)], "fields": list(row.fields)}
            entry.update(self.step_deltas(row))
            changed.append(entry)
        return {
            "identical": self.identical,
            "aligned": [[ids_a[r.a], ids_b[r.b]] for r in self.rows if r.a is not None and r.b is not None],
            "added": [ids_b[cast(int, r.b)] for r in self.rows_with("added")],
            "removed": [ids_a[cast(int, r.a)] for r in self.rows_with("removed")],
            "changed": changed,
            "totals": self.totals(),
        }

    def payload_diffs(self, row: StepPair) -> dict[str, list[tuple[str, str]]]:
        """Word-level diffs of the payload fields of an aligned pair (every payload field either side has)."""
        if row.a is None or row.b is None:
            return {}
        va, vb = self.values_a[row.a], self.values_b[row.b]
        return {key: word_diff(payload_text(va.get(key)), payload_text(vb.get(key)))
                for key in PAYLOAD_FIELDS if key in va or key in vb}


def _num(value: Any) -> float:
    return value if _is_number(value) else 0


def _delta(a: Any, b: Any) -> Any:
    return b - a if _is_number(a) and _is_number(b) else None


def _run_totals(nodes: list, values: list[dict]) -> dict[str, Any]:
    tokens_in: float = 0
    tokens_out: float = 0
    errors = llm = tools = 0
    iterations = 0
    end = None
    for node, vals in zip(nodes, values):
        if not isinstance(node, dict):
            continue
        tokens = vals.get("tokens") or {}
        tokens_in += _num(tokens.get("in"))
        tokens_out += _num(tokens.get("out"))
        errors += 1 if vals.get("error") else 0
        kind = node.get("kind")
        llm += kind in LLM_START_KINDS
        tools += kind == "llm->tool"
        if _is_number(node.get("iterationIndex")):
            iterations = max(iterations, node["iterationIndex"])
        for key in ("startOffsetMs", "endOffsetMs"):
            if _is_number(node.get(key)):
                end = node[key] if end is None else max(end, node[key])
    return {"steps": len(nodes), "llmCalls": llm, "toolCalls": tools, "iterations": iterations,
            "tokensIn": tokens_in, "tokensOut": tokens_out, "durationMs": end, "errors": errors}


def node_ids(nodes: list) -> list[str]:
    """Each node's id; "#<index>" for a node without a string id or whose id another node shares."""
    raw = [n.get("id") if isinstance(n, dict) else None for n in nodes]
    seen: dict[str, int] = {}
    for value in raw:
        if isinstance(value, str):
            seen[value] = seen.get(value, 0) + 1
    return [v if isinstance(v, str) and seen[v] == 1 else f"#{i}" for i, v in enumerate(raw)]


def compare_runs(run_a, run_b) -> Comparison:
    nodes_a, nodes_b = run_a.stepgraph["nodes"], run_b.stepgraph["nodes"]
    values_a = [step_values(run_a, i) for i in breathing_over(range(len(nodes_a)))]
    values_b = [step_values(run_b, i) for i in breathing_over(range(len(nodes_b)))]
    shapes_a = [shape_key(n) if isinstance(n, dict) else ("",) for n in nodes_a]
    shapes_b = [shape_key(n) if isinstance(n, dict) else ("",) for n in nodes_b]
    contents_a = [(s, _digest(v)) for s, v in zip(shapes_a, values_a)]
    contents_b = [(s, _digest(v)) for s, v in zip(shapes_b, values_b)]
    if shapes_a == shapes_b:  # the same steps (an exact or a redacted copy): nothing to search
        pairs = [(i, i) for i in range(len(nodes_a))]
    else:
        pairs = align(shapes_a, shapes_b, contents_a, contents_b)
        pairs = slide_gaps(pairs, contents_a, contents_b, _openers(nodes_a), _openers(nodes_b))
    rows: list[StepPair] = []
    i = j = 0
    for pa, pb in [*pairs, (len(nodes_a), len(nodes_b))]:
        rows.extend(StepPair(k, None) for k in range(i, pa))
        rows.extend(StepPair(None, k) for k in range(j, pb))
        if pa < len(nodes_a) and pb < len(nodes_b):
            rows.append(StepPair(pa, pb, tuple(changed_fields(values_a[pa], values_b[pb]))))
        i, j = pa + 1, pb + 1
    partner_a: list[int | None] = [None] * len(nodes_a)
    partner_b: list[int | None] = [None] * len(nodes_b)
    for pa, pb in pairs:
        partner_a[pa], partner_b[pb] = pb, pa
    return Comparison(nodes_a, nodes_b, values_a, values_b, rows, partner_a, partner_b,
                      run_a.stepgraph.get("edges") or [], run_b.stepgraph.get("edges") or [])


def merged_graph(comparison: Comparison) -> dict:
    """One StepGraph of both runs, the union Jaeger's compare view draws: node k is row k of `comparison.rows`
    (A's node for an aligned pair and a removed step, B's for an added one; ids "m<k>"), with A's edges and B's
    edges that touch a step only B has."""
    return {"nodes": merged_nodes(comparison), "edges": merged_edges(comparison)}


def merged_nodes(comparison: Comparison) -> list[dict]:
    """The merged graph's nodes (merged_graph): row k's node, copied, with the id "m<k>"."""
    nodes = []
    for k, row in enumerate(comparison.rows):
        source = comparison.nodes_a[row.a] if row.a is not None else comparison.nodes_b[cast(int, row.b)]
        node = dict(source) if isinstance(source, dict) else {}
        node["id"] = f"m{k}"
        nodes.append(node)
    return nodes


def merged_edges(comparison: Comparison) -> list[dict]:
    """The merged graph's edges (merged_graph): A's, and B's that touch a step only B has, between "m<k>" ids."""
    from afp_desktop.core.model.layout import resolve_edges

    rows = comparison.rows
    row_of_a = {row.a: k for k, row in enumerate(rows) if row.a is not None}
    row_of_b = {row.b: k for k, row in enumerate(rows) if row.b is not None}
    edges, seen = [], set()

    def add(edge: dict, src: int, dst: int) -> None:
        kind = edge.get("kind") if isinstance(edge, dict) else None
        key = (src, dst, kind, edge.get("iteration") if isinstance(edge, dict) else None)
        if key in seen:
            return
        seen.add(key)
        out = {"id": f"m{src}->m{dst}" if src != dst else f"loop-m{src}-{key[3]}", "from": f"m{src}",
               "to": f"m{dst}", "kind": kind}
        if isinstance(edge, dict) and "iteration" in edge:
            out["iteration"] = edge["iteration"]
        edges.append(out)

    for _side, node_list, edge_list, row_of, partner in (
            ("a", comparison.nodes_a, comparison.edges_a, row_of_a, None),
            ("b", comparison.nodes_b, comparison.edges_b, row_of_b, comparison.partner_b)):
        ends = resolve_edges({"nodes": [n if isinstance(n, dict) else {} for n in node_list], "edges": edge_list})
        for edge, pair in zip(edge_list, ends):
            if pair is None:
                continue
            src, dst = pair
            if partner is not None and partner[src] is not None and partner[dst] is not None and src != dst:
                continue  # both ends aligned: A's edge already drew it
            add(edge, row_of[src], row_of[dst])
    return edges


def diff(run_a, run_b) -> dict[str, Any]:
    """`{"identical", "aligned", "added", "removed", "changed", "totals"}` with each run's node ids."""
    return compare_runs(run_a, run_b).to_json()


# ----------------------------------------------------------------------------------------- positions

class PositionMap:
    """Carries a cursor position of one run to the aligned position of the other.

    A position is placed relative to the last step created at or before it that has a partner: the other run
    goes to its partner's creation plus the same number of events, but never past the event before its own next
    step (so an extra step of the other run is reached only by moving that run). The ends map to the ends, and
    a run compared with itself maps every position to itself."""

    def __init__(self, comparison: Comparison, run_a, run_b):
        self._created = (_creation_positions(run_a), _creation_positions(run_b))
        self._partners = (comparison.partner_a, comparison.partner_b)
        self._lengths = (len(run_a.axis), len(run_b.axis))

    def a_to_b(self, position: int) -> int:
        return self._carry(0, position)

    def b_to_a(self, position: int) -> int:
        return self._carry(1, position)

    def _carry(self, side: int, position: int) -> int:
        other = 1 - side
        created, partners = self._created[side], self._partners[side]
        created_other, length_other = self._created[other], self._lengths[other]
        position = max(0, min(position, self._lengths[side]))
        if position >= self._lengths[side]:
            return length_other
        i = bisect_right(created, position) - 1
        while i >= 0 and partners[i] is None:
            i -= 1
        if i < 0:  # before the first aligned step: the same count of events, short of the other's first step
            first = next((created_other[k] - 1 for k, p in enumerate(self._partners[other]) if p is not None),
                         length_other)
            return min(position, first)
        j = cast(int, partners[i])  # (not None: the loop above stopped on an aligned step)
        limit = created_other[j + 1] - 1 if j + 1 < len(created_other) else length_other
        return max(created_other[j], min(created_other[j] + position - created[i], limit))


def _creation_positions(run) -> list[int]:
    """Per node: the cursor position right after the event that created it (as a click on its card moves to)."""
    axis = run.axis
    return [axis.position_of_domain(c) + 1 for c in run.step_fold.node_created_at]


# -------------------------------------------------------------------------------------------- word diff

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
_WORDLIKE = re.compile(r"\w")


def payload_text(value: Any) -> str:
    """A payload as the text a word diff reads: a string as itself, anything else as indented JSON."""
    value = resolve_quietly(value)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return jsonio.dumps(value, indent=True).decode("utf-8", "replace")
    except Exception:
        return repr(value)


def word_diff(a: str, b: str) -> list[tuple[str, str]]:
    """[(op, text)] with op "equal", "delete" (only in a) or "insert" (only in b); the equal and deleted texts
    concatenate to `a`, the equal and inserted ones to `b`. Words, runs of spaces and punctuation are tokens.

    Texts of several lines (indented JSON) are matched line by line first and word by word only inside changed
    lines, which keeps a big payload fast. Spaces and punctuation alone between two changes join them
    ("Oslo: 18°C" → "database unavailable" reads as one replacement, not four interleaved ones)."""
    if a == b:
        return [("equal", a)] if a else []
    lines_a, lines_b = a.splitlines(keepends=True), b.splitlines(keepends=True)
    chunks: list[list] = []  # ["equal", tokens, may glue] or ["change", deleted tokens, inserted tokens]
    if len(lines_a) > 1 or len(lines_b) > 1:
        for op, i1, i2, j1, j2 in SequenceMatcher(None, lines_a, lines_b, autojunk=False).get_opcodes():
            if op == "equal":
                chunks.append(["equal", lines_a[i1:i2], False])
            else:
                chunks.extend(_word_chunks("".join(lines_a[i1:i2]), "".join(lines_b[j1:j2])))
    else:
        chunks = _word_chunks(a, b)
    merged: list[list] = []
    for k, chunk in enumerate(chunks):
        if chunk[0] == "equal":
            glue = (chunk[2] and 0 < k < len(chunks) - 1 and chunks[k - 1][0] == chunks[k + 1][0] == "change"
                    and len(chunk[1]) <= 3 and not any(_WORDLIKE.search(token) for token in chunk[1]))
            if not glue:
                merged.append(chunk)
                continue
            chunk = ["change", chunk[1], chunk[1]]
        if merged and merged[-1][0] == "change":
            merged[-1] = ["change", merged[-1][1] + chunk[1], merged[-1][2] + chunk[2]]
        else:
            merged.append(chunk)
    out: list[tuple[str, str]] = []
    for chunk in merged:
        pieces = [("equal", chunk[1])] if chunk[0] == "equal" else [("delete", chunk[1]), ("insert", chunk[2])]
        for kind, tokens in pieces:
            if not tokens:
                continue
            text = "".join(tokens)
            if out and out[-1][0] == kind:
                out[-1] = (kind, out[-1][1] + text)
            else:
                out.append((kind, text))
    return out


def _word_chunks(a: str, b: str) -> list[list]:
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    chunks: list[list] = []
    # Runs of spaces are everywhere: they never start a match (difflib's junk), only extend one, which keeps
    # the search fast on long texts.
    matcher = SequenceMatcher(str.isspace, ta, tb, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            chunks.append(["equal", ta[i1:i2], True])
        elif chunks and chunks[-1][0] == "change":
            chunks[-1][1] += ta[i1:i2]
            chunks[-1][2] += tb[j1:j2]
        else:
            chunks.append(["change", ta[i1:i2], tb[j1:j2]])
    return chunks
