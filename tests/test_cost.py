"""Cost from tokens and the user's price table (core/views/cost.py): the table's checks, the arithmetic, unknown
models, no table, subflow totals and the time-travel rule, the inspector's row and `info --prices`."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.formats import open_run
from afp_desktop.core.model.replay import Replay
from afp_desktop.core.views.cost import (
    Price,
    PriceTable,
    PriceTableError,
    Spent,
    call_cost,
    cost_text,
    format_spent,
    format_usd,
    load_price_table,
    node_cost,
    parse_price_table,
    run_cost,
    subflow_costs,
)
from afp_desktop.core.views.inspect import inspect_node
from afp_desktop.core.views.subflow_totals import subflow_tokens
from tests.corpus_util import corpus_path

def fact_rows(model: dict) -> dict:
    """label → value of the readable model's fact rows."""
    return {r["label"]: r["value"] for s in model["sections"] if s.get("style") == "facts" for r in s["rows"]}


TABLE = {"default": {"input": 3, "output": 15}, "models": {"mock": {"input": 0.5, "output": 1.5}}}


def test_a_table_reads_and_writes_back_the_same():
    table = parse_price_table(TABLE)
    assert table.models == {"mock": Price(0.5, 1.5)} and table.default == Price(3.0, 15.0)
    assert parse_price_table(table.as_json()) == table
    assert parse_price_table({"models": {}}).default is None
    assert parse_price_table({"default": {"input": 0, "output": 0}}).models == {}


@pytest.mark.parametrize("data,says", [
    ([], "must be a JSON object"),
    ({"model": {}}, "unknown key 'model'"),
    ({"models": []}, "models: expected an object"),
    ({"models": {"m": {"input": -1, "output": 1}}}, "models['m'].input: must be a non-negative finite number"),
    ({"models": {"m": {"input": 1, "output": float("nan")}}}, "models['m'].output: must be a non-negative finite"),
    ({"models": {"m": {"input": 1, "output": float("inf")}}}, "must be a non-negative finite number"),
    ({"models": {"m": {"input": "1", "output": 1}}}, "models['m'].input: must be a number, got a string"),
    ({"models": {"m": {"input": True, "output": 1}}}, "must be a number, got true/false"),
    ({"models": {"m": {"input": 1}}}, "models['m'].output: missing"),
    ({"models": {"m": {"input": 1, "output": 1, "cached": 2}}}, "unknown key 'cached'"),
    ({"models": {"m": 5}}, "expected an object"),
    ({"models": {"": {"input": 1, "output": 1}}}, "a model name is empty"),
    ({"models": {"x" * 300: {"input": 1, "output": 1}}}, "longer than 200 characters"),
    ({"models": {f"m{i}": {"input": 1, "output": 1} for i in range(501)}}, "more than 500"),
    ({"default": {"input": 2e6, "output": 1}}, "default.input: 2e+06 USD per million tokens is more than"),
])
def test_a_bad_table_is_refused_with_a_message_naming_the_entry(data, says):
    with pytest.raises(PriceTableError) as err:
        parse_price_table(data)
    assert says in str(err.value)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=12))
def test_any_json_is_either_a_table_or_a_price_table_error(data):
    try:
        table = parse_price_table(data)
    except PriceTableError:
        return
    for price in [*table.models.values(), *([table.default] if table.default else [])]:
        assert math.isfinite(price.input) and price.input >= 0 and math.isfinite(price.output) and price.output >= 0


def test_the_arithmetic_and_the_default_row():
    table = parse_price_table(TABLE)
    assert call_cost(table, "mock", 1_000_000, 1_000_000) == pytest.approx(2.0)
    assert call_cost(table, "mock", 122, 9) == pytest.approx(122 * 0.5e-6 + 9 * 1.5e-6)
    assert call_cost(table, "gpt-unknown", 1000, 100) == pytest.approx(1000 * 3e-6 + 100 * 15e-6)  # default row
    no_default = parse_price_table({"models": TABLE["models"]})
    assert call_cost(no_default, "gpt-unknown", 1000, 100) is None
    assert call_cost(None, "mock", 1000, 100) is None
    assert call_cost(table, "mock", -5, float("nan")) == 0.0  # (nonsense token counts count as none)
    node = {"kind": "tool->llm", "llmModel": "gpt-unknown", "tokens": {"in": 10, "out": 1}}
    assert node_cost(no_default, node) == Spent(0.0, 0, 1)
    assert node_cost(table, {**node, "tokens": None}) == Spent()  # not returned yet: nothing to price
    assert node_cost(table, {"kind": "llm->tool"}) == Spent()


def test_formatting():
    assert format_usd(0.0123) == "$0.0123"
    assert format_usd(0.0000095) == "$0.0000095"
    assert format_usd(12.345) == "$12.35" and format_usd(0) == "$0"
    assert format_spent(Spent(0.0123, 2, 0)) == "$0.0123"
    assert format_spent(Spent(0.0123, 2, 1)) == "≥ $0.0123"
    assert format_spent(Spent(0.0, 0, 3)) == "" and format_spent(None) == ""
    assert format_usd(0.0000095, compact=True) == "<$0.0001" and format_usd(0.00012, compact=True) == "$0.0001"
    assert format_spent(Spent(0.0123, 2, 1), compact=True) == "≥$0.0123"


