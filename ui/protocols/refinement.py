"""How refinement's steps and its hypothesis scores look in the app (registered in ui/stages.py)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.present import formatting, glossary
from debate_core.protocols import get_spec
from ui.stages import esc, protocol_view, step_renderer, table_height


@step_renderer("refinement", "hypotheses")
def _hypotheses(out: dict[str, Any]) -> None:
    for i, h in enumerate(out.get("hypotheses") or [], start=1):
        st.markdown(f"{i}. {esc(h.get('hypothesis'))} · *{esc(h.get('category'))}*, "
                    f"{formatting.pct(h.get('confidence'))}")


@step_renderer("refinement", "judge")
def _judge(out: dict[str, Any]) -> None:
    top = sorted(out.get("scores") or [], key=lambda s: -(s.get("score") or 0))[:3]
    for s in top:
        number = s.get("index")
        shown = number + 1 if isinstance(number, int) else number
        st.markdown(f"- {esc(s.get('reasoner'))}, hypothesis {esc(shown)}: **{formatting.num(s.get('score'))}**")


@protocol_view("refinement")
def _refinement_view(debate: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    names = debate.get("agent_names") or {}
    scores = _numbered(get_spec("refinement").rows["judge_scores"](steps), names)
    if scores:
        st.subheader("Judge scores per hypothesis", anchor=False)
        st.dataframe(scores, hide_index=True, height=table_height(len(scores)), column_config={
            "score": st.column_config.ProgressColumn("score", min_value=0, max_value=100, format="%.0f"),
            "hypothesis": st.column_config.TextColumn("hypothesis", width="large"),
        })
        return True
    rows = _numbered(get_spec("refinement").rows["hypotheses"](steps), names)
    if rows:
        st.subheader("Hypotheses", anchor=False)
        st.dataframe(rows, hide_index=True, height=table_height(len(rows)))
        return True
    return False


def _numbered(rows: list[dict[str, Any]], names: dict[str, str]) -> list[dict[str, Any]]:
    """Hypotheses numbered from 1, as the rounds show them, and reasoners by name."""
    out = []
    for r in rows:
        index = r.pop("index", None)
        out.append({"round": r.pop("round"), "reasoner": glossary.agent(r.pop("reasoner"), names),
                    "hypothesis no.": index + 1 if isinstance(index, int) else index, **r})
    return out
