"""Review actions and who may take them.

A reviewer accepts, overrides or escalates a completed debate; only someone with the supervisor
role (core/identity.py: from the verified sign-in, or the server's operator) may approve an
escalated one or settle it with a corrected answer. Whoever acted last may undo that action while nothing has happened after
it: the debate returns to the state and answer before it, and the undo is itself an audit row. Every caller (the CLI, the app, scripts calling
`DebateStore.review`) goes through `submit`, so the role rule holds whatever the front end.

The rules are pure functions; the store applies them inside its write transaction, so the state
they are checked against is the state the action is written over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .identity import Actor, PermissionRefused, operator, require

UNDO = "undo"
REVIEW_ACTIONS = ("accept", "override", "escalate", UNDO)
SUPERVISOR_ACTIONS = ("approve", "override", UNDO)
# review_state values: pending -> accepted | overridden | escalated; escalated -> approved | settled
# ("settled": a supervisor overrode the escalated verdict with a corrected answer). An undo returns
# to the state before the undone action.
REVIEW_STATES = ("pending", "accepted", "overridden", "escalated", "approved", "settled")
_NEW_STATE = {"accept": "accepted", "override": "overridden", "escalate": "escalated", "approve": "approved"}
_SUPERVISOR_STATE = {"override": "settled", "approve": "approved"}


class ReviewConflict(Exception):
    """Someone else acted on this debate first; nothing was written."""


class ReviewError(ValueError):
    """A review action that is not allowed (bad action, missing reason, wrong state)."""


class RoleError(ReviewError):
    """The acting person's role does not allow this action (a supervisor's decision by a reviewer)."""


@dataclass(frozen=True)
class ReviewRequest:
    debate_id: str
    action: str
    reviewer: str
    role: str  # "reviewer" or "supervisor": the capacity the action is taken in
    answer: str | None
    reason: str | None
    expected_version: int | None
    actor: Actor


def make_request(
    debate_id: str,
    *,
    action: str,
    reviewer: str | None = None,
    actor: Actor | None = None,
    answer: str | None = None,
    reason: str | None = None,
    expected_version: int | None = None,
    supervisor: bool = False,
) -> ReviewRequest:
    """Check what can be checked without the database: who acts and may they, actions, required
    fields. Without `actor`, the caller is the server's operator (the CLI, a script on the
    database) acting under the name `reviewer`."""
    if actor is None:
        if not (reviewer or "").strip():
            raise ReviewError("a reviewer name is required")
        actor = operator(reviewer)
    try:
        require(actor, "decide_escalation" if supervisor else "review")
    except PermissionRefused as exc:
        raise RoleError(str(exc)) from None
    allowed = SUPERVISOR_ACTIONS if supervisor else REVIEW_ACTIONS
    if action not in allowed:
        if not supervisor and action in SUPERVISOR_ACTIONS:
            raise ReviewError(f"only a supervisor may {action} an escalated debate")
        raise ReviewError(f"unknown action {action!r}; choose from {', '.join(allowed)}")
    reason = (reason or "").strip() or None
    answer = (answer or "").strip() or None
    if action == "override" and not answer:
        raise ReviewError("an override needs the corrected answer")
    if action == UNDO:
        answer = None
    if action in ("override", "escalate") and not reason:
        raise ReviewError(f"{action} needs a reason")
    return ReviewRequest(debate_id, action, actor.name, "supervisor" if supervisor else "reviewer", answer, reason,
                         expected_version, actor)


def transition(req: ReviewRequest, *, status: str, state: str, version: int,
               final_answer: str | None) -> tuple[str, str | None]:
    """The review state and final answer after `req`, given the debate as stored now."""
    if status != "completed":
        raise ReviewError(f"debate {req.debate_id} is {status}; only completed debates can be reviewed")
    if req.expected_version is not None and req.expected_version != version:
        raise ReviewConflict(
            f"debate {req.debate_id} was changed by someone else (now '{state}'); reload and try again"
        )
    if req.role == "supervisor" and state != "escalated":
        raise ReviewError(f"only escalated debates go to a supervisor; this one is '{state}'")
    if req.role == "reviewer" and state != "pending":
        raise ReviewError(f"debate {req.debate_id} was already reviewed ('{state}')")
    new_answer = req.answer if req.action == "override" else final_answer
    if req.role == "supervisor":
        return _SUPERVISOR_STATE[req.action], new_answer
    return _NEW_STATE[req.action], new_answer


def same_name(a: str | None, b: str | None) -> bool:
    """Reviewer names are matched without regard to case or surrounding spaces."""
    return (a or "").strip().casefold() == (b or "").strip().casefold()


def undo_transition(req: ReviewRequest, last: dict[str, Any] | None, *, status: str, state: str,
                    version: int, final_answer: str | None) -> tuple[str, str | None]:
    """Rule: "a reviewer may take back their own last action while nothing has happened after it".
    Returns the state and answer before that action; `last` is the debate's latest audit row."""
    if status != "completed":
        raise ReviewError(f"debate {req.debate_id} is {status}; there is no review action to undo")
    if req.expected_version is not None and req.expected_version != version:
        raise ReviewConflict(
            f"debate {req.debate_id} was changed by someone else (now '{state}'); nothing was undone"
        )
    if last is None or last.get("action") == UNDO:
        raise ReviewError("there is no review action to undo")
    if not req.actor.same_person(last):
        raise ReviewError(f"only {last.get('reviewer')} can undo their {last.get('action')}: it was their action")
    if last.get("role") != req.role:
        raise ReviewError(f"that {last.get('action')} was taken as a {last.get('role')}; undo it as one")
    if last.get("state_after") != state or last.get("answer_after") != final_answer:
        raise ReviewConflict(f"debate {req.debate_id} changed after that action; nothing was undone")
    return str(last.get("state_before") or "pending"), last.get("answer_before")


class _Store(Protocol):
    def record_review(self, req: ReviewRequest) -> dict[str, Any]: ...


def submit(store: _Store, debate_id: str, **request: Any) -> dict[str, Any]:
    """Validate, check the acting person's role, then let the store apply the action atomically.

    Raises ReviewError (RoleError for a role refusal) or ReviewConflict; nothing is written then."""
    return store.record_review(make_request(debate_id, **request))
