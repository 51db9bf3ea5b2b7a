"""Signed webhooks end to end: real offline debates and real reviews through the store, the outbox
they write, and a dispatcher POSTing to a real HTTP receiver on a loopback port, whose requests the
`standardwebhooks` package must verify."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from helpers import small_case
from standardwebhooks import Webhook

from debate_core.core import webhooks as rules
from debate_core.core.events import Event
from debate_core.core.identity import PermissionRefused, local_label, operator
from debate_core.engine.runtime import DebateSettings
from debate_core.jobs import webhooks
from debate_core.jobs.debates import run_debate
from debate_core.providers import make_provider
from debate_core.store import DebateStore

ADMIN = operator("Olga")


class Receiver:
    """An HTTP endpoint on a free loopback port that records every request. `statuses` are answered
    in turn (then 200); while `hold` is set, requests wait until it is cleared (or 20 s pass)."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.requests: list[dict] = []
        self.statuses = list(statuses or [])
        self.hold = threading.Event()
        self.release = threading.Event()
        self.arrived = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                receiver.requests.append({"headers": dict(self.headers.items()), "body": body.decode()})
                receiver.arrived.set()
                if receiver.hold.is_set():
                    receiver.release.wait(20)
                code = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(code)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def types(self) -> list[str]:
        return [json.loads(r["body"])["type"] for r in self.requests]

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    made: list[Receiver] = []

    def make(statuses=None) -> Receiver:
        r = Receiver(statuses)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


@pytest.fixture
def store(tmp_path):
    s = DebateStore(tmp_path / "hooks.db")
    yield s
    s.close()


def debate(store, **settings) -> str:
    return run_debate(small_case(), "cross_critique", provider=make_provider("offline"),
                      settings=DebateSettings(**settings), store=store).debate_id


def verified(secret: str, request: dict) -> dict:
    """The body as `standardwebhooks` reads it after checking the signature (raises if it does not match)."""
    return Webhook(secret).verify(request["body"], request["headers"])


def test_a_debate_and_its_reviews_reach_the_endpoint_signed(store, receiver):
    r = receiver()
    hook = store.add_webhook(url=r.url, events=list(rules.WEBHOOK_EVENTS), secret=None, actor=ADMIN)
    assert hook["secret"].startswith("whsec_") and len(Webhook(hook["secret"])._whsecret) == 24
    did = debate(store)
    row = store.get_debate(did)
    assert row["status"] == "completed" and row["needs_human_review"]  # the offline case is flagged
    assert r.requests == []  # nothing is sent while the debate runs: the deliveries wait in the outbox
    store.review(did, action="escalate", reviewer="Rita", reason="the agents disagree on the adat rule")
    store.review(did, action="approve", reviewer="Sam", supervisor=True)

    assert webhooks.deliver_due(store) == 6
    assert r.types() == ["debate.completed", "debate.flagged", "review.recorded", "review.escalated",
                         "review.recorded", "review.approved"]  # sent in the order they happened
    bodies = [verified(hook["secret"], req) for req in r.requests]
    assert {b["data"]["debate_id"] for b in bodies} == {did}
    escalated = next(b for b in bodies if b["type"] == "review.escalated")
    assert escalated["data"]["review"]["reviewer"] == "Rita" and escalated["data"]["review_state"] == "escalated"
    approved = next(b for b in bodies if b["type"] == "review.approved")
    assert approved["data"]["review"] == {**approved["data"]["review"], "action": "approve", "reviewer": "Sam",
                                          "role": "supervisor", "state_after": "approved"}
    completed = next(b for b in bodies if b["type"] == "debate.completed")
    assert completed["data"]["protocol"] == "cross_critique" and completed["data"]["answer"] == row["final_answer"]
    assert completed["data"]["confidence"] == row["confidence"] and completed["data"]["needs_human_review"] is True
    # Each message id is the Standard Webhooks `msg_` form and unique; a wrong secret does not verify.
    ids = [req["headers"]["webhook-id"] for req in r.requests]
    assert len(set(ids)) == len(ids) and all(i.startswith("msg_") for i in ids)
    with pytest.raises(Exception, match="No matching signature"):
        Webhook(rules.new_secret()).verify(r.requests[0]["body"], r.requests[0]["headers"])
    log = store.webhook_deliveries(webhook_id=hook["id"])
    assert [d["status"] for d in log] == ["delivered"] * 6
    assert all(d["attempts_log"][0]["status_code"] == 200 for d in log)
    assert webhooks.deliver_due(store) == 0  # delivered once, never again


