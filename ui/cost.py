"""Estimated cost of one debate and of each agent, from the price table on the Settings page."""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core import pricing, views
from debate_core.app_settings import AppSettings

esc = views.md_escape


def money(value: float | None, currency: str) -> str:
    if value is None:
        return "-"
    digits = 4 if 0 < abs(value) < 1 else 2
    return f"{value:,.{digits}f} {currency}"


def agent_rows(cost: pricing.DebateCost, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per agent: its tokens and its estimated cost."""
    tokens: dict[str, list[int]] = {}
    for s in steps:
        agent = str(s.get("agent") or s.get("stage") or s.get("step_id"))
        pair = tokens.setdefault(agent, [0, 0])
        pair[0] += int(s.get("input_tokens") or 0)
        pair[1] += int(s.get("output_tokens") or 0)
    return [{"agent": agent, "input tokens": i, "output tokens": o,
             "estimated cost": money(cost.by_agent.get(agent), cost.currency) if agent in cost.by_agent else
             ("-" if i or o else money(0.0, cost.currency))}
            for agent, (i, o) in tokens.items()]


def section(debate: dict[str, Any], steps: list[dict[str, Any]], settings: AppSettings) -> None:
    """The debate's estimated cost, per agent, or where to set prices."""
    st.markdown("**Estimated cost**")
    table = settings.price_table()
    if table is None:
        st.caption("No prices are set. Add each model's price per million tokens on the Settings page to see "
                   "what this debate cost.")
        return
    cost = pricing.debate_cost(table, steps)
    c1, c2 = st.columns([1, 3])
    c1.metric("estimated cost" if cost.complete else "estimated cost (priced steps only)",
              money(cost.total, cost.currency), help=f"{debate.get('input_tokens') or 0} input and "
              f"{debate.get('output_tokens') or 0} output tokens in all, at the prices on the Settings page")
    if not cost.complete:
        c2.warning("No price for " + ", ".join(esc(m) for m in cost.unpriced_models)
                   + ": those steps are not counted. Add the model on the Settings page.")
    c2.dataframe(agent_rows(cost, steps), hide_index=True, key=f"cost-agents-{debate['id']}")
