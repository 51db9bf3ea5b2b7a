"""Evaluations: how often a protocol, its presets and the single-agent baselines get labelled cases
right, how often a wrong answer slips through unreviewed, and what each costs. Evaluations run on
the background worker; this page only reads the store, refreshing while one runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from debate_core.evaluation import harness as evaluation
from debate_core.evaluation import report as eval_report
from debate_core.evaluation.summary import DEFAULT_SEED, summarise
from debate_core.jobs import worker
from debate_core.present import formatting, views
from debate_core.protocols import BASELINES, PROTOCOLS, get_spec
from ui import common

common.page_setup()

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {
    "Sample cases": ROOT / "data" / "cases",
    "Labelled set: development cases": ROOT / "data" / "eval" / "dev",
    "Labelled set: held-out cases": ROOT / "data" / "eval" / "holdout",
}
BASELINE_WORDS = {"single": "one agent answering alone", "majority": "a majority vote of single agents"}

st.title("Evaluations", anchor=False)
st.caption("An evaluation runs a protocol on cases whose right answer is known, next to simpler ways of answering, "
           "and counts how often each is right, how often a wrong answer is *not* sent to a person (silent "
           "wrong), and how often a right answer is sent to a person for nothing (over-flagged).")
common.show_flash("eval")


def _start_form() -> None:
    settings = common.app_settings()
    if not common.may("evaluate"):
        st.caption(common.refusal("evaluate"))
        return
    with st.expander("Start an evaluation", expanded=False):
        protocol = st.selectbox("Protocol", PROTOCOLS, key="ev-protocol",
                                format_func=lambda p: f"{get_spec(p).title} ({p})")
        spec = get_spec(protocol)
        presets = [*spec.presets, *settings.presets.get(protocol, {})]
        with st.form("ev-form"):
            chosen_sources = st.multiselect("Cases", list(SOURCES), default=list(SOURCES)[1:], key="ev-sources",
                                            help="Every case with an expected answer is scored; cases the "
                                                 "protocol cannot use are left out and listed.")
            chosen_presets = st.multiselect("Presets to compare", presets, key="ev-presets")
            baselines = st.multiselect("Compare with", list(BASELINES), default=list(BASELINES), key="ev-baselines",
                                       format_func=lambda b: BASELINE_WORDS[b])
            c1, c2 = st.columns(2)
            samples = c1.number_input("Single agents voting", 1, 15, 3, key="ev-samples")
            repeat = c2.number_input("Times each case is run", 1, 10, 1, key="ev-repeat")
            st.caption("Runs use the offline provider (rule-based agents, no model).")
            submitted = st.form_submit_button("Start evaluation", type="primary")
        if not submitted:
            return
        try:
            plan = evaluation.prepare([SOURCES[s] for s in chosen_sources], protocol, presets=chosen_presets,
                                      baselines=baselines, samples=int(samples), repeat=int(repeat),
                                      prices=settings.price_table(), saved_presets=settings.presets.get(protocol))
        except evaluation.EvaluationError as exc:
            st.error(f"The evaluation cannot start: {formatting.md_escape(exc)}")
            return
        evaluation_id = worker.start_evaluation(plan, db_path=common.db_path(), actor=common.actor())
        st.session_state["ev-selected"] = evaluation_id
        common.flash("eval", "success", f"Started evaluation {evaluation_id}: {plan.total_runs} runs.")
        st.rerun()


def _label(e: dict[str, Any]) -> str:
    return (f"{e['created_at'][:16].replace('T', ' ')} · {e['protocol']} · {len(e['cases'])} cases · "
            f"{', '.join(e['methods'])} ({e['status']})")


def _methods_section(ev: dict[str, Any]) -> None:
    summary = ev["summary"] or summarise(ev["rows"], ev["methods"], seed=ev["settings"].get("seed") or DEFAULT_SEED)
    currency = ev["settings"].get("currency")
    st.subheader("By method", anchor=False)
    st.caption("Right: the answer says what the case expects. Silent wrong: nobody was asked to check it although "
               "it was wrong, or although the case needed a person. Over-flagged: right, and sent to a person "
               "anyway. 'Right vs single' compares with one agent answering alone on the same cases.")
    st.dataframe(eval_report.summary_table(summary, currency), hide_index=True, key="ev-methods")
    figs = dict(eval_report.figures(summary))
    c1, c2 = st.columns(2)
    c1.plotly_chart(figs["right_vs_tokens"], key="ev-right-tokens")
    c2.plotly_chart(figs["silent_wrong"], key="ev-silent-wrong")


def _outcome(r: dict[str, Any]) -> str:
    if r.get("status") != "completed":
        return "failed"
    if r.get("silent_wrong"):
        return "silent wrong"
    if r.get("over_flagged"):
        return "right, flagged for nothing"
    if r.get("right"):
        return "right, flagged" if r.get("flagged") else "right"
    return "wrong, flagged"


def _runs_section(ev: dict[str, Any]) -> None:
    st.subheader("Every run", anchor=False)
    methods = st.multiselect("Methods", ev["methods"], default=ev["methods"], key="ev-run-methods")
    rows = [r for r in ev["rows"] if r["method"] in methods]
    table = [{
        "case": r["case"], "method": r["method"], "run": r["repeat"], "outcome": _outcome(r),
        "needs a person": "yes" if r.get("needs_human") else "no",
        "tokens": r.get("tokens"), "seconds": round((r.get("wall_ms") or 0) / 1000, 2),
        "answer": (r.get("answer") or r.get("error") or "")[:200],
        "debate": f"/debate?id={r['debate_id']}" if r.get("debate_id") else None,
    } for r in rows]
    st.dataframe(table, hide_index=True, key="ev-runs",
                 column_config={"debate": st.column_config.LinkColumn("debate", display_text="open")})


_start_form()
store = common.read_store()
try:
    listed = store.list_evaluations()
finally:
    store.close()
if not listed:
    st.info("No evaluations yet. Start one above, or from the command line: "
            "python -m debate_core eval data/eval --protocol panel --baselines single,majority")
    st.stop()

st.dataframe([{"started": e["created_at"][:19].replace("T", " "),
               "started by": f"{e.get('started_by')} ({views.identity_text(e)})" if e.get("started_by") else
               "the command line",
               "protocol": e["protocol"],
               "methods": ", ".join(e["methods"]), "cases": len(e["cases"]),
               "runs": f"{e['done_runs']} of {e['total_runs']}", "tokens": e["tokens"], "state": e["status"]}
              for e in listed], hide_index=True, key="ev-list")
ids = [e["id"] for e in listed]
if st.session_state.get("ev-selected") not in ids:
    st.session_state["ev-selected"] = ids[0]
labels = {e["id"]: _label(e) for e in listed}
selected = st.selectbox("Evaluation", ids, key="ev-selected", format_func=lambda i: labels[i])


def _show(evaluation_id: str) -> str:
    """The selected evaluation's progress, figures and runs; returns its status."""
    store = common.read_store()
    try:
        ev = store.get_evaluation(evaluation_id)
    finally:
        store.close()
    if ev["status"] == "running":
        st.progress(ev["done_runs"] / max(ev["total_runs"], 1),
                    text=f"{ev['done_runs']} of {ev['total_runs']} runs done, {ev['tokens']:,} tokens so far")
    elif ev["status"] == "failed":
        st.error(f"The evaluation stopped: {formatting.md_escape(ev['error'] or 'no reason was recorded')}")
    skipped = ev["settings"].get("skipped") or []
    if skipped:
        with st.expander(f"{len(skipped)} case(s) left out: the protocol cannot use them"):
            for s in skipped:
                st.text(f"{s['case']}: {s['reason']}")
    if not ev["rows"]:
        st.info("No run has finished yet.")
        return ev["status"]
    _methods_section(ev)
    _runs_section(ev)
    return ev["status"]


running = next((e for e in listed if e["id"] == selected), {}).get("status") == "running"
if running:
    @st.fragment(run_every=2)
    def _live() -> None:
        if _show(selected) != "running":
            # The whole page once the work underneath ends: the list above still says "running".
            st.rerun()
    _live()
else:
    _show(selected)
