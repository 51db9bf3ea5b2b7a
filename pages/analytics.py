"""Analytics across debates: escalation and override rates, rounds to converge, tokens, agreement."""

from __future__ import annotations

import streamlit as st

from debate_core import views
from ui import common, plots

common.page_setup()

st.title("Analytics", anchor=False)
store = common.read_store()
try:
    per_protocol = store.analytics()
    overall = store.analytics_overall()
    quartiles = store.token_quartiles()
finally:
    store.close()

if not overall["debates"]:
    st.info("No debates yet. Run a few on the New debate page (the offline provider needs no key) and "
            "review them; the rates and token use across debates show here.")
    st.stop()

m = st.columns(6)
m[0].metric("debates", overall["debates"], help=f"{overall['completed']} completed, {overall['failed']} failed, "
            f"{overall['running']} running")
m[1].metric("escalation rate", views.pct(overall["escalation_rate"]),
            help="share of completed debates the moderator flagged for human review")
m[2].metric("override rate", views.pct(overall["override_rate"]),
            help="share of reviewed debates whose verdict was overridden")
m[3].metric("reviewers agreed", views.pct(overall["agreement_rate"]),
            help="share of reviewed debates whose verdict was accepted or approved")
m[4].metric("rounds to converge", views.num(overall["rounds_to_converge"]),
            help="mean rounds of the debates that converged")
m[5].metric("tokens per debate", views.num(overall["tokens_per_debate"], 0))

st.subheader("By protocol", anchor=False)
table = [
    {
        "protocol": r["protocol"], "debates": r["debates"], "completed": r["completed"], "failed": r["failed"],
        "escalation rate": views.pct(r["escalation_rate"]), "override rate": views.pct(r["override_rate"]),
        "reviewers agreed": views.pct(r["agreement_rate"]), "reviewed": r["reviewed"],
        "rounds to converge": views.num(r["rounds_to_converge"]),
        "tokens per debate": views.num(r["tokens_per_debate"], 0),
    }
    for r in per_protocol
]
st.dataframe(table, hide_index=True, key="a-table")
c1, c2 = st.columns(2)
c1.plotly_chart(plots.rates_figure(per_protocol), key="a-rates")
c2.plotly_chart(plots.per_protocol_bar(per_protocol, "rounds_to_converge", "Rounds to converge", "rounds"),
                key="a-rounds")
st.plotly_chart(plots.tokens_box(quartiles), key="a-tokens")
