"""Roles from verified identities: what each role may do, checked where it is written.

The app hides controls a role does not allow; these tests go past the page, to the store and the
workers, with a crafted call for each refused action: it is refused with a plain reason, and
nothing is written."""

from __future__ import annotations

import pytest
from helpers import small_case

from debate_core.core import identity
from debate_core.core.annotation_rules import AnnotationError
from debate_core.core.app_settings import AppSettings
from debate_core.core.review_rules import RoleError
from debate_core.core.steering import SteeringError
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs import continuation, worker
from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import DebateStore


def person(role: str, sub: str = "p-1", name: str = "Pat") -> identity.Actor:
    return identity.verified({"sub": sub, "name": name, "email": f"{sub}@example.org", "iss": "https://idp"}, role)


def test_role_for_takes_the_highest_of_email_subject_claim_and_default():
    settings = AppSettings(roles={"SUE@example.org": "reviewer", "sub-7": "supervisor"}, role_claim="groups",
                           claim_roles={"wb-admins": "admin"}, default_role="viewer")
    assert settings.role_of({"sub": "x", "email": "sue@example.org"}) == "reviewer"  # e-mail without case
    assert settings.role_of({"sub": "sub-7", "email": "sue@example.org"}) == "supervisor"
    assert settings.role_of({"sub": "y", "groups": ["other", "wb-admins"]}) == "admin"
    assert settings.role_of({"sub": "y", "groups": "wb-admins"}) == "admin"  # a single value
    assert settings.role_of({"sub": "z"}) == "viewer"
    # An e-mail the provider says is unverified gives no role.
    assert settings.role_of({"sub": "q", "email": "sue@example.org", "email_verified": False}) == "viewer"
    # Without a claim named, a groups claim counts for nothing.
    assert AppSettings(claim_roles={"wb-admins": "admin"}).role_of({"sub": "y", "groups": ["wb-admins"]}) == "viewer"


def test_a_bad_role_in_the_settings_file_is_refused_on_load():
    with pytest.raises(ValueError, match="roles"):
        AppSettings.model_validate({"roles": {"sue@example.org": "owner"}})


def test_local_mode_role_is_the_operators_and_fails_closed():
    assert identity.local_role({}, {}) == "admin"
    assert identity.local_role({"DEBATE_LOCAL_ROLE": "Reviewer"}, {}) == "reviewer"
    assert identity.local_role({}, {"workbench": {"local_role": "viewer"}}) == "viewer"
    assert identity.local_role({"DEBATE_LOCAL_ROLE": "superuser"}, {}) == "viewer"


def test_each_roles_rights():
    rights = {role: sorted(p for p in identity.PERMISSIONS if person(role).may(p)) for role in identity.ROLES}
    assert rights["viewer"] == []
    assert rights["reviewer"] == ["annotate", "evaluate", "review", "save_presets", "start", "steer"]
    assert rights["supervisor"] == sorted([*rights["reviewer"], "decide_escalation"])
    assert rights["admin"] == sorted(identity.PERMISSIONS)


def test_the_audit_trail_names_how_a_person_was_known():
    assert person("reviewer").described() == "Pat (p-1@example.org, signed in)"
    assert identity.local_label("ann", "admin").described() == "ann (unverified label)"
    assert identity.operator("root").described() == "root (server operator)"


@pytest.fixture
def db(tmp_path):
    return tmp_path / "roles.db"


def _paused(db) -> str:
    store = DebateStore(db)
    try:
        result = run_debate(small_case(), "cross_critique", provider=make_provider("offline"),
                            settings=DebateSettings(pause_after_round=1), store=store)
    finally:
        store.close()
    return result.debate_id


def test_a_viewer_is_refused_every_write_and_nothing_is_written(db):
    viewer = person("viewer")
    with pytest.raises(identity.PermissionRefused, match="Pat has the viewer role; only a reviewer or above may start"):
        worker.start_debate(small_case(), "cross_critique", make_provider("offline"), db_path=db, actor=viewer)
    store = DebateStore(db)
    assert store.count_debates() == 0
    store.close()
    did = _paused(db)
    store = DebateStore(db)
    try:
        with pytest.raises(SteeringError, match="only a reviewer or above may pause, stop"):
            store.request_control(did, "stop", actor=viewer)
        with pytest.raises(SteeringError, match="viewer role"):
            continuation.intervene(store, did, actor=viewer, kind="pin", target="proponent.C1")
        with pytest.raises(SteeringError, match="viewer role"):
            worker.start_continue(did, db_path=db, actor=viewer)
        with pytest.raises(SteeringError, match="viewer role"):
            worker.start_fork(did, 1, db_path=db, actor=viewer)
        debate = store.get_debate(did)
        assert debate["status"] == "paused" and debate["reviews"] == [] and store.count_debates() == 1
    finally:
        store.close()


def test_a_reviewer_acts_and_is_recorded_with_the_verified_identity(db):
    did = _paused(db)
    rita = person("reviewer", "rita", "Rita")
    store = DebateStore(db)
    try:
        continuation.intervene(store, did, actor=rita, kind="pin", target="proponent.C1")
        row = store.get_debate(did)["reviews"][-1]
        assert (row["action"], row["reviewer"], row["actor_kind"], row["actor_subject"], row["actor_email"]) == (
            "intervene", "Rita", "verified", "rita", "rita@example.org")
        store.request_control(did, "stop", actor=rita)
        assert store.get_debate(did)["status"] == "stopped"
    finally:
        store.close()


def test_annotations_and_reviews_check_the_role_too(make_debate, db_path):
    did = make_debate()
    store = DebateStore(db_path)
    try:
        with pytest.raises(AnnotationError, match="viewer role"):
            store.annotate(did, kind="claim", ref="ala.C1", label="correct", actor=person("viewer"))
        with pytest.raises(RoleError, match="viewer role"):
            store.review(did, action="accept", actor=person("viewer"))
        assert store.annotations(did) == [] and store.get_debate(did)["review_state"] == "pending"
        store.review(did, action="accept", actor=person("reviewer"))
        assert store.get_debate(did)["review_state"] == "accepted"
    finally:
        store.close()


def test_a_local_label_without_a_name_may_start_but_not_review(db, make_debate, db_path):
    unnamed = identity.local_label("", "admin")
    did = make_debate()
    store = DebateStore(db_path)
    try:
        with pytest.raises(RoleError, match="a name is needed to accept"):
            store.review(did, action="accept", actor=unnamed)
        started = store.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {}, actor=unnamed)
        assert store.audit_log(target=started)[0]["reviewer"] == "unnamed"
    finally:
        store.close()


def test_a_sign_in_has_an_age_limit_the_operator_sets():
    assert identity.session_hours({}) == identity.DEFAULT_SESSION_HOURS
    assert identity.session_hours({"workbench": {"session_hours": 2}}) == 2
    assert identity.session_hours({"workbench": {"session_hours": "soon"}}) == identity.DEFAULT_SESSION_HOURS
    assert identity.sign_in_age_exceeded({"iat": 0}, now=13 * 3600, max_hours=12)
    assert not identity.sign_in_age_exceeded({"auth_time": 3600, "iat": 0}, now=12 * 3600, max_hours=12)
    assert identity.sign_in_age_exceeded({}, now=1, max_hours=12)  # no time at all: its age is unknown
