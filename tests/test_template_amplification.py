"""A template map cannot make a status line bigger than what it is made of: a line holds each filled value once
plus at most LINE_ALLOWANCE characters (the template's text and its repeats); past that it is cut and says so.
The same rule holds for every reader of status lines: render_status_line, the streamed lines the window keeps as
lengths (stop_lines) and the `status` command (fuzzed with `--app-name` in test_fuzz_hypothesis.py)."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings, strategies as st

from afp_desktop.core.library.status import DEFAULT_TEMPLATES, render_status_line, status_timeline
from afp_desktop.core.library.template_render import LINE_ALLOWANCE, compiled
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.model.bubble import all_lines
from tests.corpus_util import corpus_path, read_bytes
from tests.hostile_inputs import run_cli
from tests.template_cases import amplifying_templates

CUT = re.compile(r"\u2026 \(\+(\d+) more\)$")
TOKEN = "agentfootprint.stream.token"


def _tool(name: str, **variables) -> dict:
    return {"state": "tool", "toolName": name, "vars": {"toolName": name, **variables}}


def _reference(template: str, variables: dict) -> str:
    """§6.5's substitution written out whole (what a line is when it fits its budget)."""
    return re.sub(r"\{\{([A-Za-z0-9_]+)\}\}", lambda m: "" if variables.get(m.group(1)) is None
                  else str(variables[m.group(1)]), template)


def test_a_repeated_app_name_is_cut_at_the_budget_and_says_so():
    app_name = "A" * 1_000
    line = render_status_line({"state": "idle", "vars": {}}, app_name, {"idle": "{{appName}}" * 10_000})
    budget = len(app_name) + LINE_ALLOWANCE
    assert line == "A" * budget + f"\u2026 (+{10_000 * 1_000 - budget} more)"


def test_a_line_within_its_budget_is_the_plain_substitution():
    app_name = "B" * 5_000
    template = "{{appName}} asks {{appName}} about `{{toolName}}` ({{toolCallId}}) {{nothing}}"
    state = _tool("lookup" * 1_000, toolCallId="call_1")
    line = render_status_line(state, app_name, {"tool": template})
    assert line == _reference(template, {"appName": app_name, **state["vars"]})
    assert not CUT.search(line)


def test_a_value_is_never_cut_only_the_repeats():
    question = "Q" * (3 * LINE_ALLOWANCE)  # a value longer than the allowance is shown whole
    line = render_status_line({"state": "paused", "vars": {"question": question}}, "Agent",
                              {"paused": "Waiting: {{question}}"})
    assert line == "Waiting: " + question
    twice = render_status_line({"state": "paused", "vars": {"question": question}}, "Agent",
                               {"paused": "{{question}}{{question}}"})
    assert twice.startswith(question + "Q" * LINE_ALLOWANCE + "\u2026")
    assert CUT.search(twice).group(1) == str(len(question) - LINE_ALLOWANCE)


def test_a_huge_template_text_is_cut_too():
    line = render_status_line({"state": "idle", "vars": {}}, "Agent", {"idle": "x" * 1_000_000})
    assert line == "x" * LINE_ALLOWANCE + f"\u2026 (+{1_000_000 - LINE_ALLOWANCE} more)"


def test_placeholders_that_render_nothing_are_dropped_once_for_all():
    template = compiled("{{toolCallId}}" * 100_000 + "{{toolName}}")
    assert template.render({"toolName": "t"}) == "t"
    assert template.render({"toolName": "t", "toolCallId": None}) == "t"
    budget = 2 + LINE_ALLOWANCE  # (each value once, and the allowance)
    assert template.render({"toolName": "t", "toolCallId": "c"}) == "c" * budget + f"\u2026 (+{100_001 - budget} more)"


