"""Review controls: accept, override or escalate a verdict; supervisors approve or override escalations.

Each button's callback is bound, when the button is drawn, to the debate version the reviewer is
looking at. The store refuses an action on any other version, so when two reviewers act on the
same debate at once the second gets a clear message, and the text they typed is shown back to
them instead of being lost.

The choice of action is a keyed control, not client-side tabs, so a validation error keeps the
form the reviewer was on; a new debate's key starts from no choice (a neutral form). After an
action the reviewer may undo it while the page is open; the undo is a review action of its own.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.core.review_rules import same_name
from debate_core.present import formatting, views
from debate_core.store import NotFound, ReviewConflict, ReviewError, StoreError
from ui import common

esc = formatting.md_escape


def _fields(debate_id: str, action: str) -> tuple[str, str]:
    return f"{action}-answer-{debate_id}", f"{action}-reason-{debate_id}"


def _act(debate_id: str, action: str, version: int, supervisor: bool) -> None:
    answer_key, reason_key = _fields(debate_id, action)
    answer = st.session_state.get(answer_key) or ""
    reason = st.session_state.get(reason_key) or ""
    who = common.actor()
    if who is None or not who.name:
        common.flash(debate_id, "error", common.refusal("decide_escalation" if supervisor else "review")
                     + " Every action is recorded with who took it.")
        return
    try:
        store = common.write_store()
        try:
            entry = store.review(debate_id, action=action, actor=who, answer=answer, reason=reason,
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
    except (ReviewError, NotFound) as exc:  # includes an action the person's role does not allow
        common.flash(debate_id, "error", f"Not saved: {esc(exc)}")
        return
    except StoreError as exc:  # the write was rolled back: nothing of this action is in the database
        common.flash(debate_id, "error", f"Not saved: {esc(exc)}")
        return
    for key in (answer_key, reason_key):
        st.session_state.pop(key, None)
    st.session_state.pop(_choice_key(debate_id, supervisor), None)
    done = {"accept": "accepted", "override": "overridden", "escalate": "escalated to a supervisor",
            "approve": "approved"}[action]
    if supervisor and action == "override":
        done = "settled with your corrected answer"
    # What Undo needs: only this reviewer's action, and only while the debate is still as it left it.
    st.session_state[_undo_key(debate_id)] = {"reviewer": entry["reviewer"], "version": entry["version"],
                                              "action": action, "supervisor": supervisor}
    if supervisor:
        st.session_state[LAST_DECISION] = debate_id
    common.flash(debate_id, "success", f"Debate {done} by {esc(entry['reviewer'])}; recorded in the audit trail.")


LAST_DECISION = "last-supervisor-decision"


def last_decision() -> None:
    """On the Escalations page: the confirmation of the supervisor's last decision, with Undo,
    although that debate has left the queue."""
    debate_id = st.session_state.get(LAST_DECISION)
    if not debate_id:
        return
    store = common.read_store()
    try:
        # Its state, version and id are all the confirmation and Undo need: not its steps.
        debate = store.get_debate(debate_id, with_steps=False)
    except NotFound:
        st.session_state.pop(LAST_DECISION, None)
        return
    finally:
        store.close()
    if debate.get("review_state") == "escalated":  # undone, or never left: the queue shows it
        st.session_state.pop(LAST_DECISION, None)
        common.show_flash(debate_id)
        return
    common.show_flash(debate_id)
    undo_button(debate)


def _undo_key(debate_id: str) -> str:
    return f"undo:{debate_id}"


def _choice_key(debate_id: str, supervisor: bool) -> str:
    return f"{'sup-' if supervisor else ''}decision-{debate_id}"


def _undo(debate_id: str) -> None:
    last = st.session_state.pop(_undo_key(debate_id), None)
    who = common.actor()
    if not last or who is None:
        return
    try:
        store = common.write_store()
        try:
            store.review(debate_id, action="undo", actor=who, expected_version=last["version"],
                         supervisor=bool(last["supervisor"]))
        finally:
            store.close()
    except (ReviewConflict, ReviewError, NotFound, StoreError) as exc:
        common.flash(debate_id, "warning", f"Not undone: {esc(exc)}")
        return
    common.flash(debate_id, "success", f"Your {esc(last['action'])} was undone; the undo is recorded in the "
                 "audit trail.")


def undo_button(debate: dict[str, Any]) -> None:
    """Undo for the reviewer's own last action on this debate, while nothing happened after it."""
    last = st.session_state.get(_undo_key(debate["id"]))
    if not last:
        return
    if int(debate.get("version") or 0) != last["version"] or not same_name(last["reviewer"], common.reviewer()):
        st.session_state.pop(_undo_key(debate["id"]), None)
        return
    st.button(f"Undo my {last['action']}", key=f"undo-{debate['id']}", icon=":material/undo:",
              on_click=_undo, args=(debate["id"],))


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
        st.markdown(f"Review: **{formatting.REVIEW_STATE_LABELS.get(state, state)}** "
                    f"by {esc(debate.get('reviewed_by') or '?')}.")
        undo_button(debate)
        if state == "escalated":
            st.page_link(common.PAGES["escalations"], label="Open the Escalations queue",
                         icon=":material/priority_high:", query_params=common.link_params())
        return
    undo_button(debate)
    who = common.actor()
    if who is None or not who.may("review"):
        st.info(common.refusal("review"))
        return
    if not who.name:
        st.warning("Enter your name in the sidebar to review this debate.")
    verdict = debate.get("verdict") or {}
    choice = st.segmented_control("Your decision", ["Accept", "Override", "Escalate"],
                                  key=_choice_key(debate_id, False), label_visibility="collapsed")
    if choice is None:
        st.caption("Accept the verdict, override it with a corrected answer, or escalate it to a supervisor.")
    elif choice == "Accept":
        st.caption("Accept the moderator's verdict as the final answer.")
        st.button("Accept verdict", key=f"accept-{debate_id}", type="primary",
                  on_click=_act, args=(debate_id, "accept", version, False))
    elif choice == "Override":
        answer_key, reason_key = _fields(debate_id, "override")
        st.session_state.setdefault(answer_key, verdict.get("answer") or "")
        with st.form(f"override-form-{debate_id}", border=False):
            st.text_area("Corrected answer", key=answer_key)
            st.text_area("Reason (required)", key=reason_key,
                         placeholder="why the verdict is wrong, with the evidence ids you rely on")
            st.form_submit_button("Override verdict", key=f"override-submit-{debate_id}",
                                  on_click=_act, args=(debate_id, "override", version, False))
    else:
        _, reason_key = _fields(debate_id, "escalate")
        with st.form(f"escalate-form-{debate_id}", border=False):
            st.text_area("Reason (required)", key=reason_key,
                         placeholder="what a supervisor should decide")
            st.form_submit_button("Escalate to a supervisor", key=f"escalate-submit-{debate_id}",
                                  on_click=_act, args=(debate_id, "escalate", version, False))


