"""The run's prepared views (core/views/prepared_views.py) hold everything the window reads once per run, and travel
with the run: a run prepared as the loader prepares it, pickled as an engine process hands it on and unpickled,
is shown without the window computing any of it again."""

from __future__ import annotations

import pickle

import pytest

from afp_desktop.engine.service import load_run
from afp_desktop.core.formats import open_run
from afp_desktop.core.views import context_state, inspect, orientation, run_facts, timeline_series
from tests.corpus_util import corpus_path

# What each per-run reader computes from when the run has no prepared views (a name in its computing module).
COMPUTES = {
    "the run's facts": (run_facts, "EventSteps"),
    "the pauses": (inspect, "indices_of"),
    "the state keys' writers": (context_state, "breathing_over"),
    "the iteration bands": (orientation, "iteration_bands"),
    "the timeline's series": (timeline_series, "timeline_series"),
}


def handed_on(run):
    """`run` as another process hands it to the window: pickled (protocol 5) and unpickled."""
    return pickle.loads(pickle.dumps(run, protocol=5))


def spy_on_computes(monkeypatch, calls: dict[str, int] | None = None) -> dict[str, int]:
    """Counts (in `calls`, else a new dict) of each per-run compute called from now on (each still computes)."""
    calls = calls if calls is not None else {}
    calls.update(dict.fromkeys(COMPUTES, 0))
    for what, (module, name) in COMPUTES.items():
        real = getattr(module, name)

        def counted(*args, _real=real, _what=what, **kwargs):
            if not (isinstance(args[0], list) and not args[0]):  # (no stops: a cleared timeline computes nothing)
                calls[_what] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    return calls


def test_the_spies_see_each_compute_of_a_run_not_prepared(monkeypatch):
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    calls = spy_on_computes(monkeypatch)
    run_facts.facts_of_run(run)
    inspect.pauses(run)
    context_state.key_writes(run)
    orientation.run_iteration_bands(run)
    timeline_series.run_timeline_series(run)
    assert all(calls.values()), calls


@pytest.mark.parametrize("name", ["02-react-two-tools", "06-pause-resume"])
def test_a_prepared_run_handed_on_is_read_without_computing_again(monkeypatch, name):
    path = corpus_path(name, "recording.json" if name.startswith("02") else "events.ndjson")
    run = handed_on(load_run(str(path)))
    expected = open_run(path)
    calls = spy_on_computes(monkeypatch)
    facts = run_facts.facts_of_run(run)
    pauses = inspect.pauses(run)
    writes = context_state.key_writes(run)
    bands = orientation.run_iteration_bands(run)
    series = timeline_series.run_timeline_series(run)
    assert calls == dict.fromkeys(COMPUTES, 0)
    monkeypatch.undo()
    assert facts.as_json(run) == run_facts.RunFacts(expected).as_json(expected)
    assert pauses == inspect.pauses(expected)
    assert writes == context_state.key_writes(expected)
    assert bands == orientation.run_iteration_bands(expected)
    assert series.labels == timeline_series.run_timeline_series(expected).labels
    if name.startswith("06"):
        assert pauses and facts.findings.all is not None
    else:
        assert writes and series.count == len(expected.stops) > 0


def test_the_window_shows_a_handed_on_run_without_computing_what_it_reads_once(qtbot, engine_window, monkeypatch):
    """The run comes from the engine process, pickled; from then on, showing it in the window (the Findings panel,
    the header, the pause and fact marks, the Context panel, the iteration bands, the timeline) computes none of
    the per-run views in the window's process."""
    window = engine_window
    calls: dict[str, int] = {}
    spy_on_computes(monkeypatch, calls)  # (the engine computes in its own process: nothing is counted there)
    with qtbot.waitSignal(window.loader.loaded, timeout=30_000):
        window.open_file(str(corpus_path("02-react-two-tools", "recording.json")))
    window.session.flush()
    window.timeline.build_when_ready()
    qtbot.waitUntil(lambda: window.timeline.built)
    run = window.session.run
    for position in (0, len(run.axis) // 2, len(run.axis)):
        window.session.move_to(position, immediate=True)
        window.session.flush()
    assert calls == dict.fromkeys(COMPUTES, 0)
