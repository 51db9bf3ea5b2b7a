"""Webhooks: the endpoints an admin registered, and an outbox of deliveries.

A debate finishing or a review being recorded writes its deliveries in the same transaction as the
change itself (`_enqueue_*`, called from projection.py and reviews.py), one per subscribed active
endpoint; nothing is sent there, so a slow endpoint cannot delay anything and a delivery exists
exactly when the change does. A dispatcher (debate_core/jobs/webhooks.py) takes due deliveries
(`due_webhook_deliveries`), sends them and records each attempt (`record_webhook_attempt`); the
retry schedule and the payloads are core/webhooks.py's. Runs made by an evaluation send nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ..core import webhooks as rules
from ..core.identity import Actor, require
from .audit import AuditMixin
from .rows import dump, load

_OPEN = ("pending", "failed")  # states a delivery is still to be sent in
_DEBATE_COLUMNS = ("id, title, question, protocol, status, final_answer, confidence, needs_human_review, verdict, "
                   "review_state, reviewed_by, rounds, created_at, finished_at, error, evaluation_id")
MAX_ERROR = 300


class WebhooksMixin(AuditMixin):
    # -- endpoints (admins)

    def add_webhook(self, *, url: str, events: list[str], secret: str | None, actor: Actor) -> dict[str, Any]:
        """Register an endpoint. Needs the admin's `manage_settings` (PermissionRefused otherwise);
        ValueError naming the field for a bad URL, event or secret; nothing is written then. The
        returned row holds the signing secret: the only time it is shown."""
        actor = require(actor, "manage_settings")
        url = (url or "").strip()
        events = list(dict.fromkeys(events or []))
        rules.check_endpoint(url, events)
        secret = rules.check_secret(secret)
        row = {"url": url, "events": dump(events), "secret": secret, "created_at": self._now(),
               "created_by": actor.described() if actor.name.strip() else f"an unnamed {actor.role}", "active": 1}
        with self._write():
            row["id"] = self.sql.insert("webhooks", row)
            self._audit_row(actor, "webhooks", f"webhook {row['id']}", f"added the webhook endpoint {url} for {', '.join(events)}")
        return {**row, "events": events, "active": True}

    def list_webhooks(self) -> list[dict[str, Any]]:
        """The active endpoints, oldest first, without their secrets."""
        rows = self.sql.query("SELECT id, url, events, created_at, created_by FROM webhooks WHERE active = 1 "
                              "ORDER BY id")
        return [{**r, "events": load(r["events"], [])} for r in rows]

    def delete_webhook(self, webhook_id: int, *, actor: Actor) -> bool:
        """Stop sending to an endpoint (admins): its secret is forgotten and what it had still to
        receive is given up; its deliveries stay in the log. False when no such active endpoint."""
        actor = require(actor, "manage_settings")
        with self._write():
            row = self.sql.execute("SELECT url FROM webhooks WHERE id = ? AND active = 1", [webhook_id]).fetchone()
            if row is None:
                return False
            self.sql.execute("UPDATE webhooks SET active = 0, secret = NULL WHERE id = ?", [webhook_id])
            self.sql.execute(
                "UPDATE webhook_deliveries SET status = 'given up', next_attempt_at = NULL, last_error = ? "
                "WHERE webhook_id = ? AND status IN (?, ?)", ["the endpoint was deleted", webhook_id, *_OPEN])
            self._audit_row(actor, "webhooks", f"webhook {webhook_id}", f"deleted the webhook endpoint {row[0]}")
        return True

    def webhook_deliveries(self, *, webhook_id: int | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The latest deliveries, newest first, each with its endpoint's URL, the debate it is
        about and its attempts in order (`attempts_log`)."""
        where, params = ("WHERE d.webhook_id = ?", [webhook_id]) if webhook_id is not None else ("", [])
        rows = self.sql.query(
            "SELECT d.*, w.url FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id "
            f"{where} ORDER BY d.id DESC LIMIT ?", [*params, limit])
        attempts: dict[int, list[dict[str, Any]]] = {}
        if rows:
            ids = [r["id"] for r in rows]
            for a in self.sql.query(
                    f"SELECT * FROM webhook_attempts WHERE delivery_id IN ({', '.join('?' for _ in ids)}) "
                    "ORDER BY delivery_id, attempt", ids):
                attempts.setdefault(a["delivery_id"], []).append(a)
        out = []
        for r in rows:
            body = load(r["payload"], {}) or {}
            out.append({**r, "payload": body, "debate_id": (body.get("data") or {}).get("debate_id"),
                        "attempts_log": attempts.get(r["id"], [])})
        return out

    # -- the dispatcher's side

    def due_webhook_deliveries(self, now: datetime | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """Take up to `limit` deliveries due at `now` for this dispatcher: each is held for
        CLAIM_SECONDS (its next attempt moved past them by a conditional update, in one write), so
        no other dispatcher sends it meanwhile, and it comes due again if this one dies. Each row
        has the endpoint's URL and secret and the exact body to sign."""
        now = now or rules.utc_now()
        at = rules.iso(now)
        # A read first: a dispatcher polling an empty outbox takes no write lock.
        if not self.sql.execute(
                "SELECT 1 FROM webhook_deliveries WHERE status IN (?, ?) AND next_attempt_at <= ? LIMIT 1",
                [*_OPEN, at]).fetchone():
            return []
        held = rules.iso(now + timedelta(seconds=rules.CLAIM_SECONDS))
        taken = []
        with self._write():
            rows = self.sql.query(
                "SELECT d.id, d.webhook_id, d.event_type, d.message_id, d.payload, d.attempts, w.url, w.secret, "
                "w.active FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id "
                "WHERE d.status IN (?, ?) AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at, d.id LIMIT ?",
                [*_OPEN, at, limit])
            for r in rows:
                if not r["active"] or not r["secret"]:
                    self.sql.execute("UPDATE webhook_deliveries SET status = 'given up', next_attempt_at = NULL, "
                                     "last_error = ? WHERE id = ?", ["the endpoint was deleted", r["id"]])
                    continue
                cur = self.sql.execute(
                    "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND status IN (?, ?) "
                    "AND next_attempt_at <= ?", [held, r["id"], *_OPEN, at])
                if cur.rowcount == 1:
                    taken.append({k: v for k, v in r.items() if k != "active"})
        return taken

    def record_webhook_attempt(self, delivery_id: int, *, at: datetime, status_code: int | None,
                               error: str | None, duration_ms: float) -> dict[str, Any]:
        """Log one attempt and decide the delivery: a 2xx answer delivers it; otherwise it is tried
        again after the backoff (core/webhooks.py) or, past the last step, given up. Returns the
        delivery's new `status`, the `attempt` number and `next_attempt_at` (None when done)."""
        error = error[:MAX_ERROR] if error else None
        stamp = rules.iso(at)
        with self._write():
            row = self.sql.execute("SELECT attempts FROM webhook_deliveries WHERE id = ?", [delivery_id]).fetchone()
            if row is None:
                raise KeyError(f"no webhook delivery {delivery_id}")
            attempt = (row[0] or 0) + 1
            self.sql.insert("webhook_attempts", {"delivery_id": delivery_id, "attempt": attempt, "at": stamp,
                                                 "status_code": status_code, "error": error,
                                                 "duration_ms": round(duration_ms, 1)})
            if rules.delivered(status_code):
                status, nxt, delivered_at = "delivered", None, stamp
            else:
                later = rules.next_attempt_at(attempt, at)
                status, nxt, delivered_at = ("given up", None, None) if later is None else \
                    ("failed", rules.iso(later), None)
            self.sql.execute(
                "UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_status_code = ?, "
                "last_error = ?, delivered_at = ? WHERE id = ?",
                [status, attempt, nxt, status_code, error, delivered_at, delivery_id])
        return {"status": status, "attempt": attempt, "next_attempt_at": nxt}

    # -- the outbox, written inside the store's own write transactions

    def _subscribers(self, event_types: list[str]) -> list[tuple[int, str]]:
        """(endpoint id, event) for each active endpoint subscribed to each of `event_types`."""
        if not event_types:
            return []
        out = []
        for r in self.sql.execute("SELECT id, events FROM webhooks WHERE active = 1 ORDER BY id").fetchall():
            subscribed = set(load(r[1], []) or [])
            out.extend((r[0], e) for e in event_types if e in subscribed)
        return out

    def _enqueue(self, debate_id: str, events_of: Any, review: dict[str, Any] | None = None) -> None:
        """Write the deliveries of one change: `events_of(debate row)` names its events."""
        if not self.sql.execute("SELECT 1 FROM webhooks WHERE active = 1 LIMIT 1").fetchone():
            return  # the common case: no endpoint, so not even the debate row is read
        found = self.sql.query(f"SELECT {_DEBATE_COLUMNS} FROM debates WHERE id = ?", [debate_id])
        if not found or found[0].get("evaluation_id"):
            return  # evaluation runs are measurements, not work another system waits for
        debate = {**found[0], "verdict": load(found[0].get("verdict"), {})}
        targets = self._subscribers(events_of(debate))
        if not targets:
            return
        now, moment = self._now(), rules.utc_now()
        bodies: dict[str, str] = {}
        for webhook_id, event in targets:
            if event not in bodies:
                bodies[event] = dump(rules.payload(event, debate, moment, review))
            self.sql.insert("webhook_deliveries", {
                "webhook_id": webhook_id, "event_type": event, "message_id": rules.new_message_id(),
                "payload": bodies[event], "status": "pending", "attempts": 0, "next_attempt_at": now,
                "created_at": now})

    def _enqueue_debate_webhooks(self, debate_id: str) -> None:
        """A debate has just finished or failed (projection.py, inside its write)."""
        self._enqueue(debate_id, lambda d: rules.debate_events(d["status"], bool(d["needs_human_review"])))

    def _enqueue_review_webhooks(self, debate_id: str, entry: dict[str, Any]) -> None:
        """A review action has just been recorded (reviews.py, inside its write)."""
        self._enqueue(debate_id, lambda _d: rules.review_events(entry["action"], entry["role"],
                                                                 entry.get("state_after")), review=entry)
