"""My queue: a reviewer works through the flagged debates one at a time, oldest first; a
supervisor works the escalated ones and assigns debates to people. Driven through the whole app."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import small_case
from streamlit.testing.v1 import AppTest

from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import DebateStore, actor_key

PAGE = "pages/my_queue.py"
APP = Path(__file__).resolve().parent.parent / "app.py"


def _open(app: AppTest, name: str | None) -> AppTest:
    app.run()
    if name is not None:
        app.session_state["reviewer_name"] = name
    app.switch_page(PAGE).run()
    _ok(app)
    return app


def _ok(app: AppTest) -> None:
    assert not app.exception, [e.message for e in app.exception]
    assert not app.error, [e.value for e in app.error]


def _left(app: AppTest) -> int:
    return int(app.metric[0].value)


def _current(app: AppTest, action: str = "skip") -> str:
    """The id of the debate on show, read from its buttons' keys."""
    found = [b.key.removeprefix(f"mq-{action}-") for b in app.button if (b.key or "").startswith(f"mq-{action}-")]
    assert len(found) == 1, found
    return found[0]


def _store(db_path) -> DebateStore:
    return DebateStore(db_path, readonly=True)


@pytest.fixture
def flagged(make_debate, db_path):
    """Three completed debates the moderator flagged, oldest first, and a flagged evaluation run made
    after them (its run is the newest; a queue that let it in would show it last)."""
    ids = [make_debate() for _ in range(3)]
    store = DebateStore(db_path)
    try:
        eid = store.create_evaluation(protocol="cross_critique", methods=["debate"], cases=["c"], settings={},
                                      total_runs=1)
        run_id = store.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {}, evaluation_id=eid)
        run_debate(small_case(), "cross_critique", provider=make_provider("offline"), store=store, debate_id=run_id)
        assert all(store.get_debate(d, with_steps=False)["needs_human_review"] for d in [*ids, run_id])
    finally:
        store.close()
    return ids, run_id


def test_a_reviewer_works_through_the_queue_from_3_to_0(app, flagged, db_path, monkeypatch):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "reviewer")
    ids, run_id = flagged
    _open(app, "Ann")
    assert _left(app) == 3 and _current(app) == ids[0]
    assert not any(run_id in (b.key or "") for b in app.button)
    # Skip moves on without deciding; the count stays.
    app.button(key=f"mq-skip-{ids[0]}").click().run()
    assert _current(app) == ids[1] and _left(app) == 3
    # Accept: the debate leaves the queue; the confirmation and Undo stay.
    app.button(key=f"mq-accept-{ids[1]}").click().run()
    _ok(app)
    assert _store(db_path).get_debate(ids[1], with_steps=False)["review_state"] == "accepted"
    assert any("accepted by Ann" in s.value for s in app.success)
    assert app.button(key=f"undo-{ids[1]}") is not None
    assert _left(app) == 2 and _current(app) == ids[2]
    # Override with a corrected answer.
    app.button(key=f"mq-override-{ids[2]}").click().run()
    app.text_area(key=f"override-answer-{ids[2]}").set_value("Only the acquired land is divided.")
    app.text_area(key=f"override-reason-{ids[2]}").set_value("E3 says the sawah is pusaka tinggi.")
    app.button(key=f"mq-override-submit-{ids[2]}").click().run()
    _ok(app)
    d = _store(db_path).get_debate(ids[2], with_steps=False)
    assert (d["review_state"], d["final_answer"], d["reviewed_by"]) == (
        "overridden", "Only the acquired land is divided.", "Ann")
    # The skipped debate comes round again once everything after it is done.
    assert _left(app) == 1 and _current(app) == ids[0]
    # Escalate without a reason is refused, and nothing is written; with one it goes to a supervisor.
    app.button(key=f"mq-escalate-{ids[0]}").click().run()
    app.button(key=f"mq-escalate-submit-{ids[0]}").click().run()
    assert any("needs a reason" in e.value for e in app.error)
    assert _store(db_path).get_debate(ids[0], with_steps=False)["review_state"] == "pending"
    assert _left(app) == 1
    app.text_area(key=f"escalate-reason-{ids[0]}").set_value("Two lines of authority conflict.")
    app.button(key=f"mq-escalate-submit-{ids[0]}").click().run()
    _ok(app)
    assert _store(db_path).get_debate(ids[0], with_steps=False)["review_state"] == "escalated"
    assert _left(app) == 0
    assert any("Nothing left" in s.value for s in app.success)
    # The evaluation run never appeared, and is still waiting, untouched.
    assert _store(db_path).get_debate(run_id, with_steps=False)["review_state"] == "pending"
    # A reviewer sees no supervisors' queue and no Assign-to control.
    assert not app.button_group and not app.selectbox


def test_keys_are_native_shortcuts(app, flagged, monkeypatch):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "reviewer")
    ids, _ = flagged
    _open(app, "Ann")
    keys = {b.key.split("-")[1]: b.proto.shortcut for b in app.button if (b.key or "").startswith("mq-")}
    assert keys == {"accept": "a", "override": "o", "escalate": "e", "skip": "n", "take": "m"}
    assert any("A accept · O override · E escalate · N next" in c.value for c in app.caption)


