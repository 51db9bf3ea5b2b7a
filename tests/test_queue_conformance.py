"""Assignment and the per-person queues (debate_core/store/assignment.py), on every backend: the
fixtures of tests/test_store_conformance.py run each case on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading

import pytest
import test_store_conformance as conformance
from helpers import finished_event_data, small_case

from debate_core.core import identity
from debate_core.core.events import Event
from debate_core.core.identity import PermissionRefused
from debate_core.store import Assignee, DebateStore, NotFound, ReviewError, actor_key, current_assignee

# The conformance suite's fixtures: each case runs once on SQLite and once on PostgreSQL.
location, open_store, store = conformance.location, conformance.open_store, conformance.store

ANN = identity.local_label("Ann", "reviewer")
BOB = identity.local_label("bob", "reviewer")
SUE = identity.local_label("Sue", "supervisor")
VAL = identity.local_label("Val", "viewer")


def debate(store: DebateStore, debate_id: str, *, flagged: bool = True, evaluation_id: str | None = None) -> str:
    """A completed debate, flagged for a human by the moderator or not."""
    store.create_debate(small_case(), "cross_critique", {"provider": "offline", "model": "m"}, {},
                        debate_id=debate_id, evaluation_id=evaluation_id)
    store.record(debate_id, Event("turn_started", "r1.answer.nla", {"call": 1, "round": 1, "stage": "answer",
                                                                    "agent": "nla", "prompt": []}))
    store.record(debate_id, Event("turn_finished", "r1.answer.nla", finished_event_data(
        "r1.answer.nla", {"answer": "The daughters keep the sawah.", "claims": []}, calls=1, input_tokens=3,
        output_tokens=2)))
    store.record(debate_id, Event("completed", None, {"rounds": 1, "converged": False, "verdict": {
        "answer": "The daughters keep the sawah.", "confidence": 0.4, "needs_human_review": flagged,
        "escalation_reasons": []}}))
    return debate_id


def ids(rows) -> list[str]:
    return [r["id"] for r in rows]


def test_my_queue_is_flagged_pending_real_work_oldest_first(store):
    for did in ("q1", "q2", "q3"):
        debate(store, did)
    debate(store, "calm", flagged=False)  # the moderator did not flag it: no queue
    eid = store.create_evaluation(protocol="cross_critique", methods=["debate"], cases=["c"], settings={},
                                  total_runs=1)
    debate(store, "q4-eval", evaluation_id=eid)  # flagged, but a run made by an evaluation
    store.review("q2", action="accept", reviewer="Ann")
    me = actor_key(ANN)
    assert ids(store.my_queue(me, "reviewer")) == ["q1", "q3"]
    assert store.queue_counts(me, "reviewer") == {"left": 2, "mine": 0, "unassigned": 2, "others": 0}
    assert ids(store.my_queue(me, "reviewer", include_evaluations=True)) == ["q1", "q3", "q4-eval"]
    assert store.queue_counts(me, "reviewer", include_evaluations=True)["left"] == 3
    assert store.my_queue(me, "supervisor") == [] and store.queue_counts(me, "supervisor")["left"] == 0
    assert ids(store.my_queue(me, "reviewer", limit=1)) == ["q1"]
    with pytest.raises(ValueError, match="no queue for the role"):
        store.my_queue(me, "viewer")


def test_an_assignment_routes_the_debate_and_is_audited(store):
    for did in ("q1", "q2"):
        debate(store, did)
    taken = store.assign("q1", ANN, actor=ANN)
    assert taken["changed"] and taken["assignee_name"] == "Ann"
    # Ann sees it first-hand; Bob no longer sees it, and his count says someone else holds one.
    assert [(r["id"], r["assignee_name"]) for r in store.my_queue(actor_key(ANN))] == [("q1", "Ann"), ("q2", None)]
    assert ids(store.my_queue(actor_key(BOB))) == ["q2"]
    assert store.queue_counts(actor_key(BOB)) == {"left": 1, "mine": 0, "unassigned": 1, "others": 1}
    assert store.queue_counts(actor_key(ANN)) == {"left": 2, "mine": 1, "unassigned": 1, "others": 0}
    # A label is matched by its name without regard to case, as the audit trail matches it.
    assert ids(store.my_queue(actor_key(identity.local_label(" ANN ", "reviewer")))) == ["q1", "q2"]
    # A reviewer may neither take Ann's debate nor hand one to someone else.
    with pytest.raises(PermissionRefused, match="only a supervisor or above may take a debate assigned to Ann"):
        store.assign("q1", BOB, actor=BOB)
    with pytest.raises(PermissionRefused, match="assign a debate to someone else"):
        store.assign("q2", "Ann", actor=BOB)
    with pytest.raises(PermissionRefused, match="viewer role"):
        store.assign("q2", VAL, actor=VAL)
    # A supervisor reassigns, by name in local mode.
    store.assign("q1", "Bob", actor=SUE)
    assert ids(store.my_queue(actor_key(BOB))) == ["q1", "q2"] and ids(store.my_queue(actor_key(ANN))) == ["q2"]
    assert store.assign("q1", "BOB", actor=SUE)["changed"] is False  # the same person again: nothing written
    store.assign("q1", None, actor=BOB)  # Bob lets go of his own
    assert current_assignee(store.get_debate("q1", with_steps=False)) is None
    trail = [(r["reviewer"], r["action"], r["target"], r["detail"]) for r in store.audit_log(target="q1")]
    assert trail == [("bob", "assign", "q1", "released debate q1 (was assigned to Bob)"),
                     ("Sue", "assign", "q1", "assigned debate q1 to Bob (was Ann)"),
                     ("Ann", "assign", "q1", "took debate q1")]
    # Assignment is not a review action: the version an open review form holds stays valid.
    assert store.get_debate("q1", with_steps=False)["version"] == 0
    store.review("q1", action="accept", actor=BOB, expected_version=0)


def test_what_cannot_be_assigned(store):
    debate(store, "q1")
    debate(store, "done")
    store.review("done", action="accept", reviewer="Ann")
    with pytest.raises(NotFound):
        store.assign("nope", ANN, actor=ANN)
    with pytest.raises(ReviewError, match="not waiting for a decision"):
        store.assign("done", ANN, actor=ANN)
    with pytest.raises(PermissionRefused, match="a name is needed"):
        store.assign("q1", None, actor=identity.local_label("", "reviewer"))
    with pytest.raises(ReviewError, match="name the person"):
        store.assign("q1", "  ", actor=SUE)
    assert store.audit_log(target="q1") == []


def test_escalating_hands_the_debate_to_the_supervisors_unassigned(store):
    debate(store, "q1")
    store.assign("q1", ANN, actor=ANN)
    store.review("q1", action="escalate", actor=ANN, reason="Two lines of authority conflict.")
    sup = store.my_queue(actor_key(SUE), "supervisor")
    assert ids(sup) == ["q1"] and sup[0]["assignee_name"] is None
    assert store.my_queue(actor_key(ANN), "reviewer") == []
    # Undoing the escalation brings back the reviewer's assignment: it was made in the state returned to.
    store.review("q1", action="undo", actor=ANN)
    assert [(r["id"], r["assignee_name"]) for r in store.my_queue(actor_key(ANN))] == [("q1", "Ann")]
    assert store.my_queue(actor_key(BOB)) == []
    store.review("q1", action="escalate", actor=ANN, reason="Two lines of authority conflict.")
    # Deciding an escalation is a supervisor's: a reviewer cannot take one.
    with pytest.raises(PermissionRefused, match="approve or settle"):
        store.assign("q1", ANN, actor=ANN)
    tom = identity.local_label("Tom", "supervisor")
    store.assign("q1", SUE, actor=SUE)
    assert store.my_queue(actor_key(tom), "supervisor") == []
    assert store.queue_counts(actor_key(tom), "supervisor") == {"left": 0, "mine": 0, "unassigned": 0, "others": 1}
    assert ids(store.my_queue(actor_key(SUE), "supervisor")) == ["q1"]
    # The supervisor's assignment replaced Ann's: undone again, the debate waits for any reviewer.
    store.review("q1", action="undo", actor=ANN)
    assert [(r["id"], r["assignee_name"]) for r in store.my_queue(actor_key(BOB))] == [("q1", None)]


def test_signed_in_people_are_matched_by_subject(store):
    debate(store, "q1")
    claims = {"sub": "s-1", "name": "Sue", "email": "sue@example.org", "iss": "https://idp.example.org"}
    sue = identity.verified(claims, "supervisor")
    renamed = identity.verified({**claims, "name": "Susan", "email": "susan@example.org"}, "supervisor")
    other_idp = identity.verified({**claims, "iss": "https://other.example.org"}, "supervisor")
    store.assign("q1", sue, actor=sue)
    assert ids(store.my_queue(actor_key(renamed))) == ["q1"]
    assert store.my_queue(actor_key(other_idp)) == []
    # A label typed in local mode with the same name is not the signed-in person.
    assert store.my_queue(actor_key(identity.local_label("Sue", "supervisor"))) == []
    store.assign("q1", ANN, actor=sue)
    assert store.known_people(signed_in=True) == [Assignee(actor_key(sue), "Sue")]
    assert [p.name for p in store.known_people(signed_in=False)] == []
    store.review("q1", action="accept", actor=ANN)
    assert [p.name for p in store.known_people(signed_in=False)] == ["Ann"]


def test_two_reviewers_claiming_at_once_one_wins(open_store):
    setup = open_store()
    debate(setup, "q1")
    own = [open_store(), open_store()]
    results: list[str] = []
    barrier = threading.Barrier(2)

    def claim(s, who):
        barrier.wait()
        try:
            s.assign("q1", who, actor=who)
            results.append(who.name)
        except PermissionRefused:
            results.append("refused")

    threads = [threading.Thread(target=claim, args=(own[0], ANN)), threading.Thread(target=claim, args=(own[1], BOB))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) in (["Ann", "refused"], ["bob", "refused"])
    holder = current_assignee(setup.get_debate("q1", with_steps=False))
    assert holder is not None and holder.name == next(r for r in results if r != "refused")
    assert len(setup.audit_log(target="q1")) == 1


def test_a_database_from_before_is_upgraded_with_nobody_assigned(location, open_store, monkeypatch):
    """A store written before assignment existed: its flagged debates arrive in the queue unassigned."""
    import debate_core.store as store_module
    from debate_core.store import postgres_backend

    if location.startswith("postgresql://"):
        monkeypatch.setattr(postgres_backend, "PG_MIGRATIONS",
                            [m for m in postgres_backend.PG_MIGRATIONS if m[0] != "0003_assignment"])
    else:
        monkeypatch.setattr(store_module, "MIGRATIONS", [m for m in store_module.MIGRATIONS if m[0] != "0012_assignment"])
    older = open_store()
    debate(older, "q1")
    older.close()
    monkeypatch.undo()
    upgraded = open_store()
    assert upgraded.migrated == ["0003_assignment" if location.startswith("postgresql://") else "0012_assignment"]
    assert [(r["id"], r["assignee_name"]) for r in upgraded.my_queue(actor_key(ANN))] == [("q1", None)]
    upgraded.assign("q1", ANN, actor=ANN)
    assert store_counts(upgraded) == {"left": 0, "mine": 0, "unassigned": 0, "others": 1}


def store_counts(store: DebateStore) -> dict[str, int]:
    return store.queue_counts(actor_key(BOB))
