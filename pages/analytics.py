"""Analytics across debates: rates, rounds, tokens and cost per protocol, trends over time, each
reviewer's activity, and what reviewers' marks say about claims and critique severities. Every
figure is aggregated by SQLite in the store; the page never loads debate rows. Runs made by an
evaluation are left out unless asked for (their figures are on the Evaluations page)."""

from __future__ import annotations

import streamlit as st

from debate_core.present import chart_rules, formatting
from ui import agreement, common, cost, plots

common.page_setup()


def chart_or_sentences(where, decision: chart_rules.Decision, draw, title: str, key: str) -> None:
    """The chart when it says something (with what it leaves out as captions), else the sentences
    that stand in for it under the chart's title."""
    if decision.draw:
        where.plotly_chart(draw(decision.data), key=key)
        for sentence in decision.sentences:
            where.caption(formatting.md_escape(sentence))
    elif decision.sentences:
        where.markdown(f"**{title}**")
        for sentence in decision.sentences:
            where.markdown(formatting.md_escape(sentence))


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
basis = chart_rules.token_basis(tokens_by_model)
label, value, why = basis.headline(overall["tokens_per_debate"])
m[5].metric(label, value, help=why)

st.subheader("By protocol", anchor=False)
table = [
    {
        "protocol": r["protocol"], "debates": r["debates"], "completed": r["completed"], "failed": r["failed"],
        "escalation rate": formatting.pct(r["escalation_rate"]), "override rate": formatting.pct(r["override_rate"]),
        "reviewers agreed": formatting.pct(r["agreement_rate"]), "reviewed": r["reviewed"],
        "rounds to converge": formatting.num(r["rounds_to_converge"]),
        "tokens per debate": basis.cell(r["protocol"], r["tokens_per_debate"]),
    }
    for r in per_protocol
]
st.dataframe(table, hide_index=True, key="a-table")
c1, c2 = st.columns(2)
chart_or_sentences(c1, chart_rules.rates(per_protocol), plots.rates_figure, "Rates by protocol", "a-rates")
chart_or_sentences(c2, chart_rules.rounds(per_protocol),
                   lambda data: plots.per_protocol_bar(data, "Rounds to converge", "rounds"), "Rounds to converge",
                   "a-rounds")
chart_or_sentences(st, chart_rules.tokens(quartiles, basis), plots.tokens_box, "Tokens per debate", "a-tokens")

cost.analytics_section(tokens_by_model, common.app_settings())

st.subheader("Over time", anchor=False)
st.segmented_control("Per", ["day", "week"], key="a-period", default="week")
if trend:
    chart_or_sentences(st, chart_rules.trend(trend, period), lambda data: plots.trend_figure(data, period),
                       f"Debates per {period}", "a-trend")
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

agreement.section(evals)
