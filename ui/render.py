"""Drawing one debate: header, rounds, claims, critiques, verdict, protocol views, plots, transcript.

Model and evidence text is untrusted: it goes through `formatting.md_escape` into markdown, or into
`st.text`, dataframes and `st.json`, which show it literally. Nothing here uses unsafe_allow_html.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from debate_core.present import chart_rules, citations, export, formatting, glossary, steering, views
from debate_core.protocols import get_spec
from debate_core.protocols.cross_critique.rows import critique_groups, critique_rows
from debate_core.store import DebateStore, NotFound
from ui import desk, plots, stages

esc = formatting.md_escape


def status_badge(debate: dict[str, Any]) -> None:
    status = formatting.display_status(debate)
    st.badge(status, color=formatting.STATUS_COLORS.get(status, "gray"), help=formatting.STATUS_HELP.get(status))


def header(debate: dict[str, Any]) -> None:
    st.title(esc(debate.get("title") or debate["id"]), anchor=False)
    try:
        protocol = get_spec(debate.get("protocol") or "").title
    except Exception:  # noqa: BLE001 - an unknown protocol is named by its id
        protocol = debate.get("protocol") or "?"
    if debate.get("status") in ("running", "failed", "paused", "stopped"):
        status_badge(debate)  # a finished debate's outcome and review state are the verdict card's badges
    rounds = debate.get("rounds")
    st.caption(" · ".join(x for x in (
        esc(protocol), f"debate {esc(debate['id'])}", esc(formatting.provider_label(debate.get("provider_config"))),
        f"{rounds} round(s)" if rounds else "", esc((debate.get("created_at") or "")[:16].replace("T", " ")),
    ) if x))
    structured = (debate.get("provider_config") or {}).get("structured_output")
    if structured:
        # Which structured output held the model's replies to their bounds (a grammar or validation).
        st.caption(f"Structured output: {esc(structured)}")
    question = debate.get("question") or ""
    # A long question scrolls in a short box (whole, never cut), and its label shares its first
    # line, so the verdict and the decision stay in the first screen.
    with st.container(height=QUESTION_HEIGHT if len(question) > 240 else "content", border=False):
        st.markdown(f"**Question:** {esc(question)}")


QUESTION_HEIGHT = 56


def progress_bar(debate: dict[str, Any], steps: list[dict[str, Any]], planned_rounds: int | None) -> None:
    fraction, text = views.progress(debate, steps, planned_rounds)
    st.progress(fraction, text=text)


def failure(debate: dict[str, Any]) -> None:
    if debate.get("status") != "failed":
        return
    where = (f" at the step “{esc(glossary.step_title(debate.get('protocol'), debate['failed_step'], views.agent_names(debate)))}”"
             if debate.get("failed_step") else "")
    st.error(f"This debate failed{where}. Every step completed before the failure is kept below.")
    st.text(debate.get("error") or "no error message was recorded")


def warnings(debate: dict[str, Any]) -> None:
    items = debate.get("warnings") or []
    if items:
        names = views.agent_names(debate)
        with st.expander(f"{len(items)} warning(s) from the engine"):
            for w in items:
                st.text(glossary.step_ids_in(debate.get("protocol"), w, names))


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
        c1.metric("confidence", formatting.pct(v.get("confidence")))
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


VERDICT_TAB = "Verdict details"


def verdict_line(debate: dict[str, Any]) -> None:
    """The verdict in one line, above the tabs while another tab than the verdict's is open: the
    answer, its confidence, the moderator's outcome and the review state (the full card and the
    review controls are on the verdict tab)."""
    v = debate.get("verdict")
    with st.container(key="verdict-line"):
        if not v:
            st.caption("The moderator gave no verdict.")
            return
        out_label, out_color = views.outcome(debate)
        rev_label, rev_color = views.review_badge(debate)
        st.markdown(f"**Verdict:** {esc(views.one_line_answer(debate))} · confidence "
                    f"**{formatting.pct(v.get('confidence'))}** · :{out_color}-badge[{out_label}] · "
                    f":{rev_color}-badge[{rev_label}]",
                    help=f"The full verdict and the review controls are on the {VERDICT_TAB} tab.")


# ---------------------------------------------------------------------------
# Rounds: one card per step, one column per agent
# ---------------------------------------------------------------------------



def _step_body(protocol: str, step: dict[str, Any]) -> None:
    status = step.get("status")
    if status == "running":
        live_output(step)
        return
    if status == "failed":
        st.error("this step failed")
        st.text(step.get("error") or "")
        return
    cost_line = step_cost(step)
    if cost_line:
        st.caption(esc(cost_line[0]), help=cost_line[1])
    stages.render_output(protocol, step)


# What a running offline step says: the rule-based agents write their reply at once, so there is no
# first token to wait for and nothing streams.
OFFLINE_COMPOSING = "composing (offline: rule-based agents, no model)…"


def is_offline(step: dict[str, Any]) -> bool:
    """Whether the offline provider ran (or runs) this step: it records its own model name on it."""
    return step.get("model") == chart_rules.OFFLINE_MODEL


def _seconds(ms: float) -> str:
    return "under 0.1 s" if ms < 50 else f"{ms / 1000:,.1f} s"


def step_cost(step: dict[str, Any]) -> tuple[str, str] | None:
    """A finished step's time and tokens in words ("2.4 s · 812 tokens"), with the split between
    prompt and reply for the tooltip; the offline agents' tokens are estimates and say so. None for
    a step reused from a parent debate (no model was called) or one without figures."""
    if step.get("reused_from"):
        return None
    latency = step.get("latency_ms")
    read, written = step.get("input_tokens"), step.get("output_tokens")
    parts = [] if latency is None else [_seconds(float(latency))]
    if read is not None or written is not None:
        total = formatting.num((read or 0) + (written or 0))
        parts.append(f"about {total} tokens (estimated)" if is_offline(step) else f"{total} tokens")
    if not parts:
        return None
    split = f"{formatting.num(read or 0)} tokens in the prompt, {formatting.num(written or 0)} in the reply"
    if is_offline(step):
        split += ". " + chart_rules.ESTIMATE_NOTE
    return " · ".join(parts), split


def live_output(step: dict[str, Any]) -> None:
    """A running step: its pace and the reply as it arrives, field by field as the JSON fills in.
    Model text, so shown with st.text only. An offline step has no model to wait for: it says so."""
    if is_offline(step) and not step.get("partial_output"):
        st.caption(OFFLINE_COMPOSING)
        return
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


def _step_title(step: dict[str, Any], names: dict[str, str] | None = None) -> str:
    agent = glossary.agent(step.get("agent"), names) or glossary.plain(step.get("stage")) or "step"
    if step.get("target"):
        return f"{agent} on {glossary.agent(step['target'], names)}"
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


REUSED = "reused from the parent debate, with no new model call"


def interventions_card(group: list[dict[str, Any]], names: dict[str, str] | None = None) -> None:
    """Reviewers' interventions, one line each, in words: "Alice's intervention: raised a ..."."""
    with st.container(border=True):
        for s in group:
            iv = s.get("output") or {}
            who = iv.get("reviewer") or glossary.agent(s.get("agent"), names)
            st.markdown(f"**{esc(who)}'s intervention:** {esc(steering.intervention_text(iv, names))}")