def test_assigning_to_another_person_hides_it_from_my_queue(app, flagged, db_path, monkeypatch):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "supervisor")
    ids, _ = flagged
    # Bob has acted in the app before, so a supervisor can pick him.
    store = DebateStore(db_path)
    store.review(ids[2], action="accept", reviewer="Bob")
    store.close()
    _open(app, "Sue")
    assert _left(app) == 2 and _current(app) == ids[0]
    app.selectbox(key=f"mq-assignee-{ids[0]}").set_value("Bob")
    app.button(key=f"mq-assign-{ids[0]}").click().run()
    _ok(app)
    assert any("assigned to Bob" in s.value for s in app.success)
    assert _left(app) == 1 and _current(app) == ids[1]
    assert any("1 assigned to others (not shown)" in c.value for c in app.caption)
    trail = _store(db_path).audit_log(target=ids[0])
    assert [(r["reviewer"], r["detail"]) for r in trail] == [("Sue", f"assigned debate {ids[0]} to Bob")]
    # Bob, in his own session, finds it assigned to him, ahead of the rest.
    bob = _open(AppTest.from_file(str(APP), default_timeout=60), "bob")
    assert _left(bob) == 2 and _current(bob) == ids[0]
    assert any("Assigned to **you**" in m.value for m in bob.markdown)


def test_a_reviewer_takes_a_debate_and_a_colleague_no_longer_sees_it(app, flagged, monkeypatch, db_path):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "reviewer")
    ids, _ = flagged
    _open(app, "Ann")
    app.button(key=f"mq-take-{ids[0]}").click().run()
    _ok(app)
    assert any("Assigned to **you**" in m.value for m in app.markdown)
    assert app.button(key=f"mq-release-{ids[0]}") is not None
    other = _open(AppTest.from_file(str(APP), default_timeout=60), "Bob")
    assert _left(other) == 2 and _current(other) == ids[1]
    app.button(key=f"mq-release-{ids[0]}").click().run()
    assert _store(db_path).get_debate(ids[0], with_steps=False)["assignee_key"] is None


def test_a_supervisor_works_the_escalations(app, flagged, db_path, monkeypatch):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", "supervisor")
    ids, _ = flagged
    store = DebateStore(db_path)
    store.review(ids[1], action="escalate", reviewer="Ann", reason="Two lines of authority conflict.")
    store.close()
    _open(app, "Sue")
    app.button_group(key="mq-role").set_value("supervisor").run()
    _ok(app)
    assert _left(app) == 1 and _current(app, "approve") == ids[1]
    assert "Two lines of authority conflict." in [t.value for t in app.text]
    app.button(key=f"mq-approve-{ids[1]}").click().run()
    _ok(app)
    d = _store(db_path).get_debate(ids[1])
    assert d["review_state"] == "approved" and (d["reviews"][-1]["role"], d["reviews"][-1]["reviewer"]) == (
        "supervisor", "Sue")
    assert _left(app) == 0 and any("no escalated debate awaits" in s.value for s in app.success)


@pytest.mark.parametrize(("role", "name", "says"), [
    ("viewer", "Val", "you have the viewer role"),
    ("reviewer", None, "Enter your name in the sidebar"),
])
def test_who_cannot_work_a_queue_is_told_why(app, flagged, monkeypatch, role, name, says):
    monkeypatch.setenv("DEBATE_LOCAL_ROLE", role)
    _open(app, name)
    assert any(says in i.value for i in app.info)
    assert not app.metric and not [b for b in app.button if (b.key or "").startswith("mq-")]


def test_signed_in_a_supervisor_assigns_to_a_person_not_a_name(app, flagged, db_path):
    from test_app_escalations import ROLES, signed_in

    from debate_core.core import identity
    from debate_core.core.app_settings import AppSettings, save_settings

    save_settings(AppSettings(roles=ROLES), db_path)
    ids, _ = flagged
    # Bob has acted signed in, and a local-mode label "Bob" once too: only the signed-in Bob is offered.
    store = DebateStore(db_path)
    bob_signed_in = identity.verified(signed_in("bob"), "reviewer")
    store.review(ids[2], action="accept", actor=bob_signed_in)
    store.annotate(ids[1], kind="claim", ref="proponent.C1", label="correct", reviewer="Bob")
    store.close()
    app.user = signed_in("sue")
    _open(app, None)
    choice = app.selectbox(key=f"mq-assignee-{ids[0]}")
    assert choice.options == ["Bob"]
    choice.set_value(actor_key(bob_signed_in))
    app.button(key=f"mq-assign-{ids[0]}").click().run()
    _ok(app)
    assert _current(app) == ids[1]
    bob = AppTest.from_file(str(APP), default_timeout=60)
    bob.user = signed_in("bob")
    _open(bob, None)
    assert _current(bob) == ids[0] and any("Assigned to **you**" in m.value for m in bob.markdown)
