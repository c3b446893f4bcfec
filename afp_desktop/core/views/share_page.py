"""The data of a shared replay page: what a browser needs to replay a run without the app, built from the same
projections the window draws (the StepGraph layout, the stops and their spans, the lines each stop showed, the
errors, each step's readable sections). Pure, no Qt.

    share_data(run, templates, app_name, fold_above=AUTO_FOLD_STEPS) -> dict   (JSON-ready)

The page holds what the replay needs, not the file: every text longer than its bound is cut, with a marker saying
how much was left out. Positions are the run's axis positions (axis.py); a step, a line, an error or a text is
given with the first position at which it is known, so the page shows nothing from after its cursor.

Layout of the value (lists rather than objects where there are thousands of them):
    stops      [[label, kind, start, end], …]          spans: positions start < p ≤ end belong to stop i
    stopLines  [[[line, from] | [appended, from, 1], …], …]   per stop: the lines seen during it, each from a
               position (a line that extends the one before is given as what it appended)
    graph      nodes [[x, y, w, h, kind, label, start, end|None, sections, detail], …]   (shown graph: folded
               when it has more than `fold_above` steps), edges [[kind, [x, y, …], label, lx, ly, source,
               target], …], groups [[x, y, w, h, node], …]
    steps      kinds and labels of the run's steps, their start and end positions, and where each is shown
               (the page finds the step a moment is about from them, as Replay does)
    status     [[position, line | None] | [position, "+", appended], …]   the bubble's line from each position on
    prompts, answers   [[position, text], …]
    errors     [[position, kind, message, shown node | None, detail | None], …]
    sections   distinct readable sections; a node's `sections` is [[from, [section ids]], …]
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from afp_desktop import __version__
from afp_desktop.core.breathing import breathing_over
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.library.events import domain_indices_of, indices_of
from afp_desktop.core.library.status import DEFAULT_TEMPLATES, render_status_line
from afp_desktop.core.model.bubble import status_states_for
from afp_desktop.core.model.fold_iterations import AUTO_FOLD_STEPS, FOLD_KIND
from afp_desktop.core.model.replay import DEFAULT_APP_NAME, LLM_KINDS, SLOT_CHIP, Replay, span_lines_walk
from afp_desktop.core.views.prepared_views import folded_graph_of, graph_layout_of, summary_of
from afp_desktop.core.views.inspect import chip_boundary, chip_call, chip_slot, inspect_node

DATA_FORMAT = 1
TEXT_BOUND = 6_000       # a readable section's text, a prompt, an answer, an error message
LINE_BOUND = 1_000       # one status line
LABEL_BOUND = 160        # a step's label
STOP_LINES_KEPT = 200    # a stop that showed more lines keeps its first and last ones, half each
SUBFLOW_EVENTS_LOOKED_AT = 250_000  # how many events the counts of one subflow in progress may look at, in all
CUT_MARK = "… [{count:,} more characters are not in this page]"
LINES_CUT_MARK = "… [{count:,} more lines are not in this page]"
LINE_CUT_MARK = "… [the rest of this line is not in this page]"
ENDING_DOMAIN_TYPES = ("run.exit", "composition.end")  # the run said it ended …
ENDING_TYPED_TYPES = ("agentfootprint.agent.turn_end", "agentfootprint.composition.exit")  # … or its agent did
KIND_WORDS = {"user->llm": "LLM call", "tool->llm": "LLM call", "llm->tool": "tool call", "llm->user": "reply",
              "subflow": "subflow", "fork-branch": "context slot", "decision-branch": "decision",
              "framework": "framework step", FOLD_KIND: "folded iterations"}


def cut(text: str, bound: int) -> str:
    """`text`, or its first `bound` characters and a marker saying how many were left out."""
    if len(text) <= bound:
        return text
    return text[:bound] + CUT_MARK.format(count=len(text) - bound)


def bounded_value(value: Any, bound: int) -> Any:
    """Every string inside a JSON value cut to `bound` (section rows: labels, values, messages, schemas)."""
    if isinstance(value, str):
        return cut(value, bound)
    if isinstance(value, list):
        return [bounded_value(item, bound) for item in value]
    if isinstance(value, dict):
        return {str(key): bounded_value(item, bound) for key, item in value.items()}
    return value


def _text_or_none(value: Any, bound: int) -> str | None:
    return cut(value, bound) if isinstance(value, str) else None


class _Sections:
    """Distinct readable sections, each kept once (a tools list or system prompt repeats at every call)."""

    def __init__(self) -> None:
        self.items: list[dict] = []
        self._ids: dict[bytes, int] = {}

    def ids(self, sections: list[dict]) -> list[int]:
        out = []
        for section in sections:
            bounded = bounded_value(section, TEXT_BOUND)
            key = jsonio.dumps(bounded)
            index = self._ids.get(key)
            if index is None:
                index = self._ids[key] = len(self.items)
                self.items.append(bounded)
            out.append(index)
        return out


def _stop_lines(run, replay: Replay, spans) -> list[list]:
    """Per stop: the lines the window's bubble lists for it (Replay.lines_of), each [line, first position it was
    seen at], or [what it added to the line before, position, 1] for a line that extends the one before (a
    streamed reply: each of its lines is the reply so far), up to LINE_BOUND characters, then cut with a marker."""
    _states, _derived, prefix_at = status_states_for(run)
    out = []
    for span in breathing_over(spans, every=64):
        lines, seen_at = span_lines_walk(run, span, replay.templates, replay.app_name)
        count, half = len(lines), STOP_LINES_KEPT // 2
        kept: list[int | None] = list(range(count)) if count <= STOP_LINES_KEPT else \
            [*range(half), None, *range(count - half, count)]
        rows: list[list] = []
        previous: str | None = None
        shown, cut_short = 0, False
        for k in kept:
            if k is None:  # (only the stop's first and last lines are kept)
                rows.append([LINES_CUT_MARK.format(count=count - 2 * half), bisect_left(prefix_at, seen_at[half])])
                previous = None
                continue
            line, at = lines[k], bisect_left(prefix_at, seen_at[k])
            if previous and line.startswith(previous):
                added = "" if cut_short else line[len(previous):]
                if shown + len(added) > LINE_BOUND:
                    added, cut_short = added[:LINE_BOUND - shown] + LINE_CUT_MARK, True
                rows.append([added, at, 1])
                shown += len(added)
            else:
                rows.append([cut(line, LINE_BOUND), at])
                shown, cut_short = len(line), len(line) > LINE_BOUND
            previous = line
        out.append(rows)
    return out


def _status_timeline(run, replay: Replay) -> list[list]:
    """The bubble's status line from each position where it changes ([p, None]: the bubble is hidden). A line
    that extends the one before (a streamed reply) is given as what was appended, up to LINE_BOUND characters
    in all; past them the page keeps the cut line, with a marker."""
    bubbles = replay.bubbles
    out: list[list] = []
    previous_state: Any = object()
    previous_line: str | None = None
    shown = 0  # characters of the line as the page shows it
    cut_short = False
    for position in breathing_over(range(replay.length + 1)):
        state = bubbles.state_at(position)
        if state is previous_state:
            continue
        previous_state = state
        line = None if state is None else render_status_line(state, replay.app_name, replay.templates) or ""
        if out and line == previous_line:
            continue
        if line is not None and previous_line and line.startswith(previous_line):
            if not cut_short:
                added = line[len(previous_line):]
                if shown + len(added) > LINE_BOUND:
                    added, cut_short = added[:LINE_BOUND - shown] + LINE_CUT_MARK, True
                out.append([position, "+", added])
                shown += len(added)
        else:
            out.append([position, None if line is None else cut(line, LINE_BOUND)])
            shown, cut_short = len(line or ""), len(line or "") > LINE_BOUND
        previous_line = line
    return out


def _chat_texts(replay: Replay) -> tuple[list[list], list[list]]:
    """The user's prompt and the answer from each position where they change (BubbleModel.at)."""
    prompts, answers = replay.bubbles.chat_texts()
    return ([[position, cut(text, TEXT_BOUND)] for position, text, _source in prompts],
            [[position, cut(text, TEXT_BOUND)] for position, text, _source in answers])


