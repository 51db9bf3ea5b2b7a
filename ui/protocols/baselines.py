"""How the baselines' steps look in the app: `single` and `majority` both answer in one step kind,
`single`, with the verdict's own fields (registered in ui/stages.py)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.present import formatting
from ui.stages import esc, step_renderer


@step_renderer("single", "single")
@step_renderer("majority", "single")
def _baseline_answer(out: dict[str, Any]) -> None:
    st.markdown(esc(out.get("answer")))
    st.caption(f"confidence {formatting.pct(out.get('confidence'))}")
    if out.get("rationale"):
        st.caption(esc(out.get("rationale")))
