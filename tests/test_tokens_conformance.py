"""API tokens (debate_core/store/tokens.py) on every backend: SQLite and PostgreSQL (a throwaway
cluster from tests/pg_support.py; those cases skip, saying why, when none starts)."""

from __future__ import annotations

import hashlib
import threading

import pytest
import test_store_conformance as conformance

from debate_core.core import identity
from debate_core.core.identity import PermissionRefused
from debate_core.store import TOKEN_PREFIX, DebateStore, TokenError

OPERATOR = identity.operator("ops")


# The conformance suite's fixtures: each case runs once on SQLite and once on PostgreSQL.
location, open_store, store = conformance.location, conformance.open_store, conformance.store


def test_a_token_is_shown_once_and_stored_only_as_its_hash(store):
    secret = store.create_token(name="ci pipeline", role="reviewer", actor=OPERATOR)
    assert secret.startswith(TOKEN_PREFIX) and len(secret) > 40
    rows = store.sql.query("SELECT * FROM api_tokens")
    assert len(rows) == 1 and rows[0]["token_hash"] == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in str(rows)
    listed = store.list_tokens()
    assert [(t["name"], t["role"], t["created_by"], t["revoked_at"]) for t in listed] == [
        ("ci pipeline", "reviewer", "ops (server operator)", None)]
    assert "token_hash" not in listed[0]


def test_a_token_acts_with_its_role_and_is_named_in_the_audit_trail(store):
    secret = store.create_token(name="triage", role="supervisor", actor=OPERATOR)
    actor = store.token_actor(secret)
    assert (actor.name, actor.role, actor.kind, actor.described()) == ("triage", "supervisor", "token",
                                                                       "API token triage")
    assert actor.may("decide_escalation") and not actor.may("manage_settings")
    assert store.list_tokens()[0]["last_used_at"]
    assert [(r["action"], r["target"], r["reviewer"], r["actor_kind"]) for r in store.audit_log()] == [
        ("create token", "triage", "ops", "operator")]
    store.record_action(actor, "change settings", permission="save_presets", target="presets")
    assert (store.audit_log()[0]["reviewer"], store.audit_log()[0]["actor_kind"]) == ("triage", "token")


def test_unknown_or_revoked_tokens_act_as_no_one(store):
    secret = store.create_token(name="old", role="admin", actor=OPERATOR)
    assert store.token_actor(None) is None and store.token_actor("") is None
    assert store.token_actor(secret + "x") is None and store.token_actor("Bearer " + secret) is None
    assert store.revoke_token("old", actor=OPERATOR) is True
    assert store.token_actor(secret) is None
    assert store.revoke_token("old", actor=OPERATOR) is False  # once only
    assert store.revoke_token("never made", actor=OPERATOR) is False
    assert store.list_tokens()[0]["revoked_at"]
    assert [r["action"] for r in store.audit_log()] == ["revoke token", "create token"]


def test_names_are_unique_roles_known_and_only_an_admin_manages_tokens(store):
    store.create_token(name="bot", role="viewer", actor=OPERATOR)
    with pytest.raises(TokenError, match="exists already"):
        store.create_token(name=" bot ", role="admin", actor=OPERATOR)
    with pytest.raises(TokenError, match="unknown role"):
        store.create_token(name="other", role="owner", actor=OPERATOR)
    with pytest.raises(TokenError, match="token name"):
        store.create_token(name="", role="viewer", actor=OPERATOR)
    supervisor = identity.token("lead", "supervisor")
    with pytest.raises(PermissionRefused):
        store.create_token(name="mine", role="admin", actor=supervisor)
    with pytest.raises(PermissionRefused):
        store.revoke_token("bot", actor=supervisor)
    assert [t["name"] for t in store.list_tokens()] == ["bot"] and store.list_tokens()[0]["revoked_at"] is None


def test_two_creations_with_one_name_at_once_make_one_token(location):
    stores = [DebateStore(location) for _ in range(4)]
    outcomes: list[str] = []
    barrier = threading.Barrier(len(stores))

    def create(s: DebateStore) -> None:
        barrier.wait()
        try:
            s.create_token(name="race", role="viewer", actor=OPERATOR)
            outcomes.append("made")
        except TokenError:
            outcomes.append("refused")

    threads = [threading.Thread(target=create, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert sorted(outcomes) == ["made", "refused", "refused", "refused"]
        assert len(stores[0].list_tokens()) == 1
    finally:
        for s in stores:
            s.close()
