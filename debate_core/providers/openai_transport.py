"""Transport faults of the OpenAI-compatible provider: which server errors are retried, which mean
the server refuses the structured-output method, and how long to wait before the next try.

ChatOpenAI's own retries are off (`max_retries=0`) so there is one policy: 429, 5xx, refused
connections and malformed responses are retried by the provider with exponential back-off and
jitter, honouring Retry-After, within a number of tries and a total wait (`RetryPolicy`).
"""

from __future__ import annotations

import email.utils
import json
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Words a server's error message uses when it refuses the structured-output method itself, as
# opposed to failing for another reason (a plain 500 must be retried, not trigger a fallback).
_REFUSAL_WORDS = {
    "json_schema": ("response_format", "json_schema", "structured output"),
    "function_calling": ("tool", "function"),
    "json_mode": ("response_format", "json_object"),
}
_REFUSAL_STATUS = frozenset({400, 415, 422, 500, 501})
_RETRY_STATUS = frozenset({408, 409, 425, 429})


class MethodRefused(Exception):
    """The server refused the structured-output method itself; the provider falls back to the next."""


def retry_after_seconds(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds the server asks us to wait: `retry-after-ms`, `retry-after` as seconds or HTTP date."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass
class RetryPolicy:
    """Transport retries: `retries` after the first try, at most `max_wait` seconds of waiting per call."""

    retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_wait: float = 60.0

    def delay(self, retry_no: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            # The server said when; a little jitter keeps concurrent callers from returning together.
            return retry_after + random.uniform(0.0, min(1.0, 0.1 * retry_after + 0.05))
        backoff = min(self.max_delay, self.base_delay * (2 ** (retry_no - 1)))
        return backoff / 2 + random.uniform(0.0, backoff / 2)


def retriable(status: int) -> bool:
    """An HTTP status worth another try: rate limits, timeouts, conflicts and server errors."""
    return status in _RETRY_STATUS or status >= 500


def refuses(exc: Any, method: str) -> bool:
    """Whether an `openai.APIStatusError` says the server refuses the structured-output `method`."""
    if exc.status_code not in _REFUSAL_STATUS:
        return False
    body = exc.body if isinstance(exc.body, str) else json.dumps(exc.body, default=str) if exc.body else ""
    message = f"{exc.message} {body}".lower()
    return any(word in message for word in _REFUSAL_WORDS[method])