def test_endpoints_get_only_the_events_they_chose(store, receiver):
    a, b = receiver(), receiver()
    store.add_webhook(url=a.url, events=["debate.completed"], secret=None, actor=ADMIN)
    store.add_webhook(url=b.url, events=["review.recorded", "review.escalated"], secret=None, actor=ADMIN)
    did = debate(store)
    store.review(did, action="accept", reviewer="Rita")
    webhooks.deliver_due(store)
    assert a.types() == ["debate.completed"]
    assert b.types() == ["review.recorded"]  # an accept is no escalation


def test_a_failed_debate_sends_debate_failed(store, receiver):
    r = receiver()
    hook = store.add_webhook(url=r.url, events=["debate.failed", "debate.completed"], secret=None, actor=ADMIN)
    did = store.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {})
    store.mark_interrupted(did, "the server restarted during the debate")
    webhooks.deliver_due(store)
    assert r.types() == ["debate.failed"]
    body = verified(hook["secret"], r.requests[0])
    assert body["data"]["status"] == "failed" and body["data"]["error"] == "the server restarted during the debate"


def test_a_failing_endpoint_is_retried_by_the_backoff_with_each_attempt_logged(store, receiver):
    r = receiver(statuses=[500])
    hook = store.add_webhook(url=r.url, events=["debate.completed"], secret=None, actor=ADMIN)
    debate(store)
    t0 = rules.utc_now()
    assert webhooks.deliver_due(store, now=t0) == 1
    [d] = store.webhook_deliveries()
    assert d["status"] == "failed" and d["attempts"] == 1 and d["last_status_code"] == 500
    assert d["next_attempt_at"] == rules.iso(t0 + timedelta(seconds=rules.BACKOFF_SECONDS[0]))
    assert webhooks.deliver_due(store, now=t0 + timedelta(seconds=2)) == 0  # not due before its backoff
    assert webhooks.deliver_due(store, now=t0 + timedelta(seconds=6)) == 1
    [d] = store.webhook_deliveries()
    assert d["status"] == "delivered" and d["delivered_at"] and d["next_attempt_at"] is None
    assert [(a["attempt"], a["status_code"]) for a in d["attempts_log"]] == [(1, 500), (2, 200)]
    assert all(a["duration_ms"] >= 0 for a in d["attempts_log"])
    # Both attempts carry the same message id, each signed afresh, and both verify.
    assert r.requests[0]["headers"]["webhook-id"] == r.requests[1]["headers"]["webhook-id"] == d["message_id"]
    assert [verified(hook["secret"], q)["type"] for q in r.requests] == ["debate.completed"] * 2


