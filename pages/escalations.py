"""Escalations: debates a reviewer escalated, for a supervisor to approve or override."""

from __future__ import annotations

import streamlit as st

from debate_core.core.app_settings import settings_path
from debate_core.core.identity import LOCAL_MODE_NOTICE
from debate_core.present import formatting, views
from debate_core.store import DebateStore, NotFound
from ui import common, desk, review

common.page_setup()

esc = formatting.md_escape

# The tables show a page of rows each, newest first, and grow by a page on request: the counts
# come from one aggregate query, so a long queue costs neither the server nor the browser more.
PAGE_ROWS = 20


def _shown(key: str) -> int:
    return int(st.session_state.get(key, PAGE_ROWS))


def _show_more(key: str) -> None:
    st.session_state[key] = _shown(key) + PAGE_ROWS


def _more_button(key: str, shown: int, total: int) -> None:
    if total <= shown:
        return
    st.caption(f"Showing the newest {shown} of {total}.")
    st.button(f"Show {min(PAGE_ROWS, total - shown)} more", key=f"{key}-more", on_click=_show_more, args=(key,))


def _linked(store: DebateStore, debate_id: str | None, shown: list[dict]) -> list[dict]:
    """The escalated debate a link asked for, when it is not among the rows shown (one read)."""
    if not debate_id or any(d["id"] == debate_id for d in shown):
        return []
    try:
        debate = store.get_debate(debate_id, with_steps=False)
    except NotFound:
        return []
    if debate.get("review_state") != "escalated" or debate.get("evaluation_id"):
        return []
    return [debate]


st.title("Escalations", anchor=False)
who = common.actor()
is_supervisor = common.may("decide_escalation")
if not common.auth_configured():
    st.caption(f"{LOCAL_MODE_NOTICE} Everyone here has the {who.role if who else 'viewer'} role.")
if is_supervisor:
    st.caption(f"Acting as {esc(who.described() if who else '')}, with the {who.role if who else ''} role: "
               "you can approve or settle escalations.")
elif common.auth_configured():
    st.info(f"{common.refusal('decide_escalation')} Roles are given by an admin on the Settings page "
            f"(kept in {esc(settings_path(common.db_path()))}), or by a claim from the identity provider.")
else:
    st.info(f"{common.refusal('decide_escalation')} In local mode the role is set by whoever runs the server "
            "(DEBATE_LOCAL_ROLE); with sign-in on, roles are given on the Settings page "
            f"(kept in {esc(settings_path(common.db_path()))}).")

store = common.read_store()
try:
    review.last_decision()  # the confirmation (and Undo) of a decision whose debate has left the queue
    # Runs made by an evaluation are left out of the counts and both lists (the store's default).
    counts = store.review_queue_counts()
    queue = store.list_debates(review_state="escalated", limit=_shown("e-queue-rows")) if counts["escalated"] else []
    if not queue:
        st.success("The escalation queue is empty: no reviewer has escalated a debate that awaits a decision.")
    else:
        total = max(counts["escalated"], len(queue))
        st.subheader(f"Queue ({total})", anchor=False)
        st.dataframe(views.history_rows(queue), hide_index=True, key="e-table",
                     column_order=["id", "created", "protocol", "question", "answer", "reviewed_by"],
                     column_config={"reviewed_by": st.column_config.TextColumn("escalated by")})
        _more_button("e-queue-rows", len(queue), total)
        # A link naming a debate (?id=...) offers and chooses it even when it lies past the rows shown.
        wanted = st.query_params.get("id")
        linked = _linked(store, wanted, queue)
        labels = {d["id"]: f"{d['id']} · {d.get('title') or d.get('question')}" for d in [*linked, *queue]}
        chosen = st.selectbox("Decide on", list(labels), format_func=labels.get, key="e-chosen",
                              index=list(labels).index(wanted) if wanted in labels else 0)
        try:
            # Only the debate on view is read whole; the table above holds list rows only.
            debate = store.get_debate(chosen)
        except NotFound:
            st.warning("That debate was just removed.")
            st.stop()
        with st.container(border=True):
            st.markdown(f"**{esc(debate.get('title'))}**")
            st.text(debate.get("question") or "")
            escalations = [r for r in debate.get("reviews") or [] if r.get("action") == "escalate"]
            if escalations:
                last = escalations[-1]
                st.markdown(f"Escalated by **{esc(last.get('reviewer'))}** at {esc((last.get('ts') or '')[:19])}:")
                st.text(last.get("reason") or "")
            card, decision = st.columns([3, 2], gap="medium")
            with card:
                desk.verdict_card(debate, store.claims(chosen), views.agent_names(debate))
                common.debate_link(chosen, "Open the full debate")
            with decision:
                # Keyed per debate: the next case starts from a neutral form, not the last one used.
                review.panel(debate, is_supervisor)
    flagged = (store.list_debates(status="completed", needs_review=True, review_state="pending",
                                  limit=_shown("e-flagged-rows")) if counts["flagged"] else [])
    st.subheader(f"Flagged by the moderator, awaiting a reviewer ({max(counts['flagged'], len(flagged))})",
                 anchor=False)
    if not flagged:
        st.caption("None: every debate the moderator flagged for human review has been reviewed.")
    else:
        st.caption("The moderator's rules flagged these debates for human review. A reviewer accepts, "
                   "overrides or escalates each one from its debate page.")
        st.dataframe(views.history_rows(flagged), hide_index=True, key="e-flagged",
                     column_order=["id", "created", "protocol", "question", "answer"])
        for d in flagged:
            common.debate_link(d["id"], f"{d['id']} · {(d.get('title') or d.get('question') or '')[:80]}")
        _more_button("e-flagged-rows", len(flagged), max(counts["flagged"], len(flagged)))
finally:
    store.close()
