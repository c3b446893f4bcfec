"""A load leaves no cyclic garbage. The loader builds a run with the garbage collector off and then freezes
everything alive (engine/collector.py), so a reference cycle that became garbage during the load is never collected:
the layout's nested functions, which call each other through their enclosing frame, kept every box and the whole
step graph with them, ~30 MB more each time the 1,000-iteration Trace was opened in the window."""

from __future__ import annotations

import gc

import pytest

from afp_desktop.engine.service import load_run
from afp_desktop.core.views.prepared_views import graph_layout_of
from tests.corpus_util import corpus_path, read_bytes

FILES = [("02-react-two-tools", "trace.json"), ("02-react-two-tools", "events.ndjson"),
         ("06-pause-resume", "recording.json"), ("07-flow-sequence", "trace.redacted.json"),
         ("03-parallel-tool-batch", "trace.json"), ("bundles", "one-conversation.zip")]


def cyclic_garbage_of_a_load(path) -> list[str]:
    """The types of what a window-style load (every projection the window needs) left in reference cycles."""
    load_run(str(path)).payload_problems  # noqa: B018 - once first: what importing leaves is not the load's
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        run = load_run(str(path))
        run.payload_problems  # noqa: B018
        graph_layout_of(run)  # (the window lays the graph out as it shows it)
        del run
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found = sorted({type(value).__qualname__ for value in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    return found


@pytest.mark.parametrize("scenario, name", FILES)
def test_a_load_leaves_no_cyclic_garbage(scenario, name):
    assert cyclic_garbage_of_a_load(corpus_path(scenario, name)) == []


def test_a_load_of_a_cut_trace_leaves_no_cyclic_garbage(tmp_path):
    """A file cut off before its end takes other paths (what is whole in it is shown, and a warning said)."""
    data = read_bytes("02-react-two-tools", "trace.json")
    cut = tmp_path / "cut.trace.json"
    cut.write_bytes(data[:len(data) * 2 // 3])
    assert cyclic_garbage_of_a_load(cut) == []
