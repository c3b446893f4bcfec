"""The projection core's front door: what the window and the command line use, importable from here.

Pure Python, no Qt (import-linter contracts in pyproject.toml, checked by the test suite). Names are imported
on first use (PEP 562), so `from afp_desktop.core import open_run` costs only what open_run needs.

    open_run(path) -> Run                 formats/: detect the file's shape and load it
    Run                                   the loaded run: events, axis, StepGraph fold, stops, notices
    Replay, Moment, StopSpan, RunError    the replay: one position and everything every panel shows there
    node_facts(run, facts, i, position)   a step as known at a position (the inspector's facts)
    render_status_line, DEFAULT_TEMPLATES the chat bubble's line (§6)
    LoadError, LoadCancelled, Problem, Notice   errors, warnings and notices (problems.py)
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "open_run": "afp_desktop.core.formats",
    "load_bytes": "afp_desktop.core.formats",
    "Run": "afp_desktop.core.model.run",
    "Replay": "afp_desktop.core.model.replay",
    "ReplayFacts": "afp_desktop.core.model.replay",
    "Moment": "afp_desktop.core.model.replay",
    "StopSpan": "afp_desktop.core.model.replay",
    "RunError": "afp_desktop.core.model.replay",
    "node_facts": "afp_desktop.core.model.replay",
    "render_status_line": "afp_desktop.core.library.status",
    "status_timeline": "afp_desktop.core.library.status",
    "DEFAULT_TEMPLATES": "afp_desktop.core.library.status",
    "build_step_graph": "afp_desktop.core.library.stepgraph",
    "milestone_stops": "afp_desktop.core.library.stops",
    "summarize": "afp_desktop.core.model.summary",
    "LoadError": "afp_desktop.core.problems",
    "LoadCancelled": "afp_desktop.core.problems",
    "Problem": "afp_desktop.core.problems",
    "Notice": "afp_desktop.core.problems",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'afp_desktop.core' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
