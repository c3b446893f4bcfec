"""The engine's requests, in-process: `Engine.open(path)` reads a run and prepares every projection the window
needs, so the run it returns can be shown at once; `Engine.answer(kind, args)` answers a request about that run
(REQUESTS: kind → what it answers). The command line and the tests call it directly; the window calls it through
the engine process (process.py), or in a thread of its own process for a run it did not load through the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from afp_desktop.core.formats import open_run
from afp_desktop.core.model.run import Run
from afp_desktop.core.views.search_limits import DEFAULT_TIME_LIMIT_S
from afp_desktop.core.views.window_copy import whole_run

if TYPE_CHECKING:
    from afp_desktop.core.views.compare_answer import CompareAnswer
    from afp_desktop.core.views.found_hits import FoundHits

REQUESTS = ("find", "index_for_find", "inspect", "step_json", "span_lines", "left_out", "share_page",  # `answer`'s
            "event_rows", "event_types", "event_filter", "context", "context_value", "compare_with")


class NoRun(Exception):
    """A request came when no run is open."""


class Engine:
    """Holds the run it opened last (`run`), the one later requests work on."""

    def __init__(self) -> None:
        self.run: Run | None = None
        self._index = None  # the SearchIndex of `run` (built by the first find; status lines per template map)
        self._helpers: dict[str, tuple[Run, int, object]] = {}  # name → (run, its length, helper): _helper
        self._adopted: Run | None = None  # the run given to `adopt` (the window's copy; `run` is it unpacked)

    def adopt(self, run: Run | None) -> None:
        """Answer later requests about `run` (a run read elsewhere: the window's own; its copy's events are
        unpacked here, once: core/views/window_copy.py)."""
        if run is not self._adopted:
            self.hold(None)  # (the run held before is let go of before this one is unpacked)
            self.hold(whole_run(run) if run is not None else None)
            self._adopted = run

    def hold(self, run: Run | None) -> None:
        """Answer later requests about `run`, a run this process prepared (a followed file's, grown; None: none,
        what was held let go of)."""
        self.run, self._index, self._adopted = run, None, None
        self._helpers.clear()

    def open(self, path: str, conversation: str | None = None, fold_above: int | None = None,
             progress: Callable[[float], None] | None = None, cancelled: Callable[[], bool] | None = None,
             show_prefix: Callable[[Run], None] | None = None, for_window: bool = True) -> Run:
        """Read `path` and prepare it for the window; raises LoadError / LoadCancelled (and OSError).
        `conversation` picks one of a bug-report bundle's; `fold_above`: the window folds graphs of more steps than
        this (None: never; see prepare_views). `show_prefix(run)` gets the prepared runs of the first events of a
        big file while the rest is read. `for_window=False`: the run as read once (open_run's `read_once`; the
        command line computes what it asks for), none of the window's projections prepared."""
        self.hold(None)  # (the run opened before is let go of first)
        if for_window:
            self.run = load_run(path, progress, cancelled, conversation, show_prefix, fold_above)
        else:
            self.run = open_run(path, progress=progress, cancelled=cancelled, conversation=conversation,
                                read_once=True)
        return self.run

    def close(self) -> None:
        self.hold(None)

    def answer(self, kind: str, args: dict):
        """The answer to a request of `kind` (one of REQUESTS) about the open run; raises NoRun when none is open,
        LoadCancelled when a breathing point's hook stops it."""
        if kind == "find":
            return self.find(**args)
        if kind == "index_for_find":
            self.search_index(**args)
            return None
        if kind == "inspect":
            return self.inspect(**args)
        if kind == "step_json":
            return self.step_json(**args)
        if kind == "span_lines":
            return self.span_lines(**args)
        if kind == "left_out":
            return self.left_out()
        if kind == "share_page":
            return self.share_page(**args)
        if kind == "compare_with":
            return self.compare_with(**args)
        if kind in LIST_ANSWERS:
            name, make, method = LIST_ANSWERS[kind]
            return getattr(self._helper(name, make), method)(**args)
        raise ValueError(f"the engine knows no request {kind!r} (it knows {', '.join(REQUESTS)})")

    def _helper(self, name: str, make: Callable[[Run], object]) -> object:
        """The open run's helper `name`, made by `make(run)` at the first ask and again once the run has grown."""
        run = self.run
        if run is None:
            raise NoRun("no run is open")
        held = self._helpers.get(name)
        if held is None or held[0] is not run or held[1] != len(run.axis):
            held = (run, len(run.axis), make(run))
            self._helpers[name] = held
        return held[2]

    def search_index(self, templates: dict | None = None, app_name: str = "Agent"):
        """The open run's SearchIndex with the status lines of `templates` and `app_name` (built by the first call,
        its status lines made again when they change)."""
        from afp_desktop.core.views.search import SearchIndex  # (numpy: imported by the first search)

        if self.run is None:
            raise NoRun("no run is open")
        index = self._index
        if index is None:
            index = SearchIndex(self.run, templates, app_name)
        elif templates is not None and (index.templates != templates or index.app_name != app_name):
            index = index.with_templates(templates, app_name)  # (only the status lines are made again)
        self._index = index
        return index

    def find(self, query: str, regex: bool = False, ignore_case: bool = False, limit: int | None = None,
             time_limit: float = DEFAULT_TIME_LIMIT_S, templates: dict | None = None,
             app_name: str = "Agent") -> FoundHits:
        """The hits of `query` in the open run (core/views/search.py), status lines rendered with `templates` and
        `app_name`; an invalid query or one out of time gives FoundHits.refused (why, in words)."""
        from afp_desktop.core.views.found_hits import FoundHits
        from afp_desktop.core.views.query import QueryError

        index = self.search_index(templates, app_name)
        try:
            result = index.find(query, regex=regex, ignore_case=ignore_case, limit=limit, time_limit=time_limit)
        except QueryError as err:
            return FoundHits.refused(str(err))
        return FoundHits.of(result)

    def left_out(self) -> dict:
        """What the loader left out of the open run and the window is told once it is shown, made now: its
        payloads' problems (None: checked already)."""
        run = self.run
        if run is None:
            raise NoRun("no run is open")
        return {"payload_problems": None if run.payloads_checked else run.payload_problems}

    def share_page(self, templates: dict, app_name: str, stop: int | None, title: str) -> bytes:
        """The open run as one self-contained web page (core/views/share_html.py), its status lines rendered with
        `templates` and `app_name`, opening at `stop`."""
        from afp_desktop.core.views.share_html import page_bytes

        if self.run is None:
            raise NoRun("no run is open")
        return page_bytes(self.run, templates, app_name, stop=stop, title=title)

    def compare_with(self, path: str, conversation: str | None = None, layout_a: bool = False) -> CompareAnswer:
        """The open run compared with the run in `path` (`conversation`: one of a bundle's), which is read for this
        answer alone: what the compare window shows of the comparison (core/views/compare_answer.py).
        `layout_a`: with the open run's whole graph's layout (the window's copy was made without it)."""
        from afp_desktop.core.views.compare_answer import compare_answer

        if self.run is None:
            raise NoRun("no run is open")
        other = open_run(path, conversation=conversation)
        return compare_answer(self.run, other, layout_a)

    def inspect(self, index: int, position: int | None = None, prices=None) -> dict:
        """What the inspector shows of step `index` at axis `position` (core/views/inspector_content.py)."""
        from afp_desktop.core.views.inspector_content import inspector_content

        if self.run is None:
            raise NoRun("no run is open")
        return inspector_content(self.run, index, position, prices)


    def step_json(self, index: int) -> str:
        """Step `index` of the open run's step graph as JSON text, whole (the window's copy of it has no payloads)."""
        from afp_desktop.core.jsonx import jsonio

        if self.run is None:
            raise NoRun("no run is open")
        nodes = self.run.step_fold.nodes
        if not 0 <= index < len(nodes):
            raise IndexError(f"the run has no step {index} (it has {len(nodes)})")
        return jsonio.dumps(nodes[index], indent=True).decode("utf-8")


    def span_lines(self, span, templates: dict, app_name: str):
        """The chat lines seen during stop span `span` of the open run with `templates` and `app_name`, and where
        each was first seen (replay.span_lines_walk: a long span the window's replay gives as pending)."""
        from afp_desktop.core.model.replay import span_lines_walk

        if self.run is None:
            raise NoRun("no run is open")
        return span_lines_walk(self.run, span, templates, app_name)