def run_outcome(run) -> str:
    """"failed", "completed" or "cut-off": how the run ended, as far as the file tells."""
    if run.replay_facts.failed is not None:
        return "failed"
    if domain_indices_of(run, *ENDING_DOMAIN_TYPES) or indices_of(run.typed_by_type, *ENDING_TYPED_TYPES):
        return "completed"
    return "cut-off"


def _ending(run, replay: Replay, outcome: str | None) -> dict:
    """How the run ended, said at its last position. `outcome`: as another telling of the same run knew it (a
    redacted copy has lost the typed events that said the agent's turn ended)."""
    failed = replay.facts.failed
    if failed is not None:
        text = f"The run failed: {cut(failed.message, TEXT_BOUND)}"
        if failed.detail and failed.detail != failed.message:
            text += f" ({cut(failed.detail, TEXT_BOUND)})"
        return {"outcome": "failed", "text": text}
    outcome = outcome or run_outcome(run)
    if outcome == "completed":
        summary = summary_of(run)
        parts = [f"{summary.llm_calls:,} LLM call{'s' * (summary.llm_calls != 1)}",
                 f"{summary.tool_calls:,} tool call{'s' * (summary.tool_calls != 1)}"]
        if summary.tokens_in or summary.tokens_out:
            parts.append(f"{summary.tokens_in:,} tokens in / {summary.tokens_out:,} out")
        if summary.duration_ms is not None:
            parts.append(f"{summary.duration_ms / 1000:.3f} s")
        errors = len(replay.facts.errors)
        if errors:
            parts.append(f"{errors:,} error{'s' * (errors != 1)} on the way")
        return {"outcome": "completed", "text": "The run completed: " + ", ".join(parts) + "."}
    if outcome == "failed":
        return {"outcome": "failed", "text": "The run failed (what it said is not in this page)."}
    return {"outcome": "cut-off", "text": "The file ends before the run did (no run exit): the run was cut off or "
                                          "still running when the file was written."}


