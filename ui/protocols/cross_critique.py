"""How cross_critique's steps and its end state look in the app (registered in ui/stages.py)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.present import formatting, glossary
from ui.stages import esc, final_answer, protocol_view, step_renderer


@step_renderer("cross_critique", "answer", "revise")
def _agent_answer(out: dict[str, Any]) -> None:
    st.markdown(esc(out.get("answer")))
    st.caption(f"{len(out.get('claims') or [])} claim(s), {len(out.get('uncertainties') or [])} uncertainty(ies)")


@step_renderer("cross_critique", "critique")
def _critique(out: dict[str, Any]) -> None:
    counts = {s: 0 for s in formatting.SEVERITY_COLORS}
    for c in out.get("critiques") or []:
        counts[c.get("severity")] = counts.get(c.get("severity"), 0) + 1
    st.markdown(_severity_badges(counts) or "no new critiques")
    for r in out.get("previous") or []:
        st.markdown(f"- earlier {esc(r.get('id'))}: **{esc(r.get('status'))}** {esc(r.get('note'))}")


step_renderer("cross_critique", "supervisor")(final_answer)


@protocol_view("cross_critique")
def _cross_critique_view(debate: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    """The state the debate ended in: how many critiques stand in each state, and the critiques still
    open (the agreed and disputed claims are the verdict card's supporting and disputed points)."""
    summary = debate.get("summary") or {}
    names = debate.get("agent_names") or {}
    states, conflicts = summary.get("critique_states") or {}, summary.get("conflicts") or []
    if not (states or conflicts):
        return False
    st.subheader("Critiques at the end of the debate", anchor=False)
    if states:
        cols = st.columns(len(states))
        for col, (state, n) in zip(cols, states.items(), strict=False):
            col.metric(formatting.plain_code(state), n)
    if conflicts:
        st.markdown("**Still open**")
        st.dataframe([{
            "critic": glossary.agent(c.get("critic"), names), "claim of": glossary.agent(c.get("target"), names),
            "claim": str(c.get("claim") or "").partition(".")[2], "round": c.get("round"),
            "severity": c.get("severity"), "issue": glossary.plain(c.get("issue_type")),
            "critique": c.get("description") or "", "critic's note": c.get("critic_note") or "",
        } for c in conflicts], hide_index=True, column_config={
            "critique": st.column_config.TextColumn("critique", width="large")})
    else:
        st.caption("No critique is still open.")
    return True


def _severity_badges(counts: dict[str, int]) -> str:
    return " ".join(f":{formatting.SEVERITY_COLORS[s]}-badge[{s} {n}]" for s, n in counts.items() if n)
