"""What each protocol's steps and views look like in the app, registered by protocol and stage.

The debate page never guesses what to draw from the shape of an output: a step is drawn by the
renderer registered for its (protocol, stage), and a protocol's own view by the function
registered for the protocol. The conformance tests check that every stage of every protocol spec
has a renderer here. Model and evidence text goes through `views.md_escape` or `st.text`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from debate_core.present import glossary, views
from debate_core.protocols import get_spec

esc = views.md_escape

StepRenderer = Callable[[dict[str, Any]], None]
ProtocolView = Callable[[dict[str, Any], list[dict[str, Any]]], bool]

_STEPS: dict[tuple[str, str], StepRenderer] = {}
_VIEWS: dict[str, ProtocolView] = {}


def step_renderer(protocol: str, *stages: str) -> Callable[[StepRenderer], StepRenderer]:
    def deco(fn: StepRenderer) -> StepRenderer:
        for stage in stages:
            _STEPS[(protocol, stage)] = fn
        return fn

    return deco


def protocol_view(protocol: str) -> Callable[[ProtocolView], ProtocolView]:
    def deco(fn: ProtocolView) -> ProtocolView:
        _VIEWS[protocol] = fn
        return fn

    return deco


def renderer_for(protocol: str, stage: str | None) -> StepRenderer | None:
    return _STEPS.get((protocol, stage or ""))


def view_for(protocol: str) -> ProtocolView | None:
    return _VIEWS.get(protocol)


def render_output(protocol: str, step: dict[str, Any]) -> None:
    """A finished step's output, drawn by its registered renderer; as plain fields otherwise."""
    fn = renderer_for(protocol, step.get("stage"))
    out = step.get("output") or {}
    if fn is not None:
        fn(out)
        return
    fields(out)


def fields(out: dict[str, Any]) -> None:
    """A fallback that still reads as text: one line per field, lists as bullets."""
    for key, value in out.items():
        if isinstance(value, list):
            st.markdown(f"**{esc(key.replace('_', ' '))}**")
            for item in value:
                st.markdown(f"- {esc(item if not isinstance(item, dict) else views.plain_fields(item))}")
        elif isinstance(value, dict):
            st.markdown(f"**{esc(key.replace('_', ' '))}**: {esc(views.plain_fields(value))}")
        else:
            st.markdown(f"**{esc(key.replace('_', ' '))}**: {esc(value)}")


def _severity_badges(counts: dict[str, int]) -> str:
    return " ".join(f":{views.SEVERITY_COLORS[s]}-badge[{s} {n}]" for s, n in counts.items() if n)


# ---------------------------------------------------------------------------
# cross_critique
# ---------------------------------------------------------------------------


@step_renderer("cross_critique", "answer", "revise")
def _agent_answer(out: dict[str, Any]) -> None:
    st.markdown(esc(out.get("answer")))
    st.caption(f"{len(out.get('claims') or [])} claim(s), {len(out.get('uncertainties') or [])} uncertainty(ies)")


@step_renderer("cross_critique", "critique")
def _critique(out: dict[str, Any]) -> None:
    counts = {s: 0 for s in views.SEVERITY_COLORS}
    for c in out.get("critiques") or []:
        counts[c.get("severity")] = counts.get(c.get("severity"), 0) + 1
    st.markdown(_severity_badges(counts) or "no new critiques")
    for r in out.get("previous") or []:
        st.markdown(f"- earlier {esc(r.get('id'))}: **{esc(r.get('status'))}** {esc(r.get('note'))}")


@step_renderer("cross_critique", "supervisor")
@step_renderer("panel", "judge_summary")
def _final_answer(out: dict[str, Any]) -> None:
    st.markdown(esc(out.get("answer") or out.get("summary") or ""))
    if out.get("rationale"):
        st.caption(esc(out.get("rationale")))


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
            col.metric(views.plain_code(state), n)
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


# ---------------------------------------------------------------------------
# panel
# ---------------------------------------------------------------------------


@step_renderer("panel", "turn")
def _turn(out: dict[str, Any]) -> None:
    st.markdown(esc(out.get("message")))
    for p in out.get("key_points") or []:
        st.markdown(f"- {esc(p)}")


@protocol_view("panel")
def _panel_view(debate: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    personas = get_spec("panel").rows["personas"](steps)
    if not personas:
        return False
    st.subheader("Persona stances", anchor=False)
    names = debate.get("agent_names") or {}
    st.dataframe(
        [{**{k: r[k] for k in ("round", "stance", "key_points")}, "persona": glossary.agent(r["persona"], names)}
         for r in personas],
        hide_index=True, column_config={"key_points": st.column_config.ListColumn("key points")},
    )
    return True


# ---------------------------------------------------------------------------
# refinement
# ---------------------------------------------------------------------------


@step_renderer("refinement", "hypotheses")
def _hypotheses(out: dict[str, Any]) -> None:
    for i, h in enumerate(out.get("hypotheses") or [], start=1):
        st.markdown(f"{i}. {esc(h.get('hypothesis'))} · *{esc(h.get('category'))}*, "
                    f"{views.pct(h.get('confidence'))}")


@step_renderer("refinement", "judge")
def _judge(out: dict[str, Any]) -> None:
    top = sorted(out.get("scores") or [], key=lambda s: -(s.get("score") or 0))[:3]
    for s in top:
        number = s.get("index")
        shown = number + 1 if isinstance(number, int) else number
        st.markdown(f"- {esc(s.get('reasoner'))}, hypothesis {esc(shown)}: **{views.num(s.get('score'))}**")


@protocol_view("refinement")
def _refinement_view(debate: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    names = debate.get("agent_names") or {}
    scores = _numbered(get_spec("refinement").rows["judge_scores"](steps), names)
    if scores:
        st.subheader("Judge scores per hypothesis", anchor=False)
        st.dataframe(scores, hide_index=True, column_config={
            "score": st.column_config.ProgressColumn("score", min_value=0, max_value=100, format="%.0f"),
            "hypothesis": st.column_config.TextColumn("hypothesis", width="large"),
        })
        return True
    rows = _numbered(get_spec("refinement").rows["hypotheses"](steps), names)
    if rows:
        st.subheader("Hypotheses", anchor=False)
        st.dataframe(rows, hide_index=True)
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


# ---------------------------------------------------------------------------
# dialectic
# ---------------------------------------------------------------------------


@step_renderer("dialectic", "thesis", "synthesis")
def _rule(out: dict[str, Any]) -> None:
    st.text(out.get("rule") or "")
    st.caption(f"confidence {views.pct(out.get('confidence'))}")


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
                st.markdown(views.diff_markdown(r["diff"]))
            elif r.get("after"):
                st.text(r["after"])
    return True


# ---------------------------------------------------------------------------
# arbitration
# ---------------------------------------------------------------------------


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
    st.dataframe(rows, hide_index=True, column_config={
        "confidence": st.column_config.ProgressColumn("confidence", min_value=0.0, max_value=1.0, format="%.2f"),
        "explanation": st.column_config.TextColumn("explanation", width="large"),
    })
    return True