def rounds(steps: list[dict[str, Any]], protocol: str, names: dict[str, str] | None = None, *,
           newest_first: bool = False) -> None:
    """Every round's steps as cards, in run order; with `newest_first` (a running debate) the round
    under way comes first, open, and the earlier ones follow collapsed, newest to oldest, so what
    is being written is in the first screen rather than below every finished round."""
    by_round = views.steps_by_round(steps)
    if not by_round:
        st.info("No steps yet: the first agents are being asked.")
        return
    if not newest_first or len(by_round) == 1:
        for rnd, items in by_round.items():
            st.subheader(_round_title(rnd), anchor=False)
            _round(items, protocol, names)
        return
    # The newest round is the one whose latest step started last (the store numbers steps in the
    # order they start; "final" steps come after every round).
    newest = sorted(by_round.items(), key=lambda kv: max(s.get("seq") or 0 for s in kv[1]), reverse=True)
    (rnd, items), earlier = newest[0], newest[1:]
    st.subheader(f"{_round_title(rnd)} · the latest", anchor=False)
    _round(items, protocol, names)
    st.caption(f"{len(earlier)} earlier round(s) below, newest first: open one to read it.")
    for rnd, items in earlier:
        with st.expander(_round_summary(rnd, items)):
            _round(items, protocol, names)


