"""A Python client of the workbench's HTTP API (`python -m debate_core api`), over httpx.

    from debate_core.client import Client
    api = Client("http://127.0.0.1:8000", token)
    debate_id = api.submit(case, "dialectic")["id"]
    debate = api.wait(debate_id)
    api.review(debate_id, "accept", version=debate["version"])

Every method is one route; an answer other than success raises `ApiError`, carrying the status and
the error's code, message and field. It imports nothing else of debate_core, so a team can copy
this one file into its own pipeline.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx

FINISHED = ("completed", "failed", "stopped", "paused")


class ApiError(Exception):
    """The API refused or failed a call: `status` (HTTP), `code`, `message`, `field` (the request
    field at fault, for bad input) and `error_id` (for a server fault, as the server logged it)."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 error_id: str | None = None) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (field {field})" if field else ""))
        self.status, self.code, self.message, self.field, self.error_id = status, code, message, field, error_id


class Client:
    def __init__(self, base_url: str, token: str | None = None, *, timeout: float = 30.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout,
                                 transport=transport)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise _error(response)
        return response.json()

    # -- the routes ----------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self._call("GET", "/v1/health")

    def protocols(self) -> list[dict[str, Any]]:
        return self._call("GET", "/v1/protocols")

    def submit(self, case: dict[str, Any], protocol: str, *, preset: str | None = None,
               options: dict[str, Any] | None = None, agents: list[Any] | None = None, rounds: int | None = None,
               provider: dict[str, Any] | None = None, **settings: Any) -> dict[str, Any]:
        """Start a debate; returns {"id", "status"} at once (the debate runs in the background)."""
        body: dict[str, Any] = {"case": case, "protocol": protocol, **settings}
        for key, value in (("preset", preset), ("options", options), ("agents", agents), ("rounds", rounds),
                           ("provider", provider)):
            if value is not None:
                body[key] = value
        return self._call("POST", "/v1/debates", json=body)

    def get(self, debate_id: str, *, steps: bool = False) -> dict[str, Any]:
        return self._call("GET", f"/v1/debates/{debate_id}", params={"steps": "true"} if steps else None)

    def wait(self, debate_id: str, *, timeout: float = 600.0, every: float = 0.5) -> dict[str, Any]:
        """Poll until the debate has finished (completed, failed, stopped or paused); TimeoutError after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            debate = self.get(debate_id)
            if debate["status"] in FINISHED:
                return debate
            if time.monotonic() > deadline:
                raise TimeoutError(f"debate {debate_id} is still {debate['status']} after {timeout:g} s")
            time.sleep(every)

    def list(self, *, cursor: str | None = None, limit: int = 50, **filters: Any) -> dict[str, Any]:
        """One page: {"debates": [...], "next_cursor"}; filters: protocol, outcome, review_state,
        needs_review, reviewer, q, created_from, created_before, include_evaluations."""
        params = {k: _param(v) for k, v in {**filters, "cursor": cursor, "limit": limit}.items() if v is not None}
        return self._call("GET", "/v1/debates", params=params)

    def review(self, debate_id: str, action: str, *, answer: str | None = None, reason: str | None = None,
               version: int | None = None) -> dict[str, Any]:
        body = {k: v for k, v in {"action": action, "answer": answer, "reason": reason, "version": version}.items()
                if v is not None}
        return self._call("POST", f"/v1/debates/{debate_id}/reviews", json=body)

    def control(self, debate_id: str, action: str) -> dict[str, Any]:
        return self._call("POST", f"/v1/debates/{debate_id}/control", json={"action": action})

    def fork(self, debate_id: str, from_round: int, **changes: Any) -> dict[str, Any]:
        return self._call("POST", f"/v1/debates/{debate_id}/forks", json={"from_round": from_round, **changes})

    def events(self, debate_id: str, *, follow_reviews: bool = False) -> Iterator[dict[str, Any]]:
        """The debate's live events, each {"event", "id", "data"}, until the stream ends with the debate
        (with `follow_reviews`, once its review is decided)."""
        params = {"follow_reviews": "true"} if follow_reviews else None
        with self.http.stream("GET", f"/v1/debates/{debate_id}/events", params=params, timeout=None) as response:
            if response.status_code >= 400:
                response.read()
                raise _error(response)
            event: dict[str, Any] = {}
            for line in response.iter_lines():
                if not line:
                    if "event" in event or "data" in event:
                        event.setdefault("event", "message")
                        yield event
                    event = {}
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "data":
                    event["data"] = json.loads(value) if value else None
                elif name in ("event", "id"):
                    event[name] = value

    def queue(self, role: str = "reviewer", *, limit: int = 50) -> dict[str, Any]:
        return self._call("GET", "/v1/queue", params={"role": role, "limit": limit})

    def labelled_cases(self, *, protocol: str | None = None, since: str | None = None) -> dict[str, Any]:
        params = {k: v for k, v in {"protocol": protocol, "since": since}.items() if v}
        return self._call("GET", "/v1/labelled-cases", params=params)

    def webhooks(self) -> list[dict[str, Any]]:
        return self._call("GET", "/v1/webhooks")

    def add_webhook(self, url: str, events: list[str], *, secret: str | None = None) -> dict[str, Any]:
        body = {"url": url, "events": events, **({"secret": secret} if secret else {})}
        return self._call("POST", "/v1/webhooks", json=body)

    def delete_webhook(self, webhook_id: int) -> dict[str, Any]:
        return self._call("DELETE", f"/v1/webhooks/{webhook_id}")


def _param(value: Any) -> Any:
    return ("true" if value else "false") if isinstance(value, bool) else value


def _error(response: httpx.Response) -> ApiError:
    try:
        detail = response.json()["error"]
        return ApiError(response.status_code, str(detail.get("code")), str(detail.get("message")),
                        detail.get("field"), detail.get("error_id"))
    except (ValueError, KeyError, TypeError):
        return ApiError(response.status_code, "http_error", response.text[:300] or response.reason_phrase)


__all__ = ["ApiError", "Client"]
