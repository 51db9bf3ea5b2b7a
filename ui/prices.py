"""The price table on the Settings page: per model, input and output prices per million tokens.

The table gives every debate and agent an estimated cost (ui/cost.py, the Analytics page). It is
saved in the settings file next to the database, apart from the main settings form.
"""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from debate_core.core.app_settings import AppSettings, AppSettingsError, save_prices
from debate_core.present import formatting
from ui import common

FLASH = "prices-flash"


def _number(value: Any) -> float | None:
    """An edited cell as a number; an emptied cell comes back as None or NaN."""
    if value is None or value == "":
        return None
    number = float(value)
    return None if math.isnan(number) else number


def rows_to_prices(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """The edited table as a price mapping; blank rows are dropped, a half-filled row is an error."""
    prices: dict[str, dict[str, float]] = {}
    for n, row in enumerate(rows, start=1):
        model = str(row.get("model") or "").strip()
        rates = (_number(row.get("input")), _number(row.get("output")))
        if not model and all(r is None for r in rates):
            continue
        if not model:
            raise AppSettingsError(f"row {n} has prices but no model name")
        if any(r is None for r in rates):
            raise AppSettingsError(f"model {model!r} needs both an input and an output price")
        if model in prices:
            raise AppSettingsError(f"model {model!r} is listed twice")
        prices[model] = {"input": float(rates[0]), "output": float(rates[1])}
    return prices


def editor(current: AppSettings) -> None:
    st.subheader("Prices", anchor=False)
    st.caption("Per model, what a million tokens cost: the debate page and Analytics estimate each debate's "
               "and each agent's cost from them. A model is matched by its name, or by the longest listed "
               "name it starts with (gpt-4o-mini-2024-07-18 finds gpt-4o-mini). Steps of a model with no "
               "price are named, never counted as free. The offline agents report the model offline-rules.")
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    with st.form("prices-form"):
        currency = st.text_input("Currency", value=current.price_currency, key="p-currency", max_chars=12)
        rows = [{"model": m, "input": p["input"], "output": p["output"]} for m, p in current.prices.items()]
        edited = st.data_editor(
            rows or [{"model": "", "input": None, "output": None}], num_rows="dynamic", key="p-table",
            hide_index=True, column_config={
                "model": st.column_config.TextColumn("model", required=False, width="medium"),
                "input": st.column_config.NumberColumn("input per 1M tokens", min_value=0.0, format="%.4f"),
                "output": st.column_config.NumberColumn("output per 1M tokens", min_value=0.0, format="%.4f"),
            })
        submitted = st.form_submit_button("Save prices")
    if not submitted:
        return
    records = edited.to_dict("records") if hasattr(edited, "to_dict") else list(edited)
    try:
        saved = common.audited("prices", "manage_settings",
                               lambda: save_prices(common.db_path(), rows_to_prices(records), currency),
                               f"saved prices for {len(records)} row(s) in {currency}")
    except (AppSettingsError, ValueError, OSError) as exc:
        st.error(f"Prices not saved: {formatting.md_escape(exc)}")
        return
    st.session_state[FLASH] = f"Saved prices for {len(saved.prices)} model(s)."
    st.rerun()
