"""The engine's follow (engine/follow.py RunFollow) sends the window the grown run's copy (core/views/window_copy.py),
its views prepared as after an open. However the file is cut into batches, and whether the window showed the start
of the file first or nothing: each copy holds no event, can be told to extend the run shown before it
(window_copy.extends), and the last one is the run the finished file makes when opened whole."""

from __future__ import annotations

import random

import pytest

from afp_desktop.core.formats import open_run
from afp_desktop.core.views.window_copy import extends, holds_events, part_counts, whole_run, window_copy
from afp_desktop.engine import follow as engine_follow
from afp_desktop.engine.service import Engine
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
    and parsed in one step); the growths, each with its window copy (made whole: the tests read its run back)."""
    growths: list = []
    for _ in range(1000):  # (a hang guard)
        follow.shown()
        messages = follow.step()
        assert not [m for m in messages if m[0] == "stopped"]
        grown = [(m[1], window_copy(m[1].run, m[1].parts_before, whole=True)) for m in messages if m[0] == "grown"]
        if not grown:
            return growths
        growths += grown
    raise AssertionError("the follow kept sending growths of a file that did not grow")


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("shown_first", [False, True])
def test_copies_of_growths_in_any_batches_make_the_run_the_whole_file_makes(tmp_path, scenario, shown_first):
    lines = [line + b"\n" for line in corpus_lines(scenario)]
    rng = random.Random(f"{scenario}-{shown_first}")
    path = tmp_path / "events.ndjson"
    written = rng.randint(1, len(lines) // 2)
    path.write_bytes(b"".join(lines[:written]))
    shown = window_copy(Engine().open(str(path))) if shown_first else None
    follow = engine_follow.RunFollow(str(path), part_counts(shown) if shown is not None else None)
    copies = [shown] if shown is not None else []
    try:
        while True:
            for grown, copy in drain(follow):
                assert not grown.starts_over
                assert grown.run.views is not None  # (prepared in the engine, as for an open)
                assert not holds_events(copy)
                if copies:
                    assert extends(copy, copies[-1])  # (a growth of the run shown: its panels extend)
                copies.append(copy)
            assert len(copies[-1].typed_events) == written
            if written == len(lines):
                break
            more = rng.randint(1, 12)
            with open(path, "ab") as out:
                out.write(b"".join(lines[written:written + more]))
            written = min(len(lines), written + more)
    finally:
        follow.close()
    whole = open_run(str(path))
    last = whole_run(copies[-1])
    assert_same_projections(last, whole)
    assert last.typed_events == whole.typed_events
    assert [len(copy.typed_events) for copy in copies] == sorted(len(copy.typed_events) for copy in copies)


def test_a_file_cut_short_and_rewritten_comes_as_a_run_that_starts_over(tmp_path):
    lines = [line + b"\n" for line in read_bytes("04-tool-progress", "events.ndjson").split(b"\n") if line.strip()]
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:30]))
    follow = engine_follow.RunFollow(str(path), None)
    try:
        before = drain(follow)[-1][1]
        path.write_bytes(b"".join(lines[:4]))  # truncated and rewritten
        growths = drain(follow)
    finally:
        follow.close()
    assert growths[0][0].starts_over
    after = growths[-1][1]
    assert not extends(after, before)
    assert len(after.typed_events) == 4 and len(before.typed_events) == 30  # (the copy shown before is untouched)
    assert any(notice.code == "restarted" for notice in after.notices)


def test_a_copy_is_not_told_to_extend_a_run_of_another_file(tmp_path):
    """The first copy of a follow is compared with the run shown by their kept events, not trusted."""
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(line + b"\n" for line in corpus_lines("04-tool-progress")))
    other = tmp_path / "other.ndjson"
    other.write_bytes(b"".join(line + b"\n" for line in corpus_lines("02-react-two-tools")))
    shown = window_copy(Engine().open(str(other)))
    follow = engine_follow.RunFollow(str(path), part_counts(shown))
    try:
        first = drain(follow)[0][1]
    finally:
        follow.close()
    assert not extends(first, shown)


def test_the_next_growth_is_made_while_the_window_shows_the_last_and_sent_once_it_is_ready(tmp_path):
    """What the window is sent of a growth (`pack`: its copy) is made as soon as the file has grown, not once the
    window has shown the growth before it; a growth made and never sent is handed to `unsent`."""
    lines = [line + b"\n" for line in corpus_lines("04-tool-progress")]
    path = tmp_path / "events.ndjson"
    path.write_bytes(b"".join(lines[:20]))
    packed: list[int] = []
    unsent: list[int] = []
    follow = engine_follow.RunFollow(str(path), None, pack=lambda grown: packed.append(len(grown.run.axis)) or
                                     len(packed), unsent=lambda grown: unsent.append(grown.packed))
    try:
        first = [m for m in follow.step() if m[0] == "grown"]
        assert [m[1].packed for m in first] == [1]
        with open(path, "ab") as out:
            out.write(b"".join(lines[20:30]))
        assert [m for m in follow.step() if m[0] == "grown"] == []  # (the window has not shown the first yet)
        assert len(packed) == 2  # the second is made meanwhile
        follow.shown()
        assert follow.wait_s() == 0.0  # (ready to go at once)
        second = [m for m in follow.step() if m[0] == "grown"]
        assert [m[1].packed for m in second] == [2] and len(packed) == 2  # sent as made, not made again
        assert len(second[0][1].run.typed_events) == 30
        with open(path, "ab") as out:
            out.write(b"".join(lines[30:40]))
        follow.step()
        assert len(packed) == 3
    finally:
        follow.close()
    assert unsent == [3]  # the third, made while the second was shown, was never sent
