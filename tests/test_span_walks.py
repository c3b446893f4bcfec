"""A long stop span's chat lines, walked beside the window (app/span_walks.py, Replay.defer_long_walks): the
bubble says they are being listed instead of freezing the window (0.22 s at each template edit on a stream of two
runs appended), then lists exactly what rendering every state gives; a walk for templates no longer active is
dropped."""

from __future__ import annotations

import pytest

from afp_desktop.core.formats import open_run  # noqa: F401  (before the session: formats initialise first)
from afp_desktop.app.panels.chat_bubble import ChatBubblePanel
from afp_desktop.app.session import Session
import afp_desktop.core.model.replay as replay_module
from afp_desktop.core.library.status import DEFAULT_TEMPLATES
from afp_desktop.core.model.replay import Replay, span_lines_walk
from tests.test_stop_lines import _naive, _run

TYPING = {**DEFAULT_TEMPLATES, "streaming": "Typing: {{partial}}"}


@pytest.fixture
def long_turn_run(monkeypatch):
    """05-streaming-tokens with a 300-token answer, its LLM turn counted as long (over 50 states)."""
    monkeypatch.setattr(replay_module, "LONG_SPAN_STATES", 50)
    run = _run([f"w{k} " for k in range(300)])
    turn = next(span for span in run.stop_spans if span.label.startswith("LLM turn"))
    return run, turn


def test_a_deferring_replay_gives_a_long_span_as_pending_and_keeps_the_walk_made_for_it(long_turn_run):
    run, turn = long_turn_run
    replay = Replay(run, TYPING)
    replay.defer_long_walks = True
    replay.move_to(turn.end)
    pending = replay.moment().bubble.stop_lines
    assert pending.pending and list(pending) == [] and replay.walks_wanted == {(turn.start, turn.end): turn}
    inside = replay.moment((turn.start + turn.end) // 2).bubble.stop_lines
    assert inside.pending  # (not "no line seen": nothing is said that the file does not show)
    # A walk made with other templates than the active ones is not kept.
    assert not replay.store_walk(turn, DEFAULT_TEMPLATES, "Agent", span_lines_walk(run, turn, DEFAULT_TEMPLATES,
                                                                                   "Agent"))
    assert replay.store_walk(turn, TYPING, "Agent", span_lines_walk(run, turn, TYPING, "Agent"))
    assert not replay.walks_wanted
    assert list(replay.moment().bubble.stop_lines) == _naive(run, turn, TYPING, "Agent")
    middle = (turn.start + turn.end) // 2
    partial = replay_module.StopSpan(turn.index, turn.label, turn.kind, turn.start, middle, turn.typed, turn.stop)
    assert list(replay.moment(middle).bubble.stop_lines) == _naive(run, partial, TYPING, "Agent")
    # Short spans and a replay that does not defer (the command line) are walked when asked.
    plain = Replay(run, TYPING)
    assert list(plain.lines_of(turn)) == _naive(run, turn, TYPING, "Agent") and not plain.walks_wanted


def test_the_bubble_lists_a_long_stops_lines_once_walked_beside_the_window(qtbot, long_turn_run):
    run, turn = long_turn_run
    run.prepare(window=True)  # as the window's loader thread does (Run.long_span_lines among it)
    session = Session()
    bubble = ChatBubblePanel(session)
    qtbot.addWidget(bubble)
    session.set_run(run, position=turn.end)
    expected = _naive(run, turn, DEFAULT_TEMPLATES, "Agent")
    # The default templates: the loader's walk (Run.long_span_lines) is there, nothing is pending.
    assert f"saw {len(expected)} line(s)" in bubble.seen_lines.title()
    assert not session.replay.walks_wanted

    session.set_templates(TYPING)  # an edit in the template editor
    assert "listing the lines the chat showed" in bubble.seen_lines.title()
    assert session.span_walks.thread is not None
    typed = _naive(run, turn, TYPING, "Agent")
    qtbot.waitUntil(lambda: f"saw {len(typed)} line(s)" in bubble.seen_lines.title(), timeout=10_000)
    assert bubble.seen_lines.text().split("\n")[0] == f"• {typed[0]}"
    assert not session.replay.walks_wanted

    # Edited again before a walk ends: only the walk for the templates now active is kept and shown.
    session.set_templates({**DEFAULT_TEMPLATES, "streaming": "A: {{partial}}"})
    session.set_templates({**DEFAULT_TEMPLATES, "streaming": "B: {{partial}}"})
    last = _naive(run, turn, {**DEFAULT_TEMPLATES, "streaming": "B: {{partial}}"}, "Agent")
    qtbot.waitUntil(lambda: f"saw {len(last)} line(s)" in bubble.seen_lines.title(), timeout=10_000)
    assert any(row.startswith("• B: ") for row in bubble.seen_lines.text().split("\n"))
    session.close_run()