def _moments_of_step(run, facts, index: int, start: int, end: int | None, stop_ends: list[int]) -> list[int]:
    """The positions from which the page shows what the inspector says of step `index`: its start, its end, the
    stops in between (what is known of a step in progress grows: a subflow's counts, a paused tool's answer), and
    for a context-slot chip (done the moment it appears) when its slot began and finished composing and when the
    call it prepared started. Between two of them the page shows the earlier: never what came after the cursor."""
    counts = facts.effective_domain
    moments = {start} | ({end} if end is not None else set())
    inside = stop_ends[bisect_right(stop_ends, start):bisect_left(stop_ends, end if end is not None else len(counts))]
    node = facts.nodes[index]
    if node.get("kind") == "subflow" and inside:  # (each look at a subflow counts the events inside it)
        events = (facts.ended[index] if facts.ended[index] is not None else len(run.domain_events)) \
            - facts.created[index]
        room = max(1, SUBFLOW_EVENTS_LOOKED_AT // max(1, events))
        inside = inside[::-(-len(inside) // room)]
    moments.update(inside)
    slot = chip_slot(node) if node.get("kind") == "fork-branch" else None
    if slot is not None:
        entry_i, _entry, exit_i, _exit = chip_boundary(run, index, slot)
        call = chip_call(run, index)
        for n in (entry_i, exit_i, None if call is None else facts.created[call]):
            if n is not None:
                moments.add(bisect_right(counts, n))
    return sorted(moment for moment in moments if moment >= start)


def _redaction(run) -> str:
    if run.redaction in ("pii", "policy"):
        return "redacted"
    return "full"


def share_data(run, templates: dict | None = None, app_name: str = DEFAULT_APP_NAME,
               fold_above: int | None = AUTO_FOLD_STEPS, title: str | None = None, outcome: str | None = None) -> dict:
    """Everything the shared page shows of `run` with this template map and app name (module docstring).
    `outcome`: how the run ended when another telling of it knows better (run_outcome of the unredacted run)."""
    replay = Replay(run, DEFAULT_TEMPLATES if templates is None else templates, app_name)
    facts = replay.facts
    spans = replay.spans
    counts = facts.effective_domain
    step_starts = [bisect_right(counts, n) for n in facts.created]
    # Every step is over once the run has finished for good (facts.over_at), as the window shows it: one never
    # closed, or one whose end event comes after the finish.
    finished = facts.finished_at
    step_ends = [finished if n is None else bisect_right(counts, n) if finished is None
                 else min(bisect_right(counts, n), finished) for n in facts.ended]

    steps = len(facts.nodes)
    folded = folded_graph_of(run) if fold_above is not None and steps > fold_above else None
    if folded is not None:
        folds, graph, fmap, layout = folded
        shown_of = [fmap.to_shown(i) for i in range(steps)]
    else:
        folds, graph, layout = [], run.stepgraph, graph_layout_of(run)
        shown_of = list(range(steps))
    shown_nodes = graph.get("nodes") or []

    sections = _Sections()
    stop_ends = sorted({span.end for span in spans})
    fold_by_shown = {shown_of[fold.start]: fold for fold in folds}
    nodes = []
    for k, box in enumerate(breathing_over(layout.nodes, every=256)):
        node = shown_nodes[k] if isinstance(shown_nodes[k], dict) else {}
        fold = fold_by_shown.get(k)
        if fold is not None:
            start = step_starts[fold.start]
            ends = [e for e in step_ends[fold.start:fold.end] if e is not None]
            end = max(ends) if len(ends) == fold.end - fold.start else None  # done once every step in it is
            detail = str(node.get("detail", ""))
            known = [[start, sections.ids([{"title": "Folded iterations", "style": "facts", "rows": [
                {"label": "iterations", "value": fold.label}, {"label": "steps", "value": detail},
                {"label": "note", "value": "the steps of folded iterations are not in this page"}]}])]]
        else:
            full = fmap.to_full(k) if folded is not None else k
            start, end = step_starts[full], step_ends[full]
            detail = KIND_WORDS.get(str(node.get("kind", "")), str(node.get("kind", "")))
            known = []
            for at in _moments_of_step(run, facts, full, start, end, stop_ends):
                ids = sections.ids(inspect_node(run, facts, full, at)["sections"])
                if not known or known[-1][1] != ids:
                    known.append([at, ids])
        label = node.get("label")
        nodes.append([round(box.x, 1), round(box.y, 1), round(box.w, 1), round(box.h, 1), box.kind,
                      cut(label if isinstance(label, str) else jsonio.dumps(label).decode("utf-8", "replace"),
                          LABEL_BOUND), start, end, known, detail])
    edges = [[route.kind, [round(c, 1) for point in route.points for c in point], route.label,
              *(route.label_at if route.label_at else (None, None)), route.source, route.target]
             for route in breathing_over(layout.edges, every=256)]
    groups = [[round(g.x, 1), round(g.y, 1), round(g.w, 1), round(g.h, 1), g.index] for g in layout.groups]

    full_kinds = [str(node.get("kind", "")) for node in facts.nodes]
    chip_labels = {i: str(node.get("label", "")).lower() for i, node in enumerate(facts.nodes)
                   if node.get("kind") == "fork-branch"}
    prompts, answers = _chat_texts(replay)
    errors = [[error.position, error.kind, cut(error.message, TEXT_BOUND),
               None if error.node is None else shown_of[error.node], _text_or_none(error.detail, TEXT_BOUND)]
              for error in facts.errors]
    notices = [notice.text for notice in run.all_notices() if notice.code not in ("unredacted", "redacted")]
    return {
        "format": DATA_FORMAT,
        "generator": f"afp-desktop {__version__}",
        "title": title or (summary_of(run).name or "agentfootprint run"),
        "fileFormat": run.format_name,
        "redaction": _redaction(run),
        "derived": run.typed_events is None,
        "notices": notices,
        "length": replay.length,
        "stops": [[cut(span.label, LABEL_BOUND), span.kind, span.start, span.end] for span in spans],
        "stopLines": _stop_lines(run, replay, spans),
        "slotStops": {str(i): SLOT_CHIP[span.stop.get("label", "")] for i, span in enumerate(spans)
                      if span.stop.get("label", "") in SLOT_CHIP},
        "graph": {"width": round(layout.width, 1), "height": round(layout.height, 1), "nodes": nodes,
                  "edges": edges, "groups": groups,
                  "folded": [[fold.label, fold.count, fold.end - fold.start] for fold in folds]},
        "steps": {"kinds": full_kinds, "starts": step_starts, "ends": step_ends, "shown": shown_of,
                  "chips": {str(i): label for i, label in chip_labels.items()},
                  "llmKinds": list(LLM_KINDS)},
        "status": _status_timeline(run, replay),
        "prompts": prompts,
        "answers": answers,
        "errors": errors,
        "sections": sections.items,
        "ending": _ending(run, replay, outcome),
    }
