"""OpenAI-compatible provider through langchain-openai's ChatOpenAI.

Works against OpenAI or any OpenAI-compatible server (vLLM, Ollama, llama.cpp) via base URL.

Three concerns live here, each with one owner:

- Structured output: `ChatOpenAI.with_structured_output(schema, method=..., include_raw=True)`.
  The method is chosen per server (OpenAI: `json_schema`; others: `function_calling`) and, when a
  server refuses it (llama-cpp-python's server accepts response_format types text and
  json_object only, so `json_schema` fails), the provider falls back to the next method and
  remembers that for the rest of its life. Validation and the bounded re-ask loop stay in
  `Provider.complete`; this module only says what the model returned and, when the reply is
  unusable before validation (cut off, no tool call and no text), why.
- Transport faults: ChatOpenAI's own retries are off (`max_retries=0`) so there is one policy:
  429, 5xx, timeouts, refused connections and malformed responses are retried here with
  exponential back-off and jitter, honouring Retry-After, within a number of tries and a total
  wait. A server that stays down raises `TransportError`, which fails the step cleanly.
- Secrets: the API key is held as a `SecretStr`, never returned by `public_config()` and
  scrubbed from every error message this module produces.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import os
import random
import re
import time
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, SecretStr

from .base import Provider, RawReply, StepRequest, TransportError, messages_tokens

log = logging.getLogger(__name__)

# Also the fallback order: a refused method gives way to the next one.
METHODS = ("json_schema", "function_calling", "json_mode")

# Words a server's error message uses when it refuses the structured-output method itself, as
# opposed to failing for another reason (a plain 500 must be retried, not trigger a fallback).
_REFUSAL_WORDS = {
    "json_schema": ("response_format", "json_schema", "structured output"),
    "function_calling": ("tool", "function"),
    "json_mode": ("response_format", "json_object"),
}
_REFUSAL_STATUS = frozenset({400, 415, 422, 500, 501})
_RETRY_STATUS = frozenset({408, 409, 425, 429})

# Below this many tokens left for the reply a structured answer cannot fit; calling is pointless.
MIN_REPLY_TOKENS = 32

_KEY_LIKE = re.compile(r"\b(sk-[A-Za-z0-9]{0,3})[A-Za-z0-9_\-]{8,}")


def default_method(base_url: str | None) -> str:
    if not base_url or "api.openai.com" in base_url:
        return "json_schema"
    return "function_calling"


def parse_agent_models(spec: Any) -> dict[str, str]:
    """Per-agent model overrides from a dict, `AGENT=MODEL` strings or one comma-separated string."""
    if not spec:
        return {}
    if isinstance(spec, Mapping):
        items = [(str(k), str(v)) for k, v in spec.items()]
    else:
        parts = spec.split(",") if isinstance(spec, str) else list(spec)
        items = []
        for part in parts:
            agent, sep, model = str(part).partition("=")
            if not sep:
                raise ValueError(f"agent model override {part!r} must look like AGENT=MODEL")
            items.append((agent, model))
    out: dict[str, str] = {}
    for agent, model in items:
        agent, model = agent.strip(), model.strip()
        if not agent or not model:
            raise ValueError(f"agent model override {agent}={model} needs both an agent id and a model")
        out[agent] = model
    return out


def redact(text: str, secret: str | None = None) -> str:
    """Remove the key (and anything shaped like an OpenAI key) from text that may be shown or stored."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, "***")
    return _KEY_LIKE.sub(r"\1***", text)


def public_url(url: str | None) -> str | None:
    """A base URL fit for storing: user info (user:password@) removed."""
    if not url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


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


class _MethodRefused(Exception):
    pass


