"""How dialectic's steps and its thesis, antithesis and synthesis look in the app (registered in ui/stages.py)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.present import formatting
from debate_core.protocols import get_spec
from ui.stages import esc, protocol_view, step_renderer


@step_renderer("dialectic", "thesis", "synthesis")
def _rule(out: dict[str, Any]) -> None:
    st.text(out.get("rule") or "")
    st.caption(f"confidence {formatting.pct(out.get('confidence'))}")


@step_renderer("dialectic", "antithesis")
def _antithesis(out: dict[str, Any]) -> None:
    st.markdown(f"recommends **{esc(out.get('recommendation'))}**")
    st.markdown(esc(out.get("argument")))
    for i in out.get("issues") or []:
        st.markdown(f"- {esc(i)}")


@protocol_view("dialectic")
def _dialectic_view(debate: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    rounds = get_spec("dialectic").rows["rounds"](steps)
    if not rounds:
        return False
    st.subheader("Thesis, antithesis, synthesis", anchor=False)
    first = rounds[0].get("thesis")
    if first:
        st.markdown("**Thesis (round 1)**")
        st.text(first.get("rule") or "")
    for r in rounds:
        with st.container(border=True):
            st.markdown(f"**Round {r['round']}**")
            anti = r.get("antithesis")
            if anti:
                st.markdown(f"Critic recommends **{esc(anti.get('recommendation'))}**")
                for title, key in (("Issues", "issues"), ("Edge cases", "edge_cases"),
                                   ("Contradictions", "contradictions")):
                    if anti.get(key):
                        st.markdown(f"*{title}*")
                        for item in anti[key]:
                            st.markdown(f"- {esc(item)}")
            if r["diff"]:
                st.markdown("Change to the rule (removed struck through, added in bold):")
                st.markdown(formatting.diff_markdown(r["diff"]))
            elif r.get("after"):
                st.text(r["after"])
    return True
