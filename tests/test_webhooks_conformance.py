"""The webhooks' store side, run against every backend: SQLite (a file) and PostgreSQL (a throwaway
cluster from tests/pg_support.py; those cases skip, saying why, when none starts). Endpoints, the
outbox written inside the change's own transaction, dispatchers taking deliveries without sending
one twice, and the attempts log."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
import test_store_conformance as conformance
from helpers import small_case
from test_store import completed

from debate_core.core import webhooks as rules
from debate_core.core.events import Event
from debate_core.core.identity import PermissionRefused, local_label, operator
from debate_core.store import ReviewConflict

ADMIN = operator("Olga")
ALL = list(rules.WEBHOOK_EVENTS)


# The conformance suite's fixtures: each case runs once on SQLite and once on PostgreSQL.
location, open_store, store = conformance.location, conformance.open_store, conformance.store


def test_the_migration_makes_the_tables(store):
    assert {"webhooks", "webhook_deliveries", "webhook_attempts"} <= set(store.sql.table_names())
    assert store.pending_migrations() == []


def test_endpoints_are_added_listed_without_secret_and_deleted(store, open_store):
    hook = store.add_webhook(url=" https://hooks.example.org/in ", events=["review.escalated", "review.escalated"],
                             secret=None, actor=ADMIN)
    assert isinstance(hook["id"], int) and hook["secret"].startswith("whsec_")
    assert hook["url"] == "https://hooks.example.org/in" and hook["events"] == ["review.escalated"]
    other = open_store()  # another process's connection sees it, and never the secret
    assert other.list_webhooks() == [{"id": hook["id"], "url": "https://hooks.example.org/in",
                                      "events": ["review.escalated"], "created_at": hook["created_at"],
                                      "created_by": "Olga (server operator)"}]
    with pytest.raises(PermissionRefused):
        other.add_webhook(url="https://x.example.org", events=ALL, secret=None, actor=local_label("Rita", "reviewer"))
    assert store.delete_webhook(hook["id"], actor=ADMIN) and not store.delete_webhook(hook["id"], actor=ADMIN)
    assert other.list_webhooks() == []
    assert [a["detail"] for a in store.audit_log() if a["action"] == "webhooks"] == [
        "deleted the webhook endpoint https://hooks.example.org/in",
        "added the webhook endpoint https://hooks.example.org/in for review.escalated"]


def test_finishing_and_reviewing_write_the_outbox_for_subscribers_only(store):
    everything = store.add_webhook(url="https://a.example.org", events=ALL, secret=None, actor=ADMIN)
    escalations = store.add_webhook(url="https://b.example.org", events=["review.escalated"], secret=None,
                                    actor=ADMIN)
    gone = store.add_webhook(url="https://c.example.org", events=ALL, secret=None, actor=ADMIN)
    store.delete_webhook(gone["id"], actor=ADMIN)
    did = completed(store, review=True)
    store.review(did, action="escalate", reviewer="Rita", reason="the sources disagree")
    store.review(did, action="override", reviewer="Sam", answer="The kaum keeps it.", reason="adat rule",
                 supervisor=True)
    log = store.webhook_deliveries()
    assert [(d["webhook_id"], d["event_type"]) for d in reversed(log)] == [
        (everything["id"], "debate.completed"), (everything["id"], "debate.flagged"),
        (everything["id"], "review.recorded"), (everything["id"], "review.escalated"),
        (escalations["id"], "review.escalated"),
        (everything["id"], "review.recorded"), (everything["id"], "review.approved")]
    assert all(d["status"] == "pending" and d["attempts"] == 0 and d["debate_id"] == did for d in log)
    settled = log[0]["payload"]
    assert settled["type"] == "review.approved" and settled["data"]["review_state"] == "settled"
    assert settled["data"]["answer"] == "The kaum keeps it." and settled["data"]["review"]["reviewer"] == "Sam"
    assert len({d["message_id"] for d in log}) == len(log)
    assert store.webhook_deliveries(webhook_id=escalations["id"])[0]["event_type"] == "review.escalated"


def test_a_refused_review_and_an_evaluation_run_write_no_delivery(store):
    store.add_webhook(url="https://a.example.org", events=ALL, secret=None, actor=ADMIN)
    did = completed(store)
    before = len(store.webhook_deliveries())
    with pytest.raises(ReviewConflict):
        store.review(did, action="accept", reviewer="Rita", expected_version=7)
    assert len(store.webhook_deliveries()) == before  # rolled back with the review it belonged to
    run = store.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {}, evaluation_id="ev-9")
    store.record(run, Event("failed", None, {"error": "budget spent"}))
    assert len(store.webhook_deliveries()) == before


def test_two_dispatchers_never_take_the_same_delivery(open_store):
    first = open_store()
    first.add_webhook(url="https://a.example.org", events=ALL, secret=None, actor=ADMIN)
    for _ in range(6):
        completed(first, review=True)  # two deliveries each
    now = rules.utc_now()
    stores = [first, open_store(), open_store(), open_store()]
    taken: list[list[int]] = [[] for _ in stores]
    barrier = threading.Barrier(len(stores))

    def take(i: int) -> None:
        barrier.wait()
        taken[i] = [d["id"] for d in stores[i].due_webhook_deliveries(now, 5)]

    threads = [threading.Thread(target=take, args=(i,)) for i in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [i for batch in taken for i in batch]
    assert len(ids) == len(set(ids)) == 12
    assert first.due_webhook_deliveries(now, 50) == []  # all held
    # A dispatcher that died holding them: they come due again once the hold runs out.
    later = now + timedelta(seconds=rules.CLAIM_SECONDS + 1)
    again = first.due_webhook_deliveries(later, 50)
    assert sorted(d["id"] for d in again) == sorted(ids)
    assert {d["url"] for d in again} == {"https://a.example.org"} and all(d["secret"] for d in again)


def test_attempts_are_logged_and_the_backoff_decides(store):
    store.add_webhook(url="https://a.example.org", events=["debate.completed"], secret=None, actor=ADMIN)
    completed(store)
    now = rules.utc_now()
    [d] = store.due_webhook_deliveries(now, 10)
    out = store.record_webhook_attempt(d["id"], at=now, status_code=None, error="no answer within 10 seconds",
                                       duration_ms=10000.4)
    assert out == {"status": "failed", "attempt": 1, "next_attempt_at": rules.iso(now + timedelta(seconds=5))}
    assert store.due_webhook_deliveries(now + timedelta(seconds=4), 10) == []
    [d] = store.due_webhook_deliveries(now + timedelta(seconds=5), 10)
    out = store.record_webhook_attempt(d["id"], at=now + timedelta(seconds=5), status_code=204, error=None,
                                       duration_ms=12.0)
    assert out == {"status": "delivered", "attempt": 2, "next_attempt_at": None}
    [row] = store.webhook_deliveries()
    assert row["status"] == "delivered" and row["last_status_code"] == 204 and row["last_error"] is None
    assert [(a["attempt"], a["status_code"], a["error"], a["duration_ms"]) for a in row["attempts_log"]] == [
        (1, None, "no answer within 10 seconds", 10000.4), (2, 204, None, 12.0)]
    assert store.due_webhook_deliveries(now + timedelta(days=2), 10) == []
