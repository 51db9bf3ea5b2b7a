"""Who is calling, and the store the app serves: the pieces every route depends on."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..core.identity import Actor
from ..store import DebateStore
from .errors import ApiProblem

# auto_error=False: a missing header is answered by `caller` as this API's own 401, not FastAPI's 403.
bearer = HTTPBearer(auto_error=False, description="a token from `python -m debate_core token create`")


class Stores:
    """One store per server thread. A SQLite connection shared by threads shares its read snapshot
    too: a read still open in one thread would hide from another a debate committed meanwhile by
    the worker's own connection (a submission's row, say). Each thread's own connection sees every
    commit; PostgreSQL's stores share the process's pool, so one per thread costs nothing there."""

    def __init__(self, location: str | Path) -> None:
        self.location = location
        self._local = threading.local()
        self._opened: list[DebateStore] = []
        self._lock = threading.Lock()

    def get(self) -> DebateStore:
        store = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = DebateStore(self.location)
            with self._lock:
                self._opened.append(store)
        return store

    def close(self) -> None:
        with self._lock:
            opened, self._opened = self._opened, []
        for store in opened:
            store.close()


def store_of(request: Request) -> DebateStore:
    """This thread's store: call it in the thread that reads (inside run_in_threadpool for async code)."""
    return request.app.state.stores.get()


def caller(request: Request,
           _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)] = None) -> Actor:
    """The token's actor: 401 without a token, or with one that is unknown or revoked. The role is
    checked later, by the same `require` the app and the store use, so a token acts exactly as a
    signed-in person of its role."""
    header = request.headers.get("authorization") or ""
    scheme, _, token = header.partition(" ")
    if not header:
        raise ApiProblem(401, "unauthenticated", "this route needs a token: send Authorization: Bearer <token>")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiProblem(401, "unauthenticated", "send the token as Authorization: Bearer <token>")
    actor = store_of(request).token_actor(token.strip())
    if actor is None:
        raise ApiProblem(401, "bad_token", "the token is unknown or revoked")
    return actor

