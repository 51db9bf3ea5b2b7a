"""Analytics aggregated in SQL (trends, reviewers, reviewers' marks) and cost figures from a price table."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import open_tab
from test_annotations import _open as open_debate
from test_annotations import debate_in

from debate_core.core import pricing
from debate_core.core.app_settings import AppSettings, load_settings, save_prices, save_settings
from debate_core.core.cases import load_case
from debate_core.store import DebateStore
from ui.prices import rows_to_prices


def _open(app, page: str, reviewer: str = "ann"):
    app.run()
    app.session_state["reviewer_name"] = reviewer
    app.switch_page(page).run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _table(app, column: str):
    return next(df.value for df in app.dataframe if column in df.value.columns)


RULE = "enforceable(C) :- contract(C), offer(C), acceptance(C)."
# A dialectic debate the critic settles at once: thesis, then an accepting antithesis.
DIALECTIC = {"format": "debate-cassette/1", "protocol": "dialectic", "calls": [
    {"step": "r1.thesis.generator", "output": {"rule": RULE, "reasoning": "from E1", "confidence": 0.6}},
    {"step": "r1.antithesis.critic", "output": {"issues": [], "edge_cases": [], "contradictions": [],
                                                 "recommendation": "accept", "argument": "Sound."}}]}


def _turn(message: str, point: str) -> dict:
    return {"speaker": "x", "stance": "y", "planning": "plan", "reflection": "reflect", "message": message,
            "key_points": [point]}


# A one-round persona panel on the English sample case.
PANEL_CASE = Path(__file__).resolve().parent.parent / "data" / "cases" / "panel_laptop_review.json"
PANEL = {"format": "debate-cassette/1", "protocol": "panel", "calls": [
    {"step": "r1.turn.analyst", "output": _turn("The keyboard failed (E1).", "keyboard: negative")},
    {"step": "r1.turn.critic", "output": _turn("Support never answered (E2).", "support: negative")},
    {"step": "r1.turn.empath", "output": _turn("The screen is lovely (E4).", "screen: positive")},
    {"step": "final.judge", "output": {"winner": "critic", "consensus": "Mixed overall.", "key_agreements": [],
                                       "key_disagreements": [], "rationale": "Both sides have a point."}}]}


def test_marks_trends_and_reviewers_are_aggregated_in_sql(app, db_path):
    a = debate_in(db_path)
    b = debate_in(db_path)
    debate_in(db_path, protocol="dialectic", data=DIALECTIC)
    save_settings(AppSettings(supervisors=["sue"]), db_path)
    store = DebateStore(db_path)
    crit = {(k["critic"], k["target"], k["critique_id"]): k["severity"] for k in store.critiques(a)}
    assert crit[("ala", "nla", "K1")] == "CRITICAL"
    assert crit[("nla", "ala", "K1")] == crit[("nla", "ala", "K2")] == "MAJOR"
    store.annotate(a, kind="critique", ref="ala->nla:K1", label="valid", reviewer="ann")  # confirmed
    store.annotate(b, kind="critique", ref="ala->nla:K1", label="valid", severity="MINOR", reviewer="bob")
    store.annotate(a, kind="critique", ref="nla->ala:K1", label="invalid", reviewer="ann")
    store.annotate(a, kind="critique", ref="nla->ala:K2", label="invalid", reviewer="bob")
    # A reviewer's later mark on the same item replaces theirs in the figures.
    store.annotate(a, kind="critique", ref="nla->ala:K2", label="valid", reviewer="BOB")
    store.annotate(a, kind="claim", ref="nla.C1", label="incorrect", reviewer="ann")
    store.annotate(a, kind="claim", ref="nla.C1", label="correct", reviewer="bob")  # one claim, incorrect once
    store.annotate(b, kind="claim", ref="ala.C2", label="needs_source", reviewer="ann")
    store.review(a, action="accept", reviewer="Ann")
    store.review(b, action="override", reviewer="bob", answer="Other.", reason="Wrong share.")

    sev = {r["severity"]: r for r in store.severity_confirmation()}
    assert (sev["CRITICAL"]["judged"], sev["CRITICAL"]["confirmed"], sev["CRITICAL"]["regraded"]) == (2, 1, 1)
    assert sev["CRITICAL"]["confirmed_share"] == pytest.approx(0.5)
    assert (sev["MAJOR"]["judged"], sev["MAJOR"]["confirmed"], sev["MAJOR"]["rejected"]) == (2, 1, 1)
    claims = store.claim_labels_by_protocol()
    assert [(r["protocol"], r["labelled"], r["incorrect"], r["needs_source"]) for r in claims] == [
        ("cross_critique", 2, 1, 1)]
    assert claims[0]["incorrect_share"] == pytest.approx(0.5)
    people = {r["reviewer"].lower(): r for r in store.reviewer_activity()}
    assert (people["ann"]["actions"], people["ann"]["accepts"], people["ann"]["annotations"]) == (1, 1, 4)
    assert (people["bob"]["actions"], people["bob"]["overrides"], people["bob"]["annotations"]) == (1, 1, 4)
    assert len(people) == 2  # "bob" and "BOB", "ann" and "Ann" are one reviewer each
    day = store.trends("day")
    assert sum(r["debates"] for r in day) == 3 and len(day) <= 2
    week = store.trends("week")
    assert sum(r["completed"] for r in week) == 3
    assert sum(r["escalated"] for r in week) == sum(
        d["needs_human_review"] for d in store.list_debates())
    # The week starts on a Monday.
    import datetime as dt
    assert all(dt.date.fromisoformat(r["period"]).weekday() == 0 for r in week)
    with pytest.raises(ValueError, match="period"):
        store.trends("month")
    store.close()

    _open(app, "pages/analytics.py")
    table = _table(app, "critic's severity")
    assert table.set_index("critic's severity").loc["CRITICAL", "confirmed share"] == "50%"
    assert _table(app, "incorrect share")["incorrect"].tolist() == [1]
    reviewers = _table(app, "review actions").set_index("reviewer")
    assert reviewers.loc[:, "claim marks"].sum() == 3 and reviewers.loc[:, "critique marks"].sum() == 5
    app.segmented_control(key="a-period").set_value("day").run()
    assert not app.exception
    assert _table(app, "day")["debates"].sum() == 3


PRICES = {"replay": {"input": 2.0, "output": 10.0}}


def test_price_table_gives_debate_agent_and_protocol_costs(app, db_path):
    did = debate_in(db_path)
    debate_in(db_path, case=load_case(PANEL_CASE), protocol="panel", data=PANEL, rounds=1)
    # No prices: the debate page says where to set them.
    open_tab(open_debate(app, did), "Plots")
    assert any("No prices are set" in c.value for c in app.caption)

    save_prices(db_path, rows_to_prices([{"model": "replay", "input": 2.0, "output": 10.0},
                                          {"model": "", "input": None, "output": float("nan")}]), "EUR")
    assert load_settings(db_path).prices == PRICES
    store = DebateStore(db_path, readonly=True)
    debate = store.get_debate(did)
    rows = store.tokens_by_model()
    store.close()
    assert debate["input_tokens"] > 0 and debate["output_tokens"] > 0
    expected = (debate["input_tokens"] * 2.0 + debate["output_tokens"] * 10.0) / 1e6
    open_tab(open_debate(app, did), "Plots")
    metric = next(m for m in app.metric if m.label == "estimated cost")
    assert metric.value == f"{expected:,.4f} EUR"
    agents = _table(app, "estimated cost").set_index("agent")
    by_agent = pricing.debate_cost(pricing.parse_price_table({"currency": "EUR", "models": PRICES}), debate["steps"])
    assert set(agents.index) == {"nla", "ala", "supervisor"}
    assert agents.loc["nla", "estimated cost"] == f"{by_agent.by_agent['nla']:,.4f} EUR"
    assert sum(by_agent.by_agent.values()) == pytest.approx(expected)

    costs = {c["protocol"]: c for c in pricing.cost_by_protocol(load_settings(db_path).price_table(), rows)}
    assert costs["cross_critique"]["cost"] == pytest.approx(expected)
    _open(app, "pages/analytics.py")
    per_protocol = _table(app, "priced debates").set_index("protocol")
    assert per_protocol.loc["cross_critique", "estimated cost"] == f"{expected:,.4f} EUR"
    total = next(m for m in app.metric if m.label.startswith("estimated cost of all debates"))
    assert total.value == f"{sum(c['cost'] for c in costs.values()):,.4f} EUR"

    # A model without a price is named, never counted as free.
    save_prices(db_path, {"gpt-4o": {"input": 2.5, "output": 10}}, "USD")
    open_tab(open_debate(app, did), "Plots")
    assert any("No price for replay" in w.value.replace("\\", "") for w in app.warning)


def test_price_rows_are_checked():
    with pytest.raises(ValueError, match="needs both"):
        rows_to_prices([{"model": "gpt-4o", "input": 1.0, "output": None}])
    with pytest.raises(ValueError, match="no model name"):
        rows_to_prices([{"model": " ", "input": 1.0, "output": 2.0}])
    with pytest.raises(ValueError, match="listed twice"):
        rows_to_prices([{"model": "m", "input": 1, "output": 2}, {"model": "m", "input": 1, "output": 2}])
    with pytest.raises(ValueError, match=">= 0"):
        AppSettings(prices={"m": {"input": -1, "output": 2}})