def _streamed_run(contents: list[str]):
    from afp_desktop.core.formats import load_bytes

    base = [json.loads(line) for line in read_bytes("05-streaming-tokens", "events.ndjson").splitlines()
            if line.strip()]
    first = next(i for i, e in enumerate(base) if e["type"] == TOKEN)
    tokens = [{**base[first], "payload": {**base[first]["payload"], "tokenIndex": k, "content": text}}
              for k, text in enumerate(contents)]
    events = base[:first] + tokens + [e for e in base[first:] if e["type"] != TOKEN]
    return load_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in events), "events.ndjson").prepare()


def test_streamed_lines_kept_as_lengths_are_cut_as_rendering_cuts_them():
    run = _streamed_run(["ab" * 500] * 20)
    templates = {**DEFAULT_TEMPLATES, "streaming": "{{partial}}" * 200 + "{{appName}}" * 50}
    app_name = "N" * 300
    replay = Replay(run, templates, app_name)
    states = status_timeline(run.typed_events)
    rendered = {render_status_line(state, app_name, templates) for state in states}
    cut = [line for line in rendered if line and CUT.search(line)]
    assert cut  # (the template repeats the partial far past the allowance)
    seen = [line for span in replay.spans for line in replay.lines_of(span)]
    assert set(seen) <= rendered and set(cut) <= set(seen)
    assert max(map(len, seen)) <= 20 * 1_000 + len(app_name) + LINE_ALLOWANCE + 30
    assert {use.line for use in all_lines(run, templates, app_name)} <= rendered


def test_status_with_an_amplifying_map_and_a_long_app_name(tmp_path):
    """What took 10 GB: a map repeating {{appName}} for every state, with a 5 KB app name."""
    repeated = "{{appName}}" * 50_000
    path = tmp_path / "map.json"
    path.write_text(json.dumps({key: repeated + "{{toolName}}{{partial}}{{question}}" for key in
                                ("idle", "streaming", "tool", "paused", "tool.progress", "tool.progress.generic")}))
    app_name = "Z" * 5_000
    code, out, err = run_cli(["status", str(corpus_path("04-tool-progress", "events.ndjson")), "--templates",
                              str(path), "--app-name", app_name])
    assert code == 0, err
    rows = json.loads(out)
    assert rows and all(row["line"] is None or len(row["line"]) <= len(app_name) + LINE_ALLOWANCE + 2_000
                        for row in rows)
    assert any(row["line"] and CUT.search(row["line"]) for row in rows)


# --- Hypothesis: any template with any app name gives a bounded line, or the reference line when it fits ---

_values = st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=4).map(lambda t: t * 7))
_states = st.one_of(
    st.none(),
    st.builds(lambda: {"state": "idle", "vars": {}}),
    st.builds(lambda p: {"state": "streaming", "vars": {"partial": p}}, st.text(max_size=30)),
    st.builds(lambda q, c: {"state": "paused", "vars": {"question": q, "toolCallId": c}}, _values, _values),
    st.builds(lambda n, c, m: _tool(n, toolCallId=c, progressMessage=m), st.text(max_size=10), _values, _values),
)


@settings(max_examples=150, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(template=amplifying_templates(), app_name=st.text(max_size=8).map(lambda t: t * 300), state=_states)
def test_any_template_and_app_name_give_a_bounded_line(template, app_name, state):
    templates = {key: template for key in ("idle", "streaming", "tool", "paused", "tool.progress")}
    line = render_status_line(state, app_name, templates)
    if state is None:
        assert line is None
        return
    variables = {"appName": app_name, **state["vars"]}
    values = {name: str(value) for name, value in variables.items()
              if value is not None and f"{{{{{name}}}}}" in template}
    budget = sum(map(len, values.values())) + LINE_ALLOWANCE
    full = sum(len(str(variables[m.group(1)])) if m.group(1) in values else 0
               for m in re.finditer(r"\{\{([A-Za-z0-9_]+)\}\}", template)) \
        + len(re.sub(r"\{\{[A-Za-z0-9_]+\}\}", "", template))
    if full <= budget:
        assert line == _reference(template, variables)
    else:
        assert len(line) <= budget + len(f"\u2026 (+{full} more)")
        assert CUT.search(line).group(1) == str(full - budget)
        assert _reference(template, variables).startswith(line[:budget])
