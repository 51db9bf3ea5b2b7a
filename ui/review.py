"""Review controls: accept, override or escalate a verdict; supervisors approve or override escalations.

Each button's callback is bound, when the button is drawn, to the debate version the reviewer is
looking at. The store refuses an action on any other version, so when two reviewers act on the
same debate at once the second gets a clear message, and the text they typed is shown back to
them instead of being lost.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core import views
from debate_core.store import NotFound, ReviewConflict, ReviewError, StoreError
from ui import common

esc = views.md_escape


def _fields(debate_id: str, action: str) -> tuple[str, str]:
    return f"{action}-answer-{debate_id}", f"{action}-reason-{debate_id}"


def _act(debate_id: str, action: str, version: int, supervisor: bool) -> None:
    answer_key, reason_key = _fields(debate_id, action)
    answer = st.session_state.get(answer_key) or ""
    reason = st.session_state.get(reason_key) or ""
    name = common.reviewer()
    if not name:
        common.flash(debate_id, "error", "Enter your name in the sidebar before acting on a debate: "
                     "every action is recorded with its reviewer.")
        return
    try:
        store = common.write_store()
        try:
            entry = store.review(debate_id, action=action, reviewer=name, answer=answer, reason=reason,
                                 expected_version=version, supervisor=supervisor)
        finally:
            store.close()
    except ReviewConflict as exc:
        typed = "\n".join(x for x in (f"answer: {answer}" if answer else "", f"reason: {reason}" if reason else "")
                          if x)
        common.flash(
            debate_id, "warning",
            f"Your {action} was not saved: {esc(exc)}. The page now shows the current state; "
            "your input is kept below so you can reuse it." if typed else
            f"Your {action} was not saved: {esc(exc)}. The page now shows the current state.",
            typed or None,
        )
        return
    except (ReviewError, NotFound) as exc:  # includes a supervisor's action by someone not named one
        common.flash(debate_id, "error", f"Not saved: {esc(exc)}")
        return
    except StoreError as exc:  # the write was rolled back: nothing of this action is in the database
        common.flash(debate_id, "error", f"Not saved: {esc(exc)}")
        return
    for key in (answer_key, reason_key):
        st.session_state.pop(key, None)
    done = {"accept": "accepted", "override": "overridden", "escalate": "escalated to a supervisor",
            "approve": "approved"}[action]
    common.flash(debate_id, "success", f"Debate {done} by {esc(entry['reviewer'])}; recorded in the audit trail.")


def reviewer_controls(debate: dict[str, Any]) -> None:
    """Accept, override (answer + reason) or escalate (reason) a completed debate awaiting review."""
    debate_id, version = debate["id"], int(debate.get("version") or 0)
    common.show_flash(debate_id)
    state = debate.get("review_state") or "pending"
    if debate.get("status") != "completed":
        st.info("Review opens when the debate has completed." if debate.get("status") == "running"
                else "A failed debate has no verdict to review.")
        return
    if state != "pending":
        st.success(f"Review: **{views.REVIEW_STATE_LABELS.get(state, state)}** "
                   f"by {esc(debate.get('reviewed_by') or '?')}.")
        if state == "escalated":
            st.page_link(common.PAGES["escalations"], label="Open the Escalations queue",
                         icon=":material/priority_high:")
        return
    if not common.reviewer():
        st.warning("Enter your name in the sidebar to review this debate.")
    verdict = debate.get("verdict") or {}
    accept, override, escalate = st.tabs(["Accept", "Override", "Escalate"])
    with accept:
        st.caption("Accept the moderator's verdict as the final answer.")
        st.button("Accept verdict", key=f"accept-{debate_id}", type="primary",
                  on_click=_act, args=(debate_id, "accept", version, False))
    with override:
        answer_key, reason_key = _fields(debate_id, "override")
        st.session_state.setdefault(answer_key, verdict.get("answer") or "")
        with st.form(f"override-form-{debate_id}", border=False):
            st.text_area("Corrected answer", key=answer_key)
            st.text_area("Reason (required)", key=reason_key,
                         placeholder="why the verdict is wrong, with the evidence ids you rely on")
            st.form_submit_button("Override verdict", key=f"override-submit-{debate_id}",
                                  on_click=_act, args=(debate_id, "override", version, False))
    with escalate:
        _, reason_key = _fields(debate_id, "escalate")
        with st.form(f"escalate-form-{debate_id}", border=False):
            st.text_area("Reason (required)", key=reason_key,
                         placeholder="what a supervisor should decide")
            st.form_submit_button("Escalate to a supervisor", key=f"escalate-submit-{debate_id}",
                                  on_click=_act, args=(debate_id, "escalate", version, False))


def supervisor_controls(debate: dict[str, Any], is_supervisor: bool) -> None:
    """Approve or override an escalated debate; only supervisors named in Settings may act.

    Hiding the controls is a courtesy: the review service checks the role again when the action
    is written, so a name or a settings change between drawing and clicking cannot slip through."""
    debate_id, version = debate["id"], int(debate.get("version") or 0)
    common.show_flash(debate_id)
    if debate.get("review_state") != "escalated":
        state = debate.get("review_state") or "pending"
        st.info(f"This debate is no longer escalated ({views.REVIEW_STATE_LABELS.get(state, state)}).")
        return
    if not is_supervisor:
        who = common.reviewer()
        st.info("Only supervisors named on the Settings page can approve or override an escalation"
                + (f"; {who} is not one of them." if who else "; enter your name in the sidebar."))
        return
    approve, override = st.tabs(["Approve", "Override"])
    with approve:
        _, reason_key = _fields(debate_id, "approve")
        with st.form(f"approve-form-{debate_id}", border=False):
            st.text_area("Note (optional)", key=reason_key)
            st.form_submit_button("Approve verdict", type="primary", key=f"approve-submit-{debate_id}",
                                  on_click=_act, args=(debate_id, "approve", version, True))
    with override:
        answer_key, reason_key = _fields(debate_id, "override")
        st.session_state.setdefault(answer_key, debate.get("final_answer") or "")
        with st.form(f"sup-override-form-{debate_id}", border=False):
            st.text_area("Corrected answer", key=answer_key)
            st.text_area("Reason (required)", key=reason_key)
            st.form_submit_button("Override verdict", key=f"sup-override-submit-{debate_id}",
                                  on_click=_act, args=(debate_id, "override", version, True))


def audit_trail(reviews: list[dict[str, Any]]) -> None:
    if not reviews:
        st.caption("No review actions yet.")
        return
    st.dataframe(views.review_rows(reviews), hide_index=True)
