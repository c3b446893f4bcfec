"""The lines the chat user saw during a stop, built without writing out every partial of a streamed answer
(core/model/stop_lines.py): what is read is what rendering every status state gives, for any tokens and any
streaming template; a 20,000-token answer no longer costs seconds and gigabytes."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from afp_desktop.core.formats import load_bytes
from afp_desktop.core.library.status import DEFAULT_TEMPLATES, render_status_line
from afp_desktop.core.model.bubble import status_states_for
from afp_desktop.core.views.prepared_views import prepare_views
from afp_desktop.core.model.replay import Replay
# private: the streamed line's own type: lines stream, not copies
from afp_desktop.core.model.stop_lines import StopLines, _Streaming
from tests.corpus_util import read_bytes

BASE = [json.loads(line) for line in read_bytes("05-streaming-tokens", "events.ndjson").splitlines() if line.strip()]
TOKEN = "agentfootprint.stream.token"


def _run(contents: list[str]):
    """05-streaming-tokens with its tokens replaced by `contents` (in its first LLM call)."""
    first = next(i for i, e in enumerate(BASE) if e["type"] == TOKEN)
    template = BASE[first]
    tokens = [{**template, "payload": {**template["payload"], "tokenIndex": k, "content": text}}
              for k, text in enumerate(contents)]
    events = BASE[:first] + tokens + [e for e in BASE[first:] if e["type"] != TOKEN]
    return load_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in events), "events.ndjson").prepare()


def _naive(run, span, templates, app_name) -> list[str]:
    """Render the state after every event of the span; keep every line (an empty one too), consecutive repeats
    merged."""
    states, _derived, prefix_at = status_states_for(run)
    lines: list[str] = []
    for k in range(prefix_at[span.start] + 1, prefix_at[span.end] + 1):
        line = render_status_line(states[k], app_name, templates)
        if line is not None and (not lines or lines[-1] != line):
            lines.append(line)
    return lines


streaming_templates = st.sampled_from([
    "{{partial}}", "{{appName}} is typing: {{partial}}", "{{partial}} …", "[{{partial}}|{{partial}}]",
    "Typing…", "", "{{ partial }}", "{{partial}}{{toolName}}"])


@settings(max_examples=60, deadline=None)
@given(contents=st.lists(st.sampled_from(["", " ", "a", "bc", "\n", "é", "x y"]), min_size=0, max_size=40),
       streaming=streaming_templates, app_name=st.sampled_from(["Agent", "Ada", ""]))
def test_the_lines_read_are_those_of_every_state(contents, streaming, app_name):
    run = _run(contents)
    templates = {**DEFAULT_TEMPLATES, "streaming": streaming}
    replay = Replay(run, templates, app_name)
    for span in replay.spans:
        lines = replay.lines_of(span)
        naive = _naive(run, span, templates, app_name)
        assert list(lines) == naive and len(lines) == len(naive)
        assert lines == naive and lines == tuple(naive)
        if naive:
            assert lines[-1] == naive[-1] and lines[:2] == naive[:2]


def test_a_long_streamed_answer_is_kept_as_lengths_not_texts():
    run = _run([f"w{k} " for k in range(3_000)])
    replay = Replay(run)
    turn = next(span for span in replay.spans if span.label.startswith("LLM turn"))
    lines = replay.lines_of(turn)
    assert isinstance(lines, StopLines) and len(lines) >= 3_000
    # private: the streamed line's own type: lines stream, not copies
    assert sum(type(item) is _Streaming for item in lines._items) >= 3_000  # not 3,000 copies of the answer
    assert lines[-1].endswith("w2999 ") and lines[:2] == ["Thinking…", "w0 "]
    assert list(lines) == _naive(run, turn, DEFAULT_TEMPLATES, "Agent")


def _partial(span, position):
    from afp_desktop.core.model.replay import StopSpan

    return StopSpan(span.index, span.label, span.kind, span.start, position, span.typed, span.stop)


@settings(max_examples=40, deadline=None)
@given(contents=st.lists(st.sampled_from(["", "a", "bc", "\n", "é"]), min_size=0, max_size=30),
       streaming=streaming_templates, app_name=st.sampled_from(["Agent", "Ada"]))
def test_inside_a_span_the_lines_are_those_seen_by_then(contents, streaming, app_name):
    """At every position inside a stop's span the bubble lists what rendering every state up to it gives: the
    first lines of the span's one walk (a move inside a long span no longer walks it again)."""
    run = _run(contents)
    templates = {**DEFAULT_TEMPLATES, "streaming": streaming}
    replay = Replay(run, templates, app_name)
    for span in replay.spans:
        for position in range(span.start + 1, span.end):
            seen = replay.moment(position).bubble.stop_lines
            assert list(seen) == _naive(run, _partial(span, position), templates, app_name), (span, position)
        assert list(replay.moment(span.end).bubble.stop_lines) == _naive(run, span, templates, app_name)


def test_the_loader_walks_long_spans_once_for_the_default_templates(monkeypatch):
    import afp_desktop.core.model.replay as replay_module

    monkeypatch.setattr(replay_module, "LONG_SPAN_STATES", 50)
    run = _run([f"w{k} " for k in range(300)])
    run.views = prepare_views(run)  # as the window's loader thread does
    walks = run.views.long_span_lines
    turn = next(span for span in run.views.stop_spans if span.label.startswith("LLM turn"))
    assert (turn.start, turn.end) in walks
    replay = Replay(run)
    assert replay.lines_of(turn) is walks[(turn.start, turn.end)][0]  # taken, not walked again
    assert list(replay.lines_of(turn)) == _naive(run, turn, DEFAULT_TEMPLATES, "Agent")
    middle = (turn.start + turn.end) // 2
    assert list(replay.moment(middle).bubble.stop_lines) == _naive(run, _partial(turn, middle), DEFAULT_TEMPLATES,
                                                                   "Agent")
    # Other templates are walked with those templates, never given the default's lines.
    typing = {**DEFAULT_TEMPLATES, "streaming": "Typing: {{partial}}"}
    other = Replay(run, typing, "Agent")
    assert other.lines_of(turn) is not walks[(turn.start, turn.end)][0]
    assert list(other.lines_of(turn)) == _naive(run, turn, typing, "Agent")
    named = Replay(run, None, "Ada")
    assert list(named.lines_of(turn)) == _naive(run, turn, DEFAULT_TEMPLATES, "Ada")
    loaded = _run([])
    assert prepare_views(loaded).long_span_lines == {}  # (no span is long)
