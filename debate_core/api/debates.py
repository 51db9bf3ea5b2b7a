"""The debate routes: submit, read, list, review, steer, fork, and the live events of one debate."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from ..core.identity import Actor, PermissionRefused, require
from ..core.review_rules import ReviewError, RoleError
from ..core.steering import SteeringError
from ..jobs import worker
from ..present.formatting import REVIEW_STATE_LABELS, display_status
from ..protocols import SettingsError
from ..store import REVIEW_STATES
from .context import caller, store_of
from .errors import ApiProblem, bad_input
from .models import (
    Accepted,
    ControlRequest,
    ControlResult,
    Debate,
    DebatePage,
    DebateRequest,
    DebateSummary,
    ErrorBody,
    ForkRequest,
    ReviewRequest,
    ReviewResult,
)
from .submission import agent_list, prepared, settings_for

ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (400, 401, 403, 404, 409, 413, 422)}
router = APIRouter(prefix="/v1", responses=ERRORS)
Caller = Annotated[Actor, Depends(caller)]
TERMINAL = ("completed", "failed", "stopped", "paused")
DECIDED = ("accepted", "overridden", "approved", "settled")  # review states after which nothing is left to wait for
# How often the event stream looks at the store: the live page refreshes at about this pace too.
POLL_S = 0.25


def summary(d: dict[str, Any]) -> dict[str, Any]:
    state = d.get("review_state") or "pending"
    return {**{k: d.get(k) for k in DebateSummary.model_fields if k in d},
            "outcome": display_status(d), "needs_human_review": bool(d.get("needs_human_review")),
            "review_state": state, "review_label": REVIEW_STATE_LABELS.get(state, state)}


def full(d: dict[str, Any], with_steps: bool) -> dict[str, Any]:
    reviews = [{**r, "kind": r.get("actor_kind")} for r in d.get("reviews") or []
               if r.get("action") not in ("annotate",)]
    return {**summary(d), **{k: d.get(k) for k in ("version", "verdict", "convergence_reason", "error", "calls",
                                                  "input_tokens", "output_tokens")},
            "converged": None if d.get("converged") is None else bool(d.get("converged")),
            "reviews": reviews, "steps": d.get("steps") if with_steps else None}


@router.post("/debates", status_code=202, response_model=Accepted,
             summary="Start a debate; answers at once with its id (the run goes on in the background)")
def submit(body: DebateRequest, request: Request, response: Response, who: Caller) -> Accepted:
    require(who, "start")  # before the body is weighed, so a role that may not start learns that first
    db_path = request.app.state.db
    case, settings, provider = prepared(body, db_path)
    try:
        debate_id = worker.start_debate(case, body.protocol, provider, settings, db_path=db_path, actor=who)
    except PermissionRefused:
        raise
    except (SettingsError, ValueError) as exc:  # the last checks of start_debate, before anything is saved
        raise bad_input(str(exc), "case") from None
    response.headers["Location"] = f"/v1/debates/{debate_id}"
    row = store_of(request).get_debate(debate_id, with_steps=False)
    return Accepted(id=debate_id, status=row["status"])


@router.get("/debates/{debate_id}", response_model=Debate, response_model_exclude_none=False,
            summary="One debate: state, verdict, review state and who reviewed it")
def get_debate(debate_id: str, request: Request, _: Caller,
               steps: Annotated[bool, Query(description="add every step")] = False) -> dict[str, Any]:
    d = store_of(request).get_debate(debate_id, with_steps=True)
    return full(d, steps)


def _cursor(created_at: str, debate_id: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([created_at, debate_id]).encode()).decode().rstrip("=")


def _uncursor(text: str) -> tuple[str, str]:
    try:
        created_at, debate_id = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        return str(created_at), str(debate_id)
    except (ValueError, TypeError):
        raise bad_input("not a cursor this API gave; pass next_cursor as it came", "cursor") from None


OUTCOMES = {"running": {"status": "running"}, "paused": {"status": "paused"}, "stopped": {"status": "stopped"},
            "failed": {"status": "failed"}, "converged": {"status": "completed", "needs_review": False},
            "flagged": {"status": "completed", "needs_review": True},
            "not_converged": {"status": "completed", "needs_review": False}}


@router.get("/debates", response_model=DebatePage, summary="Debates, newest first, with History's filters")
def list_debates(
    request: Request, _: Caller,
    protocol: str | None = None,
    outcome: Annotated[str | None, Query(description=", ".join(OUTCOMES))] = None,
    review_state: Annotated[str | None, Query(description=", ".join(REVIEW_STATES))] = None,
    needs_review: bool | None = None,
    reviewer: str | None = None,
    q: Annotated[str | None, Query(description="free text over questions, answers and claims")] = None,
    created_from: Annotated[str | None, Query(description="on or after this date or time")] = None,
    created_before: Annotated[str | None, Query(description="before this date or time")] = None,
    include_evaluations: bool = False,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: str | None = None,
) -> DebatePage:
    filters: dict[str, Any] = {"protocol": protocol, "review_state": review_state, "reviewer": reviewer,
                               "needs_review": needs_review, "search": q, "since": created_from,
                               "until": created_before, "include_evaluations": include_evaluations}
    if outcome is not None:
        if outcome not in OUTCOMES:
            raise bad_input(f"unknown outcome {outcome!r}; choose from {', '.join(OUTCOMES)}", "outcome")
        filters.update(OUTCOMES[outcome])
    if review_state is not None and review_state not in REVIEW_STATES:
        raise bad_input(f"unknown review state {review_state!r}; choose from {', '.join(REVIEW_STATES)}",
                        "review_state")
    store = store_of(request)
    after: tuple[str, str] | None = _uncursor(cursor) if cursor else None
    if after:
        # The page after a cursor: debates created up to its time (the store's `until` is "before",
        # and every stamp has one length, so one character more than the stamp takes its equals in),
        # less those at that very time already given (ids at or above the cursor's, newest first).
        filters["until"] = min(filters["until"] or "~", after[0] + " ")
    def kept(r: dict[str, Any]) -> bool:
        if after and not (r["created_at"] < after[0] or r["id"] < after[1]):
            return False
        # History tells converged from not converged by the verdict; the store filters by status only.
        return outcome not in ("converged", "not_converged") or bool(r.get("converged")) == (outcome == "converged")

    rows: list[dict[str, Any]] = []
    fetch = limit + 1
    while True:
        got = store.list_debates(**filters, limit=fetch)
        rows = [r for r in got if kept(r)]
        if len(rows) > limit or len(got) < fetch:
            break
        fetch *= 2  # rows left out (at the cursor's time, or by the outcome): read further
    page, more = rows[:limit], len(rows) > limit
    return DebatePage(debates=[DebateSummary(**summary(r)) for r in page],
                      next_cursor=_cursor(page[-1]["created_at"], page[-1]["id"]) if more else None)


SUPERVISOR = {"approve": "approve", "settle": "override"}


@router.post("/debates/{debate_id}/reviews", response_model=ReviewResult,
             summary="Accept, override or escalate a verdict; a supervisor approves or settles an escalated one")
def review(debate_id: str, body: ReviewRequest, request: Request, who: Caller) -> ReviewResult:
    store = store_of(request)
    supervisor = body.action in SUPERVISOR
    action = SUPERVISOR.get(body.action, body.action)
    store.get_debate(debate_id, with_steps=False)  # 404 before the rules speak
    try:
        entry = store.review(debate_id, action=action, actor=who, answer=body.answer, reason=body.reason,
                             expected_version=body.version, supervisor=supervisor)
    except RoleError:
        raise
    except ReviewError as exc:
        # A missing reason or answer is bad input; anything else is the debate's state refusing the action.
        message = str(exc)
        if " needs " in message:
            raise bad_input(message, "answer" if "answer" in message else "reason") from None
        raise ApiProblem(409, "review_refused", message, "action") from None
    return ReviewResult(action=body.action, state_before=entry.get("state_before"), state_after=entry["state_after"],
                        reviewer=entry["reviewer"], version=entry["version"])


@router.post("/debates/{debate_id}/control", response_model=ControlResult,
             summary="Pause or stop a running debate, or continue a paused one")
def control(debate_id: str, body: ControlRequest, request: Request, who: Caller) -> ControlResult:
    require(who, "steer")
    store = store_of(request)
    store.get_debate(debate_id, with_steps=False)
    try:
        if body.action == "continue":
            worker.start_continue(debate_id, db_path=request.app.state.db, actor=who)
            status = "running"
        else:
            status = store.request_control(debate_id, body.action, actor=who)
    except SteeringError as exc:
        raise ApiProblem(409, "not_now", str(exc), "action") from None
    return ControlResult(id=debate_id, status=status)


@router.post("/debates/{debate_id}/forks", status_code=202, response_model=Accepted,
             summary="A new debate sharing the first rounds of this one, continued with changed settings")
def fork(debate_id: str, body: ForkRequest, request: Request, response: Response, who: Caller) -> Accepted:
    require(who, "steer")
    store = store_of(request)
    parent = store.get_debate(debate_id, with_steps=False)
    if body.options or body.agents is not None or body.rounds is not None:
        settings_for(parent["protocol"], body, request.app.state.db)  # names the field at fault
    try:
        fork_id = worker.start_fork(debate_id, body.from_round, db_path=request.app.state.db, options=body.options,
                                    agents=agent_list(body.agents), rounds=body.rounds, actor=who)
    except SteeringError as exc:
        raise ApiProblem(409, "not_now", str(exc), "from_round") from None
    except PermissionRefused:
        raise
    except (SettingsError, ValueError) as exc:
        raise bad_input(str(exc), "options") from None
    response.headers["Location"] = f"/v1/debates/{fork_id}"
    return Accepted(id=fork_id, status=store.get_debate(fork_id, with_steps=False)["status"])


# -- live events ------------------------------------------------------------------------------------

def sse(kind: str, data: dict[str, Any], event_id: str | None = None) -> str:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def _step(e: dict[str, Any]) -> dict[str, Any]:
    d = e.get("data") or {}
    return {"step_id": e.get("step_id"), **{k: d.get(k) for k in ("round", "stage", "agent", "target") if k in d}}


def translate(e: dict[str, Any], debate: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """An engine event as the stream names it; None for those a caller has no use for."""
    kind, data = e["kind"], e.get("data") or {}
    if kind == "turn_finished":
        return "step.finished", _step(e)
    if kind == "round_closed":
        return "round.closed", {"round": data.get("round")}
    if kind == "completed":
        return "verdict", {k: debate.get(k) for k in ("final_answer", "confidence", "needs_human_review",
                                                       "review_state", "verdict")} | {
            "outcome": display_status(debate)}
    if kind in ("failed", "paused", "stopped"):
        return f"debate.{kind}", {k: v for k, v in data.items() if k in ("error", "round", "by", "message")}
    return None


def review_event(r: dict[str, Any]) -> dict[str, Any]:
    return {"reviewer": r.get("reviewer"), "action": r.get("action"), "state_before": r.get("state_before"),
            "state_after": r.get("state_after"), "ts": r.get("ts")}


async def stream(debate_id: str, request: Request, follow_reviews: bool = False) -> AsyncIterator[str]:
    def read(what: str, *args: Any, **kwargs: Any) -> Any:
        # In the pool's thread, with that thread's store (context.Stores says why).
        return getattr(store_of(request), what)(*args, **kwargs)

    last_event, seen_reviews = 0, {r["id"] for r in await run_in_threadpool(read, "reviews", debate_id)}
    while True:
        debate = await run_in_threadpool(read, "get_debate", debate_id, with_steps=False)
        events = await run_in_threadpool(read, "events", debate_id, last_event)
        for e in events:
            last_event = e["id"]
            out = translate(e, debate)
            if out:
                yield sse(out[0], out[1], str(e["id"]))
        for r in await run_in_threadpool(read, "reviews", debate_id):
            if r["id"] not in seen_reviews and r.get("action") != "annotate":
                seen_reviews.add(r["id"])
                yield sse("review.recorded", review_event(r))
        waiting = follow_reviews and debate["status"] == "completed" and debate.get("review_state") not in DECIDED
        if debate["status"] in TERMINAL and not events and not waiting:
            yield sse("end", {"status": debate["status"], "outcome": display_status(debate)})
            return
        if await request.is_disconnected():
            return
        await asyncio.sleep(POLL_S)


@router.get("/debates/{debate_id}/events", summary="Server-Sent Events: steps finished, rounds closed, the "
            "verdict and reviews recorded, until the debate ends",
            response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}},
                             "description": "event: step.finished | round.closed | verdict | review.recorded | "
                                            "debate.failed | debate.paused | debate.stopped | end"}})
def events(debate_id: str, request: Request, _: Caller,
           follow_reviews: Annotated[bool, Query(description="after the verdict, stay open until the team's "
                                                             "review decides it (accepted, overridden, approved "
                                                             "or settled)")] = False) -> StreamingResponse:
    store_of(request).get_debate(debate_id, with_steps=False)  # 404 before the stream starts
    return StreamingResponse(stream(debate_id, request, follow_reviews), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
