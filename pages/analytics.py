"""Analytics across debates: rates, rounds, tokens and cost per protocol, trends over time, each
reviewer's activity, and what reviewers' marks say about claims and critique severities. Every
figure is aggregated by SQLite in the store; the page never loads debate rows. Runs made by an
evaluation are left out unless asked for (their figures are on the Evaluations page)."""

from __future__ import annotations

import streamlit as st

from debate_core.core import pricing
from debate_core.present import formatting
from ui import common, cost, plots

common.page_setup()

st.title("Analytics", anchor=False)
evals = st.checkbox("Include evaluation runs", value=False, key="a-evaluations",
                    help="The debates an evaluation ran are kept apart from real work; their figures are on the "
                         "Evaluations page.")
store = common.read_store()
try:
    per_protocol = store.analytics(include_evaluations=evals)
    overall = store.analytics_overall(include_evaluations=evals)
    quartiles = store.token_quartiles(include_evaluations=evals)
    period = st.session_state.get("a-period") or "week"
    trend = store.trends(period, include_evaluations=evals)
    reviewers = store.reviewer_activity()
    severities = store.severity_confirmation()
    claim_labels = store.claim_labels_by_protocol(include_evaluations=evals)
    tokens_by_model = store.tokens_by_model(include_evaluations=evals)
finally:
    store.close()

if not overall["debates"]:
    st.info("No debates yet. Run a few on the New debate page (the offline provider needs no key) and "
            "review them; the rates and token use across debates show here.")
    st.stop()

m = st.columns(6)
m[0].metric("debates", overall["debates"], help=f"{overall['completed']} completed, {overall['failed']} failed, "
            f"{overall['running']} running")
m[1].metric("escalation rate", formatting.pct(overall["escalation_rate"]),
            help="share of completed debates the moderator flagged for human review")
m[2].metric("override rate", formatting.pct(overall["override_rate"]),
            help="share of reviewed debates whose verdict was overridden")
m[3].metric("reviewers agreed", formatting.pct(overall["agreement_rate"]),
            help="share of reviewed debates whose verdict was accepted or approved")
m[4].metric("rounds to converge", formatting.num(overall["rounds_to_converge"]),
            help="mean rounds of the debates that converged")
m[5].metric("tokens per debate", formatting.num(overall["tokens_per_debate"], 0))

st.subheader("By protocol", anchor=False)
table = [
    {
        "protocol": r["protocol"], "debates": r["debates"], "completed": r["completed"], "failed": r["failed"],
        "escalation rate": formatting.pct(r["escalation_rate"]), "override rate": formatting.pct(r["override_rate"]),
        "reviewers agreed": formatting.pct(r["agreement_rate"]), "reviewed": r["reviewed"],
        "rounds to converge": formatting.num(r["rounds_to_converge"]),
        "tokens per debate": formatting.num(r["tokens_per_debate"], 0),
    }
    for r in per_protocol
]
st.dataframe(table, hide_index=True, key="a-table")
c1, c2 = st.columns(2)
c1.plotly_chart(plots.rates_figure(per_protocol), key="a-rates")
c2.plotly_chart(plots.per_protocol_bar(per_protocol, "rounds_to_converge", "Rounds to converge", "rounds"),
                key="a-rounds")
st.plotly_chart(plots.tokens_box(quartiles), key="a-tokens")

st.subheader("Estimated cost", anchor=False)
table_prices = common.app_settings().price_table()
if table_prices is None:
    st.caption("No prices are set. Add each model's price per million tokens on the Settings page to see "
               "what the debates cost.")
else:
    costs = pricing.cost_by_protocol(table_prices, tokens_by_model)
    cur = table_prices.currency
    total = sum(c["cost"] for c in costs)
    unpriced = sorted({m for c in costs for m in c["unpriced_models"]})
    st.metric("estimated cost of all debates" + (" (priced models only)" if unpriced else ""),
              cost.money(total, cur), help="each debate's tokens at the price of the model it was run with")
    if unpriced:
        st.caption("No price for " + ", ".join(formatting.md_escape(m) for m in unpriced)
                   + ": their debates are not counted.")
    st.dataframe([{"protocol": c["protocol"], "debates": c["debates"], "priced debates": c["priced_debates"],
                   "estimated cost": cost.money(c["cost"], cur),
                   "per debate": cost.money(c["cost_per_debate"], cur)} for c in costs],
                 hide_index=True, key="a-cost")

st.subheader("Over time", anchor=False)
st.segmented_control("Per", ["day", "week"], key="a-period", default="week")
if trend:
    st.plotly_chart(plots.trend_figure(trend, period), key="a-trend")
    with st.expander(f"Per {period} as a table"):
        st.dataframe([{period: r["period"], "debates": r["debates"], "completed": r["completed"],
                       "flagged for a human": r["escalated"], "escalation rate": formatting.pct(r["escalation_rate"])}
                      for r in trend], hide_index=True, key="a-trend-table")

st.subheader("Reviewers", anchor=False)
if not reviewers:
    st.caption("No reviewer has acted yet.")
else:
    st.dataframe([{"reviewer": r["reviewer"], "review actions": r["actions"], "accepted": r["accepts"],
                   "overrides": r["overrides"], "escalations": r["escalations"], "approvals": r["approvals"],
                   "claim marks": r["claim_annotations"], "critique marks": r["critique_annotations"],
                   "last active": (r["last"] or "")[:16].replace("T", " ")} for r in reviewers],
                 hide_index=True, key="a-reviewers")

st.subheader("Reviewers' marks", anchor=False)
if not severities and not claim_labels:
    st.caption("No claim or critique has been marked yet: reviewers mark them on the Claims and Critiques tabs "
               "of a debate, or with python -m debate_core annotate.")
c3, c4 = st.columns(2)
if severities:
    c3.markdown("**Critique severities reviewers confirmed**")
    c3.dataframe([{"critic's severity": r["severity"], "judged": r["judged"], "confirmed": r["confirmed"],
                   "other severity": r["regraded"], "invalid": r["rejected"],
                   "confirmed share": formatting.pct(r["confirmed_share"])} for r in severities],
                 hide_index=True, key="a-severities")
    c3.caption("Confirmed: marked valid with the critic's severity (or none given). Each reviewer's latest mark "
               "on a critique counts.")
if claim_labels:
    c4.markdown("**Claims marked incorrect, per protocol**")
    c4.dataframe([{"protocol": r["protocol"], "claims marked": r["labelled"], "incorrect": r["incorrect"],
                   "unsupported": r["unsupported"], "needs a source": r["needs_source"], "correct": r["correct"],
                   "incorrect share": formatting.pct(r["incorrect_share"])} for r in claim_labels],
                 hide_index=True, key="a-claim-labels")
