"""How panel's steps and its persona stances look in the app (registered in ui/stages.py)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.present import glossary
from debate_core.protocols import get_spec
from debate_core.protocols.panel import rows
from ui.stages import esc, final_answer, protocol_view, step_renderer, table_height

step_renderer("panel", "judge_summary")(final_answer)


@step_renderer("panel", "turn")
def _turn(out: dict[str, Any]) -> None:
    st.markdown(esc(out.get("message")))
    for p in out.get("key_points") or []:
        st.markdown(f"- {esc(p)}")


def _actions(items: list[dict[str, Any]], kind: str, aspect: str, extra: tuple[str, ...]) -> None:
    if not items:
        st.markdown("No changes proposed.")
    for item in items:
        what = rows.action_words(str(item.get(kind) or ""))
        detail = "; ".join(f"{k.replace('_', ' ')}: {item[k]}" for k in extra if item.get(k) is not None)
        st.markdown(f"- **{esc(what)}** {esc(item.get(aspect))}" + (f" ({esc(detail)})" if detail else ""))
        if item.get("rationale"):
            st.caption(esc(item["rationale"]))


@step_renderer("panel", "validator_review")
def _validator(out: dict[str, Any]) -> None:
    _actions(out.get("correction_proposals") or [], "proposal_type", "target_aspect", ("new_polarity", "revised_term"))
    if out.get("rationale"):
        st.caption(esc(out["rationale"]))


@step_renderer("panel", "aspect_review")
def _aspect_review(out: dict[str, Any]) -> None:
    st.markdown(f"Sentence label after the review: **{esc(out.get('label'))}** "
                f"(confidence {float(out.get('confidence') or 0):.2f})")
    _actions(out.get("aspect_review") or [], "action", "aspect", ("revised_term",))


@step_renderer("panel", "sentiment_review")
def _sentiment_review(out: dict[str, Any]) -> None:
    _actions(out.get("sentiment_review") or [], "action", "aspect", ("polarity", "confidence"))


@protocol_view("panel")
def _panel_view(debate: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    personas = get_spec("panel").rows["personas"](steps)
    corrections = get_spec("panel").rows["corrections"](debate, steps)
    if corrections:
        st.subheader("Corrections, in the order applied", anchor=False)
        st.dataframe(corrections, hide_index=True, height=table_height(len(corrections)))
    if not personas:
        return bool(corrections)
    st.subheader("Persona stances", anchor=False)
    names = debate.get("agent_names") or {}
    st.dataframe(
        [{**{k: r[k] for k in ("round", "stance", "key_points")}, "persona": glossary.agent(r["persona"], names)}
         for r in personas],
        hide_index=True, height=table_height(len(personas)), column_config={"key_points": st.column_config.ListColumn("key points")},
    )
    return True
