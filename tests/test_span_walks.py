"""A long stop span's chat lines, walked by the engine (app/loading/span_lines.py, Replay.defer_long_walks): the
bubble says they are being listed instead of freezing the window (0.22 s at each template edit on a stream of two
runs appended), then lists exactly what rendering every state gives; a walk for templates no longer active is
dropped."""

from __future__ import annotations

import pytest

from afp_desktop.app.panels.panel import shown_alone
from afp_desktop.core.formats import open_run  # noqa: F401  (before the session: formats initialise first)
from afp_desktop.app.panels.chat_bubble import ChatBubblePanel
from afp_desktop.app.session import Session
import afp_desktop.core.model.replay as replay_module
from afp_desktop.core.library.status import DEFAULT_TEMPLATES
from afp_desktop.core.views.prepared_views import prepare_views
from afp_desktop.core.model.replay import Replay, span_lines_walk
from tests.test_stop_lines import _naive, _run

TYPING = {**DEFAULT_TEMPLATES, "streaming": "Typing: {{partial}}"}


@pytest.fixture
def long_turn_run(monkeypatch):
    """05-streaming-tokens with a 300-token answer, its LLM turn counted as long (over 50 states)."""
    monkeypatch.setattr(replay_module, "LONG_SPAN_STATES", 50)
    run = _run([f"w{k} " for k in range(300)])
    turn = next(span for span in Replay(run).spans if span.label.startswith("LLM turn"))
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


def test_the_bubble_lists_a_long_stops_lines_once_the_engine_walked_them(qtbot, long_turn_run):
    run, turn = long_turn_run
    run.views = prepare_views(run)  # as the window's loader thread does (long_span_lines among them)
    session = Session()
    bubble = shown_alone(session, ChatBubblePanel(session))
    qtbot.addWidget(bubble)
    session.set_run(run, position=turn.end)
    expected = _naive(run, turn, DEFAULT_TEMPLATES, "Agent")
    # The default templates: the loader's walk (PreparedViews.long_span_lines) is there, nothing is pending.
    assert f"saw {len(expected)} line(s)" in bubble.seen_lines.title()
    assert not session.replay.walks_wanted

    session.set_templates(TYPING)  # an edit in the template editor
    assert "listing the lines the chat showed" in bubble.seen_lines.title()
    assert session.span_walks.asked is not None  # (asked of the engine: request "span_lines")
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


def _events(contents: list[str]) -> list[dict]:
    from tests.test_stop_lines import BASE, TOKEN

    first = next(i for i, e in enumerate(BASE) if e["type"] == TOKEN)
    template = BASE[first]
    tokens = [{**template, "payload": {**template["payload"], "tokenIndex": k, "content": text}}
              for k, text in enumerate(contents)]
    return BASE[:first] + tokens + [e for e in BASE[first:] if e["type"] != TOKEN]


def _run_of(events: list[dict]):
    import json

    from afp_desktop.core.formats import load_bytes

    return load_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in events), "events.ndjson").prepare()


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(tokens=st.integers(0, 120), cuts=st.lists(st.integers(1, 400), min_size=1, max_size=5),
       streaming=st.sampled_from(["{{partial}}", "Typing: {{partial}}", "…"]), defer=st.booleans())
def test_a_growing_run_walks_only_what_it_added_and_lists_what_every_state_gives(tokens, cuts, streaming, defer):
    """File ▸ Follow: each growth is a new Replay over a run that extends the last (Session.grow); it takes on the
    walks made, and a span that grew is walked from where its walk ended. At every growth the lines at every stop
    and inside the growing span are those of rendering every state."""
    events = _events([f"t{k} " for k in range(tokens)])
    templates = {**DEFAULT_TEMPLATES, "streaming": streaming}
    previous = None
    for cut in sorted({min(cut, len(events)) for cut in cuts} | {len(events)}):
        run = _run_of(events[:cut])
        replay = Replay(run, templates)
        replay.defer_long_walks = defer
        if previous is not None:
            replay.inherit_walks(previous)
        for span in replay.spans:
            lines = replay.lines_of(span)
            assert not lines.pending and list(lines) == _naive(run, span, templates, "Agent"), (cut, span)
            moment = replay.moment(span.end)  # (the stop a position shows: of two ending there, the one chosen)
            assert list(moment.bubble.stop_lines) == _naive(run, moment.stop, templates, "Agent"), (cut, span)
        last = replay.spans[-1] if replay.spans else None
        if last is not None and last.end - last.start > 1:
            middle = (last.start + last.end) // 2
            partial = replay_module.StopSpan(last.index, last.label, last.kind, last.start, middle, last.typed,
                                             last.stop)
            assert list(replay.moment(middle).bubble.stop_lines) == _naive(run, partial, templates, "Agent")
        previous = replay


def test_a_grown_span_resumes_its_walk_instead_of_walking_it_again(monkeypatch):
    events = _events([f"t{k} " for k in range(200)])
    turn_end = next(i for i, e in enumerate(events) if e["type"] == "agentfootprint.stream.llm_end")
    first, second = _run_of(events[:turn_end - 100]), _run_of(events[:turn_end - 10])
    old = Replay(first)
    growing = next(span for span in old.spans if span.label == "LLM turn")  # (its tokens still arriving)
    old.lines_of(growing)  # walked
    walked: list[tuple[int, int]] = []
    real = replay_module.stop_lines_walk

    def counting(states, prefix_span, templates, app_name, resume=None):
        walked.append((prefix_span[1] - (resume[2] if resume else prefix_span[0])))
        return real(states, prefix_span, templates, app_name, resume)

    monkeypatch.setattr(replay_module, "stop_lines_walk", counting)
    new = Replay(second)
    new.inherit_walks(old)
    span = next(s for s in new.spans if s.start == growing.start)
    assert span.end > growing.end
    assert list(new.lines_of(span)) == _naive(second, span, DEFAULT_TEMPLATES, "Agent")
    states, _derived, prefix_at = replay_module.status_states_for(second)
    assert walked == [prefix_at[span.end] - prefix_at[growing.end]]  # only the states added
    # Other templates than the grown-from replay's: nothing is taken on.
    other = Replay(second, TYPING)
    other.inherit_walks(old)
    assert not other._inherited  # private: what was taken on shows nowhere else (the lines are the same)


def test_the_engine_walks_a_span_with_the_templates_asked_and_its_answer_crosses_the_process_boundary(tmp_path):
    """Request "span_lines" (engine/service.py): the walk the window's session asks for, pickled as the engine
    process sends it."""
    import pickle

    from afp_desktop.engine.service import Engine
    from tests.corpus_util import read_bytes

    path = tmp_path / "events.ndjson"
    path.write_bytes(read_bytes("05-streaming-tokens", "events.ndjson"))
    engine = Engine()
    run = engine.open(str(path))
    turn = next(span for span in Replay(run).spans if span.label.startswith("LLM turn"))
    lines, seen_at = pickle.loads(pickle.dumps(engine.answer("span_lines", {"span": turn, "templates": TYPING,
                                                                         "app_name": "Agent"}), protocol=5))
    assert list(lines) == _naive(run, turn, TYPING, "Agent") and lines
    assert (list(lines), seen_at) == (list(span_lines_walk(run, turn, TYPING, "Agent")[0]),
                                      span_lines_walk(run, turn, TYPING, "Agent")[1])
