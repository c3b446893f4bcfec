"""The engine's follow (engine/follow.py RunFollow) sends the window growths (engine/growth_delta.py); the window's
RunMirror applies them. However the file is cut into batches, and whether the window showed the start of the file
first (a probe) or nothing, the mirrored run equals the run the engine grew and the finished file opened whole; a
growth carries what was appended, not the run again; a run already shown is never changed by a later growth."""

from __future__ import annotations

import pickle
import random

import pytest

from afp_desktop.core.formats import open_run
from afp_desktop.engine import follow as engine_follow
from afp_desktop.engine.growth_delta import RunMirror, probe_of
from tests.corpus_util import read_bytes
from tests.test_follow import assert_same_projections, corpus_lines

SCENARIOS = ["02-react-two-tools", "04-tool-progress", "10-flow-loop", "14-context-injections"]


@pytest.fixture(autouse=True)
def unpaced(monkeypatch):
    """Every step polls the file and sends what grew (the pacing is the clock's; the tests never wait on it)."""
    monkeypatch.setattr(engine_follow, "POLL_S", 0.0)
    monkeypatch.setattr(engine_follow, "MIN_PUBLISH_GAP_S", 0.0)


def drain(follow) -> list:
    """Step the follow until a step sends nothing (it has read and sent what the file holds: a small file is read
    and parsed in one step); the growths, as the window gets them (through a pickle)."""
    growths: list = []
    for _ in range(1000):  # (a hang guard)
        follow.shown()
        messages = follow.step()
        assert not [m for m in messages if m[0] == "stopped"]
        grown = [pickle.loads(pickle.dumps(m[1], protocol=5)) for m in messages if m[0] == "grown"]
        if not grown:
            return growths
        growths += grown
    raise AssertionError("the follow kept sending growths of a file that did not grow")


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("shown_first", [False, True])
def test_growths_applied_in_any_batches_make_the_run_the_whole_file_makes(tmp_path, scenario, shown_first):
    lines = [line + b"\n" for line in corpus_lines(scenario)]
    rng = random.Random(f"{scenario}-{shown_first}")
    path = tmp_path / "events.ndjson"
    written = rng.randint(1, len(lines) // 2)
    path.write_bytes(b"".join(lines[:written]))
    shown = open_run(str(path)) if shown_first else None
    follow = engine_follow.RunFollow(str(path), probe_of(shown))
    mirror = RunMirror(shown)
    runs = []
    try:
        first = drain(follow)
        assert first and (first[0].tails["typed"][0] == (written if shown_first else 0))  # (what is shown: not again)
        runs += [mirror.apply(growth) for growth in first]
        sizes = [(len(run.typed_events), len(run.axis)) for run in runs]
        while written < len(lines):
            more = rng.randint(1, 12)
            with open(path, "ab") as out:
                out.write(b"".join(lines[written:written + more]))
            written = min(len(lines), written + more)
            for growth in drain(follow):
                assert growth.tails["typed"][0] == len(runs[-1].typed_events)  # only what was appended
                runs.append(mirror.apply(growth))
                sizes.append((len(runs[-1].typed_events), len(runs[-1].axis)))
            assert len(runs[-1].typed_events) == written
    finally:
        follow.close()
    whole = open_run(str(path))
    assert_same_projections(runs[-1], whole)
    assert runs[-1].typed_events == whole.typed_events
    assert_same_projections(runs[-1], follow.grower.snapshot())
    assert [len(run.typed_events) for run in runs] == [size for size, _axis in sizes]  # runs shown stay as they were
    assert [len(run.axis) for run in runs] == [axis for _size, axis in sizes]


def test_a_file_cut_short_and_rewritten_comes_as_a_growth_that_starts_over(tmp_path):
    lines = [line + b"\n" for line in read_bytes("04-tool-progress", "events.ndjson").split(b"\n") if line.strip()]
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:30]))
    follow = engine_follow.RunFollow(str(path), None)
    mirror = RunMirror(None)
    try:
        before = [mirror.apply(growth) for growth in drain(follow)][-1]
        path.write_bytes(b"".join(lines[:4]))  # truncated and rewritten
        growths = drain(follow)
    finally:
        follow.close()
    assert growths[0].starts_over
    after = [mirror.apply(growth) for growth in growths][-1]
    assert len(after.typed_events) == 4 and len(before.typed_events) == 30  # (the run shown before is untouched)
    assert any(notice.code == "restarted" for notice in after.notices)