def test_an_endpoint_that_never_answers_well_is_given_up_after_the_last_backoff(store, receiver):
    r = receiver(statuses=[503] * 10)
    store.add_webhook(url=r.url, events=["debate.completed"], secret=None, actor=ADMIN)
    debate(store)
    moment = rules.utc_now()
    webhooks.deliver_due(store, now=moment)
    for delay in rules.BACKOFF_SECONDS:
        moment += timedelta(seconds=delay)
        assert webhooks.deliver_due(store, now=moment) == 1
    [d] = store.webhook_deliveries()
    assert d["status"] == "given up" and d["next_attempt_at"] is None
    assert [a["status_code"] for a in d["attempts_log"]] == [503] * (len(rules.BACKOFF_SECONDS) + 1)
    assert webhooks.deliver_due(store, now=moment + timedelta(days=1)) == 0
    # An endpoint nobody listens on: the connection error is logged as the attempt's error.
    dead = Receiver()
    dead.close()
    store.add_webhook(url=dead.url, events=["review.recorded"], secret=None, actor=ADMIN)
    store.review(d["debate_id"], action="accept", reviewer="Rita")
    webhooks.deliver_due(store)
    latest = store.webhook_deliveries(limit=1)[0]
    assert latest["status"] == "failed" and "could not connect" in latest["attempts_log"][0]["error"]


def test_a_hanging_endpoint_does_not_delay_a_debate_or_a_review(store, receiver, tmp_path):
    r = receiver()
    r.hold.set()
    store.add_webhook(url=r.url, events=list(rules.WEBHOOK_EVENTS), secret=None, actor=ADMIN)
    first = debate(store)
    dispatcher = webhooks.start_dispatcher(tmp_path / "hooks.db", interval=0.1)
    try:
        assert r.arrived.wait(10), "the dispatcher never reached the endpoint"
        # The dispatcher is now stuck in a POST the endpoint does not answer: debates and reviews go on.
        started = time.perf_counter()
        second = debate(store)
        store.review(first, action="accept", reviewer="Rita")
        took = time.perf_counter() - started
        assert store.get_debate(second)["status"] == "completed"
        assert took < 5, f"the debate and review took {took:.1f} s behind a hanging endpoint"
        waiting = [d for d in store.webhook_deliveries(limit=20) if d["debate_id"] == second]
        assert {d["event_type"] for d in waiting} == {"debate.completed", "debate.flagged"}
        assert all(d["status"] == "pending" for d in waiting)
    finally:
        r.release.set()
        dispatcher.stop()
    assert not dispatcher.is_alive()


def test_the_dispatcher_thread_delivers_and_stops(store, receiver, tmp_path):
    r = receiver()
    store.add_webhook(url=r.url, events=["debate.completed"], secret=None, actor=ADMIN)
    dispatcher = webhooks.start_dispatcher(tmp_path / "hooks.db", interval=0.1)
    try:
        debate(store)
        deadline = time.monotonic() + 10
        while not r.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert r.types() == ["debate.completed"]
    finally:
        started = time.perf_counter()
        dispatcher.stop()
    assert not dispatcher.is_alive() and time.perf_counter() - started < 2


def test_evaluation_runs_send_nothing(store, receiver):
    r = receiver()
    store.add_webhook(url=r.url, events=list(rules.WEBHOOK_EVENTS), secret=None, actor=ADMIN)
    did = store.create_debate(small_case(), "cross_critique", {"provider": "offline"}, {}, evaluation_id="ev-1")
    store.record(did, Event("completed", None, {"rounds": 1, "verdict": {
        "answer": "The daughters keep the sawah.", "confidence": 0.4, "needs_human_review": True}}))
    store.review(did, action="escalate", reviewer="Rita", reason="unsure")
    assert store.webhook_deliveries() == []
    assert webhooks.deliver_due(store) == 0 and r.requests == []


