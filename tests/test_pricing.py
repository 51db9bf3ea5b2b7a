from __future__ import annotations

import json

import pytest

from debate_core.core.pricing import (
    PriceTableError,
    debate_cost,
    load_price_table,
    parse_price_table,
    price_table_from_env,
)

TABLE = {"currency": "EUR", "models": {
    "gpt-4o-mini": {"input": 0.15, "output": 0.60},
    "gpt-4o": {"input": 2.5, "output": 10},
    "llama3": {"input": 0, "output": 0},
}}


def test_step_cost_is_per_million_tokens() -> None:
    table = parse_price_table(TABLE)
    assert table.currency == "EUR"
    assert table.cost("gpt-4o", 1_000_000, 0) == pytest.approx(2.5)
    assert table.cost("gpt-4o-mini", 2000, 500) == pytest.approx((2000 * 0.15 + 500 * 0.60) / 1e6)
    assert table.cost("llama3", 10_000, 10_000) == 0.0


def test_model_names_match_exactly_then_by_longest_prefix() -> None:
    table = parse_price_table(TABLE)
    assert table.price_for("gpt-4o-mini-2024-07-18") == table.prices["gpt-4o-mini"]
    assert table.price_for("gpt-4o-2024-08-06") == table.prices["gpt-4o"]
    assert table.price_for("llama3:8b") == table.prices["llama3"]
    # A bare prefix without a separator is a different model, not a snapshot of it.
    assert table.price_for("gpt-4omega") is None
    assert table.price_for("smollm2") is None
    assert table.price_for(None) is None


def test_bare_mapping_defaults_to_usd() -> None:
    table = parse_price_table({"m": {"input": 1, "output": 2}})
    assert table.currency == "USD" and table.cost("m", 1_000_000, 1_000_000) == 3.0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "must be a JSON object"),
        ({"models": []}, "field 'models'"),
        ({"m": {"input": 1}}, "models.m needs field 'output'"),
        ({"m": {"input": "cheap", "output": 1}}, "models.m.input must be a number"),
        ({"m": {"input": -1, "output": 1}}, "models.m.input must be a finite number >= 0"),
        ({"m": {"input": True, "output": 1}}, "models.m.input must be a number"),
        ({"m": 3}, "models.m must be an object"),
        ({"currency": "", "models": {}}, "field 'currency'"),
    ],
)
def test_bad_tables_are_refused_naming_the_field(data: object, message: str) -> None:
    with pytest.raises(PriceTableError, match=message):
        parse_price_table(data)


def test_load_from_file_and_env(tmp_path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(TABLE), encoding="utf-8")
    assert load_price_table(path).prices["gpt-4o"].output_per_1m == 10
    assert price_table_from_env({"DEBATE_PRICES": str(path)}).currency == "EUR"
    assert price_table_from_env({}) is None
    assert load_price_table(None) is None
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    with pytest.raises(PriceTableError, match="invalid JSON"):
        load_price_table(bad)
    with pytest.raises(PriceTableError, match="not found"):
        load_price_table(tmp_path / "missing.json")


def test_debate_cost_per_step_agent_and_total_with_unpriced_models_listed() -> None:
    table = parse_price_table(TABLE)
    steps = [
        {"step_id": "r1.answer.nla", "agent": "nla", "model": "gpt-4o", "input_tokens": 1000, "output_tokens": 200},
        {"step_id": "r1.answer.ala", "agent": "ala", "model": "gpt-4o-mini", "input_tokens": 1000,
         "output_tokens": 200},
        # A re-asked call of the same step adds to it.
        {"step_id": "r1.critique.nla.ala", "agent": "nla", "model": "gpt-4o", "input_tokens": 500,
         "output_tokens": 100, "call": 1},
        {"step_id": "r1.critique.nla.ala", "agent": "nla", "model": "gpt-4o", "input_tokens": 500,
         "output_tokens": 100, "call": 2},
        {"step_id": "final.supervisor", "agent": "supervisor", "model": "mystery-model", "input_tokens": 900,
         "output_tokens": 90},
        # A step that never got a reply costs nothing and is not "unpriced".
        {"step_id": "r2.revise.ala", "agent": "ala", "model": "other", "input_tokens": 0, "output_tokens": 0},
    ]
    cost = debate_cost(table, steps)
    big = (1000 * 2.5 + 200 * 10) / 1e6
    small = (1000 * 0.15 + 200 * 0.6) / 1e6
    crit = 2 * (500 * 2.5 + 100 * 10) / 1e6
    assert cost.by_step["r1.answer.nla"] == pytest.approx(big)
    assert cost.by_step["r1.critique.nla.ala"] == pytest.approx(crit)
    assert cost.by_agent == pytest.approx({"nla": big + crit, "ala": small})
    assert cost.total == pytest.approx(big + small + crit)
    assert cost.unpriced_models == ["mystery-model"] and not cost.complete
    d = cost.as_dict()
    assert d["currency"] == "EUR" and d["complete"] is False and "final.supervisor" not in d["by_step"]


def test_debate_cost_reads_store_rows_of_a_real_debate() -> None:
    from debate_core.core.cases import CASES_DIR, load_case
    from debate_core.jobs.debates import run_debate
    from debate_core.store import DebateStore

    store = DebateStore(memory=True)
    result = run_debate(load_case(CASES_DIR / "national_will_formalities.json"), "cross_critique", store=store)
    rows = store.steps(result.debate_id)
    table = parse_price_table({"offline-rules": {"input": 1.0, "output": 2.0}})
    cost = debate_cost(table, rows)
    expected = (result.usage["input_tokens"] * 1.0 + result.usage["output_tokens"] * 2.0) / 1e6
    assert cost.complete and cost.total == pytest.approx(expected)
    assert set(cost.by_agent) >= {"nla", "ala"}