class OpenAIProvider(Provider):
    name = "openai"
    label = "openai-compatible model"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.2,
        timeout: float = 120.0,
        max_attempts: int = 3,
        transport_retries: int = 4,
        retry_base_delay: float = 0.5,
        retry_max_delay: float = 20.0,
        max_retry_wait: float = 60.0,
        method: str | None = None,
        method_fallback: bool = True,
        agent_models: Any = None,
        max_tokens: int | None = None,
        max_concurrency: int | None = None,
        latency_ms: float = 0.0,
    ) -> None:
        super().__init__(max_attempts=max_attempts, latency_ms=latency_ms, model=model)
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key and default_method(self.base_url) == "json_schema":
            raise ValueError("the OpenAI API needs a key: set OPENAI_API_KEY or pass an API key")
        # Local servers ignore the key, but the client insists on one.
        self._api_key = SecretStr(key or "not-needed")
        self._api_key_set = bool(key)
        self.temperature = float(temperature)
        self.timeout = float(timeout)
        self.retry = RetryPolicy(
            retries=max(0, int(transport_retries)),
            base_delay=float(retry_base_delay),
            max_delay=float(retry_max_delay),
            max_wait=float(max_retry_wait),
        )
        self.method = method or default_method(self.base_url)
        if self.method not in METHODS:
            raise ValueError(f"unknown structured output method {self.method!r}; choose from {', '.join(METHODS)}")
        self.method_fallback = bool(method_fallback)
        self.method_in_use = self.method
        self.agent_models = parse_agent_models(agent_models)
        self.max_tokens = int(max_tokens) if max_tokens else None
        self.max_concurrency = int(max_concurrency) if max_concurrency else None
        # Per event loop, keyed weakly by the loop itself: semaphores and HTTP connections work on
        # one loop only, and a loop's id can be reused after it is gone.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = (
            weakref.WeakKeyDictionary()
        )
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r}, base_url={public_url(self.base_url)!r})"

    # -- configuration --------------------------------------------------------
    def model_for(self, agent: str | None) -> str:
        return self.agent_models.get(agent or "", self.model)

    def public_config(self) -> dict[str, Any]:
        return {
            "provider": self.name,
            "model": self.model,
            "base_url": public_url(self.base_url),
            "api_key_set": self._api_key_set,
            "temperature": self.temperature,
            "timeout": self.timeout,
            "method": self.method,
            "method_in_use": self.method_in_use,
            "agent_models": dict(self.agent_models),
            "max_attempts": self.max_attempts,
            "transport_retries": self.retry.retries,
            "max_retry_wait": self.retry.max_wait,
            "max_tokens": self.max_tokens,
            "max_concurrency": self.max_concurrency,
            "latency_ms": self.latency_ms,
        }

    def _where(self) -> str:
        return f"the model server at {public_url(self.base_url)}" if self.base_url else "the OpenAI API"

    def _redact(self, text: str) -> str:
        return redact(text, self._api_key.get_secret_value())

    # -- building the call ----------------------------------------------------
    def _client(self, model: str) -> Any:
        loop = asyncio.get_running_loop()
        clients = self._clients.setdefault(loop, {})
        if model not in clients:
            import openai
            from langchain_openai import ChatOpenAI

            kwargs: dict[str, Any] = {
                "model": model,
                "api_key": self._api_key,
                "temperature": self.temperature,
                "timeout": self.timeout,
                # One retry policy, ours: the client's own retries would multiply the waits.
                "max_retries": 0,
                # ChatOpenAI otherwise shares one cached async HTTP client per base URL across the
                # process; its pooled connections belong to the loop that opened them, so a second
                # debate on a new loop (the app's worker, a resumed debate) would fail with
                # "Event loop is closed". One client per loop avoids that.
                "http_async_client": openai.DefaultAsyncHttpxClient(),
            }
            if self.base_url:
                kwargs["base_url"] = self.base_url
            clients[model] = ChatOpenAI(**kwargs)
        return clients[model]

    def _structured(self, model: str, output_model: type[BaseModel], method: str, cap: int | None) -> Any:
        call_kwargs: dict[str, Any] = {}
        if cap:
            call_kwargs["max_tokens"] = cap  # sent as max_completion_tokens by ChatOpenAI
            if self.base_url and "api.openai.com" not in self.base_url:
                # Older compatible servers (llama-cpp-python among them) only read max_tokens.
                call_kwargs["extra_body"] = {"max_tokens": cap}
        return self._client(model).with_structured_output(
            output_model.model_json_schema(), method=method, include_raw=True, **call_kwargs
        )

    def _output_cap(self, req: StepRequest, messages: list[dict[str, str]]) -> int | None:
        """Tokens the reply may use: the provider's cap and what the per-call bound leaves after the prompt."""
        caps = [self.max_tokens] if self.max_tokens else []
        per_call = getattr(req.payload.get("settings"), "max_tokens_per_call", None)
        if per_call:
            prompt = messages_tokens(messages)
            left = int(per_call) - prompt
            if left < MIN_REPLY_TOKENS:
                raise TransportError(
                    f"stopped by a bound: the per-call bound of {per_call} tokens leaves {max(0, left)} "
                    f"for the reply after a prompt of about {prompt} tokens"
                )
            caps.append(left)
        return min(caps) if caps else None

    @staticmethod
    def _lc_messages(messages: list[dict[str, str]], output_model: type[BaseModel], method: str) -> list[Any]:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        messages = list(messages)
        if method == "json_mode":
            # json_object mode carries no schema, so the model has to read it. It joins the first
            # system message: some chat templates refuse a system message anywhere else.
            schema = json.dumps(output_model.model_json_schema(), ensure_ascii=False)
            note = f"Reply with one JSON object that follows this JSON schema:\n{schema}"
            if messages and messages[0]["role"] == "system":
                messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{note}"}
            else:
                messages.insert(0, {"role": "system", "content": note})
        kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        return [kinds.get(m["role"], HumanMessage)(content=m["content"]) for m in messages]

    def _slot(self) -> asyncio.Semaphore | None:
        if not self.max_concurrency:
            return None
        loop = asyncio.get_running_loop()
        if loop not in self._slots:
            self._slots[loop] = asyncio.Semaphore(self.max_concurrency)
        return self._slots[loop]

    # -- the call -------------------------------------------------------------
    async def _reply(self, req: StepRequest, messages: list[dict[str, str]], attempt: int) -> RawReply:
        slot = self._slot()
        if slot is None:
            return await self._reply_unlimited(req, messages)
        async with slot:
            return await self._reply_unlimited(req, messages)

    async def _reply_unlimited(self, req: StepRequest, messages: list[dict[str, str]]) -> RawReply:
        import openai

        model = self.model_for(req.agent)
        cap = self._output_cap(req, messages)
        for _ in range(len(METHODS)):
            method = self.method_in_use
            runnable = self._structured(model, req.output_model, method, cap)
            lc_messages = self._lc_messages(messages, req.output_model, method)
            try:
                result = await self._invoke(runnable, lc_messages, req.step_id, method)
            except _MethodRefused as exc:
                self._fall_back(method, str(exc))
                continue
            except openai.LengthFinishReasonError as exc:
                return self._cut_off(exc, cap)
            except openai.ContentFilterFinishReasonError:
                return RawReply(text="", error="the server's content filter stopped the reply")
            return self._to_raw(result, method, cap)
        raise TransportError(f"{self._where()} refused every structured output method ({', '.join(METHODS)})")

    def _fall_back(self, method: str, detail: str) -> None:
        order = list(METHODS)
        following = order[order.index(method) + 1 :]
        if not following:
            raise TransportError(f"{self._where()} refused structured output method {method!r}: {detail}")
        # A concurrent call may have switched already; only the first refusal moves the method on.
        if self.method_in_use == method:
            self.method_in_use = following[0]
            log.warning("%s refused method %s (%s); using %s from now on", self._where(), method, detail,
                        self.method_in_use)

    async def _invoke(self, runnable: Any, lc_messages: list[Any], step_id: str, method: str) -> dict[str, Any]:
        import openai

        waited = 0.0
        tries = 0
        while True:
            tries += 1
            retry_after: float | None = None
            try:
                return await runnable.ainvoke(lc_messages)
            except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError):
                raise
            except openai.APIStatusError as exc:
                detail = self._redact(f"HTTP {exc.status_code}: {_short(exc.message)}")
                if self.method_fallback and _refuses(exc, method):
                    raise _MethodRefused(detail) from exc
                if not _retriable(exc.status_code):
                    raise TransportError(f"{self._where()} refused the request for {step_id} ({detail})") from exc
                retry_after = retry_after_seconds(exc.response.headers)
            except openai.APITimeoutError:
                detail = f"no answer within the {self.timeout:g} s timeout"
            except openai.APIConnectionError as exc:
                detail = self._redact(f"connection failed ({_short(str(exc.__cause__ or exc))})")
            except openai.OpenAIError as exc:
                raise TransportError(self._redact(f"{self._where()}: {type(exc).__name__}: {_short(str(exc))}")) from exc
            except (ValueError, TypeError, KeyError) as exc:
                # A 200 whose body is not a chat completion (cut off, an HTML page, an error object).
                detail = self._redact(f"malformed response ({type(exc).__name__}: {_short(str(exc))})")
            if tries > self.retry.retries:
                raise TransportError(
                    f"{self._where()} gave no usable answer for {step_id} after {tries} tries "
                    f"({waited:.1f} s of back-off): {detail}"
                )
            delay = self.retry.delay(tries, retry_after)
            if waited + delay > self.retry.max_wait:
                raise TransportError(
                    f"{self._where()} gave no usable answer for {step_id} within the retry budget of "
                    f"{self.retry.max_wait:g} s ({tries} tries; next wait would be {delay:.1f} s): {detail}"
                )
            log.warning("%s: %s; retry %d in %.2f s", step_id, detail, tries, delay)
            await asyncio.sleep(delay)
            waited += delay

    # -- reading the reply ----------------------------------------------------
    @staticmethod
    def _to_raw(result: dict[str, Any], method: str, cap: int | None) -> RawReply:
        msg = result["raw"]
        usage = getattr(msg, "usage_metadata", None) or {}
        tokens = {"input_tokens": usage.get("input_tokens"), "output_tokens": usage.get("output_tokens")}
        tool_calls = getattr(msg, "tool_calls", None) or []
        if tool_calls:
            args = tool_calls[0].get("args")
            return RawReply(text=json.dumps(args, ensure_ascii=False), data=args if isinstance(args, dict) else None,
                            **tokens)
        invalid = getattr(msg, "invalid_tool_calls", None) or []
        text = (invalid[0].get("args") or "") if invalid else _content_text(msg.content)
        finish = (getattr(msg, "response_metadata", None) or {}).get("finish_reason")
        refusal = (getattr(msg, "additional_kwargs", None) or {}).get("refusal")
        if refusal:
            return RawReply(text=str(refusal), error=f"the model refused to answer: {_short(str(refusal))}", **tokens)
        if finish == "length":
            return RawReply(text=text, error=_cut_off_message(cap), **tokens)
        if not text.strip():
            what = "no tool call and no text" if method == "function_calling" else "no text"
            return RawReply(text="", error=f"the reply had {what}; a structured answer is required", **tokens)
        # Text without a tool call (or JSON-mode text) still goes through parsing and validation.
        return RawReply(text=text, **tokens)

    @staticmethod
    def _cut_off(exc: Any, cap: int | None) -> RawReply:
        completion = getattr(exc, "completion", None)
        text = ""
        tokens: dict[str, int | None] = {"input_tokens": None, "output_tokens": None}
        if completion is not None:
            if completion.choices:
                text = completion.choices[0].message.content or ""
            if completion.usage is not None:
                tokens = {"input_tokens": completion.usage.prompt_tokens,
                          "output_tokens": completion.usage.completion_tokens}
        return RawReply(text=text, error=_cut_off_message(cap), **tokens)


def _cut_off_message(cap: int | None) -> str:
    limit = f" of {cap} tokens" if cap else ""
    return f"the reply was cut off at the output limit{limit}; give a shorter answer that is complete JSON"


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable):
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
        return "".join(parts)
    return str(content or "")


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _retriable(status: int) -> bool:
    return status in _RETRY_STATUS or status >= 500


def _refuses(exc: Any, method: str) -> bool:
    if exc.status_code not in _REFUSAL_STATUS:
        return False
    body = exc.body if isinstance(exc.body, str) else json.dumps(exc.body, default=str) if exc.body else ""
    message = f"{exc.message} {body}".lower()
    return any(word in message for word in _REFUSAL_WORDS[method])
