"""Two moves asked for in one turn of the event loop (a timeline click and a band label under it): the last
one is what gets published, even when it asks for the stop the first one already chose."""

from __future__ import annotations

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
