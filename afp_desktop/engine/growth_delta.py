"""A followed run's growth as the engine sends it and the window applies it: what was appended, not the whole run.

The engine grows the run (engine/follow.py); each time it has grown it sends a `Growth`: for every list a Run is
made of (the events, the anchors, the axis's arrays, the status states) the values appended since the last one and
where they start, plus the step graph's change (core/library/stepgraph.py `growth_since`), the stops and the notices
whole (a few dozen). The window's `RunMirror` applies it to the lists of the run it shows and makes the grown Run:
nothing is parsed or projected again on the window's side, and no list of a run already shown is changed.

The first growth of a follow starts from the run the window shows (it was loaded from the same file): `probe_of`
tells the engine its lengths and its end events, and when the engine's run holds the same events first, only what
follows them is sent.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

from afp_desktop.core.library.stepgraph import StepGraphFold
from afp_desktop.core.model.axis import Axis, AxisEntries
from afp_desktop.core.model.run import Notice, Run
from afp_desktop.core.views.window_copy import EventsNotHere, holds_events

# The lists a typed stream's Run is made of, by name (run_lists gives them of a Run).
LISTS = ("typed", "domain", "anchors", "entries", "domain_before", "typed_before", "commit_before", "domain_after",
         "typed_after", "status_states")


def run_lists(run: Run) -> dict[str, Any]:
    """The lists of `run` that a growth appends to (the axis's entries as their codes)."""
    axis = run.axis
    return {"typed": run.typed_events or [], "domain": run.domain_events,
            "anchors": run.anchors if run.anchors is not None else axis.anchors,
            "entries": axis.entries.codes if isinstance(axis.entries, AxisEntries) else AxisEntries(axis.entries).codes,
            "domain_before": axis.domain_before, "typed_before": axis.typed_before,
            "commit_before": axis.commit_before, "domain_after": axis.domain_after, "typed_after": axis.typed_after,
            "status_states": run.status_states}


@dataclass
class Probe:
    """What the window shows when a follow starts: each list's length and the end events, for the engine to tell
    whether the run it grows begins with them."""

    lengths: dict[str, int]
    ends: tuple  # (first typed, last typed, first domain, last domain, last entry code)


def probe_of(run: Run | None) -> Probe | None:
    """None: the follow starts from nothing the window holds (the engine sends the run whole first): no run, not a
    stream, or the window's copy of a prepared run (its events packed: core/views/window_copy.py)."""
    if run is None or run.format != "ndjson" or not run.typed_events or not holds_events(run):
        return None
    lists = run_lists(run)
    return Probe({name: len(values) for name, values in lists.items()}, _ends(lists, None))


def _ends(lists: dict[str, Any], lengths: dict[str, int] | None) -> tuple:
    def end(name: str, last: bool):
        count = len(lists[name]) if lengths is None else lengths[name]
        return None if not count else lists[name][count - 1 if last else 0]

    return (end("typed", False), end("typed", True), end("domain", False), end("domain", True), end("entries", True))


def continues(lists: dict[str, Any], probe: Probe | None) -> bool:
    """Whether the lists begin with those `probe` was taken of (the same lengths at least, the same end events)."""
    if probe is None:
        return False
    if any(len(lists[name]) < count for name, count in probe.lengths.items()):
        return False
    return _ends(lists, probe.lengths) == probe.ends


@dataclass
class Growth:
    """What the run grew by: `tails[name] = (start, values)` replaces that list from `start` on; `fold` is the whole
    StepGraphFold (the first growth, or a fold started anew) or its change since the last (`growth_since`)."""

    tails: dict[str, tuple[int, Any]]
    fold: StepGraphFold | dict
    fold_note: str | None
    stops: list[dict]
    notices: list[Notice]
    ended: bool  # the run's end event has been seen
    path: str = ""
    lines_read: int = 0  # lines the engine has read so far (benchmarks)
    extra: dict = field(default_factory=dict)

    @property
    def starts_over(self) -> bool:
        """The growth replaces the whole run (the file was replaced, or its start is not the run shown)."""
        return self.tails["typed"][0] == 0


def _joined(mine, start: int, values):
    kept = mine[:start]
    kept.extend(values)
    return kept


class RunMirror:
    """The window's side: the lists of the run shown, grown by each Growth into a new Run."""

    def __init__(self, shown: Run | None) -> None:
        self.lists: dict[str, Any] = run_lists(shown) if probe_of(shown) is not None else {}
        self.fold: StepGraphFold | None = None

    def apply(self, growth: Growth) -> Run:
        lists = self.lists
        for name in LISTS:
            start, values = growth.tails[name]
            mine = lists.get(name)
            if mine is None or start == 0:
                mine = array("q") if isinstance(values, array) else []
            lists[name] = _joined(mine, start, values)
        if isinstance(growth.fold, StepGraphFold):
            self.fold = growth.fold
        elif self.fold is not None:
            self.fold.apply_growth(growth.fold)
        typed, domain, anchors = lists["typed"], lists["domain"], lists["anchors"]
        entries = AxisEntries()
        entries.codes = lists["entries"]
        axis = Axis(entries=entries, domain_before=lists["domain_before"], typed_before=lists["typed_before"],
                    commit_before=lists["commit_before"], domain_after=lists["domain_after"],
                    typed_after=lists["typed_after"], anchors=anchors)
        run = Run(path=growth.path, format="ndjson", typed_events=typed, domain_events=domain,
                  domain_source="typed-stream", redaction="none", document=typed, anchors=anchors,
                  notices=list(growth.notices))
        assert self.fold is not None, "a follow's first growth carries its whole step graph"
        return run.seed(fold=(self.fold, growth.fold_note), axis=axis, status_states=lists["status_states"],
                        stops_and_notice=(growth.stops, None), payload_problems=[])


def extends(grown: Run, shown: Run) -> bool:
    """`grown` holds `shown`'s events first (the same file read further: checked at both ends of both event
    lists), so showing it is a growth, not a new run. Window copies are compared by the events they kept."""
    for old, new in ((shown.typed_events, grown.typed_events), (shown.domain_events, grown.domain_events)):
        if old is None and new is None:
            continue
        if old is None or new is None or len(new) < len(old):
            return False
        try:
            if old and (old[0] != new[0] or old[-1] != new[len(old) - 1]):
                return False
        except EventsNotHere:  # (a window's copy that did not keep the event compared: cannot be told a growth)
            return False
    # (A part with no commit log has stops derived from its events: a whole run with one is not a growth of it.)
    return shown.format == grown.format and shown.has_commit_log == grown.has_commit_log
