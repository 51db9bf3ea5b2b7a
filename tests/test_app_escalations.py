"""Escalations page: the queue, supervisors' approve and override, and who may act."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from debate_core.core.app_settings import AppSettings, save_settings
from debate_core.store import DebateStore


def _escalated(make_debate, db_path, reason="Two supreme court lines conflict.") -> str:
    debate_id = make_debate()
    store = DebateStore(db_path)
    store.review(debate_id, action="escalate", reviewer="ann", reason=reason)
    store.close()
    return debate_id


def _open(app: AppTest, name: str | None) -> AppTest:
    app.run()
    if name is not None:
        app.session_state["reviewer_name"] = name
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
    assert any("No supervisors are named yet" in i.value for i in app.info)


def test_supervisor_approves(app, make_debate, db_path):
    save_settings(AppSettings(supervisors=["Sue"]), db_path)
    debate_id = _escalated(make_debate, db_path)
    _open(app, "sue")  # names match without regard to case
    assert "Two supreme court lines conflict." in [t.value for t in app.text]
    _choose(app, debate_id, "Approve")
    app.text_area(key=f"approve-reason-{debate_id}").set_value("The verdict follows E3.")
    app.button(key=f"approve-submit-{debate_id}").click().run()
    assert not app.exception
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["review_state"] == "approved"
    last = debate["reviews"][-1]
    assert (last["reviewer"], last["role"], last["action"], last["state_before"]) == (
        "sue", "supervisor", "approve", "escalated")
    assert any("queue is empty" in s.value for s in app.success)
    # The confirmation stays although the debate left the queue, with Undo for the supervisor.
    assert any("approved by sue" in s.value for s in app.success)
    app.button(key=f"undo-{debate_id}").click().run()
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["review_state"] == "escalated"
    assert [(r["reviewer"], r["action"], r["state_after"]) for r in debate["reviews"][-2:]] == [
        ("sue", "approve", "approved"), ("sue", "undo", "escalated")]


def test_the_next_case_starts_from_a_neutral_form(app, make_debate, db_path):
    save_settings(AppSettings(supervisors=["Sue"]), db_path)
    first = _escalated(make_debate, db_path)
    second = _escalated(make_debate, db_path)
    _open(app, "Sue")
    shown = app.selectbox(key="e-chosen").value
    _choose(app, shown, "Override")
    other = second if shown == first else first
    app.selectbox(key="e-chosen").set_value(other).run()
    assert app.button_group(key=f"sup-decision-{other}").value is None
    assert not [t for t in app.text_area if t.key and t.key.startswith("override-")]


def test_supervisor_override_needs_a_reason(app, make_debate, db_path):
    save_settings(AppSettings(supervisors=["Sue"]), db_path)
    debate_id = _escalated(make_debate, db_path)
    _open(app, "Sue")
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
    save_settings(AppSettings(supervisors=["Sue"]), db_path)
    debate_id = _escalated(make_debate, db_path)
    _open(app, "bob")
    assert any("Only supervisors" in i.value and "bob is not one of them" in i.value for i in app.info)
    assert all(not (b.key or "").endswith(debate_id) for b in app.button)


def test_moderator_flagged_debates_are_listed_for_reviewers(app, make_debate, db_path):
    from helpers import small_case

    flagged = make_debate(small_case(), "dialectic")  # this case does not converge offline: flagged
    assert DebateStore(db_path, readonly=True).get_debate(flagged, with_steps=False)["needs_human_review"]
    _open(app, None)
    assert any(s.value.startswith("Flagged by the moderator, awaiting a reviewer (1)") for s in app.subheader)


def test_the_service_refuses_a_supervisor_removed_after_the_page_was_drawn(app, make_debate, db_path):
    """The controls are drawn for Sue; before she clicks, she is taken off the list. The review
    service, not the page, decides: nothing is written and she is told why."""
    save_settings(AppSettings(supervisors=["Sue"]), db_path)
    debate_id = _escalated(make_debate, db_path)
    _open(app, "sue")
    _choose(app, debate_id, "Approve")
    save_settings(AppSettings(supervisors=["Tom"]), db_path)
    app.button(key=f"approve-submit-{debate_id}").click().run()
    assert any("Not saved: sue is not a supervisor" in e.value for e in app.error)
    debate = DebateStore(db_path, readonly=True).get_debate(debate_id)
    assert debate["review_state"] == "escalated" and [r["action"] for r in debate["reviews"]] == ["escalate"]


def test_no_supervisors_message_names_the_settings_file(app, db_path):
    from debate_core.present.formatting import md_escape

    _open(app, None)
    assert any(md_escape(db_path.with_name("debates.settings.json")) in i.value for i in app.info)
