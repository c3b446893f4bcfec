"""Status line unit tests: every PROJECTIONS.md §8 case S1–S9 with its exact expected value, the JavaScript
string rules behind them, the template ladder, the template-editor helpers, and the incremental selector
agreeing with the one-walk selector on every prefix of real runs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.library.jsstring import JS_WHITESPACE, js_length, js_slice_units, js_string, js_trim
from afp_desktop.core.library.status import (
    DEFAULT_TEMPLATES,
    PROGRESS_MESSAGE_LIMIT,
    VARS_BY_STATE,
    StatusSelector,
    progress_message_of,
    render_status_line,
    select_status,
    spaced_placeholders,
    state_for_template_key,
    status_timeline,
    template_variables,
    unknown_variables,
    variables_for_template_key,
)
from tests.corpus_util import SMALL_SCENARIOS
from tests.test_status_conformance import load_events

EMOJI = "\U0001F600"  # 😀, two UTF-16 units


def ev(kind: str, **payload) -> dict:
    return {"type": "agentfootprint." + kind, "payload": payload, "meta": {}}


def llm_start():
    return ev("stream.llm_start", iteration=1)


def tool_start(name, call_id=None, **extra):
    return ev("stream.tool_start", toolName=name, **({"toolCallId": call_id} if call_id is not None else {}), **extra)


def progress(payload, **ids):
    return ev("stream.tool_progress", payload=payload, **ids)


# ── S1 — anonymous progress ───────────────────────────────────────────────────────────────────────────


def test_s1_anonymous_progress_goes_to_the_sole_call():
    events = [tool_start("w", "c1"), progress({"message": "hi"}, toolName="w")]
    assert select_status(events) == {
        "state": "tool", "toolName": "w",
        "vars": {"toolName": "w", "toolCallId": "c1", "progressCount": "1", "progressMessage": "hi"},
    }


def test_s1_anonymous_progress_is_dropped_when_ambiguous():
    events = [tool_start("w", "c1"), tool_start("v", "c2"), progress({"message": "hi"}, toolName="w")]
    assert select_status(events) == {"state": "tool", "toolName": "v", "vars": {"toolName": "v", "toolCallId": "c2"}}


# ── S2 — id-less tool_end clears every call ───────────────────────────────────────────────────────────


def test_s2_idless_tool_end_clears_every_call():
    events = [llm_start(), tool_start("a", "c1"), tool_start("b", "c2"), ev("stream.tool_end")]
    assert select_status(events) == {"state": "idle", "vars": {}}


def test_s2_null_id_tool_end_removes_nothing():
    events = [llm_start(), tool_start("a", "c1"), tool_start("b", "c2"), ev("stream.tool_end", toolCallId=None)]
    assert select_status(events) == {"state": "tool", "toolName": "b", "vars": {"toolName": "b", "toolCallId": "c2"}}


# ── S3 — tool_start without id; empty-string id ───────────────────────────────────────────────────────


def test_s3_tool_start_without_id():
    state = select_status([ev("stream.tool_start", toolName="w")])
    assert state == {"state": "tool", "toolName": "w", "vars": {"toolName": "w"}}
    assert render_status_line(state) == "Working on `w`\u2026"


def test_s3_empty_string_id_is_a_key_but_never_a_var():
    # Two calls in flight, so only a real key match (not the sole-call fallback) can attribute the report.
    events = [tool_start("w", ""), tool_start("v", "c2"), progress({"message": "m"}, toolCallId="")]
    assert select_status(events) == {
        "state": "tool", "toolName": "w", "vars": {"toolName": "w", "progressCount": "1", "progressMessage": "m"},
    }
    assert select_status(events + [ev("stream.tool_end", toolCallId="")])["toolName"] == "v"


def test_tool_start_without_tool_name_has_no_tool_name_key():
    state = select_status([ev("stream.tool_start", toolCallId="c1")])
    assert state == {"state": "tool", "vars": {"toolCallId": "c1"}}
    assert render_status_line(state) == "Working on ``\u2026"


def test_anonymous_starts_get_separate_keys():
    events = [ev("stream.tool_start", toolName="a"), ev("stream.tool_start", toolName="b")]
    assert select_status(events)["toolName"] == "b"
    assert select_status(events + [progress({"message": "x"})])["vars"] == {"toolName": "b"}  # ambiguous


# ── S4 — pause ────────────────────────────────────────────────────────────────────────────────────────


def test_s4_empty_reason_stays_empty():
    state = select_status([ev("pause.request", reason="", questionPayload={})])
    assert state == {"state": "paused", "vars": {"question": ""}}
    assert render_status_line(state) == "Waiting on you: "


def test_s4_missing_reason_asks_for_input():
    state = select_status([ev("pause.request", questionPayload={})])
    assert render_status_line(state) == "Waiting on you: input required"
    assert select_status([ev("pause.request", reason=None)])["vars"] == {"question": "input required"}


def test_s4_pause_outranks_a_tool_until_resumed():
    events = [tool_start("ask_human", "c1"), ev("pause.request", reason="Which one?", toolCallId="c1")]
    assert select_status(events) == {"state": "paused", "vars": {"question": "Which one?", "toolCallId": "c1"}}
    resumed = select_status(events + [ev("pause.resume", resumeInput={})])
    assert render_status_line(resumed) == "Working on `ask_human`\u2026"


# ── S5 — template edge cases ──────────────────────────────────────────────────────────────────────────

IDLE = {"state": "idle", "vars": {}}


def test_s5_defined_empty_template_renders_empty():
    assert render_status_line(IDLE, "Bot", {"idle": ""}) == ""


def test_s5_missing_template_renders_none():
    assert render_status_line(IDLE, "Bot", {"streaming": "{{partial}}"}) is None
    assert render_status_line(None, "Bot") is None


def test_s5_substitution():
    template = "{{appName}} {{nope}} {{ appName }} {{question}}"
    assert render_status_line(IDLE, "Bot", {"idle": template}) == "Bot  {{ appName }} "


def test_substitution_is_single_pass_and_ascii_only():
    state = {"state": "streaming", "vars": {"partial": "{{appName}}"}}
    assert render_status_line(state, "Bot") == "{{appName}}"  # substituted values are not re-scanned
    assert render_status_line(IDLE, "Bot", {"idle": "{{{appName}}} {{é}}"}) == "{Bot} {{é}}"


def test_default_app_name_is_agent():
    assert render_status_line(IDLE, templates={"idle": "{{appName}}"}) == "Agent"


# ── S6 — truncation, JS whitespace, UTF-16 units ──────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "message, expected",
    [
        ("x" * 160, "x" * 120 + "\u2026 (+40 more)"),
        ("x" * 120, "x" * 120),
        ("  still walking  ", "still walking"),
        (EMOJI * 61, EMOJI * 60 + "\u2026 (+2 more)"),
        ("a" + EMOJI * 60, "a" + EMOJI * 59 + "\ud83d" + "\u2026 (+1 more)"),
        ("\u00a0 x \ufeff", "x"),
        ("\u001c x", "\u001c x"),
    ],
)
def test_s6_truncation(message, expected):
    assert progress_message_of({"message": message}) == expected


def test_s6_lone_surrogate_is_one_unit_and_encodable():
    cut = progress_message_of({"message": "a" + EMOJI * 60})
    assert js_length(cut[: -len("\u2026 (+1 more)")]) == PROGRESS_MESSAGE_LIMIT
    assert cut.encode("utf-16-le", "surrogatepass")  # a lone high surrogate, exactly as JavaScript keeps it


@pytest.mark.parametrize("payload", [None, ["message"], "hi", 5, {}, {"message": 5}, {"message": None},
                                     {"message": ""}, {"message": " \t\n\u3000"}, {"text": "hi"}])
def test_progress_message_of_nothing_sayable(payload):
    assert progress_message_of(payload) is None


def test_js_whitespace_set_is_exact():
    expected = {*map(chr, range(0x09, 0x0E)), " ", "\u00a0", "\u1680", *map(chr, range(0x2000, 0x200B)),
                "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"}
    assert set(JS_WHITESPACE) == expected and len(JS_WHITESPACE) == len(expected)
    assert js_trim("\u0085\u001f x \u180e") == "\u0085\u001f x \u180e"  # Python's strip() would take these


def test_js_length_and_slice():
    assert js_length("h\u00e9llo " + EMOJI) == 8
    assert js_length("") == 0
    assert js_slice_units("ab" + EMOJI, 3) == "ab\ud83d"
    assert js_slice_units("ab" + EMOJI, 4) == "ab" + EMOJI
    assert js_slice_units("\u00e9t\u00e9", 2) == "\u00e9t"


@pytest.mark.parametrize("value, text", [(None, "null"), (True, "true"), (5, "5"), (1.0, "1"), (-0.0, "0"),
                                         (1.5, "1.5"), (1e21, "1e+21"), (1e-7, "1e-7"), (0.000001, "0.000001"),
                                         (123456789012345680000.0, "123456789012345680000"),
                                         (2**64, "18446744073709552000"), ([1, None, "a"], "1,,a"),
                                         ({}, "[object Object]")])
def test_js_string(value, text):
    assert js_string(value) == text


# ── S7 / S8 ───────────────────────────────────────────────────────────────────────────────────────────


def test_s7_progress_after_the_end_resurrects_nothing():
    events = [tool_start("w", "c1"), ev("stream.tool_end", toolCallId="c1"),
              progress({"message": "x"}, toolCallId="c1")]
    assert select_status(events) is None


def test_s8_streaming_across_tool_events():
    events = [llm_start(), ev("stream.token", content="Hel"), tool_start("w", "c1"),
              ev("stream.tool_end", toolCallId="c1"), ev("stream.token", content="lo")]
    assert select_status(events) == {"state": "streaming", "vars": {"partial": "Hello"}}


def test_partial_resets_at_each_llm_start_and_ends_with_llm_end():
    events = [llm_start(), ev("stream.token", content="old"), ev("stream.llm_end"), ev("stream.token", content="x")]
    assert select_status(events) is None
    assert select_status(events + [llm_start()]) == {"state": "idle", "vars": {}}
    assert select_status(events + [llm_start(), ev("stream.token", content="new")])["vars"] == {"partial": "new"}


def test_token_without_content_appends_undefined():
    events = [llm_start(), ev("stream.token", content="a"), ev("stream.token"), ev("stream.token", content=None)]
    assert select_status(events)["vars"] == {"partial": "aundefinednull"}


# ── S9 — ladder fall-through ──────────────────────────────────────────────────────────────────────────

GENERIC_REPORT = [tool_start("walk_graph", "c1"), progress({"done": 1, "total": 4}, toolCallId="c1")]


def test_s9_pre_954_map_keeps_its_tool_line():
    legacy = {key: DEFAULT_TEMPLATES[key] for key in ("idle", "streaming", "tool", "paused")}
    assert render_status_line(select_status(GENERIC_REPORT), "Ada", legacy) == "Working on `walk_graph`\u2026"


def test_s9_per_tool_line_when_generic_deleted():
    templates = {**DEFAULT_TEMPLATES, "tool.walk_graph": "Mapping your services\u2026"}
    del templates["tool.progress.generic"]
    assert render_status_line(select_status(GENERIC_REPORT), "Ada", templates) == "Mapping your services\u2026"


def test_s9_per_tool_generic_key_wins():
    templates = {**DEFAULT_TEMPLATES, "tool.walk_graph.progress.generic": "Still mapping\u2026"}
    assert render_status_line(select_status(GENERIC_REPORT), "Ada", templates) == "Still mapping\u2026"


def test_default_generic_and_message_lines():
    assert render_status_line(select_status(GENERIC_REPORT)) == "`walk_graph` reported progress (1 so far)\u2026"
    messaged = GENERIC_REPORT + [progress({"message": "hop 2"}, toolCallId="c1")]
    assert render_status_line(select_status(messaged)) == "hop 2"
    # The last report wins: a later message-less one falls back to the generic line, count still rising.
    again = messaged + [progress("bare string", toolCallId="c1")]
    assert render_status_line(select_status(again)) == "`walk_graph` reported progress (3 so far)\u2026"


def test_ladder_order_for_a_messaged_report():
    state = {"state": "tool", "toolName": "w", "vars": {"toolName": "w", "progressCount": "1", "progressMessage": "m"}}
    ladder = ["tool.w.progress", "tool.progress", "tool.w", "tool"]
    for i, key in enumerate(ladder):
        templates = {k: k for k in ladder[i:]}
        templates["tool.progress.generic"] = "never"
        assert render_status_line(state, "Ada", templates) == key
    assert render_status_line(state, "Ada", {"tool.progress.generic": "never"}) is None
    nameless = {"state": "tool", "vars": {"progressCount": "1"}}
    assert render_status_line(nameless, "Ada", {"tool.undefined.progress.generic": "x", "tool": "T"}) == "T"


def test_focus_is_the_latest_report_then_the_latest_start():
    events = [tool_start("a", "c1"), tool_start("b", "c2"), progress({"message": "from a"}, toolCallId="c1")]
    assert select_status(events)["toolName"] == "a"
    assert select_status(events + [tool_start("c", "c3")])["toolName"] == "a"  # a report outranks a newer start
    assert select_status(events + [progress({}, toolCallId="c2")])["toolName"] == "b"
    assert select_status(events + [ev("stream.tool_end", toolCallId="c1")])["toolName"] == "b"
    # Restarting an id starts the call afresh (no reports) and makes it the most recently started.
    restarted = [tool_start("a", "c1"), progress({}, toolCallId="c1"), tool_start("b", "c2"), tool_start("a2", "c1")]
    assert select_status(restarted) == {
        "state": "tool", "toolName": "a2", "vars": {"toolName": "a2", "toolCallId": "c1"},
    }


def test_ids_follow_javascript_identity_and_truthiness():
    assert select_status([tool_start("w", 1), ev("stream.tool_end", toolCallId="1")])["vars"]["toolCallId"] == 1
    assert select_status([tool_start("w", 1), ev("stream.tool_end", toolCallId=1.0)]) is None
    # A null id never matches, even with a single call in flight; an object id is truthy but matches nothing.
    assert "progressCount" not in select_status([tool_start("w", "c1"), progress({}, toolCallId=None)])["vars"]
    assert select_status([tool_start("w", [])])["vars"] == {"toolName": "w", "toolCallId": []}
    assert select_status([tool_start("w", {}), ev("stream.tool_end", toolCallId={})])["toolName"] == "w"
    assert select_status([tool_start("w", 0)])["vars"] == {"toolName": "w"}


def test_malformed_input_does_not_crash():
    events = [None, 5, "x", [], {}, {"type": ["x"]}, {"type": "agentfootprint.stream.tool_start"},
              {"type": "agentfootprint.stream.tool_progress", "payload": "s"}, {"type": "custom.thing", "payload": {}},
              {"type": "agentfootprint.stream.token", "payload": None}]
    assert select_status(events) == {"state": "tool", "vars": {"progressCount": "1"}}
    assert select_status(events + [{"type": "agentfootprint.stream.tool_end", "payload": []}]) is None


# ── Incremental selector ──────────────────────────────────────────────────────────────────────────────


def test_timeline_shares_unchanged_states():
    events = [llm_start(), ev("context.injected"), ev("stream.token", content="a"), ev("agent.iteration_start"),
              ev("stream.token", content=""), ev("stream.token", content="b")]
    timeline = status_timeline(events)
    assert len(timeline) == len(events) + 1 and timeline[0] is None
    assert timeline[1] is timeline[2] and timeline[3] is timeline[4] is timeline[5]
    assert timeline[3] == {"state": "streaming", "vars": {"partial": "a"}}  # not changed by the later token
    assert timeline[6] == {"state": "streaming", "vars": {"partial": "ab"}}


def test_selector_current_before_any_event():
    selector = StatusSelector()
    assert selector.current() is None
    selector.feed(llm_start())
    assert selector.current() is selector.current()


@pytest.mark.parametrize("scenario_name", SMALL_SCENARIOS)
def test_timeline_equals_the_walk_on_every_prefix(scenario_name):
    events = load_events(scenario_name)
    timeline = status_timeline(events)
    assert timeline[-1] == select_status(events)
    for k, state in enumerate(timeline):
        assert jsonio.dumps(state) == jsonio.dumps(select_status(events[:k])), f"k={k}"


# ── Template-editor helpers ───────────────────────────────────────────────────────────────────────────


def test_template_variables_and_spaced_placeholders():
    template = "{{appName}} {{ question }} {{question}} {{appName}} {{bad-name}} {{mood}}"
    assert template_variables(template) == ["appName", "question", "mood"]
    assert spaced_placeholders(template) == ["{{ question }}"]
    assert spaced_placeholders("{{appName}}") == []


@pytest.mark.parametrize("key, state", [
    ("idle", "idle"), ("streaming", "streaming"), ("paused", "paused"), ("tool", "tool"),
    ("tool.progress", "tool"), ("tool.progress.generic", "tool"), ("tool.weather", "tool"),
    ("tool.weather.progress", "tool"), ("tool.weather.progress.generic", "tool"),
    ("thinking", None), ("tools", None), ("", None),
])
def test_state_for_template_key(key, state):
    assert state_for_template_key(key) == state


def test_variables_and_unknown_variables_per_key():
    assert VARS_BY_STATE["idle"] == ["appName"]
    assert variables_for_template_key("tool.progress") == VARS_BY_STATE["tool"]
    assert "progressMessage" not in variables_for_template_key("tool.scan.progress.generic")
    assert "progressCount" in variables_for_template_key("tool.progress.generic")
    assert unknown_variables("tool", "{{appName}} is running {{toolName}}{{mood}}") == ["mood"]
    assert unknown_variables("idle", "{{appName}} {{partial}}") == ["partial"]
    assert unknown_variables("tool.progress.generic", "{{progressMessage}} {{progressCount}}") == ["progressMessage"]
    assert unknown_variables("paused", "{{question}} {{toolCallId}}") == []
    assert unknown_variables("nowhere", "{{appName}}") == ["appName"]


# ── The compact timeline ──────────────────────────────────────────────────────────────────────────────

_KINDS = ["stream.llm_start", "stream.llm_end", "stream.token", "stream.token", "stream.token",
          "stream.tool_start", "stream.tool_progress", "stream.tool_end", "pause.request", "pause.resume",
          "context.injected"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_KINDS), st.sampled_from(["a", "b", ""]),
                          st.sampled_from(["", "x", EMOJI, " step 1/2 "])), max_size=40))
def test_the_compact_timeline_reads_as_the_walk_of_every_prefix(steps):
    """Streaming and tool states are kept as a text and a length, and as four facts: read back, every prefix
    is exactly selectStatus of that prefix (same JSON), and unchanged neighbours are one object."""
    events = []
    for kind, call_id, text in steps:
        if kind == "stream.token":
            events.append(ev(kind, content=text))
        elif kind == "stream.tool_progress":
            events.append(progress({"message": text}, toolCallId=call_id))
        elif kind.startswith("stream.tool"):
            events.append(ev(kind, toolName="t" + call_id, toolCallId=call_id))
        else:
            events.append(ev(kind, reason=text))
    timeline = status_timeline(events)
    assert len(timeline) == len(events) + 1
    walked = [select_status(events[:k]) for k in range(len(events) + 1)]
    assert [jsonio.dumps(state) for state in timeline] == [jsonio.dumps(state) for state in walked]
    assert timeline == walked and timeline[-3:] == walked[-3:]
    for k in range(1, len(timeline)):
        if timeline._slots[k] == timeline._slots[k - 1]:  # private: equal slots must share one state object
            assert timeline[k - 1] is timeline[k]


def test_a_long_stream_keeps_no_state_object_per_token():
    tokens = [ev("stream.token", content=f"word{i} ") for i in range(5000)]
    timeline = status_timeline([llm_start(), *tokens, ev("stream.llm_end")])
    # private: memory shape: the states kept are not per token
    assert len(timeline._entries) < 5  # None, idle, hidden: the 5,000 streaming states are two numbers each
    # (prefix 2,500: the start and 2,499 tokens)
    assert timeline[2500] == {"state": "streaming", "vars": {"partial": "".join(f"word{i} " for i in range(2499))}}


def test_the_timeline_keeps_the_focus_on_the_call_that_reported_last():
    """Two calls report in turn; after a pause and its resume (taken the long way) the focus is still the call that
    reported last, in the timeline as in the walk."""
    events = [tool_start("a", "a"), tool_start("b", "b"), progress({"message": "1"}, toolCallId="a"),
              progress({"message": "2"}, toolCallId="b"), progress({"message": "3"}, toolCallId="a"),
              ev("pause.request", reason="?"), ev("pause.resume"), ev("stream.tool_end", toolCallId="b")]
    timeline = status_timeline(events)
    walked = [select_status(events[:k]) for k in range(len(events) + 1)]
    assert [jsonio.dumps(state) for state in timeline] == [jsonio.dumps(state) for state in walked]
    assert timeline[7]["vars"]["progressMessage"] == "3"
