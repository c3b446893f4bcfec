"""What the LLM calls cost, from their tokens and a price table the user gives. Pure, no Qt.

The price table is JSON, in US dollars per million tokens, per model name as the LLM events carry it
(`llmModel` on the StepGraph's LLM cards), with an optional default row for every other model:

    {"default": {"input": 3.0, "output": 15.0},
     "models": {"claude-sonnet-4-5": {"input": 3.0, "output": 15.0}, "mock-1": {"input": 0.5, "output": 1.5}}}

A call's cost is `tokens in × input / 1e6 + tokens out × output / 1e6`. A call whose model has no row and no
default has no price: totals then say they are a lower bound ("≥ $0.0123"). No table, no cost anywhere.
Time travel is the caller's: it passes only the calls that have ended at the cursor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

LLM_KINDS = ("user->llm", "tool->llm")
MAX_MODELS = 500
MAX_NAME = 200
MAX_PRICE = 1_000_000.0  # USD per million tokens: far above any real price, low enough to stay finite in sums
MAX_FILE_BYTES = 1 << 20


class PriceTableError(ValueError):
    """A price table that cannot be used; the message says where and what is wrong."""


@dataclass(frozen=True, slots=True)
class Price:
    input: float   # USD per million input tokens
    output: float  # USD per million output tokens

    def as_json(self) -> dict:
        return {"input": self.input, "output": self.output}


@dataclass(frozen=True)
class PriceTable:
    models: dict[str, Price] = field(default_factory=dict)
    default: Price | None = None

    def price_for(self, model: object) -> Price | None:
        """The model's own row, else the default row, else None."""
        if isinstance(model, str) and model in self.models:
            return self.models[model]
        return self.default

    def as_json(self) -> dict:
        out: dict[str, Any] = {}
        if self.default is not None:
            out["default"] = self.default.as_json()
        out["models"] = {name: price.as_json() for name, price in self.models.items()}
        return out


def _price(value: object, where: str) -> Price:
    if not isinstance(value, dict):
        raise PriceTableError(f"{where}: expected an object {{\"input\": …, \"output\": …}}, got {_kind(value)}")
    unknown = sorted(str(k) for k in value if k not in ("input", "output"))
    if unknown:
        raise PriceTableError(f"{where}: unknown key {unknown[0]!r} (only \"input\" and \"output\", "
                              "in USD per million tokens)")
    numbers = []
    for key in ("input", "output"):
        if key not in value:
            raise PriceTableError(f"{where}.{key}: missing (USD per million {key} tokens)")
        number = value[key]
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise PriceTableError(f"{where}.{key}: must be a number, got {_kind(number)}")
        if not math.isfinite(number) or number < 0:
            raise PriceTableError(f"{where}.{key}: must be a non-negative finite number, got {number!r}")
        if number > MAX_PRICE:
            raise PriceTableError(f"{where}.{key}: {number:g} USD per million tokens is more than {MAX_PRICE:,.0f}")
        numbers.append(float(number))
    return Price(numbers[0], numbers[1])


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), type(value).__name__)


def parse_price_table(data: object) -> PriceTable:
    """A price table from its JSON value; PriceTableError naming the entry and what is wrong."""
    if not isinstance(data, dict):
        raise PriceTableError(f"the price table must be a JSON object with \"models\" and/or \"default\", "
                              f"got {_kind(data)}")
    unknown = sorted(str(k) for k in data if k not in ("models", "default"))
    if unknown:
        raise PriceTableError(f"unknown key {unknown[0]!r} (a price table has \"models\" and \"default\")")
    default = None if data.get("default") is None else _price(data["default"], "default")
    models_value = data.get("models", {})
    if models_value is None:
        models_value = {}
    if not isinstance(models_value, dict):
        raise PriceTableError(f"models: expected an object mapping model names to prices, got {_kind(models_value)}")
    if len(models_value) > MAX_MODELS:
        raise PriceTableError(f"models: {len(models_value):,} models is more than {MAX_MODELS}")
    models: dict[str, Price] = {}
    for name, value in models_value.items():
        if not isinstance(name, str) or not name.strip():
            raise PriceTableError("models: a model name is empty")
        if len(name) > MAX_NAME:
            raise PriceTableError(f"models: the model name {name[:40]!r}… is longer than {MAX_NAME} characters")
        models[name] = _price(value, f"models[{name!r}]")
    return PriceTable(models, default)


def load_price_table(path: str | Path) -> PriceTable:
    """A price table from a JSON file (the command line's --prices); PriceTableError naming the file."""
    from afp_desktop.core.formats.source import read_regular
    from afp_desktop.core.jsonx import jsonio
    from afp_desktop.core.problems import LoadError

    try:
        raw = read_regular(path, MAX_FILE_BYTES)
    except LoadError as err:  # (its message names the file)
        raise PriceTableError(str(err)) from None
    try:
        data = jsonio.loads(raw)
    except (jsonio.JSONSyntaxError, RecursionError, MemoryError) as err:
        raise PriceTableError(f"{path}: not valid JSON ({err})") from None
    try:
        return parse_price_table(data)
    except PriceTableError as err:
        raise PriceTableError(f"{path}: {err}") from None


