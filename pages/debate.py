"""One debate: live while it runs (refreshing by itself, with Pause and Stop), the steering panel while
it is paused, then the full record and the review controls; forks and lineage in the row under the title."""

from __future__ import annotations

from typing import Any

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


TABS = [render.VERDICT_TAB, "Rounds", "Claims", "Critiques", "Protocol view", "Plots", "Evidence", "Transcript"]


def _open_tab(debate: dict, key: str) -> None:
    """Which tab a debate shows before anyone picks one: a finished debate its verdict (once per
    debate, also when it finishes while watched, so a tab picked afterwards stays), any other its rounds."""
    state = f"tabs-{key}"
    if debate.get("status") == "completed" and st.session_state.get("debate-verdict-shown") != debate["id"]:
        st.session_state[state] = TABS[0]
        st.session_state["debate-verdict-shown"] = debate["id"]
    elif state not in st.session_state:
        st.session_state[state] = "Rounds"


def _body(debate: dict, steps: list, claims: list, critiques: list, events: list, key: str,
          card: Any = None) -> None:
    """The tabs; `card` is the column beside the decision where a finished debate's verdict goes:
    the whole card while the verdict tab is open, one line while another is (so the tab's content
    starts near the top, and nothing is shown twice)."""
    names = views.agent_names(debate)
    _open_tab(debate, key)
    # Only the tab on view is drawn (a click on another reruns the page): a large debate's eight
    # plots, tables and transcript would otherwise all be built and sent on every load.
    tabs = st.tabs(TABS, key=f"tabs-{key}", on_change="rerun")
    sections = [
        lambda: desk.details(debate, names),
        # Live, the round under way comes first and the finished ones fold away below it.
        lambda: render.rounds(steps, debate["protocol"], names, newest_first=key == "live"),
        lambda: (render.claims(claims, debate.get("case"), key, steps, names),
                 annotations.claim_panel(debate, claims, common.reviewer())),
        lambda: (render.critiques(critiques, steps, names, claims, debate.get("case"), key),
                 annotations.critique_panel(debate, critiques, common.reviewer())),
        lambda: render.protocol_views(debate, steps, names) or st.info("Nothing protocol-specific to show yet."),
        lambda: (render.charts(debate, steps, events, key, names), cost.section(debate, steps, settings)),
        lambda: render.passages(debate.get("case")),
        lambda: _transcript(debate, steps, key, names),
    ]
    for tab, draw in zip(tabs, sections, strict=True):
        if tab.open:
            with tab:
                draw()
    if card is not None:
        with card:
            if tabs[0].open:
                desk.verdict_card(debate, claims, names)
            else:
                render.verdict_line(debate)


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
        steer.resume_tools(debate)  # a failed debate's Resume, under what failed
        ran = runners.runner_note(debate, events)
        if ran:
            st.caption(formatting.md_escape(ran))
        card = None
        if debate["status"] == "completed":
            # The decision beside the evidence, on every tab: the verdict (drawn into `card` once the
            # open tab is known) and the review panel share the first screen, and the tabs follow
            # directly. The fork tools sit under the decision, where the shorter column leaves room.
            card, decision = st.columns([3, 2], gap="medium")
            with decision:
                review.panel(debate, common.may("decide_escalation"))
                steer.fork_tools(debate)
        else:
            steer.fork_tools(debate)
        render.warnings(debate)
        _body(debate, steps, claims, critiques, events, "done", card)