def _round_title(rnd: int | None) -> str:
    return f"Round {rnd}" if rnd is not None else "Final and per-item steps"


def _round_summary(rnd: int | None, items: list[dict[str, Any]]) -> str:
    """A collapsed round's label: its title and how many of its steps are done, running or failed."""
    counts = views.step_counts(items)
    parts = [f"{counts['ok']} step(s) done"]
    parts += [f"{counts[k]} {k}" for k in ("running", "failed") if counts.get(k)]
    return f"{_round_title(rnd)} · {', '.join(parts)}"


def _round(items: list[dict[str, Any]], protocol: str, names: dict[str, str] | None) -> None:
    """One round's steps: interventions, then each stage's cards (turns as chat messages)."""
    model_steps = [s for s in items if s.get("stage") != "human"]
    all_reused = bool(model_steps) and all(s.get("reused_from") for s in model_steps)
    if all_reused:
        st.caption("This round is reused from the parent debate as it was recorded there: no model was "
                   "called again.")
    for stage, group in _stage_groups(items):
        if stage == "human":
            st.caption("Reviewers' interventions while the debate was paused: the agents take them into "
                       "account from here on")
            interventions_card(group, names)
            continue
        st.caption(get_spec(protocol).stage_title(stage))
        if stage == "turn":
            for s in group:
                with st.chat_message(name=s.get("agent") or "agent",
                                     avatar=":material/record_voice_over:"):
                    stance = (s.get("output") or {}).get("stance")
                    st.markdown(f"**{esc(_step_title(s, names))}**"
                                + (f" · stance *{esc(stance)}*" if stance else ""))
                    if s.get("reused_from") and not all_reused:
                        st.caption(REUSED)
                    _step_body(protocol, s)
            continue
        per_row = min(3, len(group))
        for start in range(0, len(group), per_row):
            chunk = group[start:start + per_row]
            cols = st.columns(per_row)
            for col, s in zip(cols, chunk, strict=False):
                # A fixed height keeps long answers from stretching the round; the card scrolls.
                with col, st.container(border=True, height=CARD_HEIGHT if _long(s) else "content"):
                    st.markdown(f"**{esc(_step_title(s, names))}**")
                    if s.get("reused_from") and not all_reused:
                        st.caption(REUSED)
                    _step_body(protocol, s)


# ---------------------------------------------------------------------------
# Claims and critiques
# ---------------------------------------------------------------------------


