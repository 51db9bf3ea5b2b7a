"""Compare two debates side by side: verdicts, claims added, removed and changed, critiques by
severity, both debates' rounds on one plot, tokens and cost. `?a=ID&b=ID` opens a pair directly.

The comparison itself is `debate_core.present.compare`; this page only lays it out. Model text goes
through `st.text`, tables or `formatting.md_escape`, never as HTML.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.core.schemas import SEVERITIES
from debate_core.present import compare, formatting
from debate_core.store import NotFound, redacted
from ui import common, plots

common.page_setup()

esc = formatting.md_escape
settings = common.app_settings()

st.title("Compare debates", anchor=False)
st.caption("Two debates side by side, typically a fork and the debate it came from, or two models or "
           "settings on one case. Everything is read as B against A: *added* means only B has it.")


def _options() -> tuple[list[str], dict[str, str]]:
    """Recent debates (and any named in the address bar) with a label a reviewer recognises."""
    store = common.read_store()
    try:
        recent = store.list_debates(limit=200)
        labels = {d["id"]: f"{d.get('title') or d.get('question') or d['id']} · {d['protocol']} · "
                           f"{formatting.display_status(d)} · {(d.get('created_at') or '')[:16].replace('T', ' ')} · {d['id']}"
                  for d in recent}
        for key in ("a", "b"):
            wanted = st.query_params.get(key)
            if wanted and wanted not in labels:
                try:
                    d = store.get_debate(str(wanted), with_steps=False)
                except NotFound:
                    continue
                labels[d["id"]] = f"{d.get('title') or d['id']} · {d['protocol']} · {d['id']}"
    finally:
        store.close()
    return list(labels), labels


ids, labels = _options()
if not ids:
    st.info("No debates yet. Start one on the New debate page; any two debates can then be compared here.")
    st.page_link(common.PAGES["new"], label="New debate", icon=":material/add_comment:")
    st.stop()

for key in ("a", "b"):
    # The address bar decides when it names a debate the page has not shown yet (a link, a reload);
    # afterwards the picker decides and the address follows it.
    wanted = st.query_params.get(key)
    if wanted and wanted not in labels:
        st.error(f"There is no debate with id {esc(wanted)} in {esc(redacted(common.db_path()))}.")
    elif wanted and wanted != st.session_state.get(f"cmp-shown-{key}"):
        st.session_state[f"cmp-{key}"] = wanted

left, right = st.columns(2)
with left:
    a_id = st.selectbox("Debate A", ids, format_func=labels.get, index=None, key="cmp-a", placeholder="choose a debate")
with right:
    b_id = st.selectbox("Debate B", ids, format_func=labels.get, index=None, key="cmp-b", placeholder="choose a debate")
for key, value in (("a", a_id), ("b", b_id)):
    st.session_state[f"cmp-shown-{key}"] = value
    if value and st.query_params.get(key) != value:
        st.query_params[key] = value
if not a_id or not b_id:
    st.info("Choose two debates to compare.")
    st.stop()


def _load(debate_id: str) -> dict[str, Any]:
    store = common.read_store()
    try:
        return compare.load_debate(store, debate_id)
    finally:
        store.close()


try:
    debate_a, debate_b = _load(a_id), _load(b_id)
except NotFound as exc:  # deleted between the choice and now
    st.error(esc(exc.args[0]))
    st.stop()
result = compare.compare(debate_a, debate_b, prices=settings.price_table())

for warning in result["warnings"]:
    st.warning(esc(warning[:1].upper() + warning[1:]) + ".")


def _who(side: str, summary: dict[str, Any]) -> None:
    st.markdown(f"**{side}: {esc(summary['title'] or summary['id'])}**")
    st.caption(" · ".join(esc(x) for x in (summary["protocol"], summary["status"], f"{summary['rounds'] or 0} round(s)",
                                           summary["provider"], (summary["created_at"] or "")[:16].replace("T", " "))))
    if summary.get("parent_id"):
        at = f" at round {summary['fork_round']}" if summary.get("fork_round") is not None else ""
        st.caption(f"Forked from debate {esc(summary['parent_id'])}{at}")
    if summary.get("resumed_from"):
        st.caption(f"Continues debate {esc(summary['resumed_from'])}")
    common.debate_link(summary["id"], f"Open debate {side}")


cols = st.columns(2)
for col, side in zip(cols, ("a", "b"), strict=True):
    with col:
        _who(side.upper(), result[side])

if result["settings"]:
    st.subheader("Settings that differ", anchor=False)
    st.dataframe([{"setting": r["setting"], "A": r["a"], "B": r["b"]} for r in result["settings"]],
                 hide_index=True, key="cmp-settings")

# --- Verdicts ----------------------------------------------------------------------------------
st.subheader("Verdicts", anchor=False)
verdict = result["verdict"]
cols = st.columns(2)
for col, side in zip(cols, ("a", "b"), strict=True):
    v = verdict[side]
    with col:
        if v is None:
            st.info(f"Debate {side.upper()} has no verdict.")
            continue
        # One vocabulary: the moderator's outcome (converged, flagged for a human, not converged) and
        # the review state, two badges; a flagged debate is not also called converged.
        outcome = formatting.display_status({"status": "completed", **v})
        color = {"converged": "green", formatting.FLAGGED: "orange"}.get(outcome, "gray")
        st.markdown(f":{color}-badge[{outcome}] "
                    f":gray-badge[review: {esc(formatting.review_label(v['review_state']))}]")
        st.metric("confidence", formatting.pct(v["confidence"]))
        st.text(v["short_answer"] or v["answer"])
        with st.expander("Full answer"):
            st.text(v["answer"])
        if v["reasons"]:
            st.markdown("**Why it goes to a human**")
            for reason in v["reasons"]:
                st.text(f"• {reason}")
if verdict["same_answer"] is not None:
    if verdict["same_answer"]:
        st.caption("The two answers are the same.")
    else:
        st.caption(f"The answers differ; they share {formatting.pct(verdict['answer_similarity'])} of their distinct words.")

# --- Claims ------------------------------------------------------------------------------------
claims = result["claims"]
st.subheader("Claims", anchor=False)
st.caption(f"A has {claims['count']['a']} claims at the end, B {claims['count']['b']}. Claims are matched by agent "
           f"and claim number, then by wording: claims of the same agent sharing at least "
           f"{formatting.pct(claims['similarity']['threshold'])} of their distinct words count as the same claim. "
           f"{len(claims['unchanged'])} claim(s) are the same in both.")


def _claim_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"claim": r["ref"], "statement": r["statement"], "evidence": ", ".join(r["evidence"]),
             "confidence": formatting.pct(r["confidence"])} for r in rows]


c1, c2 = st.columns(2)
with c1:
    st.markdown(f"**Added in B ({len(claims['added'])})**")
    if claims["added"]:
        st.dataframe(_claim_rows(claims["added"]), hide_index=True, key="cmp-added")
    else:
        st.caption("None.")
with c2:
    st.markdown(f"**Removed from A ({len(claims['removed'])})**")
    if claims["removed"]:
        st.dataframe(_claim_rows(claims["removed"]), hide_index=True, key="cmp-removed")
    else:
        st.caption("None.")
st.markdown(f"**Changed ({len(claims['changed'])})**")
if claims["changed"]:
    st.dataframe([{
        "claim in A": p["a"]["ref"], "claim in B": p["b"]["ref"],
        "matched by": "claim number" if p["matched_by"] == "id" else f"wording ({formatting.pct(p['similarity'])} shared)",
        "what changed": ", ".join(p["changes"]), "in A": p["a"]["statement"], "in B": p["b"]["statement"],
        "evidence in A": ", ".join(p["a"]["evidence"]), "evidence in B": ", ".join(p["b"]["evidence"]),
    } for p in claims["changed"]], hide_index=True, key="cmp-changed")
    for p in claims["changed"]:
        if p["statement_diff"]:
            with st.expander(f"Wording of {esc(p['a']['ref'])} → {esc(p['b']['ref'])}"):
                st.markdown(formatting.diff_markdown([(d["op"], d["text"]) for d in p["statement_diff"]]))
else:
    st.caption("None.")

# --- Critiques ---------------------------------------------------------------------------------
crit = result["critiques"]
st.subheader("Critiques by severity", anchor=False)
if not crit["a"]["total"] and not crit["b"]["total"]:
    st.caption("Neither debate recorded critiques.")
else:
    st.dataframe([{
        "severity": sev,
        "raised in A": crit["a"]["by_severity"][sev]["raised"], "raised in B": crit["b"]["by_severity"][sev]["raised"],
        "open at the end in A": crit["a"]["by_severity"][sev]["open"],
        "open at the end in B": crit["b"]["by_severity"][sev]["open"],
        "resolved in A": crit["a"]["by_severity"][sev]["resolved"],
        "resolved in B": crit["b"]["by_severity"][sev]["resolved"],
    } for sev in SEVERITIES], hide_index=True, key="cmp-severity")
    cols = st.columns(2)
    for col, side in zip(cols, ("a", "b"), strict=True):
        still = [it for it in crit[side]["items"] if it["open"]]
        with col:
            st.markdown(f"**Still open at the end of {side.upper()} ({len(still)})**")
            if still:
                st.dataframe([{"critique": it["ref"], "severity": it["severity"], "on claim": it["claim"],
                               "state": it["state_label"], "description": it["description"]} for it in still],
                             hide_index=True, key=f"cmp-open-{side}")
            else:
                st.caption("None.")
    if crit["state_changed"]:
        st.markdown("**Raised in both, ending in another state**")
        st.dataframe([{"critique": c["ref"], "severity": c["severity"], "on claim": c["claim"], "in A": c["a"],
                       "in B": c["b"]} for c in crit["state_changed"]], hide_index=True, key="cmp-state-changed")

# --- Rounds ------------------------------------------------------------------------------------
traj = result["trajectory"]
st.subheader("Round by round", anchor=False)
if not traj["measures"]:
    st.caption("Neither debate has per-round measures.")
else:
    keys = list(traj["measures"])
    measure = st.selectbox("Measure", keys, index=keys.index(traj["main"]) if traj["main"] in keys else 0,
                           format_func=lambda k: plots.TITLES.get(k, k.replace("_", " ").capitalize()),
                           key="cmp-measure")
    st.plotly_chart(plots.comparison_figure(traj["measures"][measure], measure), key="cmp-trajectory")
    st.caption("Debate A in solid lines, debate B dashed.")

# --- Tokens and cost ---------------------------------------------------------------------------
st.subheader("Tokens and cost", anchor=False)
usage, cost = result["usage"], result["cost"]
rows = [{"": "calls", "A": usage["a"]["calls"], "B": usage["b"]["calls"], "B minus A": usage["difference"]["calls"]}]
for key, label in (("input_tokens", "input tokens"), ("output_tokens", "output tokens"), ("total_tokens", "tokens in all")):
    rows.append({"": label, "A": usage["a"][key], "B": usage["b"][key], "B minus A": usage["difference"][key]})
st.dataframe(rows, hide_index=True, key="cmp-usage")
if cost is None:
    st.caption("No prices are set. Add each model's price on the Settings page to compare what the debates cost.")
else:
    from ui.cost import money

    m1, m2 = st.columns(2)
    m1.metric("estimated cost of A", money(cost["a"]["total"], cost["currency"]))
    m2.metric("estimated cost of B", money(cost["b"]["total"], cost["currency"]))
    for side in ("a", "b"):
        if not cost[side]["complete"]:
            st.warning(f"Debate {side.upper()} has steps whose model has no price ("
                       + ", ".join(esc(m) for m in cost[side]["unpriced_models"]) + "); they are not counted.")
