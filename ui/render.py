"""Drawing one debate: header, rounds, claims, critiques, verdict, protocol views, plots, transcript.

Model and evidence text is untrusted: it goes through `views.md_escape` into markdown, or into
`st.text`, dataframes and `st.json`, which show it literally. Nothing here uses unsafe_allow_html.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from debate_core import export, views
from debate_core.store import DebateStore, NotFound
from ui import plots

esc = views.md_escape


def status_badge(debate: dict[str, Any]) -> None:
    status = views.display_status(debate)
    st.badge(status, color=views.STATUS_COLORS.get(status, "gray"), help=views.STATUS_HELP.get(status))


def header(debate: dict[str, Any]) -> None:
    st.title(esc(debate.get("title") or debate["id"]), anchor=False)
    cols = st.columns([1, 2, 2, 3])
    with cols[0]:
        status_badge(debate)
    cols[1].caption(f"protocol **{esc(debate.get('protocol'))}**")
    cols[2].caption(f"debate `{debate['id']}`")
    cols[3].caption(esc(views.provider_label(debate.get("provider_config"))))
    st.markdown("**Question**")
    st.text(debate.get("question") or "")


def progress_bar(debate: dict[str, Any], steps: list[dict[str, Any]], planned_rounds: int | None) -> None:
    fraction, text = views.progress(debate, steps, planned_rounds)
    st.progress(fraction, text=text)


def failure(debate: dict[str, Any]) -> None:
    if debate.get("status") != "failed":
        return
    where = f" at step `{debate['failed_step']}`" if debate.get("failed_step") else ""
    st.error(f"This debate failed{where}. Every step completed before the failure is kept below.")
    st.text(debate.get("error") or "no error message was recorded")


def warnings(debate: dict[str, Any]) -> None:
    items = debate.get("warnings") or []
    if items:
        with st.expander(f"{len(items)} warning(s) from the engine"):
            for w in items:
                st.text(str(w))


# ---------------------------------------------------------------------------
# Verdict
# ---------------------------------------------------------------------------


def verdict(debate: dict[str, Any]) -> None:
    v = debate.get("verdict")
    if not v:
        if debate.get("status") == "running":
            st.info("The moderator gives its verdict when the debate ends.")
        else:
            st.info("This debate has no verdict.")
        return
    with st.container(border=True):
        st.markdown("**Moderator's verdict**")
        st.markdown(esc(v.get("answer")))
        c1, c2, c3 = st.columns(3)
        c1.metric("confidence", views.pct(v.get("confidence")))
        c2.metric("needs human review", "yes" if v.get("needs_human_review") else "no")
        c3.metric("converged", "yes" if debate.get("converged") else "no",
                  help=esc(debate.get("convergence_reason") or ""))
        if debate.get("convergence_reason"):
            st.caption(f"Convergence: {esc(debate['convergence_reason'])}")
        reasons = v.get("escalation_reasons") or []
        if reasons:
            st.markdown("**Escalation reasons**")
            for r in reasons:
                st.markdown(f"- :orange[{esc(r)}]")
        rules = v.get("applied_rules") or []
        if rules:
            st.markdown("**Applied rules**")
            for r in rules:
                st.markdown(f"- {esc(r)}")
        if v.get("rationale"):
            st.markdown("**Rationale**")
            st.markdown(esc(v["rationale"]))
    answer = debate.get("final_answer")
    if answer and answer != v.get("answer"):
        st.markdown("**Answer after review**")
        st.markdown(esc(answer))


# ---------------------------------------------------------------------------
# Rounds: one card per step, one column per agent
# ---------------------------------------------------------------------------

_STAGE_TITLES = {
    "answer": "Answers", "revise": "Revisions", "critique": "Cross critiques", "turn": "Turns",
    "hypotheses": "Hypotheses", "judge": "Judge", "thesis": "Thesis", "antithesis": "Antithesis",
    "synthesis": "Synthesis", "arbitrate": "Arbitration", "final": "Final",
}


def _step_body(step: dict[str, Any]) -> None:
    status = step.get("status")
    if status == "running":
        live_output(step)
        return
    if status == "failed":
        st.error("this step failed")
        st.text(step.get("error") or "")
        return
    out = step.get("output") or {}
    stage = step.get("stage")
    if "answer" in out and "claims" in out:
        st.markdown(esc(out.get("answer")))
        st.caption(f"{len(out.get('claims') or [])} claim(s), "
                   f"{len(out.get('uncertainties') or [])} uncertainty(ies)")
    elif "critiques" in out:
        counts = {s: 0 for s in views.SEVERITY_COLORS}
        for c in out.get("critiques") or []:
            counts[c.get("severity")] = counts.get(c.get("severity"), 0) + 1
        st.markdown(" ".join(f":{views.SEVERITY_COLORS[s]}-badge[{s} {n}]" for s, n in counts.items() if n)
                    or "no critiques")
    elif "message" in out and "planning" in out:
        st.markdown(esc(out.get("message")))
        for p in out.get("key_points") or []:
            st.markdown(f"- {esc(p)}")
    elif "hypotheses" in out:
        for i, h in enumerate(out.get("hypotheses") or []):
            st.markdown(f"{i}. {esc(h.get('hypothesis'))} · *{esc(h.get('category'))}*, "
                        f"{views.pct(h.get('confidence'))}")
    elif "scores" in out:
        top = sorted(out.get("scores") or [], key=lambda s: -(s.get("score") or 0))[:3]
        for s in top:
            st.markdown(f"- {esc(s.get('reasoner'))} #{esc(s.get('index'))}: **{views.num(s.get('score'))}**")
    elif "recommendation" in out:
        st.markdown(f"recommends **{esc(out.get('recommendation'))}**")
        st.markdown(esc(out.get("argument")))
        for i in out.get("issues") or []:
            st.markdown(f"- {esc(i)}")
    elif "rule" in out:
        st.text(out.get("rule") or "")
        st.caption(f"confidence {views.pct(out.get('confidence'))}")
    elif "resolution" in out:
        st.markdown(f"**{esc(out.get('resolution'))}** → {esc(out.get('action'))}")
        st.markdown(esc(out.get("explanation")))
    elif "consensus" in out:
        st.markdown(f"winner: **{esc(out.get('winner') or 'none')}**")
        st.markdown(esc(out.get("consensus")))
    elif stage == "final" or "rationale" in out:
        st.markdown(esc(out.get("answer") or ""))
        st.caption(esc(out.get("rationale") or ""))
    else:
        st.json(out, expanded=False)


def live_output(step: dict[str, Any]) -> None:
    """A running step: its pace and the reply as it arrives, field by field as the JSON fills in.
    Model text, so shown with st.text only."""
    st.caption(esc(views.live_caption(step)))
    text = step.get("partial_output")
    if not text:
        return
    fields = views.partial_fields(text)
    if fields:
        st.text("\n".join(f"{path}: {value}" for path, value in fields))
    else:
        st.text(text[-2000:])


CARD_HEIGHT = 360


def _long(step: dict[str, Any]) -> bool:
    out = step.get("output") or {}
    return len(str(out.get("answer") or out.get("message") or out.get("argument") or "")) > 700


def _step_title(step: dict[str, Any]) -> str:
    agent = step.get("agent") or step.get("stage") or "?"
    if step.get("target"):
        return f"{agent} on {step['target']}"
    return agent


def _stage_groups(steps: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    groups: list[tuple[str, list[dict[str, Any]]]] = []
    for s in steps:
        stage = s.get("stage") or "?"
        if groups and groups[-1][0] == stage:
            groups[-1][1].append(s)
        else:
            groups.append((stage, [s]))
    return groups


def rounds(steps: list[dict[str, Any]]) -> None:
    by_round = views.steps_by_round(steps)
    if not by_round:
        st.info("No steps yet: the first agents are being asked.")
        return
    for rnd, items in by_round.items():
        st.subheader(f"Round {rnd}" if rnd is not None else "Final and per-item steps", anchor=False)
        for stage, group in _stage_groups(items):
            st.caption(_STAGE_TITLES.get(stage, stage))
            if stage == "turn":
                for s in group:
                    with st.chat_message(name=s.get("agent") or "agent",
                                         avatar=":material/record_voice_over:"):
                        stance = (s.get("output") or {}).get("stance")
                        st.markdown(f"**{esc(_step_title(s))}**" + (f" · stance *{esc(stance)}*" if stance else ""))
                        _step_body(s)
                continue
            per_row = min(3, len(group))
            for start in range(0, len(group), per_row):
                chunk = group[start:start + per_row]
                cols = st.columns(per_row)
                for col, s in zip(cols, chunk, strict=False):
                    # A fixed height keeps long answers from stretching the round; the card scrolls.
                    with col, st.container(border=True, height=CARD_HEIGHT if _long(s) else "content"):
                        st.markdown(f"**{esc(_step_title(s))}**")
                        _step_body(s)


# ---------------------------------------------------------------------------
# Claims and critiques
# ---------------------------------------------------------------------------


def claims(claims_: list[dict[str, Any]], case: dict[str, Any] | None, key: str) -> None:
    rows = views.claim_rows(claims_, case)
    if not rows:
        st.info("No claims yet. Protocols whose agents make claims (cross critique) list them here.")
        return
    unverified = sum(1 for r in rows if not r["verified"].startswith("✔"))
    st.caption(f"{len(rows)} claim(s), {unverified} without verified evidence. "
               "Select a row to read the passages its evidence ids point to.")
    event = st.dataframe(
        rows,
        hide_index=True,
        key=f"claims-{key}",
        on_select="rerun",
        selection_mode="single-row",
        column_order=["round", "agent", "claim", "verified", "confidence", "statement", "evidence", "passages"],
        column_config={
            "round": st.column_config.NumberColumn("round", width="small"),
            "agent": st.column_config.TextColumn("agent", width="small"),
            "claim": st.column_config.TextColumn("claim", width="small"),
            "statement": st.column_config.TextColumn("statement", width="large"),
            "evidence": st.column_config.ListColumn("evidence ids", width="medium"),
            "verified": st.column_config.TextColumn("evidence check", width="medium"),
            "confidence": st.column_config.ProgressColumn("confidence", min_value=0.0, max_value=1.0,
                                                          format="%.2f"),
            "passages": st.column_config.TextColumn("passage text", width="medium"),
        },
    )
    selected = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    if selected:
        row = rows[selected[0]]
        passages(case, row["evidence"], title=f"Evidence for {row['agent']} {row['claim']}")


def passages(case: dict[str, Any] | None, ids: list[str] | None = None, *, title: str | None = None) -> None:
    index = views.evidence_index(case)
    wanted = ids if ids is not None else list(index)
    if title:
        st.markdown(f"**{esc(title)}**")
    for eid in wanted:
        p = index.get(eid)
        with st.container(border=True):
            if p is None:
                st.markdown(f":red[**{esc(eid)}**: not a passage of this case (unverified)]")
                continue
            st.markdown(f"**{esc(eid)}** · {esc(p.get('source'))}")
            st.text(p.get("text") or "")


def critiques(critiques_: list[dict[str, Any]]) -> None:
    groups = views.critique_groups(critiques_)
    if not groups:
        st.info("No critiques yet. Protocols with critique steps (cross critique) show them here, "
                "grouped by the claim they target.")
        return
    for g in groups:
        with st.container(border=True):
            counts = " ".join(f":{views.SEVERITY_COLORS[s]}-badge[{s} {n}]" for s, n in g["counts"].items() if n)
            st.markdown(f"**{esc(g['target'])} · claim {esc(g['claim'])}** {counts}")
            for c in g["critiques"]:
                sev = c.get("severity") or "?"
                color = views.SEVERITY_COLORS.get(sev, "gray")
                st.markdown(f":{color}-badge[{esc(sev)}] **{esc(c.get('issue_type'))}** · "
                            f"round {esc(c.get('round'))}, by {esc(c.get('critic'))}")
                st.markdown(esc(c.get("description")))
                st.markdown(f"*Fix:* {esc(c.get('suggested_fix'))}")
    with st.expander("All critiques as a table"):
        st.dataframe(views.critique_rows(critiques_), hide_index=True)


# ---------------------------------------------------------------------------
# Protocol-specific views (chosen by the steps present, so every protocol shows what it has)
# ---------------------------------------------------------------------------


def protocol_views(debate: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    shown = False
    scores = views.judge_score_rows(steps)
    if scores:
        shown = True
        st.subheader("Judge scores per hypothesis", anchor=False)
        st.dataframe(scores, hide_index=True, column_config={
            "score": st.column_config.ProgressColumn("score", min_value=0, max_value=100, format="%.0f"),
            "hypothesis": st.column_config.TextColumn("hypothesis", width="large"),
        })
    elif views.hypothesis_rows(steps):
        shown = True
        st.subheader("Hypotheses", anchor=False)
        st.dataframe(views.hypothesis_rows(steps), hide_index=True)
    dialectic = views.dialectic_rounds(steps)
    if dialectic:
        shown = True
        st.subheader("Thesis, antithesis, synthesis", anchor=False)
        first = dialectic[0].get("thesis")
        if first:
            st.markdown("**Thesis (round 1)**")
            st.text(first.get("rule") or "")
        for r in dialectic:
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
    contradictions = views.contradiction_rows(debate, steps)
    if contradictions:
        shown = True
        st.subheader("Contradictions and their resolutions", anchor=False)
        st.dataframe(contradictions, hide_index=True, column_config={
            "confidence": st.column_config.ProgressColumn("confidence", min_value=0.0, max_value=1.0, format="%.2f"),
            "explanation": st.column_config.TextColumn("explanation", width="large"),
        })
    personas = views.persona_rows(steps)
    if personas:
        shown = True
        st.subheader("Persona stances", anchor=False)
        st.dataframe(
            [{k: r[k] for k in ("round", "persona", "stance", "key_points")} for r in personas],
            hide_index=True, column_config={"key_points": st.column_config.ListColumn("key points")},
        )
    summary = debate.get("summary") or {}
    agreed, disputed = summary.get("agreed_claims"), summary.get("disputed_claims")
    if agreed or disputed:
        shown = True
        st.subheader("Agreed and disputed claims", anchor=False)
        c1, c2 = st.columns(2)
        with c1:
            st.markdown("**Agreed**")
            for a in agreed or []:
                st.markdown(f"- {esc(a)}")
        with c2:
            st.markdown("**Disputed**")
            for d in disputed or []:
                st.markdown(f"- {esc(d)}")
    return shown


# ---------------------------------------------------------------------------
# Plots and transcript
# ---------------------------------------------------------------------------


def charts(debate: dict[str, Any], steps: list[dict[str, Any]], events: list[dict[str, Any]], key: str) -> None:
    traj = views.trajectory(debate, events)
    figs = plots.trajectory_figures(traj)
    if not figs:
        st.info("No round has closed yet: the convergence plots appear after the first round.")
    for i in range(0, len(figs), 2):
        cols = st.columns(2)
        for col, (name, fig) in zip(cols, figs[i:i + 2], strict=False):
            col.plotly_chart(fig, key=f"plot-{name}-{key}")
    usage = views.token_usage(steps)
    fig = plots.token_figure(usage)
    if fig is not None:
        st.plotly_chart(fig, key=f"plot-tokens-{key}")
        st.dataframe(usage, hide_index=True)


def transcript(steps: list[dict[str, Any]]) -> None:
    if not steps:
        st.info("No steps recorded yet.")
        return
    for s in steps:
        label = f"{s['step_id']}" + (f" (call {s['call']})" if (s.get("call") or 1) > 1 else "")
        label += f" · {s.get('status')}"
        with st.expander(label):
            meta = {k: s.get(k) for k in ("model", "attempts", "input_tokens", "output_tokens", "latency_ms",
                                          "reply_cap")}
            st.caption(" · ".join(f"{k} {esc(v)}" for k, v in meta.items() if v is not None))
            if s.get("errors"):
                st.markdown("**Validation errors (re-asked)**")
                for e in s["errors"]:
                    st.text(str(e))
            if s.get("output") is not None:
                st.json(s["output"], expanded=False)
            elif s.get("raw_output"):
                st.text(s["raw_output"])
            for m in s.get("prompt") or []:
                if isinstance(m, dict):
                    st.caption(str(m.get("role")))
                    st.code(str(m.get("content") or ""), language=None, wrap_lines=True)


def export_buttons(store: DebateStore, debate_id: str, key: str) -> None:
    """Downloads of one debate: its transcript files (zip), its replay cassette, its claims and critiques."""
    try:
        files = export.export_files(store, debate_id)
        cassette = json.dumps(export.cassette(store, debate_id), ensure_ascii=False, indent=2)
        claims_csv = export.claims_csv(store, debate_id)
    except NotFound:
        st.warning("That debate is no longer in the database.")
        return
    c1, c2, c3 = st.columns(3)
    c1.download_button("Transcript files (.zip)", views.zip_files(files), file_name=f"{debate_id}-transcript.zip",
                       mime="application/zip", key=f"{key}-dl-zip", on_click="ignore")
    c2.download_button("Cassette (.json)", cassette, file_name=f"{debate_id}-cassette.json",
                       mime="application/json", key=f"{key}-dl-cassette", on_click="ignore")
    c3.download_button("Claims and critiques (.csv)", claims_csv, file_name=f"{debate_id}-claims.csv",
                       mime="text/csv", key=f"{key}-dl-csv", on_click="ignore")
