"""Estimated cost of one debate and of each agent, and of all debates per protocol, from the price
table on the Settings page. The offline agents call no model: their steps and debates cost nothing
and are never priced, even when a price is set for their model name."""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.core import pricing
from debate_core.core.app_settings import AppSettings
from debate_core.engine import budget
from debate_core.engine.runtime import DebateSettings
from debate_core.present import chart_rules, formatting

esc = formatting.md_escape


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
    # Steps without tokens (a reviewer's intervention, a step not yet run) say nothing about the provider.
    used = [s for s in steps if s.get("input_tokens") or s.get("output_tokens")]
    offline = [s for s in used if chart_rules.is_offline_step(s)]
    if offline and len(offline) == len(used):
        st.caption(f"This debate ran on the offline agents: they use no model, so it cost nothing. Its "
                   f"{debate.get('input_tokens') or 0:,} input and {debate.get('output_tokens') or 0:,} output "
                   "tokens are estimates, from the words of each prompt and reply.")
        return
    if offline:
        st.caption(f"{len(offline)} steps ran on the offline agents: they use no model, so they are left out of "
                   "the cost and their tokens are estimates.")
        steps = [s for s in steps if not chart_rules.is_offline_step(s)]
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


def budget_input(run_settings: DebateSettings, provider_name: str, provider_opts: dict[str, Any],
                 settings: AppSettings) -> None:
    """The New debate page's "Token budget for this debate" for the openai provider, with what the
    budget may cost at the Settings page's prices; sets `run_settings.max_total_tokens` and its source.

    A paid server (not on this machine or a private network) starts from the default budget; a local
    one from none, as its calls cost nothing. The background worker applies the same rule
    (debate_core/engine/budget.py), so a field left empty on a paid server still gets the default."""
    if provider_name != "openai":
        return
    # An empty field means the server's configured default URL, else OpenAI's API, as the provider reads it.
    creds = provider_opts.get("server_credentials")
    base_url = provider_opts.get("base_url") or getattr(creds, "default_base_url", "") or None
    paid = budget.is_paid("openai", base_url)
    default = budget.DEFAULT_MAX_TOTAL_TOKENS
    value = st.number_input(
        "Token budget for this debate", min_value=1, step=10_000, value=default if paid else None,
        # One key per kind of server: switching between a paid and a local URL starts from its own default.
        key=f"nd-budget-{'paid' if paid else 'local'}",
        placeholder=f"empty: the default, {default:,} tokens" if paid else "no budget",
        help="Before each model call the debate checks its tokens so far plus the next prompt against this. "
             "At the budget it stops as failed, keeping every step, and can be resumed with a higher budget: "
             "python -m debate_core resume ID --max-total-tokens N.")
    tokens = int(value) if value else None
    run_settings.max_total_tokens = tokens
    run_settings.budget_source = None if tokens is None else ("default" if paid and tokens == default else "set")
    shown = tokens or (default if paid else None)
    if shown is None:
        st.caption("No budget: this server is on this machine or a private network, so its calls cost nothing. "
                   "Set one to bound the debate anyway.")
        return
    kind = "the default for a paid model" if paid and shown == default else "set for this debate"
    model = str(provider_opts.get("model") or "").strip()
    table = settings.price_table()
    cost = budget.budget_cost(shown, [model] if model else [], table)
    if cost is not None and table is not None:
        st.caption(f"{shown:,} tokens ({kind}). Estimated cost of the budget: at most "
                   f"{esc(money(cost, table.currency))}, every token at the higher of {esc(model)}'s input and "
                   "output prices on the Settings page.")
    elif not model:
        st.caption(f"{shown:,} tokens ({kind}). Enter the model to see what the budget may cost.")
    else:
        st.caption(f"{shown:,} tokens ({kind}). No price for {esc(model)} on the Settings page: add one to see "
                   "what the budget may cost.")


def analytics_section(tokens_by_model: list[dict[str, Any]], settings: AppSettings) -> None:
    """The Analytics page's estimated cost of all debates, per protocol, from `store.tokens_by_model`
    rows; the offline agents' debates are left out and said to be."""
    st.subheader("Estimated cost", anchor=False)
    basis = chart_rules.token_basis(tokens_by_model)
    offline_note = (f"{basis.offline_debates:,} offline debate{'' if basis.offline_debates == 1 else 's'} left out: "
                    "the offline agents use no model, so they cost nothing, and their tokens are estimates.")
    if basis.all_offline:
        st.caption("Every debate so far ran on the offline agents: they use no model, so they cost nothing. "
                   "Their token counts are estimates.")
        return
    table = settings.price_table()
    if table is None:
        st.caption("No prices are set. Add each model's price per million tokens on the Settings page to see "
                   "what the debates cost.")
        return
    costs = pricing.cost_by_protocol(table, chart_rules.priced_rows(tokens_by_model))
    cur = table.currency
    total = sum(c["cost"] for c in costs)
    unpriced = sorted({m for c in costs for m in c["unpriced_models"]})
    st.metric("estimated cost of all debates" + (" (priced models only)" if unpriced else ""),
              money(total, cur), help="each debate's tokens at the price of the model it was run with")
    if unpriced:
        st.caption("No price for " + ", ".join(esc(m) for m in unpriced) + ": their debates are not counted.")
    if basis.offline_debates:
        st.caption(offline_note)
    st.dataframe([{"protocol": c["protocol"], "debates": c["debates"], "priced debates": c["priced_debates"],
                   "estimated cost": money(c["cost"], cur),
                   "per debate": money(c["cost_per_debate"], cur)} for c in costs],
                 hide_index=True, key="a-cost")
