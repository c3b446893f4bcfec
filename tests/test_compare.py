"""Comparing two runs (core/compare.py) over corpus pairs and edited corpus Traces, and `afp-desktop diff`."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from afp_desktop import cli
from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.formats import load_bytes
from afp_desktop.core.views.compare import (
    PAYLOAD_FIELDS,
    PositionMap,
    compare_runs,
    diff,
    node_ids,
    payload_text,
    step_values,
    word_diff,
)
from tests.compare_util import (
    REACT,
    open_corpus,
    run_from_trace,
    trace_with_extra_iteration,
    trace_with_extra_tool_call,
)
from tests.corpus_util import SMALL_SCENARIOS, corpus_path, load_json

THROWS = "12-tool-throws"


def _ids(scenario: str, name: str = "ref.stepgraph.json") -> list[str]:
    return node_ids(load_json(scenario, name)["nodes"])  # (06's resumed leg repeats ids: those become "#i")


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_a_run_compared_with_itself_is_identical(scenario):
    run, copy = open_corpus(scenario), open_corpus(scenario)  # two separate loads of one file
    result = diff(run, copy)
    ids = node_ids(run.stepgraph["nodes"])
    assert result["identical"] is True
    assert result["aligned"] == [[i, i] for i in ids]
    assert (result["added"], result["removed"], result["changed"]) == ([], [], [])
    assert all(value in (0, None) for value in result["totals"]["delta"].values())


def test_the_large_run_compared_with_itself_is_identical():
    run = open_corpus("15-large-run")
    result = diff(run, run)
    assert result["identical"] and len(result["aligned"]) == len(run.stepgraph["nodes"]) == 1056


@pytest.mark.parametrize("scenario", SMALL_SCENARIOS)
def test_a_trace_against_its_redacted_copy_aligns_every_step_and_shows_the_redaction(scenario):
    plain, redacted = open_corpus(scenario), open_corpus(scenario, "trace.redacted.json")
    comparison = compare_runs(plain, redacted)
    result = comparison.to_json()
    ids, redacted_ids = _ids(scenario), _ids(scenario, "ref.stepgraph.redacted.json")
    assert ids == redacted_ids  # (the reference says so: redaction keeps every step)
    assert result["aligned"] == [[i, i] for i in ids]
    assert result["added"] == [] and result["removed"] == []
    assert result["identical"] is False and result["changed"]
    for change in result["changed"]:  # the same steps at the same times: only content differs
        assert set(change["fields"]) <= set(PAYLOAD_FIELDS), change
        assert "tokens" not in change["fields"] and "durationMs" not in change["fields"]
    shown = "".join(text for row in comparison.rows_with("changed")
                    for segments in comparison.payload_diffs(row).values()
                    for op, text in segments if op == "insert")
    assert "[redacted]" in shown or "chars]" in shown


def test_react_two_tools_against_tool_throws():
    a, b = open_corpus(REACT), open_corpus(THROWS)
    result = diff(a, b)
    assert result["identical"] is False
    # The tools differ by name (get_weather, convert_units vs query_db, get_weather): other steps, not changes.
    assert result["removed"] == ["step-tool-start-tool-calls#22-tc-weather", "step-tool-start-tool-calls#44-tc-convert"]
    assert result["added"] == ["step-tool-start-tool-calls#22-tc-db", "step-tool-start-tool-calls#44-tc-w2"]
    aligned = dict((x, y) for x, y in result["aligned"])
    assert len(aligned) == 14 and all(x == y for x, y in aligned.items())
    changed = {c["a"]: c for c in result["changed"]}
    answer = changed["step-llm-end-call-llm#62-3"]
    assert answer["fields"] == ["assistantText"]
    # Token deltas per step, checked against the library's own step graphs of the two runs.
    ref_a = {n["id"]: n for n in load_json(REACT, "ref.stepgraph.json")["nodes"]}
    ref_b = {n["id"]: n for n in load_json(THROWS, "ref.stepgraph.json")["nodes"]}
    for node_id, change in changed.items():
        if "tokens" in ref_a[node_id]:
            expected = {k: ref_b[node_id]["tokens"][k] - ref_a[node_id]["tokens"][k] for k in ("in", "out")}
            assert change["tokens"] == expected
            assert ("tokens" in change["fields"]) == any(expected.values())
    totals = result["totals"]

    def summed(ref, key):
        return sum(n.get("tokens", {}).get(key, 0) for n in ref.values())

    assert totals["a"]["tokensIn"] == summed(ref_a, "in") and totals["b"]["tokensIn"] == summed(ref_b, "in")
    assert totals["delta"]["tokensOut"] == summed(ref_b, "out") - summed(ref_a, "out")
    assert (totals["a"]["errors"], totals["b"]["errors"], totals["delta"]["errors"]) == (0, 1, 1)
    assert (totals["added"], totals["removed"], totals["aligned"]) == (2, 2, 14)


def test_a_thrown_tool_error_is_the_steps_error():
    run = open_corpus(THROWS)
    index = node_ids(run.stepgraph["nodes"]).index("step-tool-start-tool-calls#22-tc-db")
    values = step_values(run, index)
    assert values["error"] == values["toolResult"]
    assert values["error"].startswith("database unavailable")
    assert "error" not in step_values(run, index + 5)  # the get_weather call that worked


def test_an_extra_tool_call_is_one_added_step():
    a, b = open_corpus(REACT), run_from_trace(trace_with_extra_tool_call())
    result = diff(a, b)
    assert result["added"] == ["step-tool-start-tool-calls#22-tc-extra"]
    assert result["removed"] == []
    assert [x for x, _y in result["aligned"]] == node_ids(a.stepgraph["nodes"])  # every step of A aligned
    assert all(x == y for x, y in result["aligned"])
    # The next LLM turn is handed the extra call's result instead.
    assert [(c["a"], c["fields"]) for c in result["changed"]] == [("step-llm-start-call-llm#40-2", ["toolResult"])]
    assert result["totals"]["delta"]["toolCalls"] == 1


def test_an_extra_iteration_is_one_block_of_added_steps():
    a, b = open_corpus(REACT), run_from_trace(trace_with_extra_iteration())
    result = diff(a, b)
    # The repeated iteration could be matched several ways; the block added is the whole inserted iteration:
    # its context chips, its LLM turn and its tool call (the copies carry renumbered ids #9…).
    assert result["added"] == ["fork-context#928-System Prompt", "fork-context#928-Messages", "fork-context#928-Tools",
                               "step-llm-start-call-llm#940-3", "step-tool-start-tool-calls#944-tc-convert-again"]
    assert result["removed"] == [] and result["changed"] == []
    assert [x for x, _y in result["aligned"]] == node_ids(a.stepgraph["nodes"])
    # After the extra iteration, A's last turn (iteration 3) is aligned with B's (iteration 4).
    assert ["step-llm-start-call-llm#62-3", "step-llm-start-call-llm#62-4"] in result["aligned"]
    assert result["totals"]["delta"]["iterations"] == 1
    reverse = diff(b, a)  # the other way round, the same block is removed
    assert reverse["removed"] == result["added"] and reverse["added"] == []


def test_positions_carry_over_by_alignment():
    a = open_corpus(REACT)
    same = PositionMap(compare_runs(a, a), a, a)
    assert [same.a_to_b(p) for p in range(len(a.axis) + 1)] == list(range(len(a.axis) + 1))

    b = run_from_trace(trace_with_extra_tool_call())
    comparison = compare_runs(a, b)
    carry = PositionMap(comparison, a, b)
    mapped = [carry.a_to_b(p) for p in range(len(a.axis) + 1)]
    assert mapped == sorted(mapped)  # scrubbing A forwards never moves B backwards
    assert mapped[-1] == len(b.axis) and carry.b_to_a(len(b.axis)) == len(a.axis)

    def created(run, index):
        return run.axis.position_of_domain(run.step_fold.node_created_at[index]) + 1

    for i, j in enumerate(comparison.partner_a):  # at a step's creation in A, B is at its partner's creation
        assert carry.a_to_b(created(a, i)) == created(b, j)
    extra = comparison.rows_with("added")[0].b
    before = comparison.partner_b[extra - 1]  # B's extra call maps back after A's step just before it
    assert created(a, before) <= carry.b_to_a(created(b, extra)) < created(a, before + 1)
    assert carry.a_to_b(created(a, before)) < created(b, extra)  # A's cursor stops short of B's extra call


def test_node_ids_fall_back_to_the_index():
    nodes = [{"id": "x"}, {"kind": "subflow"}, {"id": "y"}, {"id": "y"}, "not a node"]
    assert node_ids(nodes) == ["x", "#1", "#2", "#3", "#4"]


def test_word_diff_marks_words():
    assert word_diff("the cat sat", "the dog sat") == [("equal", "the "), ("delete", "cat"), ("insert", "dog"),
                                                       ("equal", " sat")]
    assert word_diff("same", "same") == [("equal", "same")]
    # Spaces and punctuation alone between two changes join them into one replacement.
    assert word_diff("Oslo: 18°C, light rain", "database unavailable: connection refused") == [
        ("delete", "Oslo: 18°C, light rain"), ("insert", "database unavailable: connection refused")]
    assert word_diff("in Oslo?", "in Rome?") == [("equal", "in "), ("delete", "Oslo"), ("insert", "Rome"),
                                                 ("equal", "?")]
    assert word_diff("", "new words") == [("insert", "new words")]
    assert payload_text({"city": "Oslo"}) == '{\n  "city": "Oslo"\n}'
    assert payload_text(None) == "" and payload_text("plain") == "plain"


def test_word_diff_rebuilds_both_texts():
    rng = random.Random(13)
    alphabet = ["a", "b", "ab", " ", "  ", "\n", ".", ",", "é", "[", "]", "\t", "x1", "_", "–"]
    for _ in range(400):
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        segments = word_diff(a, b)
        assert "".join(t for op, t in segments if op != "insert") == a
        assert "".join(t for op, t in segments if op != "delete") == b
        assert all(t for _op, t in segments)
        assert all(x[0] != y[0] for x, y in zip(segments, segments[1:]))  # neighbours merged


# ------------------------------------------------------------------------------------------------ CLI

def test_cli_diff_prints_the_comparison(capsys):
    a, b = corpus_path(REACT, "trace.json"), corpus_path(THROWS, "trace.json")
    assert cli.main(["diff", str(a), str(b)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(diff(open_corpus(REACT), open_corpus(THROWS))))
    assert cli.main(["diff", str(a), str(a), "--indent"]) == 0
    assert json.loads(capsys.readouterr().out)["identical"] is True


def test_cli_diff_bad_input(tmp_path, capsys):
    good = str(corpus_path(REACT, "trace.json"))
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1, "events": [\n{"type": "run.entry",\n')
    assert cli.main(["diff", good, str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert "missing.json" in err and "Traceback" not in err
    assert cli.main(["diff", str(broken), good]) == 2
    err = capsys.readouterr().err
    assert "broken.json" in err and "line" in err and "Traceback" not in err
    assert broken.read_text().startswith('{"version": 1')  # never written to
    with pytest.raises(SystemExit) as exit_info:  # one file only: argparse's usage message, exit 2
        cli.main(["diff", good])
    assert exit_info.value.code == 2


def test_cli_compare_flag_needs_two_files(capsys):
    assert cli.main(["one.json", "--compare"]) == 2
    assert "two runs" in capsys.readouterr().err
    assert cli.main(["one.json", "two.json"]) == 2
    assert "--compare" in capsys.readouterr().err


def test_cli_diff_imports_no_qt():
    a = str(corpus_path(REACT, "trace.json"))
    code = ("import sys, io\nfrom afp_desktop import cli\nreal, sys.stdout = sys.stdout, io.TextIOWrapper(io.BytesIO())\n"
            f"assert cli.main(['diff', {a!r}, {a!r}]) == 0\nsys.stdout = real\n"
            "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# ------------------------------------------------------------------------------------------ hostile input

_ODD_VALUES = [None, 7, -1.5, True, "", "x#3", [], ["a#1", 2], {"k": [1, {"deep": None}]}, "<b>", "\u0000\u202e"]


def _mangled(events: list, rng: random.Random) -> list:
    events = [dict(e) for e in events]
    for _ in range(rng.randint(1, 6)):
        choice = rng.random()
        if choice < 0.3 and events:  # drop a slice
            i = rng.randrange(len(events))
            del events[i:i + rng.randint(1, 8)]
        elif choice < 0.55 and events:  # repeat a slice somewhere else
            i = rng.randrange(len(events))
            piece = [dict(e) for e in events[i:i + rng.randint(1, 12)]]
            j = rng.randrange(len(events) + 1)
            events[j:j] = piece
        elif events:  # an odd value in a field the comparison reads
            event = rng.choice(events)
            key = rng.choice(["toolName", "subflowPath", "runtimeStageId", "args", "result", "error", "usage",
                              "content", "subflowName", "primitiveKind", "ts", "childName", "payload"])
            event[key] = rng.choice(_ODD_VALUES)
    return events


def test_mangled_runs_compare_without_failing():
    base = load_json(REACT, "trace.json")
    other = load_json(THROWS, "trace.json")
    rng = random.Random(2026)
    for _ in range(50):
        traces = []
        for source in (base, rng.choice([base, other])):
            trace = dict(source)
            trace["events"] = _mangled(source["events"], rng)
            traces.append(trace)
        a, b = (load_bytes(jsonio.dumps(t), "mangled.json") for t in traces)  # (unprepared: faster)
        comparison = compare_runs(a, b)
        rows = comparison.rows
        assert sorted(r.a for r in rows if r.a is not None) == list(range(len(comparison.nodes_a)))
        assert sorted(r.b for r in rows if r.b is not None) == list(range(len(comparison.nodes_b)))
        pairs = [(r.a, r.b) for r in rows if r.a is not None and r.b is not None]
        assert all(x1 < x2 and y1 < y2 for (x1, y1), (x2, y2) in zip(pairs, pairs[1:]))
        json.dumps(comparison.to_json())  # plain JSON values only
        assert compare_runs(a, a).identical
        carry = PositionMap(comparison, a, b)
        mapped = [carry.a_to_b(p) for p in range(len(a.axis) + 1)]
        assert all(0 <= p <= len(b.axis) for p in mapped)
        for row in comparison.rows_with("changed")[:3]:
            comparison.payload_diffs(row)


def test_word_diff_of_indented_json_goes_line_by_line():
    a = payload_text({"x": 1, "y": "Weather in Oslo", "z": [1, 2, 3]})
    b = payload_text({"x": 2, "y": "Weather in Rome", "z": [1, 2, 3]})
    assert word_diff(a, b) == [("equal", '{\n  "x": '), ("delete", "1"), ("insert", "2"),
                               ("equal", ',\n  "y": "Weather in '), ("delete", "Oslo"), ("insert", "Rome"),
                               ("equal", '",\n  "z": [\n    1,\n    2,\n    3\n  ]\n}')]


def test_the_merged_graph_is_the_union_of_both_runs():
    from afp_desktop.core.views.compare import merged_graph
    from afp_desktop.core.model.layout import layout_step_graph, resolve_edges

    comparison = compare_runs(open_corpus(REACT), open_corpus(THROWS))
    graph = merged_graph(comparison)
    labels = [n["label"] for n in graph["nodes"]]
    assert len(labels) == len(comparison.rows) == 18  # 14 aligned + 2 removed + 2 added
    assert labels[4:7] == ["user → llm", "llm → tool (get_weather)", "llm → tool (query_db)"]  # A's, then B's
    ends = resolve_edges(graph)
    assert None not in ends
    chain = {(graph["nodes"][s]["label"], graph["nodes"][t]["label"]) for s, t in ends if s != t}
    # Both runs' paths from the first LLM turn: through A's get_weather and through B's query_db.
    assert ("user → llm", "llm → tool (get_weather)") in chain and ("user → llm", "llm → tool (query_db)") in chain
    assert ("llm → tool (query_db)", "tool → llm") in chain
    assert len(layout_step_graph(graph).nodes) == 18
    same = compare_runs(open_corpus(REACT), open_corpus(REACT))
    union = merged_graph(same)  # a run with itself: its own graph, renamed
    assert len(union["nodes"]) == 16 and len(union["edges"]) == len(load_json(REACT, "ref.stepgraph.json")["edges"])
