"""Optional cost figures: a price table per model, in currency units per million tokens.

No prices are built in: they change, and a wrong figure is worse than none. A table comes from a
JSON file (`$DEBATE_PRICES` names one) or from the app's settings, in either shape:

    {"currency": "USD", "models": {"gpt-4o-mini": {"input": 0.15, "output": 0.60}}}
    {"gpt-4o-mini": {"input": 0.15, "output": 0.60}}

A model is matched by its exact name, else by the longest table name it starts with followed by
"-", "@" or ":" (so "gpt-4o-mini-2024-07-18" and "llama3:8b" find "gpt-4o-mini" and "llama3").
Steps whose model has no price are listed, never counted as free.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import FileProblem, json_error, read_text_capped

ENV_VAR = "DEBATE_PRICES"
_SEPARATORS = ("-", "@", ":")


class PriceTableError(ValueError):
    """A price table that cannot be used; the message names the file or field."""


@dataclass(frozen=True)
class Price:
    input_per_1m: float
    output_per_1m: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_1m + output_tokens * self.output_per_1m) / 1_000_000


@dataclass(frozen=True)
class PriceTable:
    prices: dict[str, Price]
    currency: str = "USD"

    def price_for(self, model: str | None) -> Price | None:
        if not model:
            return None
        if model in self.prices:
            return self.prices[model]
        matches = [name for name in self.prices if any(model.startswith(name + sep) for sep in _SEPARATORS)]
        return self.prices[max(matches, key=len)] if matches else None

    def cost(self, model: str | None, input_tokens: int, output_tokens: int) -> float | None:
        price = self.price_for(model)
        return None if price is None else price.cost(input_tokens, output_tokens)


def _rate(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PriceTableError(f"{where} must be a number (per million tokens), got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise PriceTableError(f"{where} must be a finite number >= 0, got {value!r}")
    return float(value)


def parse_price_table(data: Any, origin: str = "price table") -> PriceTable:
    if not isinstance(data, Mapping):
        raise PriceTableError(f"{origin}: must be a JSON object, got {type(data).__name__}")
    currency = "USD"
    models: Any = data
    if "models" in data:
        models = data["models"]
        currency = data.get("currency", "USD")
        if not isinstance(currency, str) or not currency.strip():
            raise PriceTableError(f"{origin}: field 'currency' must be a non-empty string")
        if not isinstance(models, Mapping):
            raise PriceTableError(f"{origin}: field 'models' must be an object of model -> prices")
    prices: dict[str, Price] = {}
    for name, entry in models.items():
        where = f"{origin}: models.{name}"
        if not isinstance(entry, Mapping):
            raise PriceTableError(f"{where} must be an object with 'input' and 'output'")
        missing = [k for k in ("input", "output") if k not in entry]
        if missing:
            raise PriceTableError(f"{where} needs field '{missing[0]}'")
        prices[str(name)] = Price(_rate(entry["input"], f"{where}.input"), _rate(entry["output"], f"{where}.output"))
    return PriceTable(prices=prices, currency=currency.strip())


def load_price_table(source: str | Path | Mapping[str, Any] | None) -> PriceTable | None:
    """A table from a file path or an already-loaded mapping; None when there is no source."""
    if source is None or source == "":
        return None
    if isinstance(source, Mapping):
        return parse_price_table(source)
    path = Path(source)
    try:
        data = json.loads(read_text_capped(path, "price table file"))
    except FileProblem as exc:
        raise PriceTableError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise PriceTableError(f"{path}: {json_error(exc)}") from None
    except RecursionError:
        raise PriceTableError(f"{path}: the JSON is nested too deeply to read") from None
    return parse_price_table(data, str(path))


def price_table_from_env(environ: Mapping[str, str] | None = None) -> PriceTable | None:
    return load_price_table((environ if environ is not None else os.environ).get(ENV_VAR))


@dataclass
class DebateCost:
    currency: str
    total: float = 0.0
    by_agent: dict[str, float] = field(default_factory=dict)
    by_step: dict[str, float] = field(default_factory=dict)
    unpriced_models: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when every step's model had a price, so `total` is the whole debate's cost."""
        return not self.unpriced_models

    def as_dict(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "total": round(self.total, 6),
            "complete": self.complete,
            "by_agent": {k: round(v, 6) for k, v in self.by_agent.items()},
            "by_step": {k: round(v, 6) for k, v in self.by_step.items()},
            "unpriced_models": list(self.unpriced_models),
        }


def debate_cost(table: PriceTable, steps: Iterable[Mapping[str, Any]]) -> DebateCost:
    """Cost per step, per agent and in total from step records (`store.steps(...)` rows or alike:
    step_id, agent or stage, model, input_tokens, output_tokens). Re-asked calls of a step add up."""
    out = DebateCost(currency=table.currency)
    unpriced: set[str] = set()
    for row in steps:
        input_tokens = int(row.get("input_tokens") or 0)
        output_tokens = int(row.get("output_tokens") or 0)
        if not input_tokens and not output_tokens:
            continue
        model = row.get("model")
        cost = table.cost(model, input_tokens, output_tokens)
        if cost is None:
            unpriced.add(str(model or "(unknown model)"))
            continue
        step_id = str(row.get("step_id"))
        agent = str(row.get("agent") or row.get("stage") or step_id)
        out.by_step[step_id] = out.by_step.get(step_id, 0.0) + cost
        out.by_agent[agent] = out.by_agent.get(agent, 0.0) + cost
        out.total += cost
    out.unpriced_models = sorted(unpriced)
    return out


def cost_by_protocol(table: PriceTable, rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per protocol, the estimated cost of its debates from rows of (protocol, model, debates,
    input_tokens, output_tokens) as `DebateStore.tokens_by_model` sums them: the total, the mean per
    priced debate, and the models without a price (their debates are not counted)."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = out.setdefault(str(row.get("protocol")), {"protocol": str(row.get("protocol")), "debates": 0,
                                                          "priced_debates": 0, "cost": 0.0, "unpriced_models": []})
        debates = int(row.get("debates") or 0)
        entry["debates"] += debates
        cost = table.cost(row.get("model"), int(row.get("input_tokens") or 0), int(row.get("output_tokens") or 0))
        if cost is None:
            entry["unpriced_models"].append(str(row.get("model") or "(unknown model)"))
            continue
        entry["priced_debates"] += debates
        entry["cost"] += cost
    for entry in out.values():
        entry["cost_per_debate"] = entry["cost"] / entry["priced_debates"] if entry["priced_debates"] else None
        entry["unpriced_models"] = sorted(set(entry["unpriced_models"]))
    return sorted(out.values(), key=lambda e: e["protocol"])