def test_no_table_no_cost_anywhere():
    run = open_run(corpus_path("07-flow-sequence", "trace.json"))
    nodes = run.stepgraph["nodes"]
    assert run_cost(None, nodes) == Spent()
    assert subflow_costs(None, nodes) == {}
    index = next(i for i, n in enumerate(nodes) if n["kind"] == "user->llm")
    rows = fact_rows(inspect_node(run, None, index))
    assert "tokens" in rows and "cost" not in rows


def test_subflow_boxes_cost_what_their_calls_cost():
    run = open_run(corpus_path("07-flow-sequence", "trace.json"))
    nodes = run.stepgraph["nodes"]
    table = parse_price_table(TABLE)
    costs, tokens = subflow_costs(table, nodes), subflow_tokens(nodes)
    assert set(costs) == set(tokens)  # the same boxes
    for index, (tin, tout) in tokens.items():  # every call is "mock": 0.5 / 1.5 per million
        assert costs[index].usd == pytest.approx(tin * 0.5e-6 + tout * 1.5e-6)
    root = next(i for i, n in enumerate(nodes) if n.get("label") == "Run")
    assert costs[root].priced == 4 and costs[root] == run_cost(table, nodes)


def test_time_travel_only_calls_ended_at_the_cursor_are_counted():
    run = open_run(corpus_path("02-react-two-tools", "trace.json"))
    replay = Replay(run)
    facts, table = replay.facts, parse_price_table(TABLE)
    nodes = facts.nodes
    calls = [i for i, n in enumerate(nodes) if n["kind"] in ("user->llm", "tool->llm")]
    first = calls[0]

    def cost_at(position: int) -> Spent:
        n_domain = replay.moment(position).n_domain
        return run_cost(table, nodes, lambda i: facts.ended[i] is not None and facts.ended[i] < n_domain)

    started_at = run.axis.position_of_domain(facts.created[first]) + 1
    ended_at = run.axis.domain_after[facts.ended[first]]
    assert cost_at(started_at) == Spent()  # the call is running: its tokens are not known yet
    assert cost_at(ended_at) == node_cost(table, nodes[first]) and cost_at(ended_at).priced == 1
    assert cost_at(replay.length) == run_cost(table, nodes) and run_cost(table, nodes).priced == len(calls)
    # the inspector says the same: no cost row while the call runs, its cost once it returned
    while_running = inspect_node(run, facts, first, started_at, prices=table)
    once_ended = inspect_node(run, facts, first, ended_at, prices=table)
    rows_running, rows_ended = fact_rows(while_running), fact_rows(once_ended)
    assert "cost" not in rows_running
    assert rows_ended["cost"] == cost_text(table, nodes[first])
    assert rows_ended["cost"].startswith("$0.0000") and "mock: $0.5 in / $1.5 out per M tokens" in rows_ended["cost"]


def test_the_inspector_says_when_a_model_has_no_price():
    table = PriceTable({"other": Price(1, 1)})
    assert cost_text(table, {"kind": "user->llm", "llmModel": "mock", "tokens": {"in": 1, "out": 1}}) \
        == "no price for model 'mock' (View ▸ Token prices…)"


def test_a_price_file_is_read_or_refused_naming_the_file(tmp_path):
    good = tmp_path / "prices.json"
    good.write_text(json.dumps(TABLE))
    assert load_price_table(good) == parse_price_table(TABLE)
    bad = tmp_path / "bad.json"
    bad.write_text('{"models": {"mock": {"input": -1, "output": 1}}}')
    with pytest.raises(PriceTableError, match=r"bad\.json: models\['mock'\]\.input"):
        load_price_table(bad)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(PriceTableError, match="broken.json: not valid JSON"):
        load_price_table(broken)


def test_info_prints_the_cost_with_prices(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(TABLE))
    trace = corpus_path("02-react-two-tools", "trace.json")
    out = subprocess.run([sys.executable, "-m", "afp_desktop", "info", str(trace), "--json", "--prices", str(prices)],
                         capture_output=True, text=True, check=True).stdout
    info = json.loads(out)
    run = open_run(trace)
    assert info["cost"] == {"usd": pytest.approx(run_cost(parse_price_table(TABLE), run.stepgraph["nodes"]).usd),
                            "pricedCalls": 3, "unpricedCalls": 0}
    plain = subprocess.run([sys.executable, "-m", "afp_desktop", "info", str(trace)], capture_output=True, text=True,
                           check=True).stdout
    assert "Cost:" not in plain
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    done = subprocess.run([sys.executable, "-m", "afp_desktop", "info", str(trace), "--prices", str(bad)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--prices" in done.stderr and "bad.json" in done.stderr and "must be a JSON object" in done.stderr
