"""One debate: live while it runs (refreshing by itself, with Pause and Stop), the steering panel while
it is paused, then the full record and the review controls; forks and lineage in the row under the title."""

from __future__ import annotations

import streamlit as st

from debate_core.present import formatting, runners, views
from debate_core.protocols import get_spec
from debate_core.store import NotFound, redacted
from ui import annotations, common, cost, desk, render, review, steer

common.page_setup()

settings = common.app_settings()


def _planned_rounds(debate: dict) -> int | None:
    rounds = (debate.get("settings") or {}).get("rounds")
    if rounds:
        return int(rounds)
    try:
        return get_spec(debate["protocol"]).default_rounds
    except Exception:  # noqa: BLE001 - only an estimate for the progress bar
        return None


def _pick_debate() -> str | None:
    debate_id = st.query_params.get("id") or st.session_state.get("debate_id")
    if debate_id:
        return str(debate_id)
    store = common.read_store()
    try:
        recent = store.list_debates(limit=50)
    finally:
        store.close()
    st.title("Debate", anchor=False)
    if not recent:
        st.info("No debates yet. Start one on the New debate page; it will show here live.")
        st.page_link(common.PAGES["new"], label="New debate", icon=":material/add_comment:")
        return None
    labels = {d["id"]: f"{d['id']} · {formatting.display_status(d)} · {d.get('title') or d.get('question')}"
              for d in recent}
    st.caption("Pick a recent debate, or search all of them on the History page.")
    return st.selectbox("Debate", list(labels), format_func=labels.get, index=None, key="debate-pick",
                        placeholder="choose a debate")


TABS = ["Rounds", "Claims", "Critiques", "Verdict details", "Protocol view", "Plots", "Evidence", "Transcript"]


def _body(debate: dict, steps: list, claims: list, critiques: list, events: list, key: str) -> None:
    names = views.agent_names(debate)
    # Only the tab on view is drawn (a click on another reruns the page): a large debate's eight
    # plots, tables and transcript would otherwise all be built and sent on every load.
    tabs = st.tabs(TABS, key=f"tabs-{key}", on_change="rerun")
    sections = [
        lambda: render.rounds(steps, debate["protocol"], names),
        lambda: (render.claims(claims, debate.get("case"), key, steps, names),
                 annotations.claim_panel(debate, claims, common.reviewer())),
        lambda: (render.critiques(critiques, steps, names, claims, debate.get("case"), key),
                 annotations.critique_panel(debate, critiques, common.reviewer())),
        lambda: desk.details(debate, names),
        lambda: render.protocol_views(debate, steps, names) or st.info("Nothing protocol-specific to show yet."),
        lambda: (render.charts(debate, steps, events, key, names), cost.section(debate, steps, settings)),
        lambda: render.passages(debate.get("case")),
        lambda: _transcript(debate, steps, key, names),
    ]
    for tab, draw in zip(tabs, sections, strict=True):
        if tab.open:
            with tab:
                draw()


def _transcript(debate: dict, steps: list, key: str, names: dict) -> None:
    if debate.get("status") != "running":
        store = common.read_store()
        try:
            render.export_buttons(store, debate["id"], f"d-{key}")
        finally:
            store.close()
    render.transcript(steps, debate["protocol"], names)


def _load(debate_id: str) -> tuple[dict, list, list, list, list]:
    store = common.read_store()
    try:
        debate = store.get_debate(debate_id)
        return debate, debate["steps"], store.claims(debate_id), store.critiques(debate_id), store.events(debate_id)
    finally:
        store.close()


debate_id = _pick_debate()
if debate_id:
    try:
        debate, steps, claims, critiques, events = _load(debate_id)
    except NotFound:
        st.title("Debate", anchor=False)
        st.error(f"There is no debate with id {formatting.md_escape(repr(debate_id))} in {formatting.md_escape(redacted(common.db_path()))}.")
        st.page_link(common.PAGES["history"], label="Find debates on the History page", icon=":material/history:")
        st.stop()
    st.session_state["debate_id"] = debate_id
    if st.query_params.get("id") != debate_id:
        st.query_params["id"] = debate_id
    render.header(debate)
    if debate.get("evaluation_id"):
        st.caption(f"A run made by evaluation {formatting.md_escape(debate['evaluation_id'])}: it is kept out of "
                   "History, the review queues and Analytics, and read with its evaluation.")
        st.page_link(common.PAGES["evaluations"], label="Open the Evaluations page", icon=":material/science:")
    steer.actions(debate)

    if debate["status"] == "running":
        @st.fragment(run_every=settings.refresh_seconds)
        def live() -> None:
            d, s, cl, cr, ev = _load(debate_id)
            if d["status"] != "running":
                st.rerun()  # the whole page: the review or steering controls appear once the run has halted
            steer.live_controls(d)
            note = runners.runner_note(d, ev)
            if note:  # queued for a worker, or on one: say where it runs
                st.caption(formatting.md_escape(note))
            render.progress_bar(d, s, _planned_rounds(d))
            _body(d, s, cl, cr, ev, "live")

        steer.fork_tools(debate)  # only a running debate's earlier forks, if it has any
        live()
    elif debate["status"] == "paused":
        steer.paused_banner(debate, events)
        steer.panel(debate, common.may("decide_escalation"))  # with the fork tools beside Continue
        render.warnings(debate)
        _body(debate, steps, claims, critiques, events, "done")
    else:
        if debate["status"] == "stopped":
            steer.stopped_banner(debate)
        render.failure(debate)
        ran = runners.runner_note(debate, events)
        if ran:
            st.caption(formatting.md_escape(ran))
        if debate["status"] == "completed":
            # The decision beside the evidence: the verdict card and the review panel share the
            # first screen, and the tabs with the rounds, claims and passages follow directly. The
            # fork tools sit under the decision, where the shorter column leaves room.
            card, decision = st.columns([3, 2], gap="medium")
            with card:
                desk.verdict_card(debate, claims, views.agent_names(debate))
            with decision:
                review.panel(debate, common.may("decide_escalation"))
                steer.fork_tools(debate)
        else:
            steer.fork_tools(debate)
        render.warnings(debate)
        _body(debate, steps, claims, critiques, events, "done")
