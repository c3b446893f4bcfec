"""Views read once per run (core/views/per_run.py), and the ones the loader thread reads for the window."""

from __future__ import annotations

import gc

from afp_desktop.app.loading.loader import load_run
from afp_desktop.core.formats import open_run
from afp_desktop.core.views import context_state
from afp_desktop.core.views.per_run import per_run
from tests.corpus_util import corpus_path


class _Run:
    pass


def test_a_view_is_computed_once_per_run_and_let_go_with_it():
    computed: list[int] = []

    @per_run
    def view(run) -> int:
        computed.append(1)
        return len(computed)

    first, second = _Run(), _Run()
    assert view(first) == view(first) == 1
    assert view(second) == 2
    del first
    gc.collect()
    third = _Run()  # (may reuse the freed run's id: it must not get that run's answer)
    assert view(third) == 3
    assert view(second) == 2


def test_the_loader_reads_the_context_panels_writers_so_the_window_does_not(monkeypatch):
    """The 1,000-iteration recording's 20,022 commits took ~50 ms on the window's thread when the Context panel
    indexed them as the run was shown."""
    path = corpus_path("02-react-two-tools", "recording.json")
    expected = context_state.key_writes(open_run(path))
    run = load_run(str(path))

    def walked(_bundle):
        raise AssertionError("the commit log was walked again")

    monkeypatch.setattr(context_state, "is_commit_bundle", walked)
    assert context_state.key_writes(run) == expected and expected
    states = context_state.ContextStates(run)  # (made without walking the log: its writers are the loader's)
    assert all(states.writer(key, commits[-1]).commit == commits[-1] for key, commits in expected.items())


def test_the_loader_reads_the_iteration_bands_so_the_window_does_not(monkeypatch):
    """A recording's 7,008 stops took ~20 ms on the window's thread when the bands were found as it was shown."""
    from afp_desktop.core.views import orientation

    path = corpus_path("15-large-run", "trace.json")
    expected = orientation.iteration_bands(open_run(path).stops)
    run = load_run(str(path))

    def walked(_stop):
        raise AssertionError("the stops were walked again")

    monkeypatch.setattr(orientation, "_kind", walked)
    assert orientation.run_iteration_bands(run) == expected and len(expected) > 2