def supervisor_controls(debate: dict[str, Any], is_supervisor: bool) -> None:
    """Approve or override an escalated debate; only someone with the supervisor role may act.

    Hiding the controls is a courtesy: the store checks the role again when the action is written,
    so a role changed between drawing and clicking cannot slip through."""
    debate_id, version = debate["id"], int(debate.get("version") or 0)
    common.show_flash(debate_id)
    if debate.get("review_state") != "escalated":
        state = debate.get("review_state") or "pending"
        st.info(f"This debate is no longer escalated ({formatting.REVIEW_STATE_LABELS.get(state, state)}).")
        undo_button(debate)
        return
    undo_button(debate)  # the reviewer who escalated may take it back before a supervisor decides
    if not is_supervisor:
        st.info(common.refusal("decide_escalation"))
        return
    choice = st.segmented_control("Supervisor's decision", ["Approve", "Override"],
                                  key=_choice_key(debate_id, True), label_visibility="collapsed")
    if choice is None:
        st.caption("Approve the verdict, or override it with a corrected answer that settles the escalation.")
    elif choice == "Approve":
        _, reason_key = _fields(debate_id, "approve")
        with st.form(f"approve-form-{debate_id}", border=False):
            st.text_area("Note (optional)", key=reason_key)
            st.form_submit_button("Approve verdict", type="primary", key=f"approve-submit-{debate_id}",
                                  on_click=_act, args=(debate_id, "approve", version, True))
    else:
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


def panel(debate: dict[str, Any], is_supervisor: bool) -> None:
    """The decision, in a container beside the verdict card: the controls for the debate's state,
    the confirmation or error of the last action, Undo, and the audit trail folded away."""
    with st.container(border=True, key="review-panel"):
        st.markdown("**Your decision**")
        if debate.get("review_state") == "escalated":
            supervisor_controls(debate, is_supervisor)
        else:
            reviewer_controls(debate)
        reviews = debate.get("reviews") or []
        store = common.read_store()
        try:
            started = store.audit_log(target=debate["id"])
        finally:
            store.close()
        with st.expander(f"Audit trail ({len(reviews) + len(started)})"):
            if started:
                st.dataframe(views.audit_rows(started), hide_index=True, key=f"audit-started-{debate['id']}")
            audit_trail(reviews)
