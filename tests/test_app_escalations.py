"""Escalations page: the queue, supervisors' approve and override, and who may act."""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from debate_core.core.app_settings import AppSettings, save_settings
from debate_core.store import DebateStore


def _escalated(make_debate, db_path, reason="Two supreme court lines conflict.") -> str:
    debate_id = make_debate()
    store = DebateStore(db_path)
    store.review(debate_id, action="escalate", reviewer="ann", reason=reason)
    store.close()
    return debate_id


PEOPLE = {"sue": ("s-1", "Sue", "sue@example.org"), "bob": ("b-1", "Bob", "bob@example.org"),
          "tom": ("t-1", "Tom", "tom@example.org")}
ROLES = {"sue@example.org": "supervisor", "bob@example.org": "reviewer", "tom@example.org": "supervisor"}


def signed_in(who: str) -> dict:
    """What st.user holds for someone signed in through the identity provider."""
    sub, name, email = PEOPLE[who]
    return {"is_logged_in": True, "iat": time.time(), "sub": sub, "name": name, "email": email, "iss": "https://idp.example.org"}


def _open(app: AppTest, name: str | None, *, user: dict | None = None, params: dict | None = None) -> AppTest:
    if user is not None:
        app.user = user
    app.run()
    if name is not None:
        app.session_state["reviewer_name"] = name
    for key, value in (params or {}).items():
        app.query_params[key] = value
    app.switch_page("pages/escalations.py").run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def _choose(app: AppTest, debate_id: str, action: str) -> AppTest:
    app.button_group(key=f"sup-decision-{debate_id}").set_value(action).run()
    assert not app.exception, [e.message for e in app.exception]
    return app


def test_empty_queue_explains_itself(app):
    _open(app, None)
    assert any("queue is empty" in s.value for s in app.success)
    assert any("Local mode: no sign-in; names are labels, not identities." in c.value for c in app.caption)


def test_supervisor_approves(app, make_debate, db_path):
    save_settings(AppSettings(roles=ROLES), db_path)
    debate_id = _escalated(make_debate, db_path)
    _open(app, None, user=signed_in("sue"))
    assert "Two supreme court lines conflict." in [t.value for t in app.text]
    _choose(app, debate_id, "Approve")
    app.text_area(key=f"approve-reason-{debate_id}").set_value("The verdict follows E3.")
    app.button(key=f"approve-submit-{debate_id}").click().run()
    assert not app.exception
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["review_state"] == "approved"
    last = debate["reviews"][-1]
    assert (last["reviewer"], last["role"], last["action"], last["state_before"], last["actor_kind"],
            last["actor_subject"], last["actor_email"]) == (
        "Sue", "supervisor", "approve", "escalated", "verified", "s-1", "sue@example.org")
    assert any("queue is empty" in s.value for s in app.success)
    # The confirmation stays although the debate left the queue, with Undo for the supervisor.
    assert any("approved by Sue" in s.value for s in app.success)
    app.button(key=f"undo-{debate_id}").click().run()
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["review_state"] == "escalated"
    assert [(r["reviewer"], r["action"], r["state_after"]) for r in debate["reviews"][-2:]] == [
        ("Sue", "approve", "approved"), ("Sue", "undo", "escalated")]


def test_the_next_case_starts_from_a_neutral_form(app, make_debate, db_path):
    save_settings(AppSettings(roles=ROLES), db_path)
    first = _escalated(make_debate, db_path)
    second = _escalated(make_debate, db_path)
    _open(app, None, user=signed_in("sue"))
    shown = app.selectbox(key="e-chosen").value
    _choose(app, shown, "Override")
    other = second if shown == first else first
    app.selectbox(key="e-chosen").set_value(other).run()
    assert app.button_group(key=f"sup-decision-{other}").value is None
    assert not [t for t in app.text_area if t.key and t.key.startswith("override-")]


def test_supervisor_override_needs_a_reason(app, make_debate, db_path):
    save_settings(AppSettings(roles=ROLES), db_path)
    debate_id = _escalated(make_debate, db_path)
    _open(app, None, user=signed_in("sue"))
    _choose(app, debate_id, "Override")
    app.text_area(key=f"override-answer-{debate_id}").set_value("The kaum keeps the sawah.")
    app.button(key=f"sup-override-submit-{debate_id}").click().run()
    assert any("needs a reason" in e.value for e in app.error)
    assert app.button_group(key=f"sup-decision-{debate_id}").value == "Override"
    app.text_area(key=f"override-answer-{debate_id}").set_value("The kaum keeps the sawah.")
    app.text_area(key=f"override-reason-{debate_id}").set_value("E4 is the nagari council's finding.")
    app.button(key=f"sup-override-submit-{debate_id}").click().run()
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["review_state"] == "settled"
    assert debate["final_answer"] == "The kaum keeps the sawah."
    assert debate["reviews"][-1]["role"] == "supervisor"


