"""How arbitration's rulings and its contradictions look in the app (registered in ui/stages.py)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.present import glossary
from debate_core.protocols import get_spec
from ui.stages import esc, protocol_view, step_renderer, table_height


@step_renderer("arbitration", "arbitrate")
def _resolution(out: dict[str, Any]) -> None:
    st.markdown(f"**{esc(glossary.ruling(out.get('resolution'), out.get('action')))}**")
    st.markdown(esc(out.get("explanation")))


@protocol_view("arbitration")
def _arbitration_view(debate: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    rows = get_spec("arbitration").rows["contradictions"](debate, steps)
    if not rows:
        return False
    for r in rows:
        r["ruling"] = glossary.ruling(r.pop("resolution"), r.pop("action"))
    st.subheader("Contradictions and their resolutions", anchor=False)
    st.dataframe(rows, hide_index=True, height=table_height(len(rows)), column_config={
        "confidence": st.column_config.ProgressColumn("confidence", min_value=0.0, max_value=1.0, format="%.2f"),
        "explanation": st.column_config.TextColumn("explanation", width="large"),
    })
    return True
