"""The run's figures as known at the cursor (core/model/summary.py SummaryTally): at each position, what a count
over the events that had happened by then gives; at the end, the whole file's summary."""

from __future__ import annotations

import pytest

from afp_desktop.core.formats import load_bytes
from afp_desktop.core.model.summary import RunSummary, summarize, summary_at
from tests.corpus_util import read_bytes
from tests.facts_run import facts_stream, halted_stream

CASES = [("02-react-two-tools", "recording.json"), ("12-tool-throws", "recording.json"),
         ("21-stream-error", "recording.json"), ("06-pause-resume", "events.ndjson"),
         ("10-flow-loop", "trace.json")]


def _counted(run, position: int) -> RunSummary:
    """The figures counted afresh over the events happened at `position`."""
    d, t = run.axis.counts_at(position)
    domain, typed = run.domain_events[:d], (run.typed_events or [])[:t]
    ends = [e for e in domain if e.get("type") == "llm.end" and isinstance(e.get("usage"), dict)]
    tokens = [(u.get("input"), u.get("output")) for u in (e["usage"] for e in ends)]

    def whole(n):
        return n if isinstance(n, int) and not isinstance(n, bool) else 0

    models = []
    for e in domain:
        if e.get("type") == "llm.start" and isinstance(e.get("model"), str) and e["model"] not in models:
            models.append(e["model"])
    return RunSummary(models=models,
                      llm_calls=sum(e.get("type") == "llm.start" for e in domain),
                      tool_calls=sum(e.get("type") == "tool.start" and not e.get("notDispatched") for e in domain),
                      tokens_in=sum(whole(a) for a, _ in tokens), tokens_out=sum(whole(b) for _, b in tokens),
                      errors=sum(e.get("type") == "agentfootprint.error.fatal" for e in typed)
                      + sum(e.get("type") == "tool.end" and e.get("error") is True for e in domain)
                      + sum(e.get("type") == "run.exit" and isinstance(e.get("payload"), dict)
                            and "error" in e["payload"] for e in domain))


def _runs():
    for scenario, name in CASES:
        yield f"{scenario}/{name}", load_bytes(read_bytes(scenario, name), name)
    for stream in (facts_stream(), halted_stream()):
        yield "facts", stream.run()


@pytest.mark.parametrize("label,run", list(_runs()), ids=lambda x: x if isinstance(x, str) else "")
def test_the_figures_at_each_position_are_those_of_the_events_happened_by_then(label, run):
    for position in range(len(run.axis) + 1):
        known, counted = summary_at(run, position), _counted(run, position)
        assert (known.models, known.llm_calls, known.tool_calls, known.tokens_in, known.tokens_out, known.errors) \
            == (counted.models, counted.llm_calls, counted.tool_calls, counted.tokens_in, counted.tokens_out,
                counted.errors), position
    assert summary_at(run, len(run.axis)) == summarize(run)


def test_the_time_at_a_position_is_from_the_first_stamp_to_the_latest_happened():
    run = facts_stream().run()
    stamps = [e["meta"]["wallClockMs"] for e in run.typed_events]
    assert summary_at(run, 0).duration_ms is None
    for position in range(1, len(run.axis) + 1):
        t = run.axis.counts_at(position)[1]
        if t:
            assert summary_at(run, position).duration_ms == max(stamps[:t]) - min(stamps[:t])
    assert summary_at(run, len(run.axis)).duration_ms == summarize(run).duration_ms


@pytest.mark.parametrize("label,run", list(_runs()), ids=lambda x: x if isinstance(x, str) else "")
def test_a_pickled_tally_gives_the_same_figures_holding_its_stamps_as_arrays(label, run):
    """The window's copy of a run holds its tally pickled: the same figures at every position, from arrays (a
    stamp per event as a Python object is most of a big run's tally)."""
    import pickle

    from afp_desktop.core.model.summary import Stamps

    tally = run.summary_tally
    back = pickle.loads(pickle.dumps(tally, protocol=5))
    # private: what the pickled tally holds is the point of this test
    assert all(isinstance(extremes, Stamps) for extremes in back._extremes)
    for position in range(len(run.axis) + 1):
        d, t = run.axis.counts_at(position)
        assert back.at(d, t) == tally.at(d, t), position
    assert back.whole() == tally.whole()
    again = pickle.loads(pickle.dumps(back, protocol=5))  # (a copy pickled again: a run packed from a copy)
    assert again.whole() == tally.whole()


def test_stamps_that_are_not_all_integers_stay_a_list():
    from afp_desktop.core.model.summary import Stamps

    assert Stamps.of([None, 1.5, 2.0]) == [None, 1.5, 2.0] and Stamps.of([1, 2 ** 70]) == [1, 2 ** 70]
    held = Stamps.of([None, None, 3, 5])
    assert isinstance(held, Stamps) and [held[k] for k in range(4)] == [None, None, 3, 5] and held[-1] == 5
    with pytest.raises(IndexError):
        held[4]
