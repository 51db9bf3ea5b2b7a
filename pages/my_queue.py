"""My queue: the debates waiting for this person, oldest first, one at a time, worked from the keyboard.

A reviewer's queue holds the completed debates the moderator flagged for a human and nobody has
reviewed yet; a supervisor's holds the escalated ones awaiting approval or settlement. Each holds
what is assigned to the person or to nobody (debate_core/store/assignment.py); runs made by an
evaluation never appear. Decisions go through the same review actions as the debate page (the
store's state machine with its version check, through ui/review.py), so a debate someone else just
decided is refused with a clear message, never decided twice.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate_core.core.identity import PermissionRefused
from debate_core.present import formatting, views
from debate_core.store import Assignee, NotFound, ReviewError, StoreError, actor_key, current_assignee
from ui import common, desk, review

common.page_setup()

esc = formatting.md_escape
FLASH = "my-queue"
PEOPLE_KEY = "mq-people"  # key -> name of the people a supervisor may assign to
LAST = "mq-last"  # the debate last decided here: its confirmation and Undo stay on the page
QUEUE_TITLES = {"reviewer": "Flagged for review", "supervisor": "Escalated to a supervisor"}
# Single keys: Streamlit ignores them while the cursor is in a text field, so typing a reason is safe
# ("C" and "R" are Streamlit's own).
KEYS = {"reviewer": "A accept · O override · E escalate · N next · M assign to me",
        "supervisor": "A approve · O settle with an answer · N next · M assign to me"}


def _skipped_key(role: str) -> str:
    return f"mq-skipped-{role}"


def _mode_key(debate_id: str) -> str:
    return f"mq-mode-{debate_id}"


def _set_mode(debate_id: str, mode: str) -> None:
    st.session_state[_mode_key(debate_id)] = mode


def _skip(role: str, debate_id: str) -> None:
    st.session_state.setdefault(_skipped_key(role), []).append(debate_id)


def _decide(debate_id: str, action: str, version: int, supervisor: bool) -> None:
    """The debate page's own review action (role, required fields, version check); then remember
    the debate so its confirmation and Undo stay here after it leaves the queue."""
    review._act(debate_id, action, version, supervisor)
    kind = (st.session_state.get(f"flash:{debate_id}") or ("",))[0]  # what _act reported (common.flash)
    if kind == "success":
        st.session_state[LAST] = debate_id
        st.session_state.pop(_mode_key(debate_id), None)
    # Refused: the form stays open with what was typed, and the reason is shown beside it.


def _assign(debate_id: str, target: Any) -> None:
    """Assign to `target` ("me", None to release, or the person picked in the Assign-to control)."""
    who = common.actor()
    if target == "pick":
        target = st.session_state.get(f"mq-assignee-{debate_id}")
        if not target:
            common.flash(FLASH, "error", "Choose or type the person to assign the debate to.")
            return
        # Signed in, the control lists people by their key; in local mode it holds a name.
        people = st.session_state.get(PEOPLE_KEY) or {}
        target = Assignee(target, people[target]) if target in people else target
    elif target == "me":
        target = who
    try:
        store = common.write_store()
        try:
            done = store.assign(debate_id, target, actor=who)
        finally:
            store.close()
    except (PermissionRefused, ReviewError, NotFound, StoreError) as exc:
        common.flash(FLASH, "error", f"Not assigned: {esc(exc)}")
        return
    name = done["assignee_name"]
    common.flash(FLASH, "success", f"Debate {debate_id} is now assigned to {esc(name)}." if name
                 else f"Debate {debate_id} is no longer assigned to anyone.")


def _last_decision(store: Any) -> None:
    """The confirmation of the last decision taken here, with Undo while nothing happened after it."""
    last = st.session_state.get(LAST)
    if not last:
        return
    common.show_flash(last)
    try:
        review.undo_button(store.get_debate(last, with_steps=False))
    except NotFound:
        st.session_state.pop(LAST, None)


def _assignment(debate: dict[str, Any], me: str, is_supervisor: bool) -> None:
    held = current_assignee(debate)
    debate_id = debate["id"]
    if held is None:
        st.markdown("Assigned to nobody yet.")
    elif held.key == me:
        st.markdown("Assigned to **you**.")
    else:
        st.markdown(f"Assigned to **{esc(held.name)}**.")
    if held is None or (held.key != me and is_supervisor):
        st.button("Assign to me", key=f"mq-take-{debate_id}", icon=":material/person_add:", shortcut="M",
                  on_click=_assign, args=(debate_id, "me"))
    elif held.key == me:
        st.button("Release", key=f"mq-release-{debate_id}", icon=":material/person_remove:",
                  help="Put it back in the queue of everyone with your role.", on_click=_assign, args=(debate_id, None))
    if not is_supervisor:
        return
    signed_in = common.auth_configured()
    people = st.session_state.get(PEOPLE_KEY) or {}
    options = list(people) if signed_in else list(people.values())
    st.selectbox("Assign to", options, index=None, key=f"mq-assignee-{debate_id}",
                 format_func=lambda k: people.get(k, k), accept_new_options=not signed_in,
                 placeholder="someone who has acted here" if signed_in else "choose or type a name",
                 help="Signed-in people who have acted in the app." if signed_in else
                      "In local mode a person is a name; they see the debate once they enter that name.")
    st.button("Assign", key=f"mq-assign-{debate_id}", on_click=_assign, args=(debate_id, "pick"))


def _reviewer_actions(debate: dict[str, Any], version: int) -> None:
    debate_id = debate["id"]
    a, o, e, n = st.columns(4)
    a.button("Accept", key=f"mq-accept-{debate_id}", type="primary", shortcut="A", width="stretch",
             on_click=_decide, args=(debate_id, "accept", version, False))
    o.button("Override", key=f"mq-override-{debate_id}", shortcut="O", width="stretch",
             on_click=_set_mode, args=(debate_id, "override"))
    e.button("Escalate", key=f"mq-escalate-{debate_id}", shortcut="E", width="stretch",
             on_click=_set_mode, args=(debate_id, "escalate"))
    n.button("Skip to next", key=f"mq-skip-{debate_id}", shortcut="N", width="stretch",
             on_click=_skip, args=("reviewer", debate_id))
    mode = st.session_state.get(_mode_key(debate_id))
    if mode == "override":
        # The same session keys as the debate page's form: what was typed there is kept here too.
        answer_key, reason_key = review._fields(debate_id, "override")
        st.session_state.setdefault(answer_key, (debate.get("verdict") or {}).get("answer") or "")
        with st.form(f"mq-override-form-{debate_id}", border=False):
            st.text_area("Corrected answer", key=answer_key)
            st.text_area("Reason (required)", key=reason_key,
                         placeholder="why the verdict is wrong, with the evidence ids you rely on")
            st.form_submit_button("Override verdict", key=f"mq-override-submit-{debate_id}", type="primary",
                                  on_click=_decide, args=(debate_id, "override", version, False))
    elif mode == "escalate":
        _, reason_key = review._fields(debate_id, "escalate")
        with st.form(f"mq-escalate-form-{debate_id}", border=False):
            st.text_area("Reason (required)", key=reason_key, placeholder="what a supervisor should decide")
            st.form_submit_button("Escalate to a supervisor", key=f"mq-escalate-submit-{debate_id}", type="primary",
                                  on_click=_decide, args=(debate_id, "escalate", version, False))


def _supervisor_actions(debate: dict[str, Any], version: int) -> None:
    debate_id = debate["id"]
    a, o, n = st.columns(3)
    a.button("Approve", key=f"mq-approve-{debate_id}", type="primary", shortcut="A", width="stretch",
             on_click=_decide, args=(debate_id, "approve", version, True))
    o.button("Settle with an answer", key=f"mq-settle-{debate_id}", shortcut="O", width="stretch",
             on_click=_set_mode, args=(debate_id, "settle"))
    n.button("Skip to next", key=f"mq-skip-{debate_id}", shortcut="N", width="stretch",
             on_click=_skip, args=("supervisor", debate_id))
    if st.session_state.get(_mode_key(debate_id)) == "settle":
        answer_key, reason_key = review._fields(debate_id, "override")
        st.session_state.setdefault(answer_key, debate.get("final_answer") or "")
        with st.form(f"mq-settle-form-{debate_id}", border=False):
            st.text_area("Corrected answer", key=answer_key)
            st.text_area("Reason (required)", key=reason_key)
            st.form_submit_button("Settle with this answer", key=f"mq-settle-submit-{debate_id}", type="primary",
                                  on_click=_decide, args=(debate_id, "override", version, True))


st.title("My queue", anchor=False)
who = common.actor()
if who is None or not who.may("review") or not who.name.strip():
    st.info(common.refusal("review") or "Sign in to work through a queue.")
    st.stop()
me = actor_key(who)
is_supervisor = who.may("decide_escalation")

store = common.read_store()
try:
    if is_supervisor:  # kept for the Assign-to control and its callback, which runs before the next drawing
        st.session_state[PEOPLE_KEY] = {p.key: p.name for p in store.known_people(signed_in=common.auth_configured())}
    counts = {r: store.queue_counts(me, r) for r in (("reviewer", "supervisor") if is_supervisor else ("reviewer",))}
    role = "reviewer"
    if is_supervisor:
        role = st.segmented_control(
            "Queue", list(counts), key="mq-role", default="reviewer",
            format_func=lambda r: f"{QUEUE_TITLES[r]} ({counts[r]['left']})") or "reviewer"
    left = counts[role]
    st.metric("Left in your queue", left["left"])
    parts = [f"{left['mine']} assigned to you", f"{left['unassigned']} unassigned"]
    if left["others"]:
        parts.append(f"{left['others']} assigned to others (not shown)")
    st.caption(" · ".join(parts) + ". Oldest first. Evaluation runs are not part of any queue.")
    common.show_flash(FLASH)
    _last_decision(store)
    rows = store.my_queue(me, role, limit=200)
    if not rows:
        st.success("Nothing left: every debate waiting for you has been dealt with." if role == "reviewer"
                   else "Nothing left: no escalated debate awaits your decision.")
        st.stop()
    skipped = st.session_state.setdefault(_skipped_key(role), [])
    waiting = [d for d in rows if d["id"] not in skipped]
    if not waiting:  # everything left was skipped: start again from the oldest
        skipped.clear()
        waiting = rows
    current = waiting[0]
    debate = store.get_debate(current["id"], with_steps=False)
    claims = store.claims(current["id"])
    trail = store.reviews(current["id"]) if role == "supervisor" else []
finally:
    store.close()

debate_id, version = debate["id"], int(debate.get("version") or 0)
with st.container(border=True, key="mq-current"):
    st.markdown(f"**{esc(debate.get('title') or debate_id)}** · {esc(debate_id)} · started "
                f"{esc((debate.get('created_at') or '')[:16].replace('T', ' '))}")
    st.text(debate.get("question") or "")
    card, side = st.columns([3, 2], gap="medium")
    with card:
        desk.verdict_card(debate, claims, views.agent_names(debate))
        common.debate_link(debate_id, "Open the full debate")
    with side:
        if role == "supervisor":
            escalations = [r for r in trail if r.get("action") == "escalate"]
            if escalations:
                st.markdown(f"Escalated by **{esc(escalations[-1].get('reviewer'))}**:")
                st.text(escalations[-1].get("reason") or "")
        _assignment(debate, me, is_supervisor)
common.show_flash(debate_id)
(_supervisor_actions if role == "supervisor" else _reviewer_actions)(debate, version)
st.caption(f"Keys: {KEYS[role]}.")
after = waiting[1:4]
if after:
    st.caption("Up next: " + " · ".join(esc((d.get("title") or d["id"])[:60]) for d in after))
