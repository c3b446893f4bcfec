"""Following a file while it is written (core/follow.py, core/live_run.py): a stand-in for the file sink writes
corpus runs in batches cut at random points, with rotations, while the follower reads; what the follower
shows must equal the projections of the events written so far, at every step and at the end."""

from __future__ import annotations

import os
import random

import pytest

from afp_desktop.core.formats.follow import FileFollower, parse_lines
from afp_desktop.core.formats import open_run
from afp_desktop.core.formats.assemble import run_from_typed
from afp_desktop.core.formats.ndjson import parse_ndjson
from afp_desktop.core.formats.live_run import MID_WAY_ROTATED, RunGrower, is_run_end, is_run_start
from tests.corpus_util import SCENARIOS, SMALL_SCENARIOS, read_bytes
from tests.live_writer import SinkWriter


def corpus_lines(scenario: str) -> list[bytes]:
    return [line for line in read_bytes(scenario, "events.ndjson").split(b"\n") if line.strip()]


def corpus_events(scenario: str) -> list[dict]:
    return parse_ndjson(read_bytes(scenario, "events.ndjson"), scenario)[0]


def assert_same_projections(run, reference) -> None:
    assert run.stepgraph == reference.stepgraph
    assert run.stepgraph_note == reference.stepgraph_note
    assert run.stops == reference.stops
    assert run.status_states == reference.status_states
    assert run.axis == reference.axis
    assert run.domain_events == reference.domain_events
    assert_same_tally(run, reference)


