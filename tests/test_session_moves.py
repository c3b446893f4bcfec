"""Two moves asked for in one turn of the event loop (a timeline click and a band label under it): the last
one is what gets published, even when it asks for the stop the first one already chose."""

from __future__ import annotations

from afp_desktop.app.pacing.scheduler import ManualClock, TurnQueue
from afp_desktop.app.session import Session
from afp_desktop.core.formats import open_run
from tests.corpus_util import corpus_path


def test_the_last_of_two_moves_in_one_turn_is_published(qtbot):
    session = Session()
    session.set_run(open_run(corpus_path("02-react-two-tools", "recording.json")))
    session.move_to_stop(3)
    session.flush()
    session.move_to_stop(15)
    session.move_to_stop(15)  # the same stop again before the first was published
    session.flush()
    assert session.moment.stop.index == 15 and session.moment.at_stop
    session.move_to_stop(4)
    session.move_to_stop(9)
    session.flush()
    assert session.moment.stop.index == 9 and session.position == session.spans[9].end
    session.move_to(5)
    session.move_to_stop(2)
    session.flush()
    assert session.moment.stop.index == 2


def test_asking_where_the_cursor_is_never_moves_the_replay(qtbot):
    """The session asks the replay questions about a move not yet published (which stop holds it, where the
    next stop is from there); the replay's own cursor — the published moment's — stays where it is."""
    session = Session()
    session.set_run(open_run(corpus_path("02-react-two-tools", "recording.json")))
    session.move_to_stop(3)
    session.flush()
    published = (session.replay.position, session.replay.chosen_stop)
    session.move_to_stop(9)  # not published yet
    assert session.stop_index == 9
    assert (session.replay.position, session.replay.chosen_stop) == published
    session.next_stop()
    session.next_stop()
    assert session.stop_index == 11
    assert (session.replay.position, session.replay.chosen_stop) == published
    session.flush()
    assert session.moment.stop.index == 11 and session.replay.chosen_stop == 11


def test_a_move_back_to_the_published_moment_cancels_the_pending_one(qtbot):
    session = Session()
    session.set_run(open_run(corpus_path("02-react-two-tools", "recording.json")))
    session.move_to_stop(5)
    session.flush()
    moments = []
    session.moment_changed.connect(moments.append)
    session.next_stop()
    session.previous_stop()  # back to stop 5 before anything was published
    session.flush()
    assert moments == [] and session.moment.stop.index == 5


def test_play_state_lives_in_the_replay_and_one_rule_restarts_it(qtbot):
    """Playing is the replay's state (the timer only paces it): played to its end, the replay stops and the
    session says so; asked to play at the end, both start again at the first span's start."""
    clock = ManualClock()
    session = Session(clock=clock, queue=TurnQueue(clock))
    run = open_run(corpus_path("02-react-two-tools", "recording.json"))
    session.set_run(run)  # at the end
    seen = []
    session.playing_changed.connect(seen.append)
    session.start_playing()
    assert session.playing and session.replay.playing and seen == [True]
    assert session.position == session.spans[0].start
    clock.advance(999)
    assert session.position == session.spans[0].start, "a step of play comes once a second at 1×"
    clock.advance(1)
    assert session.position > session.spans[0].start
    clock.advance(1000 * len(session.spans))  # (a stop a second, on the clock advanced by hand)
    assert not session.playing and seen == [True, False]
    assert session.position == session.replay.length
    from afp_desktop.core.model.replay import Replay

    alone = Replay(run)
    alone.end()
    alone.play()
    assert alone.position == session.spans[0].start