def _event_list_answers(run: Run) -> object:
    from afp_desktop.core.views.event_list import EventListAnswers

    return EventListAnswers(run)


def _context_states(run: Run) -> object:
    from afp_desktop.core.views.context_state import ContextStates

    return ContextStates(run)


# The event list's and the Context tab's requests: kind → (helper, its maker, the method answering)
LIST_ANSWERS: dict[str, tuple[str, Callable[[Run], object], str]] = {
    "event_rows": ("event_list", _event_list_answers, "rows"),
    "event_types": ("event_list", _event_list_answers, "type_counts"),
    "event_filter": ("event_list", _event_list_answers, "filtered"),
    "context": ("context", _context_states, "answer"),
    "context_value": ("context", _context_states, "value_text"),
}


def load_run(path: str, progress=None, cancelled=None, conversation: str | None = None, show_prefix=None,
             fold_above: int | None = None) -> Run:
    """open_run plus every projection the window needs (prepared_views.prepare_views, handed on as run.views);
    raises LoadError / LoadCancelled. `show_prefix(run)` gets the prepared runs of the first events of a big file
    while the rest is read. `fold_above`: the window folds graphs of more steps than this (None: never; see
    prepare_views)."""
    from afp_desktop.core.views.prepared_views import prepare_views  # (the window's projections: not the CLI's)

    report = progress or (lambda _f: None)

    def prepared_prefix(run) -> None:
        run.views = prepare_views(run, fold_above=fold_above, cancelled=cancelled)
        show_prefix(run)

    run = open_run(path, progress=lambda f: report(0.7 * f), cancelled=cancelled, conversation=conversation,
                   show_prefix=prepared_prefix if show_prefix is not None else None)
    # (A big Trace's payloads are checked, and a folded graph's whole layout made, once the run is shown:
    # app/loading/left_out.py.)
    run.views = prepare_views(run, fold_above=fold_above, cancelled=cancelled, progress=lambda f: report(0.7 + 0.3 * f))
    report(1.0)
    return run