def claims(claims_: list[dict[str, Any]], case: dict[str, Any] | None, key: str,
           steps: list[dict[str, Any]] | None = None, names: dict[str, str] | None = None) -> None:
    rows = views.claim_rows(claims_, case, steps)
    for r in rows:
        r["agent"] = glossary.agent(r["agent"], names)
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
        height=stages.table_height(len(rows)),
        on_select="rerun",
        selection_mode="single-row",
        column_order=["round", "agent", "claim", "verified", "confidence", "statement", "critiques", "evidence",
                      "passages"],
        column_config={
            "round": st.column_config.NumberColumn("round", width="small"),
            # No width for the agent: the column fits the longest name ("Cardiologist"), never cut.
            "agent": st.column_config.TextColumn("agent"),
            "claim": st.column_config.TextColumn("claim", width="small"),
            "statement": st.column_config.TextColumn("statement", width="large"),
            "evidence": st.column_config.ListColumn("evidence ids", width="medium"),
            "verified": st.column_config.TextColumn("evidence check", width="medium"),
            "confidence": st.column_config.ProgressColumn("confidence", min_value=0.0, max_value=1.0,
                                                          format="%.2f"),
            "passages": st.column_config.TextColumn("passage text", width="medium"),
            "critiques": st.column_config.TextColumn(
                "critiques of this version", width="medium",
                help="each critique of the claim and its state before the agent's next version: open, "
                     "addressed, not confirmed, maintained or resolved"),
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
            st.markdown(f"**{esc(eid)}** · {esc(citations.where(p))}")
            st.text(p.get("text") or "")


def critiques(critiques_: list[dict[str, Any]], steps: list[dict[str, Any]] | None = None,
              names: dict[str, str] | None = None, claims_: list[dict[str, Any]] | None = None,
              case: dict[str, Any] | None = None, key: str = "done") -> None:
    groups = critique_groups(critiques_, steps)
    if not groups:
        st.info("No critiques yet. Protocols with critique steps (cross critique) show them here, "
                "grouped by the claim they target.")
        return
    present = [s for s in formatting.SEVERITY_COLORS if any(g["counts"].get(s) for g in groups)]
    shown = st.pills("Severity", present, default=present, selection_mode="multi", key=f"crit-sev-{key}") or []
    index = views.claim_index(claims_ or [])
    for g in groups:
        items = [c for c in g["critiques"] if c.get("severity") in shown]
        if not items:
            continue
        with st.container(border=True):
            counts = " ".join(f":{formatting.SEVERITY_COLORS[s]}-badge[{s} {n}]" for s, n in g["counts"].items() if n)
            st.markdown(f"**{esc(glossary.agent(g['target'], names))} · claim {esc(g['claim'])}** {counts}")
            ref = f"{g['target']}.{g['claim']}"
            claim = _claim_targeted(index, ref, items)
            if claim is not None:
                st.caption(f"The claim critiqued (round {esc(claim.get('round'))})")
                st.text(claim.get("statement") or "")
                _evidence_buttons(case, claim.get("evidence") or [], f"ce-{key}-{ref}")
            for c in items:
                sev = c.get("severity") or "?"
                color = formatting.SEVERITY_COLORS.get(sev, "gray")
                state = f" · *{esc(c['state'])}*" if c.get("state") else ""
                st.markdown(f":{color}-badge[{esc(sev)}] **{esc(glossary.plain(c.get('issue_type')))}** · "
                            f"round {esc(c.get('round'))}, by {esc(glossary.agent(c.get('critic'), names))}{state}")
                st.markdown(esc(c.get("description")))
                if c.get("suggested_fix"):
                    st.markdown(f"*Fix:* {esc(c.get('suggested_fix'))}")
    with st.expander("All critiques as a table"):
        rows = [r for r in critique_rows(critiques_, steps) if r.get("severity") in shown]
        for r in rows:
            r["critic"], r["target"] = glossary.agent(r["critic"], names), glossary.agent(r["target"], names)
        st.dataframe(rows, hide_index=True, height=stages.table_height(len(rows)))


def _claim_targeted(index: dict[str, dict[str, Any]], ref: str,
                    items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The version of the claim the critiques answered: the target's latest claim with that id
    from before the critiques' round, else its latest one."""
    rounds = [c.get("round") or 0 for c in items]
    return index.get(f"{ref}@{min(rounds)}") or index.get(ref)


def _evidence_buttons(case: dict[str, Any] | None, ids: list[str], key: str) -> None:
    """Evidence ids as buttons that open their passages."""
    if not ids:
        return
    cols = st.columns(min(len(ids), 6))
    for i, eid in enumerate(ids):
        with cols[i % len(cols)]:
            desk.evidence_popover(case, eid, key=f"{key}-{i}")


# ---------------------------------------------------------------------------
# Protocol-specific views (registered per protocol in ui/protocols/<name>.py)
# ---------------------------------------------------------------------------


def protocol_views(debate: dict[str, Any], steps: list[dict[str, Any]],
                   names: dict[str, str] | None = None) -> bool:
    view = stages.view_for(debate.get("protocol") or "")
    return bool(view and view({**debate, "agent_names": names or {}}, steps))


# ---------------------------------------------------------------------------
# Plots and transcript
# ---------------------------------------------------------------------------


def charts(debate: dict[str, Any], steps: list[dict[str, Any]], events: list[dict[str, Any]], key: str,
           names: dict[str, str] | None = None) -> None:
    traj = views.trajectory(debate, events)
    figs = plots.trajectory_figures(traj, views.plot_thresholds(debate))
    numbers = plots.single_round_numbers(traj)
    if not figs and not numbers:
        st.info("No round has closed yet: the convergence plots appear after the first round.")
    for title, values in numbers:
        st.markdown(f"**{esc(title)}**")
        cols = st.columns(min(max(len(values), 1), 6))
        for i, (name, value) in enumerate(values.items()):
            cols[i % len(cols)].metric(glossary.agent(name, names), formatting.num(value, 2))
    for i in range(0, len(figs), 2):
        cols = st.columns(2)
        for col, (name, fig) in zip(cols, figs[i:i + 2], strict=False):
            col.plotly_chart(fig, key=f"plot-{name}-{key}")
    usage = [{**u, "agent": glossary.agent(u["agent"], names)} for u in views.token_usage(steps)]
    fig = plots.token_figure(usage)
    if fig is not None:
        st.plotly_chart(fig, key=f"plot-tokens-{key}")
    if usage:
        st.markdown("**Tokens per agent**")
        st.dataframe(usage, hide_index=True, height=stages.table_height(len(usage)))


def transcript(steps: list[dict[str, Any]], protocol: str | None = None, names: dict[str, str] | None = None) -> None:
    if not steps:
        st.info("No steps recorded yet.")
        return
    for s in steps:
        if s.get("stage") == "human":
            _intervention_entry(s, names)
            continue
        title = glossary.step_title(protocol, s["step_id"], names)
        label = title + (f" (call {s['call']})" if (s.get("call") or 1) > 1 else "")
        label += f" · {s.get('status')}"
        if s.get("reused_from"):
            label += " · reused from the parent debate"
        with st.expander(label):
            if s.get("reused_from"):
                st.caption(f"Taken from the parent debate {esc(s['reused_from'])} as it was recorded there: "
                           "no model was called again, so it has no tokens of its own.")
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


def _intervention_entry(step: dict[str, Any], names: dict[str, str] | None) -> None:
    """A reviewer's intervention in the transcript: who, when, before which round, and what, in words
    (it has no prompt: a person wrote it)."""
    iv = step.get("output") or {}
    who = iv.get("reviewer") or glossary.agent(step.get("agent"), names)
    rnd = iv.get("round") or step.get("round")
    with st.expander(f"Round {rnd} · {who}'s intervention" if rnd else f"{who}'s intervention"):
        when = (iv.get("ts") or step.get("finished_at") or "")[:19].replace("T", " ")
        st.caption(" · ".join(x for x in (f"by {esc(who)}", esc(when),
                                          f"made {esc(steering.intervention_when(iv))}, while the debate was paused")
                              if x))
        st.markdown(f"**{esc(who)}'s intervention:** {esc(steering.intervention_text(iv, names))}")


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
