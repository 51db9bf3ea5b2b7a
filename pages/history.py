"""History: the debates paused for review, then every debate, with filters and full-text search; open one
or export it. Runs made by an evaluation are left out unless asked for (they are reached from their
evaluation)."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import streamlit as st

from debate_core.present import formatting, steering, views
from debate_core.protocols import PROTOCOLS
from debate_core.store import REVIEW_STATES
from ui import common, render

common.page_setup()

ANY = "any"
# The moderator's outcome (or where the run stands); the review state is its own filter beside it.
STATUSES = ["running", "paused", "stopped", "converged", formatting.FLAGGED, formatting.NOT_CONVERGED, "failed"]

st.title("History", anchor=False)
store = common.read_store()
try:
    reviewers = store.reviewers()
    if not store.count_debates(include_evaluations=True):
        st.info("No debates yet. Start one on the New debate page; every debate is kept here.")
        st.page_link(common.PAGES["new"], label="New debate", icon=":material/add_comment:")
        st.stop()

    # Debates waiting for a reviewer to intervene and continue them come first: nothing moves until
    # someone opens them.
    paused = store.list_debates(status="paused", limit=200)
    if paused:
        st.subheader(f"Paused for review ({len(paused)})", anchor=False)
        st.caption("Open one to read it, raise critiques or add evidence, then continue or stop it.")
        with st.container(key="h-paused"):
            for d in paused:
                title = str(d.get("title") or d.get("question") or "")
                title = title if len(title) <= 80 else title[:79].rstrip() + "…"
                fork = f" · fork of {views.forked_from(d)}" if d.get("parent_id") else ""
                common.debate_link(d["id"], f"{title} · paused {steering.pause_place(d)} · {d['id']}{fork}")
        st.subheader("All debates", anchor=False)

    search = st.text_input("Search questions, answers and claims", key="h-search", icon=":material/search:",
                           placeholder="e.g. pusaka tinggi")
    f1, f2, f3, f4, f5 = st.columns(5)
    protocol = f1.selectbox("Protocol", [ANY, *PROTOCOLS], key="h-protocol")
    status = f2.selectbox("Moderator's outcome", [ANY, *STATUSES], key="h-status")
    state = f3.selectbox("Review", [ANY, *REVIEW_STATES], key="h-state",
                         format_func=lambda s: formatting.REVIEW_STATE_LABELS.get(s, s))
    reviewer = f4.selectbox("Reviewer", [ANY, *reviewers], key="h-reviewer")
    dates = f5.date_input("Created between", value=(), key="h-dates", format="YYYY-MM-DD")
    with_evaluations = st.checkbox("Include evaluation runs", value=False, key="h-evaluations",
                                   help="The debates an evaluation ran are kept apart from real work; "
                                        "they are also reached from their evaluation on the Evaluations page.")
    total = store.count_debates(include_evaluations=with_evaluations)

    filters: dict = {"limit": 1000, "include_evaluations": with_evaluations}
    if protocol != ANY:
        filters["protocol"] = protocol
    if status in ("running", "failed", "paused", "stopped"):
        filters["status"] = status
    elif status in ("converged", formatting.FLAGGED, formatting.NOT_CONVERGED):
        filters["status"] = "completed"
        filters["needs_review"] = status == formatting.FLAGGED
    if state != ANY:
        filters["review_state"] = state
    if reviewer != ANY:
        filters["reviewer"] = reviewer
    if isinstance(dates, (tuple, list)) and dates:
        start = dates[0]
        end = dates[1] if len(dates) > 1 else dates[0]
        filters["since"] = start.isoformat()
        filters["until"] = (end + dt.timedelta(days=1)).isoformat()
    if search.strip():
        filters["search"] = search
    debates = store.list_debates(**filters)
    if status != ANY:
        # converged vs. not converged is not a stored column; the label decides.
        debates = [d for d in debates if formatting.display_status(d) == status]

    st.caption(f"{len(debates)} of {total} debate(s)")
    if not debates:
        st.info("No debate matches these filters. Clear the search or set a filter back to 'any'." if total else
                "No debates yet besides the runs evaluations made: tick *Include evaluation runs* to see them, "
                "or start a debate on the New debate page.")
        st.stop()
    rows = views.history_rows(debates)
    for r, d in zip(rows, debates, strict=True):
        r["evaluation"] = d.get("evaluation_id") or ""
    # The same case debated again keeps its title: such rows also show when they started and their id.
    titles = Counter(r["title"] for r in rows)
    for r in rows:
        r["debate"] = r["title"] if titles[r["title"]] == 1 else f"{r['title']} · {r['created'][:16]} · {r['id']}"
        if r["evaluation"]:
            r["debate"] = f"{r['debate']} · evaluation run"
    st.caption("Click a row to open the debate.")
    picked = st.dataframe(rows, hide_index=True, key="h-table", on_select="rerun", selection_mode="single-row",
                          column_order=["created", "debate", "protocol", "status", "review", "reviewed_by", "rounds",
                                        "forked_from", *(["evaluation"] if with_evaluations else []), "tokens",
                                        "answer", "question", "provider", "id"], column_config={
        "status": st.column_config.TextColumn(
            "outcome", help="the moderator's outcome: converged, flagged for a human or not converged "
                            "(or running, paused, stopped, failed)"),
        "review": st.column_config.TextColumn("review", help="the review state: awaiting review, accepted, "
                                              "overridden, escalated to a supervisor, approved or settled"),
        "forked_from": st.column_config.TextColumn(
            "forked from", help="a fork's parent debate and the round after which it went its own way"),
        "reviewed_by": st.column_config.TextColumn("reviewed by", help="who decided the verdict"),
        "debate": st.column_config.TextColumn("title", width="medium"),
        "evaluation": st.column_config.TextColumn(
            "evaluation", help="the evaluation that made this run (empty for real work)"),
        "question": st.column_config.TextColumn("question", width="large"),
        "answer": st.column_config.TextColumn("answer", width="large"),
    })
    selected = list(getattr(getattr(picked, "selection", None), "rows", []) or [])
    if selected and selected[0] < len(rows):
        opened = rows[selected[0]]["id"]
        st.session_state["debate_id"] = opened
        st.switch_page(common.PAGES["debate"], query_params={"id": opened})

    st.subheader("Open or export", anchor=False)
    labels = {r["id"]: f"{r['id']} · {r['status']} · {r['review']} · {r['question'][:80]}" for r in rows}
    chosen = st.selectbox("Debate", list(labels), format_func=labels.get, key="h-chosen")
    b1, b2 = st.columns([1, 3], vertical_alignment="center")
    if b1.button("Open debate", type="primary", key="h-open", icon=":material/open_in_new:"):
        st.session_state["debate_id"] = chosen
        st.switch_page(common.PAGES["debate"], query_params={"id": chosen})
    with b2:
        render.export_buttons(store, chosen, "h")
finally:
    store.close()
