"""The HTTP API's app: `create_app(db)` builds the FastAPI app on the same store as the Streamlit app
and the command line. Every route but health needs a token (context.caller); debates start on the
worker path the app uses (jobs/worker.py), so no request waits for a debate."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import __version__
from ..core.app_settings import AppSettingsError, load_settings
from ..core.identity import Actor, PermissionRefused, require
from ..core.webhooks import WEBHOOK_EVENTS, check_endpoint
from ..evaluation.labels import export_labels
from ..jobs import webhooks as webhook_jobs
from ..jobs.worker import DEFAULT_STALE_AFTER_S, recover_interrupted
from ..protocols import UnknownProtocol, get_spec, specs
from ..store import DebateStore, actor_key, db_location, is_postgres_url
from . import debates, errors
from .context import Stores, caller, store_of
from .errors import ApiProblem, bad_input
from .models import Deleted, Health, LabelledCases, Queue, Webhook, WebhookRequest
from .submission import body_limit, check_body_size

log = logging.getLogger("debate_core.api")
Caller = Annotated[Actor, Depends(caller)]


class BodyLimit:
    """Refuses a request body over the bound before it is read whole: by its Content-Length, or,
    for a chunked body, once the bytes received pass the bound."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        try:
            if length is not None:
                check_body_size(int(length))
        except ValueError:
            await self._refuse(send, ApiProblem(400, "bad_input", "Content-Length is not a number", "body"))
            return
        except ApiProblem as exc:
            await self._refuse(send, exc)
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                check_body_size(received)
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except ApiProblem as exc:
            if not started:
                await self._refuse(send, exc)

    @staticmethod
    async def _refuse(send: Send, exc: ApiProblem) -> None:
        response = errors.answer(exc.status, exc.code, exc.message, exc.field)
        await response({"type": "http"}, _nothing, send)


async def _nothing() -> Message:
    return {"type": "http.disconnect"}


def create_app(db: str | Path | None = None, *, dispatch_webhooks: bool = True) -> FastAPI:
    """The API on the store at `db` (a file or a postgresql:// URL; the default store when None).
    `dispatch_webhooks`: run the webhook dispatcher while the app serves (one per server)."""
    location = db_location(db)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        handle = webhook_jobs.start_dispatcher(location) if dispatch_webhooks else None
        try:
            yield
        finally:
            if handle is not None:
                handle.stop()
            app.state.stores.close()

    app = FastAPI(title="Debate review workbench API", version=__version__, lifespan=lifespan,
                  description="Start structured debates, read their verdicts, record reviews, follow live events "
                              "and subscribe to signed webhooks. Every route but /v1/health needs "
                              "`Authorization: Bearer <token>` (python -m debate_core token create).")
    app.state.db = location
    _prepare(location)
    app.state.stores = Stores(location)
    errors.install(app)
    app.add_middleware(BodyLimit)
    app.include_router(router)
    app.include_router(debates.router)
    return app


def _prepare(location: str | Path) -> None:
    """Create and migrate the store now, so a store that cannot open fails the start, and mark the
    debates a previous server left running as interrupted (failed, resumable), as the app and the
    command line do: a restarted server would otherwise report them running for ever."""
    store = DebateStore(location)
    try:
        try:
            stale = load_settings(location).stale_after_minutes * 60
        except (AppSettingsError, OSError):
            stale = DEFAULT_STALE_AFTER_S
        found = recover_interrupted(store, stale_after=stale)
        for debate_id, reason in found.items():
            log.warning("debate %s marked interrupted: %s", debate_id, reason)
    finally:
        store.close()


router = APIRouter(prefix="/v1", responses=debates.ERRORS)


@router.get("/health", response_model=Health, summary="Whether the API is up (no token needed)")
def health(request: Request) -> Health:
    return Health(status="ok", version=__version__,
                  store="postgres" if is_postgres_url(str(request.app.state.db)) else "sqlite")


@router.get("/protocols", response_model=list[dict[str, Any]],
            summary="Every protocol's specification, as `protocols --json` gives it")
def protocols(_: Caller) -> list[dict[str, Any]]:
    return [spec.describe() for spec in specs()]


@router.get("/queue", response_model=Queue, summary="The caller's review queue, oldest first, as the desk shows it")
def queue(request: Request, who: Caller,
          role: Annotated[Literal["reviewer", "supervisor"], Query(description="which queue")] = "reviewer",
          limit: Annotated[int, Query(ge=1, le=200)] = 50) -> Queue:
    require(who, "decide_escalation" if role == "supervisor" else "review")
    store = store_of(request)
    key = actor_key(who)
    counts = store.queue_counts(key, role)
    rows = store.my_queue(key, role, limit=limit)
    return Queue(role=role, **counts, debates=[{**r, "review_state": r.get("review_state") or "pending",
                                                "version": r.get("version") or 0} for r in rows])


@router.get("/labelled-cases", response_model=LabelledCases,
            summary="Reviewed debates as labelled cases in the evaluation format, as export-labels writes them")
def labelled_cases(request: Request, _: Caller, protocol: str | None = None,
                   since: Annotated[str | None, Query(description="started on or after this date")] = None
                   ) -> LabelledCases:
    if protocol:
        try:
            get_spec(protocol)
        except UnknownProtocol as exc:
            raise bad_input(str(exc), "protocol") from None
    export = export_labels(store_of(request).review_records(protocol=protocol, since=since))
    return LabelledCases(cases=export.cases, decided=dict(export.decided), skipped=dict(export.skipped))


def _webhook(row: dict[str, Any]) -> Webhook:
    return Webhook(**{k: row.get(k) for k in Webhook.model_fields})


@router.post("/webhooks", status_code=201, response_model=Webhook,
             summary="Register an endpoint for signed webhook deliveries (admin); the secret is shown this once")
def add_webhook(body: WebhookRequest, request: Request, who: Caller) -> Webhook:
    require(who, "manage_settings")
    unknown = [e for e in body.events if e not in WEBHOOK_EVENTS]
    if unknown:
        raise bad_input(f"unknown event {unknown[0]!r}; choose from {', '.join(WEBHOOK_EVENTS)}", "events")
    try:
        check_endpoint(body.url, body.events)
        row = store_of(request).add_webhook(url=body.url, events=body.events, secret=body.secret, actor=who)
    except ValueError as exc:
        if isinstance(exc, PermissionRefused):
            raise
        message = str(exc)
        field, sep, rest = message.partition(": ")
        known = field in WebhookRequest.model_fields
        raise bad_input(rest if sep and known else message, field if sep and known else None) from None
    return _webhook(row)


@router.get("/webhooks", response_model=list[Webhook], summary="The registered endpoints (admin), without secrets")
def list_webhooks(request: Request, who: Caller) -> list[Webhook]:
    require(who, "manage_settings")
    return [_webhook(r) for r in store_of(request).list_webhooks()]


@router.delete("/webhooks/{webhook_id}", response_model=Deleted, summary="Remove an endpoint (admin)")
def delete_webhook(webhook_id: int, request: Request, who: Caller) -> Deleted:
    require(who, "manage_settings")
    if not store_of(request).delete_webhook(webhook_id, actor=who):
        raise ApiProblem(404, "not_found", f"no webhook with id {webhook_id}")
    return Deleted(deleted=True)


__all__ = ["body_limit", "create_app"]
