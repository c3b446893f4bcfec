"""Find over whole runs (core/search.py) and the `find` command: what is found, where, at which position and node."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.formats import open_run
from afp_desktop.core.jsonx.lazyjson import LazyJSON
from afp_desktop.core.views.search import QueryError, SearchIndex, SearchTooSlow, compile_query, find, make_excerpt
from tests.corpus_util import CUSTOM_TEMPLATES, corpus_path
from tests.find_util import write_many_calls

_runs: dict = {}


def run_of(scenario: str, name: str):
    key = (scenario, name)
    if key not in _runs:
        _runs[key] = open_run(str(corpus_path(scenario, name))).prepare()
    return _runs[key]


def index_of(scenario: str, name: str) -> SearchIndex:
    return SearchIndex(run_of(scenario, name))


def wheres(hits) -> list[str]:
    return [hit.where for hit in hits]


def matched(hit) -> str:
    return hit.excerpt[hit.match[0]:hit.match[1]]


# ── what is found, and where ─────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", ["events.ndjson", "trace.json", "recording.json"])
def test_a_tool_name_is_found_at_its_call(name):
    run = run_of("02-react-two-tools", name)
    hits = [h for h in find(run, "convert_units") if h.where == "tool name"]
    assert len(hits) == 1
    hit = hits[0]
    node = run.stepgraph["nodes"][hit.node]
    assert (node["kind"], node["toolName"]) == ("llm->tool", "convert_units")
    # The position is right after the tool's start: the node exists there, and the stop is the tool call's.
    assert run.axis.position_of_domain(run.step_fold.node_created_at[hit.node]) + 1 == hit.position
    assert run.stops[hit.stop]["label"] == "Tool call" and hit.stop_label == "Tool call 2"
    assert run.stops[hit.stop]["axisStart"] <= hit.position <= run.stops[hit.stop]["axisEnd"]


def test_an_argument_and_a_result_name_their_tool():
    hits = find(run_of("02-react-two-tools", "events.ndjson"), "Oslo")
    argument = next(h for h in hits if h.where == "tool arguments of `get_weather`")
    assert argument.excerpt == '{"city":"Oslo"}' and matched(argument) == "Oslo"
    result = next(h for h in hits if h.where == "tool result of `get_weather`")
    assert result.excerpt == "Oslo: 18°C, light rain" and result.match == (0, 4)
    assert argument.node == result.node  # both belong to the get_weather call's card
    assert argument.position < result.position


def test_a_thrown_tool_is_an_error_of_that_tool():
    hits = find(run_of("12-tool-throws", "events.ndjson"), "ECONNREFUSED")
    error = hits[0]
    assert error.where == "tool error of `query_db`"
    assert error.excerpt.startswith("database unavailable") and matched(error) == "ECONNREFUSED"
    trace_hits = find(run_of("12-tool-throws", "trace.json"), "ECONNREFUSED")
    assert "tool error of `query_db`" in wheres(trace_hits)


def test_status_lines_use_the_active_templates():
    run = run_of("02-react-two-tools", "events.ndjson")
    default = [h for h in find(run, "Working on") if h.where == "status line"]
    assert [h.excerpt for h in default] == ["Working on `get_weather`…", "Working on `convert_units`…"]
    templates = json.loads(CUSTOM_TEMPLATES.read_text())
    custom = SearchIndex(run, templates, "Weatherbot")
    assert not [h for h in custom.find("Working on") if h.where == "status line"]
    lines = {h.excerpt for h in custom.find("convert_units") if h.where == "status line"}
    assert lines and all("Working on" not in line for line in lines)
    # with_templates keeps the content and swaps only the status lines
    swapped = SearchIndex(run).with_templates(templates, "Weatherbot")
    assert [h.to_json() for h in swapped.find("convert_units")] == [h.to_json() for h in custom.find("convert_units")]


def test_a_status_line_is_where_the_bubble_shows_it():
    from afp_desktop.core.model.bubble import BubbleModel
    from afp_desktop.core.library.status import DEFAULT_TEMPLATES

    run = run_of("04-tool-progress", "events.ndjson")
    bubble = BubbleModel(run)
    lines = [h for h in find(run, "Indexing") if h.where == "status line"]
    assert lines
    for hit in lines:
        assert bubble.at(hit.position, DEFAULT_TEMPLATES, "Agent").line == hit.excerpt


def test_progress_reports_slots_and_assistant_text():
    progress = find(run_of("04-tool-progress", "events.ndjson"), "Indexing 1,204 files")
    assert "progress report of `scan_repo`" in wheres(progress)
    trace = find(run_of("02-react-two-tools", "trace.json"), "You are a weather assistant")
    assert any(w.startswith("system prompt slot") for w in wheres(trace))
    assert any(w.startswith("messages slot") for w in wheres(find(run_of("02-react-two-tools", "trace.json"),
                                                                   "Let me check the weather")))
    assert "assistant text" in wheres(find(run_of("02-react-two-tools", "events.ndjson"), "check the weather"))
    assert "step label" in wheres(find(run_of("02-react-two-tools", "trace.json"), "llm → tool (get_weather)"))


@pytest.mark.parametrize("name", ["events.ndjson", "trace.json", "recording.json"])
def test_a_prompt_hit_is_where_the_call_it_was_sent_to_has_started(name):
    from afp_desktop.core.model.replay import NOT_STARTED, ReplayFacts

    run = run_of("02-react-two-tools", name)
    facts = ReplayFacts(run)
    prompt = [hit for hit in find(run, "You are a weather assistant")
              if hit.where.startswith(("system prompt", "system-prompt"))]
    assert prompt
    for hit in prompt:  # the cursor moved to the hit shows the call, and on it the prompt found
        assert run.stepgraph["nodes"][hit.node]["kind"] in ("user->llm", "tool->llm")
        assert facts.node_state(hit.node, facts.effective_domain[hit.position], hit.position) != NOT_STARTED


def test_case_and_regex_options():
    index = index_of("02-react-two-tools", "events.ndjson")
    assert len(index.find("oslo")) == 0
    assert len(index.find("oslo", ignore_case=True)) == len(index.find("Oslo")) > 0
    regex = index.find(r"\d+°F", regex=True)
    assert regex and all(re.fullmatch(r"\d+°F", matched(h)) for h in regex)
    assert len(index.find(r"\d+°F")) == 0  # plain text: the backslash is a character
    assert [matched(h) for h in index.find("OSLO:", ignore_case=True)] == ["Oslo:"] * len(index.find("Oslo:"))
    # ^ and $ are the start and end of any line of a text, never of the joined index
    starts = index.find(r"^Oslo", regex=True)
    assert starts and all(h.match[0] == 0 or h.excerpt[h.match[0] - 1] == " " for h in starts)


def test_bad_queries_are_refused_with_a_sentence():
    with pytest.raises(QueryError, match="not a valid regular expression: missing \\), unterminated subpattern"):
        compile_query("a(b", regex=True)
    with pytest.raises(QueryError, match="matches empty text"):
        compile_query("x*", regex=True)
    with pytest.raises(QueryError, match="empty"):
        compile_query("")
    assert compile_query("a(b").search("xa(bx")  # plain text: no regex meaning


def test_hits_are_in_axis_order_and_the_limit_keeps_the_first():
    index = index_of("15-large-run", "events.ndjson")
    every = index.find("shard", ignore_case=True)
    positions = [int(p) for p in every.positions]
    assert len(every) > 1000 and positions == sorted(positions) and every.complete
    first = index.find("shard", ignore_case=True, limit=100)
    assert not first.complete and [h.to_json() for h in first] == [every[i].to_json() for i in range(100)]


# ── the joined index finds exactly what searching each text alone finds ──────────────────────────────────


@pytest.mark.parametrize("query,regex,ignore_case", [
    ("Oslo", False, False), ("oslo", False, True), (r"\s+", True, False), (r"[^a-z]{3}", True, True),
    (r"weather\.\s*$", True, False), (r"\W", True, False), ("°", False, False), (r"(?s).{5}", True, False),
    ("İ", False, True), ("e", False, False),
])
def test_joined_search_equals_a_search_of_each_text(query, regex, ignore_case):
    index = index_of("02-react-two-tools", "trace.json")
    pattern = compile_query(query, regex, ignore_case)
    expected = []
    for p, part in enumerate(index.parts):
        for doc in range(len(part)):
            text = part.texts[int(part.text_of[doc])]
            expected += [(int(part.positions[doc]), p, doc, m.start(), m.end()) for m in pattern.finditer(text)
                         if m.end() > m.start()]
    result = index.find(query, regex=regex, ignore_case=ignore_case)
    got = [(int(pos), int(p), int(d), int(s), int(e)) for pos, p, d, s, e in  # private: the result's raw rows
           zip(result.positions, result._part, result._doc, result._start, result._end)]
    assert got == sorted(expected)


def test_excerpts_are_one_line_with_the_match_marked():
    text = "line one\nthe needle is here\tand\r\nthen " + "x" * 300
    excerpt, (start, end) = make_excerpt(text, text.index("needle"), text.index("needle") + 6)
    assert "\n" not in excerpt and "\t" not in excerpt and excerpt[start:end] == "needle"
    assert excerpt.endswith("…") and not excerpt.startswith("…")
    far = text.index("x" * 300) + 200
    excerpt, (start, end) = make_excerpt(text, far, far + 3)
    assert excerpt.startswith("…") and excerpt[start:end] == "xxx"


# ── large runs ────────────────────────────────────────────────────────────────────────────────────────────


def test_a_large_traces_payloads_stay_lazy_after_indexing():
    run = run_of("15-large-run", "trace.json")
    lazy = [e["payload"] for e in run.domain_events if type(e.get("payload")) is LazyJSON]
    assert lazy, "the large run's Trace is read lazily"
    index = SearchIndex(run)
    assert all(type(e["payload"]) is LazyJSON for e in run.domain_events if "payload" in e and
               any(e["payload"] is p for p in lazy[:50]))
    hits = index.find("You probe shards.")
    assert any(h.where.startswith("system prompt slot") for h in hits)
    assert len({h.stop for h in hits}) > 100  # every LLM turn's system prompt, not one


# ── the command line ─────────────────────────────────────────────────────────────────────────────────────


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "afp_desktop", "find", *args], capture_output=True, text=True,
                          timeout=120)


def test_cli_prints_the_hits_as_json():
    path = str(corpus_path("12-tool-throws", "events.ndjson"))
    out = _cli(path, "econnrefused", "--ignore-case")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert rows and set(rows[0]) == {"position", "stop", "where", "node", "excerpt"}
    assert rows[0]["where"] == "tool error of `query_db`" and rows[0]["stop"]["label"] == "Tool call 1"
    text, (start, end) = rows[0]["excerpt"]["text"], rows[0]["excerpt"]["match"]
    assert text[start:end] == "ECONNREFUSED"
    assert rows == [h.to_json() for h in find(run_of("12-tool-throws", "events.ndjson"), "econnrefused",
                                              ignore_case=True)]


def test_cli_templates_and_regex():
    path = str(corpus_path("02-react-two-tools", "events.ndjson"))
    out = _cli(path, r"Working on `\w+`", "--regex")
    assert [r["excerpt"]["text"] for r in json.loads(out.stdout)] == ["Working on `get_weather`…",
                                                                      "Working on `convert_units`…"]
    custom = _cli(path, r"Working on `\w+`", "--regex", "--templates", str(CUSTOM_TEMPLATES), "--app-name", "Bot")
    assert custom.returncode == 0 and json.loads(custom.stdout) == []


def test_cli_refuses_a_bad_regex_with_exit_2():
    out = _cli(str(corpus_path("02-react-two-tools", "events.ndjson")), "a(b", "--regex")
    assert out.returncode == 2 and out.stdout == ""
    assert "not a valid regular expression" in out.stderr and "Traceback" not in out.stderr


def test_cli_find_imports_no_qt():
    path = str(corpus_path("02-react-two-tools", "trace.json"))
    code = ("import sys\nfrom afp_desktop.cli import main\n"
            f"assert main(['find', {path!r}, 'Oslo']) == 0\n"
            "assert not [m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))], 'Qt imported'\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


# ── hostile input ────────────────────────────────────────────────────────────────────────────────────────


def test_odd_and_hostile_events_are_searched_without_failing(tmp_path):
    deep: object = "needle at the bottom"
    for _ in range(1000):  # (orjson's limit for an NDJSON line is 1,024 levels)
        deep = [deep]
    meta = {"wallClockMs": 1, "runtimeStageId": "x#1", "subflowPath": [], "runId": "r"}
    events = [
        {"type": "agentfootprint.agent.turn_start", "payload": {"userPrompt": 42}},
        {"type": "agentfootprint.stream.llm_start", "payload": {"model": None}},
        {"type": "agentfootprint.stream.llm_end", "payload": {"content": "<b>bold</b>\u2028next\x00line",
                                                             "toolCallCount": 1, "usage": {}}},
        {"type": "agentfootprint.stream.tool_start", "payload": {"toolName": 7, "toolCallId": {"o": 1},
                                                                "args": deep}},
        {"type": "agentfootprint.stream.tool_progress", "payload": {"payload": "bare progress needle"}},
        {"type": "agentfootprint.stream.tool_progress", "payload": {"toolCallId": [1], "payload": 3}},
        {"type": "agentfootprint.stream.tool_end", "payload": {"toolCallId": {"o": 1}, "result": ["a", {"b": None}],
                                                              "error": "boom needle"}},
        {"type": "agentfootprint.context.injected", "payload": {"slot": None, "contentSummary": "needle summary"}},
        {"type": "agentfootprint.something.new", "payload": "not an object"},
        {"type": "agentfootprint.run.error", "payload": {"message": "fatal needle", "stack": ["at x"]}},
    ]
    path = tmp_path / "odd.ndjson"
    from afp_desktop.core.jsonx import jsonio

    path.write_bytes(b"\n".join(jsonio.dumps({**e, "meta": meta}) for e in events) + b"\n")
    run = open_run(str(path)).prepare()
    hits = find(run, "needle", ignore_case=True)
    by_where = {h.where: h for h in hits}
    deep_hit = by_where["tool arguments of a tool"]
    assert deep_hit.excerpt.startswith("…[[[") and deep_hit.excerpt.endswith("]]]…")
    assert deep_hit.excerpt[deep_hit.match[0]:deep_hit.match[1]] == "needle"
    assert {"progress report of a tool", "tool error of a tool", "context injection", "error `run.error` · message"} \
        <= set(by_where)
    bold = find(run, "<b>bold</b>")
    assert bold and all("\x00" not in h.excerpt and "\u2028" not in h.excerpt for h in bold)
    assert [h.excerpt for h in bold if h.where == "assistant text"] == ["<b>bold</b> next line"]


def test_fuzz_the_joined_search_against_each_text_alone():
    """Seeded random texts full of line breaks, NULs (the separator's own characters), case pairs and characters
    that change length when lower-cased, searched plain and as regexes, with and without case."""
    import random

    from afp_desktop.core.views.search import IndexPart

    rng = random.Random(13)
    alphabet = ["a", "A", "b", " ", "\n", "\x00", "İ", "i", "ß", "S", "é", "É", "😀", "\t", "."]
    regexes = [r"a\s", r"\s+", r"[^a]", r"a.b", r"(?s)a.", r"^a", r"a$", r"\W+", r"[İi]", r"A+", r"\x00\n?",
               r"[A-Z]", r"\x41", r"\u00c9", r"(?-i:A)", r"\D", r"É+", r"[^A-Z]b", r"(a)\1", r"(?P<x>A)(?P=x)"]
    for _round in range(150):
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(rng.randint(1, 8))]
        docs = [(rng.randint(0, 5), text, "where", None) for text in texts]
        part = IndexPart(list(docs))
        for _query in range(6):
            regex = rng.random() < 0.4
            query = rng.choice(regexes) if regex else "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))
            ignore_case = rng.random() < 0.5
            try:
                pattern = compile_query(query, regex, ignore_case)
            except QueryError:
                continue
            docs_found, starts, ends = part.hits(pattern)
            got = sorted(zip(docs_found.tolist(), starts.tolist(), ends.tolist()))
            expected = sorted((d, m.start(), m.end()) for d in range(len(part))
                              for m in pattern.finditer(part.texts[int(part.text_of[d])]) if m.end() > m.start())
            if not regex and ignore_case and pattern.lowered is not None and part.lowered is not None:
                # plain, ignoring case: searched lower-cased; the same spans as lower() equality finds
                lowered = pattern.lowered
                expected = sorted((d, m.start(), m.end()) for d in range(len(part))
                                  for m in lowered.finditer(part.texts[int(part.text_of[d])].lower()))
            assert got == expected, (texts, query, regex, ignore_case)


# ── bounded searches ─────────────────────────────────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def many_calls(tmp_path_factory):
    return write_many_calls(tmp_path_factory.mktemp("find") / "many.ndjson", 3000)


def test_a_query_matching_everywhere_scans_only_until_the_limit_is_reached(many_calls, monkeypatch):
    from afp_desktop.core.views import search as search_module

    index = SearchIndex(open_run(many_calls).prepare())
    every = index.find(".", regex=True)
    scanned: list[int] = []
    real = search_module.IndexPart.matches

    def counting(part, pattern, first=0, stop=None, deadline=None):
        scanned.append((len(part.texts) if stop is None else stop) - first)
        return real(part, pattern, first, stop, deadline)

    monkeypatch.setattr(search_module.IndexPart, "matches", counting)
    first = index.find(".", regex=True, limit=500)
    assert len(first) == 500 and not first.complete and len(every) > 100_000
    assert [h.to_json() for h in first] == [every[i].to_json() for i in range(500)]
    texts = sum(len(part.texts) for part in index.parts)
    assert sum(scanned) < texts / 10, (sum(scanned), texts)  # the scan stopped long before the end


def test_a_limit_the_hits_exactly_reach_is_complete(many_calls):
    index = SearchIndex(open_run(many_calls).prepare())
    every = index.find("result 12", limit=None)
    assert every.complete and len(index.find("result 12", limit=len(every))) == len(every)
    assert index.find("result 12", limit=len(every)).complete
    assert not index.find("result 12", limit=len(every) - 1).complete


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(x+x+)+y", r"\s*\s*\s*\s*\s*#", r"(.*a){25}", r"(a|aa)+$",
                                     r"(\w+\s?)+$", r"(a*)*b", r"^(([a-z])+.)+[A-Z]([a-z])+$"])
def test_catastrophic_regexes_end_with_hits_or_a_sentence(tmp_path, pattern):
    """Patterns that backtrack for ever in `re` on a 2 KB run: each ends, with its hits or with a sentence saying
    the search took too long (the limit is small here: the time is the bound, not what is asserted)."""
    hostile = "a" * 40 + "!" + " " * 60 + "x" * 40 + "\n" + "ab" * 30
    run = open_run(write_many_calls(tmp_path / "small.ndjson", 8, lambda i: hostile)).prepare()
    try:
        result = SearchIndex(run).find(pattern, regex=True, time_limit=0.2)
    except SearchTooSlow as err:
        assert str(err).startswith("the search took longer than 0.2 s and was stopped") and "\n" not in str(err)
    else:
        assert all(h.match[1] > h.match[0] for h in result)


def test_a_search_past_its_time_is_stopped_with_a_sentence(tmp_path):
    run = open_run(write_many_calls(tmp_path / "small.ndjson", 8, lambda i: "a" * 40 + "!")).prepare()
    with pytest.raises(SearchTooSlow, match=r"took longer than 0.05 s and was stopped: .* \(a\+\)\+"):
        SearchIndex(run).find(r"(a|aa)+$", regex=True, time_limit=0.05)


@pytest.mark.parametrize("query,message", [
    ("a{4294967296}", "a repeat count is too large"),
    ("(" * 5000 + "a" + ")" * 5000, "at most 10,000 are searched for"),
    ("(" * 2000 + "a" + ")" * 2000, "nests groups too deeply"),
    ("(?:" * 900 + "a" + ")" * 900, "nests groups too deeply"),
    ("(a{1000}){1000}", "too large to search"),
    ("((a{100}){100}){100}", "too large to search"),
    ("x{99999}{2}", "multiple repeat"),
    (r"\p{L}", "bad escape"),
    ("a(b", "missing ), unterminated subpattern"),
])
def test_invalid_and_too_complex_patterns_get_one_sentence(query, message):
    with pytest.raises(QueryError) as caught:
        compile_query(query, regex=True)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_cli_lists_at_most_max_hits_and_says_there_are_more(many_calls):
    from tests.hostile_inputs import run_cli

    code, out, err = run_cli(["find", many_calls, "e", "--max-hits", "7"])
    rows = json.loads(out)
    assert code == 0 and len(rows) == 7
    assert "more than 7 matches; the first 7 are listed" in err
    every = find(open_run(many_calls).prepare(), "e", limit=7)
    assert rows == [h.to_json() for h in every]
    code, out, err = run_cli(["find", many_calls, "result 2999:", "--max-hits", "7"])
    assert code == 0 and len(json.loads(out)) == 1 and "more than" not in err


@pytest.mark.parametrize("indent", [False, True])
@pytest.mark.parametrize("query", ["result 1", "no such text"])
def test_cli_streams_the_same_bytes_as_one_json_list(many_calls, indent, query):
    from afp_desktop.core.jsonx import jsonio
    from tests.hostile_inputs import run_cli

    code, out, _err = run_cli(["find", many_calls, query, "--max-hits", "40", *(["--indent"] if indent else [])])
    expected = [h.to_json() for h in find(open_run(many_calls).prepare(), query, limit=40)]
    assert code == 0 and out == jsonio.dumps(expected, indent=indent) + b"\n"


@pytest.mark.parametrize("value", ["0", "-3", "many", "1e3", "1000001"])
def test_cli_refuses_a_max_hits_out_of_range(many_calls, value):
    from tests.hostile_inputs import run_cli

    code, out, err = run_cli(["find", many_calls, "e", "--max-hits", value])
    assert code == 2 and out == b"" and "--max-hits must be a whole number from 1 to 1,000,000" in err


@pytest.mark.parametrize("query", ["a{4294967296}", "(" * 5000 + "a" + ")" * 5000, "(" * 2000 + "a" + ")" * 2000,
                                   "(a{1000}){1000}"])
def test_cli_refuses_a_pattern_too_complex_with_a_sentence(query):
    from tests.hostile_inputs import run_cli

    code, out, err = run_cli(["find", str(corpus_path("02-react-two-tools", "events.ndjson")), query, "--regex"])
    assert code == 2 and out == b"" and err.startswith("afp-desktop: ") and err.count("\n") == 1, err
    assert len(err) < 400 and "Traceback" not in err


def test_cli_stops_a_search_past_its_time_with_a_sentence(tmp_path, monkeypatch):
    from afp_desktop.core.views import search_limits
    from tests.hostile_inputs import run_cli

    monkeypatch.setattr(search_limits, "DEFAULT_TIME_LIMIT_S", 0.05)
    path = write_many_calls(tmp_path / "small.ndjson", 8, lambda i: "a" * 40 + "!")
    code, out, err = run_cli(["find", path, r"(a|aa)+$", "--regex"])
    assert code == 2 and out == b""
    assert "the search took longer than 0.05 s and was stopped" in err and err.count("\n") == 1, err


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(texts=st.lists(st.text(alphabet="ab \n\x00", min_size=1, max_size=6), min_size=1, max_size=12),
       picks=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 11)), min_size=1, max_size=60),
       query=st.sampled_from([("a", False), ("b a", False), ("a+", True), (r"\s", True), ("(?s).", True),
                              (r"\x00\n?a", True), ("^a|b$", True)]),
       limit=st.integers(1, 40), first_range=st.integers(1, 64), most=st.integers(1, 256))
def test_a_limited_scan_keeps_exactly_the_first_rows(texts, picks, query, limit, first_range, most):
    """Texts shared by many documents, at repeated positions: the scan that stops early keeps the very rows the
    whole scan puts first (and one more when there are more), whatever the ranges it stopped between."""
    from afp_desktop.core.views import search as search_module

    part = search_module.IndexPart([(position, texts[which % len(texts)], "where", None) for position, which in picks])
    pattern = compile_query(query[0], regex=query[1])
    every = list(zip(*(column.tolist() for column in part.hits(pattern))))
    sizes = search_module.FIRST_RANGE_ROWS, search_module.RANGE_ROWS
    search_module.FIRST_RANGE_ROWS, search_module.RANGE_ROWS = first_range, max(first_range, most)  # small ranges
    try:
        first = list(zip(*(column.tolist() for column in part.hits(pattern, limit))))
    finally:
        search_module.FIRST_RANGE_ROWS, search_module.RANGE_ROWS = sizes
    assert first == every[:limit + 1]
