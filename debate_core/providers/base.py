"""What every provider shares: the step request, usage, typed errors and the one bounded retry loop.

Model output is untrusted input. Every provider (rule-based, replay, real model) goes through
`Provider.complete`, which validates the reply against the step's schema and, when it does not
validate, feeds the validation error back and asks again, up to `max_attempts`. After the budget
the step fails with a `StepFailed` that carries the attempts, the last raw output and the usage.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

_TOKEN = re.compile(r"\w+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """A cheap token estimate (words and punctuation) for providers that report no usage."""
    return len(_TOKEN.findall(text))


def messages_tokens(messages: list[dict[str, str]]) -> int:
    return sum(estimate_tokens(m["content"]) + 4 for m in messages)


@dataclass
class Usage:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens

    def as_dict(self) -> dict[str, int]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


@dataclass
class StepRequest:
    step_id: str
    protocol: str
    stage: str
    agent: str | None
    output_model: type[BaseModel]
    messages: list[dict[str, str]]
    # Structured inputs for the rule-based offline agents; never sent to a model, never stored.
    payload: dict[str, Any] = field(default_factory=dict)
    call: int = 1
    # Called by streaming providers as the reply arrives: {"tokens", "text", "elapsed_s", "tokens_per_s"}.
    # The runtime throttles it into `turn_progress` events.
    progress: Callable[[dict[str, Any]], None] | None = None
    # Replies to this request that did not finish in time, over all its attempts: a step that
    # times out is retried a bounded number of times, however many re-asks it also needs.
    timeouts: int = 0
    # The stage's reply cap (StageSpec.reply_cap), set by the runtime; None: DEFAULT_REPLY_CAP.
    reply_cap: int | None = None

    def report(self, **update: Any) -> None:
        if self.progress is not None:
            self.progress(update)


# A reply's cap (tokens) when its stage names none: each protocol's StageSpec carries its own, room
# for the largest answer its prompt asks for, so a model that keeps generating (a tiny local model
# can, inside a grammar) is stopped instead of running until the timeout.
DEFAULT_REPLY_CAP = 1000


@dataclass
class RawReply:
    """One answer from a backend before validation."""

    text: str
    data: Any = None  # already-parsed structure (tool call arguments, cassette output), if any
    input_tokens: int | None = None
    output_tokens: int | None = None
    # Set by a backend that already knows the reply is unusable (cut off at the token limit, no
    # tool call and no text): fed back to the model like a validation error.
    error: str | None = None


@dataclass
class StepResult:
    output: BaseModel
    raw: str
    usage: Usage
    attempts: int
    latency_ms: float
    model: str
    errors: list[str] = field(default_factory=list)
    # Repairs applied to the reply (opt-in), shown as warnings on the step and the debate.
    warnings: list[str] = field(default_factory=list)


class StepFailed(Exception):
    """A step that could not produce valid output. Carries everything needed to keep and show it."""

    def __init__(
        self,
        step_id: str,
        message: str,
        *,
        attempts: int = 0,
        raw: str | None = None,
        usage: Usage | None = None,
        errors: list[str] | None = None,
    ) -> None:
        super().__init__(f"step {step_id} failed: {message}")
        self.step_id = step_id
        self.message = message
        self.attempts = attempts
        self.raw = raw
        self.usage = usage or Usage()
        self.errors = errors or []


class TransportError(Exception):
    """The backend could not be reached, refused the request or did not finish (after its own retries).

    A reply cut short by a timeout keeps what arrived (`raw`) and the tokens it used, so the failed
    step shows and counts them."""

    def __init__(self, message: str, *, raw: str | None = None, input_tokens: int | None = None,
                 output_tokens: int | None = None) -> None:
        super().__init__(message)
        self.raw = raw
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens


REPAIRS = ("none", "clamp")
_RANGE_ERRORS = {"greater_than_equal": "ge", "less_than_equal": "le", "greater_than": "gt", "less_than": "lt"}


def _only_range_errors(exc: ValidationError) -> bool:
    errors = exc.errors()
    return bool(errors) and all(e["type"] in _RANGE_ERRORS for e in errors)


def clamp_out_of_range(data: Any, exc: ValidationError) -> tuple[Any, list[str]] | None:
    """`data` with every out-of-range number set to its bound, and what changed; None when the
    errors are not all range errors on numbers (anything else must go back to the model)."""
    if not _only_range_errors(exc):
        return None
    errors = exc.errors()
    fixed = json.loads(json.dumps(data))
    changes = []
    for err in errors:
        *path, last = err["loc"]
        node = fixed
        try:
            for key in path:
                node = node[key]
            value = node[last]
        except (KeyError, IndexError, TypeError):
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        bound = err["ctx"][_RANGE_ERRORS[err["type"]]]
        node[last] = bound
        loc = ".".join(str(x) for x in err["loc"])
        changes.append(f"{loc} {value:g} clamped to {bound:g}")
    return fixed, changes


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json_text(text: str) -> Any:
    """Parse a JSON object out of model text: bare, fenced in markdown, or surrounded by prose."""
    if text is None or not text.strip():
        raise ValueError("the reply was empty: no structured output and no text")
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    last_error: Exception | None = None
    for cand in candidates:
        try:
            return json.loads(cand, strict=False)
        except json.JSONDecodeError as exc:
            last_error = exc
    raise ValueError(f"the reply is not valid JSON ({last_error})")


def describe_validation_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors()[:8]:
            loc = ".".join(str(x) for x in err["loc"]) or "(root)"
            parts.append(f"{loc}: {err['msg']}")
        return "; ".join(parts)
    return str(exc)


def correction_message(error: str, output_model: type[BaseModel]) -> str:
    fields = ", ".join(output_model.model_fields)
    return (
        "Your previous reply could not be accepted: "
        f"{error}. Reply again with a single JSON object only, with the fields: {fields}."
    )


class Provider:
    """Base class: subclasses implement `_reply`; `complete` owns validation and retries."""

    name = "base"
    label = "base"

    def __init__(self, *, max_attempts: int = 3, latency_ms: float = 0.0, model: str = "",
                 repair: str | None = None) -> None:
        self.max_attempts = max(1, int(max_attempts))
        self.latency_ms = float(latency_ms or 0.0)
        self.model = model or self.name
        self.repair = repair or "none"
        if self.repair not in REPAIRS:
            raise ValueError(f"unknown repair {self.repair!r}; choose from {', '.join(REPAIRS)}")

    def model_for(self, agent: str | None) -> str:
        return self.model

    def reply_cap(self, req: StepRequest) -> int | None:
        """Tokens a reply to this step may use; None for providers that generate nothing."""
        return None

    async def _reply(self, req: StepRequest, messages: list[dict[str, str]], attempt: int) -> RawReply:
        raise NotImplementedError

    def public_config(self) -> dict[str, Any]:
        """What may be stored with a debate: never a key or other secret."""
        return {"provider": self.name, "model": self.model, "latency_ms": self.latency_ms}

    async def complete(self, req: StepRequest) -> StepResult:
        started = time.perf_counter()
        usage = Usage()
        messages = list(req.messages)
        errors: list[str] = []
        last_raw: str | None = None
        range_reasked = False
        attempt = 0
        for attempt in range(1, self.max_attempts + 1):
            if self.latency_ms:
                await asyncio.sleep(self.latency_ms / 1000.0)
            try:
                reply = await self._reply(req, messages, attempt)
            except TransportError as exc:
                if exc.raw is not None or exc.output_tokens:
                    # A reply cut short: keep what arrived and count what it cost.
                    last_raw = exc.raw if exc.raw is not None else last_raw
                    usage.add(Usage(calls=1, input_tokens=exc.input_tokens or messages_tokens(messages),
                                    output_tokens=exc.output_tokens or 0))
                raise StepFailed(
                    req.step_id, str(exc), attempts=attempt, raw=last_raw, usage=usage, errors=errors + [str(exc)]
                ) from exc
            text = reply.text if reply.text is not None else ""
            last_raw = text
            usage.add(
                Usage(
                    calls=1,
                    input_tokens=reply.input_tokens if reply.input_tokens is not None else messages_tokens(messages),
                    output_tokens=reply.output_tokens
                    if reply.output_tokens is not None
                    else estimate_tokens(text),
                )
            )
            warnings: list[str] = []
            data: Any = None
            try:
                if reply.error:
                    raise ValueError(reply.error)
                data = reply.data if reply.data is not None else parse_json_text(text)
                if not isinstance(data, dict):
                    raise ValueError(f"expected a JSON object, got {type(data).__name__}")
                try:
                    output = req.output_model.model_validate(data)
                except ValidationError as exc:
                    repaired = self._repair(req, data, exc, attempt)
                    if repaired is None:
                        raise
                    output, warnings = repaired
            except (ValueError, ValidationError) as exc:
                error = describe_validation_error(exc)
                errors.append(f"attempt {attempt}: {error}")
                out_of_range = isinstance(exc, ValidationError) and _only_range_errors(exc)
                if out_of_range and range_reasked:
                    # Numbers out of range get one re-ask with the exact error: a model that repeats
                    # them after that (tiny models write confidences of 10 or 85) will not stop.
                    raise StepFailed(
                        req.step_id,
                        f"numbers still out of range after one re-ask (attempt {attempt}): {error}",
                        attempts=attempt, raw=last_raw, usage=usage, errors=errors,
                    ) from exc
                range_reasked = range_reasked or out_of_range
                messages = messages + [
                    {"role": "assistant", "content": text[:4000]},
                    {"role": "user", "content": correction_message(error, req.output_model)},
                ]
                continue
            return StepResult(
                output=output,
                raw=text,
                usage=usage,
                attempts=attempt,
                latency_ms=(time.perf_counter() - started) * 1000.0,
                model=self.model_for(req.agent),
                errors=errors + [f"attempt {attempt}: {w}" for w in warnings],
                warnings=warnings,
            )
        raise StepFailed(
            req.step_id,
            f"no valid output after {attempt} attempt(s): {errors[-1] if errors else 'unknown error'}",
            attempts=attempt,
            raw=last_raw,
            usage=usage,
            errors=errors,
        )

    def _repair(self, req: StepRequest, data: Any, exc: ValidationError,
                attempt: int) -> tuple[BaseModel, list[str]] | None:
        """The opt-in clamp repair: only after the model was re-asked once with the exact error (or on
        the last attempt), only for numbers out of range, and never silently."""
        if self.repair != "clamp" or (attempt < 2 and attempt < self.max_attempts):
            return None
        clamped = clamp_out_of_range(data, exc)
        if clamped is None:
            return None
        fixed, changes = clamped
        try:
            output = req.output_model.model_validate(fixed)
        except ValidationError:
            return None
        return output, [f"repaired by clamping out-of-range numbers: {'; '.join(changes)}"]
