"""Webhooks: the events another system may subscribe to, the rules for an endpoint, what each
delivery says, and when a failed delivery is tried again.

Deliveries follow the Standard Webhooks specification (https://www.standardwebhooks.com): the body
is `{"type": ..., "timestamp": ..., "data": {...}}`, sent with the headers `webhook-id` (the same
for every attempt at one message, so a receiver can drop repeats), `webhook-timestamp` and
`webhook-signature`. The store writes deliveries into an outbox inside the write that caused them
(debate_core/store/webhooks.py) and a dispatcher sends them (debate_core/jobs/webhooks.py), so a
slow or failing endpoint never holds up a debate or a review. Everything here is pure.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

WEBHOOK_EVENTS = ("debate.completed", "debate.failed", "debate.flagged", "review.recorded", "review.escalated",
                  "review.approved")

# What each event means, in the words the Settings page shows.
EVENT_DESCRIPTIONS = {
    "debate.completed": "a debate finished with a verdict",
    "debate.failed": "a debate stopped because of an error",
    "debate.flagged": "a finished debate's verdict needs a human to look at it",
    "review.recorded": "someone recorded a review action (accept, override, escalate, approve, settle, undo)",
    "review.escalated": "a reviewer escalated a debate to a supervisor",
    "review.approved": "a supervisor approved or settled an escalated debate",
}

# Seconds to wait before the next attempt after the 1st, 2nd, ... failed attempt; after the last
# one the delivery is given up (six attempts over about 1 hour 13 minutes).
BACKOFF_SECONDS = (5, 30, 120, 600, 3600)
TIMEOUT_SECONDS = 10.0
# How long a dispatcher holds a delivery it took: longer than one attempt can take, so no other
# dispatcher sends it meanwhile, and short enough that one whose process died is sent again soon.
CLAIM_SECONDS = 60
SECRET_PREFIX = "whsec_"
MAX_URL = 2000


def check_endpoint(url: str, events: list[str]) -> None:
    """Refuse an endpoint that cannot be delivered to: ValueError naming the field."""
    text = (url or "").strip()
    if not text:
        raise ValueError("url: give the address to send to, starting with https:// or http://")
    if len(text) > MAX_URL:
        raise ValueError(f"url: at most {MAX_URL} characters")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise ValueError(f"url: {text!r} is not a web address") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError(f"url: must start with https:// or http://, not {text!r}")
    if not parts.hostname:
        raise ValueError(f"url: {text!r} names no host")
    if any(c.isspace() for c in text):
        raise ValueError("url: must not contain spaces")
    if not events:
        raise ValueError(f"events: choose at least one of {', '.join(WEBHOOK_EVENTS)}")
    for event in events:
        if event not in WEBHOOK_EVENTS:
            raise ValueError(f"events: {event!r} is not an event; choose from {', '.join(WEBHOOK_EVENTS)}")


def new_secret() -> str:
    """A Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def check_secret(secret: str | None) -> str:
    """The secret to sign with: a new one for None or blank, else the given one if the
    specification's form (`whsec_` and base64 of 24 to 64 bytes). ValueError naming the field."""
    text = (secret or "").strip()
    if not text:
        return new_secret()
    body = text.removeprefix(SECRET_PREFIX)
    try:
        raw = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if not text.startswith(SECRET_PREFIX) or not 24 <= len(raw) <= 64:
        raise ValueError("secret: write it as whsec_ followed by 24 to 64 bytes in base64, "
                         "or leave it empty to have one made")
    return text


def new_message_id() -> str:
    """The `webhook-id` of one message, kept across its retries."""
    return "msg_" + secrets.token_urlsafe(18)


def iso(moment: datetime) -> str:
    """A UTC time as the store writes times (debate_core/store/rows.py), so texts compare in order."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{moment.microsecond // 1000:03d}Z"


def utc_now() -> datetime:
    return datetime.now(UTC)


def next_attempt_delay(attempts_made: int) -> int | None:
    """Seconds to wait after `attempts_made` failed attempts, or None: give up."""
    if attempts_made < 1:
        return 0
    if attempts_made > len(BACKOFF_SECONDS):
        return None
    return BACKOFF_SECONDS[attempts_made - 1]


def next_attempt_at(attempts_made: int, now: datetime) -> datetime | None:
    delay = next_attempt_delay(attempts_made)
    return None if delay is None else now + timedelta(seconds=delay)


def delivered(status_code: int | None) -> bool:
    """The specification's success: any 2xx answer."""
    return status_code is not None and 200 <= status_code < 300


def debate_events(status: str, needs_human_review: bool) -> list[str]:
    """The events a debate reaching `status` sends."""
    if status == "failed":
        return ["debate.failed"]
    if status != "completed":
        return []
    return ["debate.completed", "debate.flagged"] if needs_human_review else ["debate.completed"]


def review_events(action: str, role: str, state_after: str | None) -> list[str]:
    """The events a recorded review action sends (core/review_rules.py's actions and states)."""
    out = ["review.recorded"]
    if action == "escalate" and role == "reviewer":
        out.append("review.escalated")
    if role == "supervisor" and action in ("approve", "override") and state_after in ("approved", "settled"):
        out.append("review.approved")
    return out


def debate_data(debate: dict[str, Any]) -> dict[str, Any]:
    """What every event says about its debate, from its stored row (verdict still JSON text or decoded)."""
    verdict = debate.get("verdict") or {}
    if not isinstance(verdict, dict):
        verdict = {}
    return {
        "debate_id": debate.get("id"),
        "title": debate.get("title"),
        "question": debate.get("question"),
        "protocol": debate.get("protocol"),
        "status": debate.get("status"),
        "answer": debate.get("final_answer"),
        "confidence": debate.get("confidence"),
        "needs_human_review": bool(debate.get("needs_human_review")),
        "escalation_reasons": list(verdict.get("escalation_reasons") or []),
        "review_state": debate.get("review_state"),
        "reviewed_by": debate.get("reviewed_by"),
        "rounds": debate.get("rounds"),
        "created_at": debate.get("created_at"),
        "finished_at": debate.get("finished_at"),
        "error": debate.get("error"),
    }


def payload(event_type: str, debate: dict[str, Any], at: datetime,
            review: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Standard Webhooks body of one event; a review event adds the action as `review`."""
    if event_type not in WEBHOOK_EVENTS:
        raise ValueError(f"unknown webhook event {event_type!r}")
    data = debate_data(debate)
    if review is not None:
        data["review"] = {
            "action": review.get("action"), "role": review.get("role"), "reviewer": review.get("reviewer"),
            "state_before": review.get("state_before"), "state_after": review.get("state_after"),
            "answer_before": review.get("answer_before"), "answer_after": review.get("answer_after"),
            "reason": review.get("reason"), "at": review.get("ts"),
        }
    return {"type": event_type, "timestamp": at.astimezone(UTC).isoformat().replace("+00:00", "Z"), "data": data}