def test_only_supervisors_can_decide(app, make_debate, db_path):
    """Bob is a signed-in reviewer: no control, whatever a link or a typed name says."""
    save_settings(AppSettings(roles=ROLES), db_path)
    debate_id = _escalated(make_debate, db_path)
    _open(app, "sue", user=signed_in("bob"), params={"reviewer": "sue"})
    assert any("Only a supervisor or above may approve or settle an escalated debate; you have the reviewer role"
               in i.value for i in app.info)
    assert all(not (b.key or "").endswith(debate_id) for b in app.button)
    assert not [g for g in app.button_group if g.key == f"sup-decision-{debate_id}"]
    assert any("Signed in as **Bob**" in m.value for m in app.sidebar.markdown)


def test_in_local_mode_a_typed_name_or_link_changes_no_right(app, make_debate, db_path, monkeypatch):
    """A demo whose operator set local mode to reviewers: naming a supervisor in the sidebar or in
    the address bar gives no supervisor's control."""
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "reviewer")
    save_settings(AppSettings(roles=ROLES, supervisors=["sue"]), db_path)
    debate_id = _escalated(make_debate, db_path)
    _open(app, "sue", params={"reviewer": "sue"})
    assert any("you have the reviewer role" in i.value for i in app.info)
    assert not [g for g in app.button_group if g.key == f"sup-decision-{debate_id}"]


def test_moderator_flagged_debates_are_listed_for_reviewers(app, make_debate, db_path):
    from helpers import small_case

    flagged = make_debate(small_case(), "dialectic")  # this case does not converge offline: flagged
    assert DebateStore(db_path, readonly=True).get_debate(flagged, with_steps=False)["needs_human_review"]
    _open(app, None)
    assert any(s.value.startswith("Flagged by the moderator, awaiting a reviewer (1)") for s in app.subheader)


def test_the_service_refuses_a_supervisor_removed_after_the_page_was_drawn(app, make_debate, db_path):
    """The controls are drawn for Sue; before she clicks, she is taken off the list. The review
    service, not the page, decides: nothing is written and she is told why."""
    save_settings(AppSettings(roles=ROLES), db_path)
    debate_id = _escalated(make_debate, db_path)
    _open(app, None, user=signed_in("sue"))
    _choose(app, debate_id, "Approve")
    save_settings(AppSettings(roles={"tom@example.org": "supervisor"}), db_path)
    app.button(key=f"approve-submit-{debate_id}").click().run()
    assert any("Not saved: Sue has the viewer role; only a supervisor or above may approve" in e.value
               for e in app.error)
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["review_state"] == "escalated" and [r["action"] for r in debate["reviews"]] == ["escalate"]


def test_no_supervisors_message_names_the_settings_file(app, db_path, monkeypatch):
    from debate_core.present.formatting import md_escape

    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "reviewer")
    _open(app, None)
    assert any(md_escape(db_path.with_name("debates.settings.json")) in i.value for i in app.info)


def test_long_queues_show_a_page_at_a_time(app, make_debate, db_path):
    """25 escalated debates: the count is the whole queue, the table and the choice hold the newest
    20, and "Show 5 more" brings the rest; the debate on view stays the one chosen."""
    ids = [_escalated(make_debate, db_path) for _ in range(25)]
    _open(app, None)
    assert "Queue (25)" in [s.value for s in app.main.subheader]
    assert len(app.dataframe[0].value) == 20
    assert any(c.value == "Showing the newest 20 of 25." for c in app.caption)
    # Newest first, as the store orders them (debates started in the same second go by id).
    newest = [d["id"] for d in DebateStore(db_path, readonly=True).escalation_queue()]
    assert sorted(newest) == sorted(ids)
    assert app.selectbox(key="e-chosen").options == [
        f"{i} · Test inheritance case" for i in newest[:20]]
    app.selectbox(key="e-chosen").set_value(newest[3]).run()
    app.button(key="e-queue-rows-more").click().run()
    assert not app.exception, [e.message for e in app.exception]
    assert len(app.dataframe[0].value) == 25
    assert list(app.dataframe[0].value["id"]) == newest
    assert not [b for b in app.button if b.key == "e-queue-rows-more"]
    assert app.selectbox(key="e-chosen").value == newest[3]
    assert len(app.selectbox(key="e-chosen").options) == 25


def test_a_link_naming_a_debate_opens_it_past_the_rows_shown(app, make_debate, db_path):
    """The oldest of 22 escalated debates is not among the 20 rows shown; a link to the queue with
    its id (?id=...) still opens the queue on it, ready for a decision."""
    for _ in range(22):
        _escalated(make_debate, db_path)
    oldest = DebateStore(db_path, readonly=True).escalation_queue()[-1]["id"]
    _open(app, None, params={"id": oldest})
    assert oldest not in list(app.dataframe[0].value["id"])
    assert app.selectbox(key="e-chosen").value == oldest
    assert any(m.value == "**Test inheritance case**" for m in app.markdown)
    assert "Two supreme court lines conflict." in [t.value for t in app.text]
