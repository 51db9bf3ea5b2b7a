"""Sending webhooks: a dispatcher takes the due deliveries out of the store's outbox, signs each
with its endpoint's secret as the Standard Webhooks specification says, POSTs it and records the
attempt; the store decides from the answer whether it is delivered, tried again later (the backoff
of core/webhooks.py) or given up.

Deliveries are written by the store in the same transaction as the debate's end or the review that
caused them, so nothing here runs on a debate's or a review's path: a slow endpoint only keeps this
thread waiting (at most `TIMEOUT_SECONDS` per attempt). Any number of dispatchers may run against
one database (the app's process, the API server's): the store hands each delivery to one at a time.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

import httpx
from standardwebhooks import Webhook

from ..core import webhooks as rules
from ..store import DebateStore

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
BATCH = 20
USER_AGENT = "debate-workbench-webhooks/1"


def dispatcher_wanted(environ: Mapping[str, str] | None = None) -> bool:
    """DEBATE_WEBHOOKS=0 turns the app's dispatcher off (the tests start their own)."""
    value = (os.environ if environ is None else environ).get("DEBATE_WEBHOOKS", "1").strip().lower()
    return value not in ("0", "false", "no", "off")


def _error_text(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {rules.TIMEOUT_SECONDS:g} seconds"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect ({' '.join(str(exc).split()) or 'refused'})"
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def send_one(client: httpx.Client, delivery: dict) -> tuple[int | None, str | None, float]:
    """POST one delivery, signed now; returns (HTTP status or None, error or None, milliseconds)."""
    signed_at = rules.utc_now()  # the receiver checks this against its own clock, so the real time
    body = delivery["payload"]
    signature = Webhook(delivery["secret"]).sign(delivery["message_id"], signed_at, body)
    headers = {"content-type": "application/json", "user-agent": USER_AGENT,
               "webhook-id": delivery["message_id"], "webhook-timestamp": str(int(signed_at.timestamp())),
               "webhook-signature": signature}
    started = time.perf_counter()
    try:
        answer = client.post(delivery["url"], content=body.encode(), headers=headers,
                             timeout=rules.TIMEOUT_SECONDS)
    except httpx.HTTPError as exc:
        return None, _error_text(exc), (time.perf_counter() - started) * 1000
    return answer.status_code, None, (time.perf_counter() - started) * 1000


def deliver_due(store: DebateStore, *, now: datetime | None = None, client: httpx.Client | None = None,
                stop: threading.Event | None = None) -> int:
    """Send every delivery due at `now` (default: the current time) once; returns how many were
    attempted. Each attempt is recorded, whatever its answer."""
    own = client is None
    client = client or httpx.Client(follow_redirects=False)
    sent = 0
    try:
        while stop is None or not stop.is_set():
            batch = store.due_webhook_deliveries(now, BATCH)
            for delivery in batch:
                status_code, error, ms = send_one(client, delivery)
                store.record_webhook_attempt(delivery["id"], at=now or rules.utc_now(), status_code=status_code,
                                             error=error, duration_ms=ms)
                sent += 1
            if len(batch) < BATCH:
                return sent
    finally:
        if own:
            client.close()
    return sent


class DispatcherHandle:
    """A running dispatcher thread; `stop()` ends it after the attempt in flight, if any."""

    def __init__(self, db: str | Path, interval: float) -> None:
        self.db, self.interval = db, interval
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="debate-webhooks", daemon=True)

    def _run(self) -> None:
        store = None
        client = httpx.Client(follow_redirects=False)
        try:
            while not self._stop.is_set():
                try:
                    store = store or DebateStore(self.db)
                    deliver_due(store, client=client, stop=self._stop)
                except Exception:  # noqa: BLE001 - a database hiccup must not end the thread; tried again next tick
                    log.exception("webhook deliveries could not be sent; trying again")
                self._stop.wait(self.interval)
        finally:
            client.close()
            if store is not None:
                store.close()

    def is_alive(self) -> bool:
        return self.thread.is_alive()

    def stop(self, timeout: float = rules.TIMEOUT_SECONDS + 5) -> None:
        self._stop.set()
        self.thread.join(timeout)


def start_dispatcher(db: str | Path, *, interval: float = POLL_SECONDS) -> DispatcherHandle:
    """Start a daemon thread delivering due webhooks from the store at `db` every `interval` seconds."""
    handle = DispatcherHandle(db, interval)
    handle.thread.start()
    return handle


_APP: dict[str, DispatcherHandle] = {}
_APP_LOCK = threading.Lock()


def start_app_dispatcher(db: str | Path) -> bool:
    """This process's one dispatcher for the database (the app calls it on every first page of a
    process); True when this call started it."""
    with _APP_LOCK:
        running = _APP.get(str(db))
        if running is not None and running.is_alive():
            return False
        _APP[str(db)] = start_dispatcher(db)
        return True


def stop_app_dispatchers() -> None:
    """Stop the dispatchers `start_app_dispatcher` started (tests; at exit the daemon threads end)."""
    with _APP_LOCK:
        running = list(_APP.values())
        _APP.clear()
    for handle in running:
        handle.stop()