def test_only_an_admin_adds_or_deletes_an_endpoint(store, receiver):
    r = receiver()
    for role in ("viewer", "reviewer", "supervisor"):
        with pytest.raises(PermissionRefused, match="only an admin"):
            store.add_webhook(url=r.url, events=["debate.completed"], secret=None, actor=local_label("Sue", role))
    assert store.list_webhooks() == []
    assert [a for a in store.audit_log() if a["action"] == "webhooks"] == []
    hook = store.add_webhook(url=r.url, events=["debate.completed"], secret=None, actor=ADMIN)
    with pytest.raises(PermissionRefused):
        store.delete_webhook(hook["id"], actor=local_label("Sue", "supervisor"))
    listed = store.list_webhooks()
    assert listed == [{"id": hook["id"], "url": r.url, "events": ["debate.completed"],
                       "created_at": hook["created_at"], "created_by": "Olga (server operator)"}]
    # A debate finishing now leaves a delivery for it; deleting the endpoint gives that up unsent.
    debate(store)
    assert store.delete_webhook(hook["id"], actor=ADMIN) is True
    assert store.delete_webhook(hook["id"], actor=ADMIN) is False
    assert store.list_webhooks() == []
    assert webhooks.deliver_due(store) == 0 and r.requests == []
    [d] = store.webhook_deliveries()
    assert d["status"] == "given up" and d["last_error"] == "the endpoint was deleted"
    audit = [a["detail"] for a in store.audit_log() if a["action"] == "webhooks"]
    assert audit == [f"deleted the webhook endpoint {r.url}", f"added the webhook endpoint {r.url} for debate.completed"]


@pytest.mark.parametrize(("url", "events", "secret", "field", "says"), [
    ("", ["debate.completed"], None, "url", "give the address"),
    ("ftp://example.org/hook", ["debate.completed"], None, "url", "https://"),
    ("https:///hook", ["debate.completed"], None, "url", "names no host"),
    ("example.org/hook", ["debate.completed"], None, "url", "https://"),
    ("https://example.org/hook", [], None, "events", "choose at least one"),
    ("https://example.org/hook", ["debate.completed", "debate.started"], None, "events", "'debate.started' is not"),
    ("https://example.org/hook", ["debate.completed"], "hunter2", "secret", "whsec_"),
    ("https://example.org/hook", ["debate.completed"], "whsec_c2hvcnQ=", "secret", "24 to 64 bytes"),
])
def test_bad_endpoints_are_refused_naming_the_field(store, url, events, secret, field, says):
    with pytest.raises(ValueError) as caught:
        store.add_webhook(url=url, events=events, secret=secret, actor=ADMIN)
    assert str(caught.value).startswith(f"{field}: ") and says in str(caught.value)
    if field == "events" and events:
        assert all(e in str(caught.value) for e in rules.WEBHOOK_EVENTS)  # the known events are listed
    assert store.list_webhooks() == []


def test_a_given_secret_is_kept_and_signs():
    secret = rules.new_secret()
    assert rules.check_secret(f"  {secret} ") == secret and rules.check_secret(None) != rules.check_secret("")
    body = json.dumps(rules.payload("debate.completed", {"id": "d1", "status": "completed"}, rules.utc_now()))
    moment = rules.utc_now()
    headers = {"webhook-id": "msg_1", "webhook-timestamp": str(int(moment.timestamp())),
               "webhook-signature": Webhook(secret).sign("msg_1", moment, body)}
    assert Webhook(secret).verify(body, headers)["data"]["debate_id"] == "d1"


def test_the_backoff_schedule_and_the_events_of_each_change():
    assert [rules.next_attempt_delay(n) for n in range(1, 7)] == [5, 30, 120, 600, 3600, None]
    assert rules.debate_events("completed", False) == ["debate.completed"]
    assert rules.debate_events("completed", True) == ["debate.completed", "debate.flagged"]
    assert rules.debate_events("failed", True) == ["debate.failed"]
    assert rules.debate_events("stopped", False) == []
    assert rules.review_events("accept", "reviewer", "accepted") == ["review.recorded"]
    assert rules.review_events("escalate", "reviewer", "escalated") == ["review.recorded", "review.escalated"]
    assert rules.review_events("override", "supervisor", "settled") == ["review.recorded", "review.approved"]
    assert rules.review_events("undo", "supervisor", "escalated") == ["review.recorded"]
    assert list(rules.EVENT_DESCRIPTIONS) == list(rules.WEBHOOK_EVENTS)