def assert_same_tally(run, reference) -> None:
    """The figures known at each position (a grown run's tally is extended, not made again: summary.tally_more)."""
    tally, expected = run.summary_tally, reference.summary_tally
    assert tally.whole() == expected.whole()
    length = len(run.axis)
    for position in sorted({*range(0, length + 1, max(1, length // 150)), length}):
        d, t = run.axis.counts_at(position)
        assert tally.at(d, t) == expected.at(d, t), position


class Live:
    """FileFollower + RunGrower, as the window and the bench use them."""

    def __init__(self, path):
        self.follower = FileFollower(path)
        self.grower = RunGrower(str(path))
        self.rotated = False
        self.restarts = 0

    def poll(self):
        update = self.follower.poll()
        if update.restarted:
            self.grower.restart()
            self.restarts += 1
        self.rotated = self.rotated or any(n.code == "rotated" for n in update.notices)
        events, problems = parse_lines(update.lines)
        assert not problems
        self.grower.feed(events)
        return update


# -- the growing Run equals open_run of the same events, however they are cut -------------------------------

@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_grower_in_random_chunks_equals_the_whole_file(scenario, seed):
    events = corpus_events(scenario)
    rng = random.Random(seed)
    grower = RunGrower(scenario)
    fed = 0
    check_every_step = scenario != "15-large-run"
    shown = []  # (a run shown, what its figures were): a later growth leaves them as they were
    while fed < len(events):
        count = rng.choice([0, 1, 1, 2, 3, 7, 50]) if check_every_step else rng.randint(1, 900)
        grower.feed(events[fed:fed + count])
        fed += count
        if check_every_step or fed >= len(events):
            snapshot = grower.snapshot()
            assert_same_projections(snapshot, run_from_typed(events[:fed], scenario, "ndjson", []))
            shown.append((snapshot, snapshot.summary_tally.whole()))
    whole = open_run(_corpus_file(scenario))
    assert_same_projections(grower.snapshot(), whole)
    assert grower.ended
    assert [run.summary_tally.whole() for run, _figures in shown] == [figures for _run, figures in shown]


def _corpus_file(scenario):
    from tests.corpus_util import corpus_path

    return corpus_path(scenario, "events.ndjson")


def test_run_end_is_the_last_root_event(scenario):
    """Each corpus run's end event is found once, near the end, and the run's first event is its start."""
    events = corpus_events(scenario)
    ends = [i for i, event in enumerate(events) if is_run_end(event)]
    # (the integrity disposition may follow the end; in 23 a last token also arrives after the abort)
    assert ends and ends[0] >= len(events) - 3
    assert is_run_start(events[0])
    assert not is_run_start(events[len(events) // 2])  # a file cut there starts mid-way


# -- the follower against a file being written ----------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_follow_while_written_with_rotations(scenario, seed, tmp_path):
    """Interleave writer pieces and polls at random; at most two rotations between polls (the follower keeps
    the file it reads open, so two are followed without loss). After every poll the grown run equals the
    projections of exactly the complete lines written so far."""
    lines = corpus_lines(scenario)
    events = corpus_events(scenario)
    rng = random.Random(seed * 7919 + len(lines))
    path = tmp_path / "events.ndjson"
    rotations_since_poll = [0]

    def gate() -> bool:
        if rotations_since_poll[0] >= 2:
            return False
        rotations_since_poll[0] += 1
        return True

    writer = SinkWriter(path, lines, rng, max_bytes=rng.choice([1500, 4000, 9000]), max_batch=rng.choice([2, 6]),
                        may_rotate=gate)
    writer.step()  # the file exists when the follow starts (else two rotations before it looks lose one)
    live = Live(path)
    live.poll()
    polls = 0
    while not writer.done or polls == 0:
        for _ in range(rng.randint(0, 4)):
            writer.step()
        live.poll()
        rotations_since_poll[0] = 0
        polls += 1
        assert live.grower.typed == events[:writer.complete]
        assert live.follower.has_partial_line == (path.exists() and path.stat().st_size > 0
                                                  and not path.read_bytes().endswith(b"\n"))
        if polls % 3 == 0 or writer.done:
            assert_same_projections(live.grower.snapshot(), run_from_typed(events[:writer.complete], "x", "ndjson", []))
    live.poll()
    assert live.grower.typed == events
    assert live.grower.ended
    assert live.restarts == 0
    # What survived on disk, read by a follower started now, equals open_run of the rotated pair.
    late = Live(path)
    late.poll()
    survived = [events[i] for i in writer.surviving()]
    assert late.grower.typed == survived
    snapshot = late.grower.snapshot(rotated=late.rotated)
    assert_same_projections(snapshot, open_run(path))
    if writer.rotations and not is_run_start(survived[0]):
        assert snapshot.notices[0].text == MID_WAY_ROTATED
    live.follower.close()
    late.follower.close()


def test_partial_line_waits_for_its_newline(tmp_path):
    path = tmp_path / "e.ndjson"
    lines = corpus_lines("02-react-two-tools")
    path.write_bytes(lines[0] + b"\n" + lines[1][:17])
    follower = FileFollower(path)
    assert [line.data for line in follower.poll().lines] == [lines[0]]
    assert follower.has_partial_line
    with open(path, "ab") as handle:
        handle.write(lines[1][17:40])
    assert follower.poll().lines == []
    with open(path, "ab") as handle:
        handle.write(lines[1][40:] + b"\n")
    update = follower.poll()
    assert [(line.data, line.number) for line in update.lines] == [(lines[1], 2)]
    assert not follower.has_partial_line
    assert follower.offset == path.stat().st_size  # read once, never again
    follower.close()


def test_rotation_seen_while_the_new_file_does_not_exist_yet(tmp_path):
    path = tmp_path / "e.ndjson"
    lines = corpus_lines("02-react-two-tools")
    path.write_bytes(b"\n".join(lines[:3]) + b"\n")
    follower = FileFollower(path)
    assert len(follower.poll().lines) == 3
    with open(path, "ab") as handle:
        handle.write(lines[3] + b"\n")
    os.replace(path, path.with_name("e.ndjson.1"))
    update = follower.poll()
    assert [line.data for line in update.lines] == [lines[3]]
    assert any(n.code == "rotated" for n in update.notices)
    assert follower.poll().empty
    path.write_bytes(lines[4] + b"\n")
    assert [line.data for line in follower.poll().lines] == [lines[4]]
    follower.close()


def test_opening_a_rotated_pair_reads_the_older_half_first(tmp_path):
    path = tmp_path / "e.ndjson"
    lines = corpus_lines("04-tool-progress")
    path.with_name("e.ndjson.1").write_bytes(b"\n".join(lines[10:40]) + b"\n")
    path.write_bytes(b"\n".join(lines[40:]) + b"\n")
    live = Live(path)
    update = live.poll()
    assert any(n.code == "rotated" for n in update.notices)
    assert live.grower.typed == corpus_events("04-tool-progress")[10:]
    run = live.grower.snapshot(rotated=True)
    assert run.notices[0].code == "mid-way" and run.notices[0].text == MID_WAY_ROTATED
    assert_same_projections(run, open_run(path))
    live.follower.close()


@pytest.mark.parametrize("how", ["truncate", "replace", "rewrite-in-place"])
def test_truncated_or_replaced_file_starts_over(tmp_path, how):
    path = tmp_path / "e.ndjson"
    a, b = corpus_lines("02-react-two-tools"), corpus_lines("03-parallel-tool-batch")
    path.write_bytes(b"\n".join(a[:20]) + b"\n")
    live = Live(path)
    live.poll()
    assert len(live.grower.typed) == 20
    fresh = b"\n".join(b[:5]) + b"\n"
    if how == "truncate":
        path.write_bytes(fresh)
    elif how == "replace":
        other = tmp_path / "other"
        other.write_bytes(fresh)
        os.replace(other, path)
    else:  # same inode, longer than before, different first bytes
        longer = b"\n".join(b) + b"\n"
        assert len(longer) > path.stat().st_size
        with open(path, "r+b") as handle:
            handle.write(longer)
    update = live.poll()
    assert update.restarted and any(n.code == "restarted" for n in update.notices)
    expected = corpus_events("03-parallel-tool-batch")[:None if how == "rewrite-in-place" else 5]
    assert live.grower.typed == expected
    live.follower.close()


def test_a_damaged_line_is_named_and_left_out(tmp_path):
    path = tmp_path / "e.ndjson"
    lines = corpus_lines("02-react-two-tools")
    path.write_bytes(lines[0] + b"\n{not json\n[1]\n" + lines[1] + b"\n")
    follower = FileFollower(path)
    events, problems = parse_lines(follower.poll().lines)
    assert len(events) == 2
    assert [p.code for p in problems] == ["bad-line", "bad-line"]
    assert "line 2" in problems[0].text and "line 3" in problems[1].text
    follower.close()


def test_a_file_that_does_not_exist_yet_is_waited_for(tmp_path):
    path = tmp_path / "later.ndjson"
    follower = FileFollower(path)
    update = follower.poll()
    assert [n.code for n in update.notices] == ["missing"]
    path.write_bytes(corpus_lines("01-llmcall-single")[0] + b"\n")
    assert len(follower.poll().lines) == 1
    follower.close()