# ------------------------------------------------------------------------------------------------ cost


@dataclass(frozen=True, slots=True)
class Spent:
    usd: float = 0.0
    priced: int = 0     # calls with a price
    unpriced: int = 0   # calls whose model has no row (and no default)

    def __add__(self, other: "Spent") -> "Spent":
        return Spent(self.usd + other.usd, self.priced + other.priced, self.unpriced + other.unpriced)


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return 0.0
    return float(value)


def call_cost(table: PriceTable | None, model: object, tokens_in: object, tokens_out: object) -> float | None:
    """USD of one call, or None without a price for its model."""
    price = table.price_for(model) if table is not None else None
    if price is None:
        return None
    return _number(tokens_in) * price.input / 1e6 + _number(tokens_out) * price.output / 1e6


def node_cost(table: PriceTable | None, node: object) -> Spent:
    """The cost of one StepGraph LLM card (its tokens are known once the call returned); Spent() otherwise."""
    if table is None or not isinstance(node, dict) or node.get("kind") not in LLM_KINDS:
        return Spent()
    tokens = node.get("tokens")
    if not isinstance(tokens, dict):
        return Spent()
    usd = call_cost(table, node.get("llmModel"), tokens.get("in"), tokens.get("out"))
    return Spent(0.0, 0, 1) if usd is None else Spent(usd, 1, 0)


def cost_of(table: PriceTable | None, nodes: list, indices: Iterable[int]) -> Spent:
    total = Spent()
    for i in indices:
        if 0 <= i < len(nodes):
            total = total + node_cost(table, nodes[i])
    return total


def run_cost(table: PriceTable | None, nodes: list, ended: Callable[[int], bool] | None = None) -> Spent:
    """The cost of every LLM call of the run that has ended (`ended(i)`; all of them without it)."""
    if table is None:
        return Spent()
    return cost_of(table, nodes, (i for i, n in enumerate(nodes)
                                  if isinstance(n, dict) and n.get("kind") in LLM_KINDS and (ended is None or ended(i))))


def subflow_costs(table: PriceTable | None, nodes: list) -> dict[int, Spent]:
    """Subflow node index → the cost of the LLM calls inside it (as subflow_totals.subflow_tokens counts them)."""
    if table is None:
        return {}
    totals: dict[int, Spent] = {}
    open_subflows: list[tuple[int, tuple, float]] = []
    for i, node in enumerate(nodes):
        if not isinstance(node, dict):
            continue
        path = tuple(node["subflowPath"]) if isinstance(node.get("subflowPath"), list) else ()
        start = node.get("startOffsetMs")
        start = float(start) if isinstance(start, (int, float)) and not isinstance(start, bool) else -math.inf
        if open_subflows and any(end < start for _, _, end in open_subflows):
            open_subflows = [entry for entry in open_subflows if entry[2] >= start]
        kind = node.get("kind")
        if kind == "subflow":
            end = node.get("endOffsetMs")
            open_subflows.append((i, path, float(end) if isinstance(end, (int, float)) and not isinstance(end, bool)
                                  else math.inf))
        elif kind in LLM_KINDS:
            spent = node_cost(table, node)
            if not spent.priced and not spent.unpriced:
                continue
            for index, sub_path, _end in open_subflows:
                if path[: len(sub_path)] == sub_path:
                    totals[index] = totals.get(index, Spent()) + spent
    return totals


def format_usd(usd: float, compact: bool = False) -> str:
    """"$0.0123" below a dollar (four decimals: a call is often a fraction of a cent), "$12.35" above. A smaller
    amount keeps two significant digits ("$0.0000095") rather than reading "$0.0000"; `compact` (a subflow box's
    one line) says "<$0.0001" instead."""
    if usd >= 1:
        return f"${usd:,.2f}"
    if usd <= 0:
        return "$0"
    if usd >= 0.001 or (compact and usd >= 0.0001):
        return f"${usd:.4f}"
    if compact:
        return "<$0.0001"
    decimals = -math.floor(math.log10(usd)) + 1
    if decimals > 10:
        return "< $0.0000000001"
    return f"${usd:.{decimals}f}"


def format_spent(spent: Spent | None, compact: bool = False) -> str:
    """"$0.0123"; "≥ $0.0123" when some calls have no price; "" when none has one."""
    if spent is None or not spent.priced:
        return ""
    text = format_usd(spent.usd, compact)
    return f"≥{'' if compact else ' '}{text}" if spent.unpriced else text


def cost_text(table: PriceTable | None, node: dict) -> str:
    """What the inspector says of an LLM card's cost (its tokens known): "$0.0123 (mock-1: $0.5 in / $1.5 out
    per M tokens)", or that its model has no price."""
    model = node.get("llmModel")
    if table is None:
        return ""
    price = table.price_for(model)
    spent = node_cost(table, node)
    if price is None or not spent.priced:
        return f"no price for model {model!r} (View ▸ Token prices…)" if price is None else "–"
    row = "default price" if not (isinstance(model, str) and model in table.models) else str(model)
    return f"{format_usd(spent.usd)}  ({row}: ${price.input:g} in / ${price.output:g} out per M tokens)"
