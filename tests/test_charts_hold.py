"""Charts that hold with little data: a sentence stands in for a chart that would say too little,
time axes are dates, and the offline agents' tokens are called estimates and never priced."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from helpers import open_tab, small_case
from test_annotations import _open as open_debate

from debate_core.core import pricing
from debate_core.core.app_settings import save_prices
from debate_core.present import chart_rules
from debate_core.providers import make_provider
from debate_core.store import DebateStore
from ui import plots


def _row(protocol: str, debates: int = 1, rounds: float | None = 2.0, **rates) -> dict:
    return {"protocol": protocol, "debates": debates, "rounds_to_converge": rounds,
            **{k: rates.get(k) for k in chart_rules.RATE_KEYS}}


def _quartile(protocol: str, debates: int, low: int, median: int, high: int) -> dict:
    return {"protocol": protocol, "debates": debates, "low": low, "q1": low, "median": median, "q3": high,
            "high": high}


# -- The rules, on their own -------------------------------------------------------------------------

def test_rounds_one_debate_is_a_sentence_not_a_chart():
    decision = chart_rules.rounds([_row("cross_critique", rounds=2.0)])
    assert not decision.draw
    assert decision.sentences == ["1 cross critique debate converged in 2 rounds."]
    one_round = chart_rules.rounds([_row("dialectic", rounds=1.0)])
    assert one_round.sentences == ["1 dialectic debate converged in 1 round."]
    several = chart_rules.rounds([_row("panel", debates=4, rounds=2.5), _row("dialectic", rounds=None)])
    assert not several.draw
    assert several.sentences == ["Panel debates that converged took 2.5 rounds on average.",
                                 "No dialectic debate has converged yet."]


def test_rounds_none_converged_is_said_never_drawn_as_zero():
    decision = chart_rules.rounds([_row("cross_critique", rounds=None), _row("panel", rounds=None)])
    assert not decision.draw and decision.sentences[0].startswith("No debate has converged yet")


def test_rounds_chart_leaves_out_protocols_without_a_value():
    decision = chart_rules.rounds([_row("cross_critique", rounds=2.0), _row("dialectic", rounds=None),
                                   _row("panel", rounds=3.0)])
    assert decision.draw
    assert decision.data == {"protocols": ["cross_critique", "panel"], "values": [2.0, 3.0]}
    assert decision.sentences == ["No dialectic debate has converged yet."]
    fig = plots.per_protocol_bar(decision.data, "Rounds to converge", "rounds").to_plotly_json()
    assert list(fig["data"][0]["x"]) == ["cross_critique", "panel"]


def test_rates_need_two_protocols_and_keep_missing_rates_missing():
    one = chart_rules.rates([_row("cross_critique", escalation_rate=1.0)])
    assert not one.draw and "cross critique" in one.sentences[0]
    none = chart_rules.rates([_row("cross_critique")])
    assert not none.draw and none.sentences[0].startswith("No debate has completed")
    two = chart_rules.rates([_row("cross_critique", escalation_rate=0.5, override_rate=None),
                             _row("panel", escalation_rate=1.0, override_rate=0.25)])
    assert two.draw
    # Nobody reviewed a cross-critique debate: its override rate has no bar, not a 0% one.
    assert two.data["override_rate"] == [None, 25.0]
    fig = plots.rates_figure(two.data).to_plotly_json()
    assert list(fig["data"][1]["y"]) == [None, 25.0]


def test_tokens_of_one_offline_debate_are_a_sentence_saying_estimated():
    basis = chart_rules.token_basis([{"protocol": "cross_critique", "model": chart_rules.OFFLINE_MODEL,
                                      "debates": 1, "input_tokens": 6000, "output_tokens": 1626}])
    decision = chart_rules.tokens([_quartile("cross_critique", 1, 7626, 7626, 7626)], basis)
    assert not decision.draw
    assert decision.sentences[0] == "1 cross critique debate used 7,626 tokens (estimated)."
    assert decision.sentences[1] == chart_rules.ESTIMATE_NOTE


def test_tokens_chart_boxes_only_protocols_with_enough_debates():
    basis = chart_rules.token_basis([
        {"protocol": "panel", "model": "gpt-4o", "debates": 6, "input_tokens": 600, "output_tokens": 60},
        {"protocol": "dialectic", "model": "gpt-4o", "debates": 2, "input_tokens": 200, "output_tokens": 20},
        {"protocol": "dialectic", "model": chart_rules.OFFLINE_MODEL, "debates": 1, "input_tokens": 90,
         "output_tokens": 9}])
    decision = chart_rules.tokens([_quartile("dialectic", 3, 99, 110, 120), _quartile("panel", 6, 100, 110, 130)],
                                  basis)
    assert decision.draw
    assert [q["protocol"] for q in decision.data["boxes"]] == ["panel"]
    assert [q["protocol"] for q in decision.data["dots"]] == ["dialectic"]
    assert decision.data["y_title"] == "tokens (offline debates estimated)"
    fig = plots.tokens_box(decision.data).to_plotly_json()
    assert [t["type"] for t in fig["data"]] == ["box", "scatter"]
    dot = fig["data"][1]
    assert (list(dot["y"]), list(dot["error_y"]["array"]), list(dot["error_y"]["arrayminus"])) == ([110], [10], [11])
    # A protocol whose every debate ran offline is marked estimated; a mixed one, part estimated.
    assert basis.cell("dialectic", 110.0) == "110 (part estimated)"
    assert basis.cell("panel", 110.0) == "110"


def test_headline_tokens_leave_offline_estimates_apart():
    offline = {"protocol": "panel", "model": chart_rules.OFFLINE_MODEL, "debates": 2, "input_tokens": 70_000,
               "output_tokens": 10_000}
    real = {"protocol": "panel", "model": "gpt-4o", "debates": 1, "input_tokens": 900, "output_tokens": 100}
    assert chart_rules.token_basis([offline]).headline(40_000) == (
        "tokens per debate", "about 40,000", chart_rules.ESTIMATE_NOTE)
    label, value, why = chart_rules.token_basis([offline, real]).headline(27_000)
    assert (label, value) == ("tokens per debate", "1,000")
    assert "2 offline debates are left out" in why and "40,000" in why
    assert chart_rules.token_basis([real]).headline(1000.0) == ("tokens per debate", "1,000", None)


def test_offline_debates_are_never_priced_even_with_a_price_for_their_model():
    rows = [{"protocol": "panel", "model": chart_rules.OFFLINE_MODEL, "debates": 2, "input_tokens": 10**6,
             "output_tokens": 0},
            {"protocol": "panel", "model": "gpt-4o", "debates": 1, "input_tokens": 10**6, "output_tokens": 0}]
    table = pricing.parse_price_table({chart_rules.OFFLINE_MODEL: {"input": 5, "output": 5},
                                       "gpt-4o": {"input": 2, "output": 8}})
    [panel] = pricing.cost_by_protocol(table, chart_rules.priced_rows(rows))
    assert (panel["cost"], panel["debates"], panel["priced_debates"]) == (2.0, 1, 1)


def test_the_offline_model_name_is_what_the_offline_provider_records():
    assert make_provider("offline").model == chart_rules.OFFLINE_MODEL


def test_a_single_week_is_a_narrow_bar_labelled_with_its_date():
    decision = chart_rules.trend([{"period": "2026-11-23", "debates": 2, "completed": 1, "escalation_rate": 1.0}],
                                 "week")
    assert decision.draw
    data = decision.data
    assert data["x"] == ["2026-11-26T12:00:00"]  # the middle of the week, Monday 23 to Sunday 29
    assert data["ticktext"] == ["week of 23 Nov 2026"] and data["tickvals"] == data["x"]
    start, end = (datetime.fromisoformat(v) for v in data["range"])
    span_ms = (end - start).total_seconds() * 1000
    assert data["width_ms"] / span_ms <= 0.8 / chart_rules.MIN_PERIODS_SHOWN + 1e-9
    assert decision.sentences == ["2 debates started in the week of 23 Nov 2026, 1 completed."]
    fig = plots.trend_figure(data, "week").to_plotly_json()
    assert fig["layout"]["xaxis"]["type"] == "date"
    assert fig["layout"]["xaxis"]["tickformat"] == "%d %b %Y"
    assert fig["data"][0]["width"] == 7 * chart_rules.DAY_MS * 0.8


def test_days_and_many_periods_keep_dates_on_the_axis():
    one_day = chart_rules.trend([{"period": "2026-11-26", "debates": 1, "completed": 1, "escalation_rate": None}],
                                "day")
    assert one_day.data["ticktext"] == ["26 Nov 2026"] and one_day.data["x"] == ["2026-11-26T12:00:00"]
    assert one_day.sentences == ["1 debate started on 26 Nov 2026, 1 completed."]
    many = [{"period": f"2026-03-{d:02d}", "debates": 1, "completed": 1, "escalation_rate": 0.0} for d in range(1, 21)]
    decision = chart_rules.trend(many, "day")
    assert decision.sentences == []
    # Too many bars to label each: the axis picks its date ticks itself, in the same date format.
    assert decision.data["tickvals"] is None
    fig = plots.trend_figure(decision.data, "day").to_plotly_json()
    assert fig["layout"]["xaxis"]["type"] == "date" and "tickvals" not in fig["layout"]["xaxis"]
    with pytest.raises(ValueError, match="period"):
        chart_rules.trend(many, "month")


# -- The Analytics page ------------------------------------------------------------------------------

def _analytics(app):
    app.run()
    app.switch_page("pages/analytics.py").run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _charts(app) -> dict[str, dict]:
    return {c.key: json.loads(c.proto.spec) for c in app.get("plotly_chart")}


def _texts(app) -> list[str]:
    return [e.value.replace("\\", "") for e in [*app.markdown, *app.caption]]


def test_one_offline_debate_shows_sentences_estimates_and_no_cost(app, make_debate, db_path):
    did = make_debate(small_case(), "cross_critique")
    # A price for the offline agents' model name must still not turn their estimates into a cost.
    save_prices(db_path, {chart_rules.OFFLINE_MODEL: {"input": 1.0, "output": 2.0}}, "USD")
    store = DebateStore(db_path)
    debate = store.get_debate(did, with_steps=False)
    store.close()
    assert debate["converged"] and debate["input_tokens"] > 0

    _analytics(app)
    charts = _charts(app)
    # One debate: no rates, rounds or tokens chart; sentences stand in for them.
    assert set(charts) == {"a-trend"}
    texts = _texts(app)
    rounds = debate["rounds"]
    assert f"1 cross critique debate converged in {rounds} round{'s' if rounds != 1 else ''}." in texts
    tokens = debate["input_tokens"] + debate["output_tokens"]
    assert f"1 cross critique debate used {tokens:,} tokens (estimated)." in texts
    assert any(t.startswith("The rates above are those of cross critique") for t in texts)
    metrics = {m.label: m.value for m in app.metric}
    # An estimate, said in the value ("about"), with the reason in the metric's help.
    assert metrics["tokens per debate"] == f"about {tokens:,}"
    table = app.dataframe[0].value.to_dict("records")
    assert table[0]["tokens per debate"] == f"{tokens:,} (estimated)"
    # No cost figure at all, and the reason in words.
    assert not any(label.startswith("estimated cost") for label in metrics)
    assert any("Every debate so far ran on the offline agents" in t for t in texts)
    # The one week is a narrow bar on a date axis, labelled with its date.
    week = charts["a-trend"]["layout"]["xaxis"]
    assert week["type"] == "date" and len(week["ticktext"]) == 1 and week["ticktext"][0].startswith("week of ")
    assert any(t.startswith("1 debate started in the week of ") for t in texts)


def test_several_weeks_are_drawn_on_date_ticks(app, make_debate, monkeypatch):
    import debate_core.store as store_module

    days = iter(["2026-10-05T09:00:00.000Z", "2026-10-14T09:00:00.000Z", "2026-10-28T09:00:00.000Z",
                 "2026-10-29T09:00:00.000Z"])
    stamp = {"now": ""}
    # Only the clock is put back afterwards: the fixtures' own patches (the database the app opens) stay.
    with monkeypatch.context() as clock:
        clock.setattr(store_module, "_now", lambda: stamp["now"])
        for protocol in ("cross_critique", "dialectic", "cross_critique", "dialectic"):
            stamp["now"] = next(days)  # every row of this debate is dated on its day
            make_debate(small_case(), protocol)

    _analytics(app)
    charts = _charts(app)
    assert {"a-rounds", "a-rates", "a-tokens", "a-trend"} <= set(charts)
    trend = charts["a-trend"]
    axis = trend["layout"]["xaxis"]
    assert axis["type"] == "date" and axis["tickformat"] == "%d %b %Y"
    # Weeks of Monday 5, 12 and 26 October; the empty week of the 19th has no bar.
    assert axis["ticktext"] == ["week of 5 Oct 2026", "week of 12 Oct 2026", "week of 26 Oct 2026"]
    bars = trend["data"][0]
    assert bars["x"] == ["2026-10-08T12:00:00", "2026-10-15T12:00:00", "2026-10-29T12:00:00"]
    assert bars["y"] == [1, 1, 2] and bars["width"] == 7 * chart_rules.DAY_MS * 0.8
    assert not any("started in the week of" in t for t in _texts(app))

    app.segmented_control(key="a-period").set_value("day").run()
    assert not app.exception
    day_axis = _charts(app)["a-trend"]["layout"]["xaxis"]
    assert day_axis["type"] == "date"
    assert day_axis["ticktext"] == ["5 Oct 2026", "14 Oct 2026", "28 Oct 2026", "29 Oct 2026"]


def test_offline_debate_page_calls_its_tokens_estimates_not_a_cost(app, make_debate, db_path):
    did = make_debate(small_case(), "cross_critique")
    save_prices(db_path, {chart_rules.OFFLINE_MODEL: {"input": 1.0, "output": 2.0}}, "USD")
    open_tab(open_debate(app, did), "Plots")
    assert not app.exception
    assert any("ran on the offline agents" in c.value and "estimates" in c.value for c in app.caption)
    assert not any(m.label.startswith("estimated cost") for m in app.metric)
