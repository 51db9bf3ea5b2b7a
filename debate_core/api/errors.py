"""Every error the API answers is one JSON object, `{"error": {"code", "message", "field"}}`, naming
the reason and, for bad input, the request field at fault. A real fault is logged with an id, and
only that id goes back to the caller: never a traceback."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..core.identity import PermissionRefused
from ..core.review_rules import ReviewConflict, RoleError
from ..store import NotFound, StoreError

log = logging.getLogger("debate_core.api")


class ApiProblem(Exception):
    """An answer other than success, with its status, code, message and the field at fault."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.field = status, code, message, field


def bad_input(message: str, field: str | None) -> ApiProblem:
    return ApiProblem(422, "bad_input", message, field)


def error_body(code: str, message: str, field: str | None = None, error_id: str | None = None) -> dict[str, Any]:
    detail: dict[str, Any] = {"code": code, "message": message, "field": field}
    if error_id:
        detail["error_id"] = error_id
    return {"error": detail}


def answer(status: int, code: str, message: str, field: str | None = None,
           headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(code, message, field), status_code=status, headers=headers)


def _field(loc: tuple[Any, ...] | list[Any]) -> str | None:
    """`("body", "provider", "base_url")` -> "provider.base_url"; the body itself -> "body"."""
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("body", "query", "path", "header"):
        kind, parts = parts[0], parts[1:]
        return ".".join(parts) if parts else kind
    return ".".join(parts) or None


def _validation_message(err: dict[str, Any]) -> tuple[str, str]:
    kind = str(err.get("type") or "")
    if kind == "json_invalid":
        return "bad_json", "the body is not valid JSON"
    if kind == "missing":
        return "bad_input", "this field is required"
    if kind == "extra_forbidden":
        return "bad_input", "unknown field; see the request model in /openapi.json"
    return "bad_input", str(err.get("msg") or "invalid value")


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiProblem)
    async def _problem(_: Request, exc: ApiProblem) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return answer(exc.status, exc.code, exc.message, exc.field, headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        first = errors[0] if errors else {}
        code, message = _validation_message(first)
        field = _field(first.get("loc", ())) if code != "bad_json" else "body"
        more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
        return answer(422 if code != "bad_json" else 400, code, message + more, field)

    @app.exception_handler(PermissionRefused)
    async def _refused(_: Request, exc: PermissionRefused) -> JSONResponse:
        return answer(403, "forbidden", str(exc))

    @app.exception_handler(RoleError)
    async def _role(_: Request, exc: RoleError) -> JSONResponse:
        return answer(403, "forbidden", str(exc), "action")

    @app.exception_handler(ReviewConflict)
    async def _conflict(_: Request, exc: ReviewConflict) -> JSONResponse:
        return answer(409, "stale_version", str(exc), "version")

    @app.exception_handler(NotFound)
    async def _missing(_: Request, exc: NotFound) -> JSONResponse:
        return answer(404, "not_found", str(exc.args[0]) if exc.args else "not found")

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else "the request cannot be answered"
        if exc.status_code == 404:
            message = "no such route; see /docs for the routes"
        return answer(exc.status_code, code, message)

    @app.exception_handler(StoreError)
    async def _store(_: Request, exc: StoreError) -> JSONResponse:
        # The database cannot be reached or written: the caller may try again later.
        error_id = secrets.token_hex(6)
        log.error("store error %s: %s", error_id, exc)
        return JSONResponse(error_body("store_unavailable", "the database cannot be used right now; try again later",
                                       error_id=error_id), status_code=503)

    @app.exception_handler(Exception)
    async def _fault(request: Request, exc: Exception) -> JSONResponse:
        error_id = secrets.token_hex(6)
        log.exception("server fault %s on %s %s", error_id, request.method, request.url.path, exc_info=exc)
        return JSONResponse(error_body("server_fault", f"the server failed; the fault is logged as {error_id}",
                                       error_id=error_id), status_code=500)
