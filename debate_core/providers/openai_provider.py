"""OpenAI-compatible provider through langchain-openai's ChatOpenAI.

Works against OpenAI or any OpenAI-compatible server (vLLM, Ollama, llama.cpp) via base URL.

Its concerns, each with one owner: this module (the provider, structured output and method
fallback) or the module named in brackets.

- Structured output: `ChatOpenAI.with_structured_output(schema, method=..., include_raw=True)`.
  The method is chosen per server (OpenAI: `json_schema`; others: `function_calling`) and, when a
  server refuses it (llama-cpp-python's server accepts response_format types text and
  json_object only, so `json_schema` fails), the provider falls back to the next method and
  remembers that for the rest of its life. Validation and the bounded re-ask loop stay in
  `Provider.complete`; this module only says what the model returned and, when the reply is
  unusable before validation (cut off, no tool call and no text), why (`openai_stream.to_raw`).
- Transport faults: ChatOpenAI's own retries are off (`max_retries=0`) so there is one policy:
  429, 5xx, refused connections and malformed responses are retried here with exponential
  back-off and jitter, honouring Retry-After, within a number of tries and a total wait. A server
  that stays down raises `TransportError`, which fails the step cleanly. (`openai_transport`:
  which statuses are retried or refuse a method, Retry-After, `RetryPolicy`.)
- Time: every call streams. A reply that does not finish within `timeout` seconds, or stops
  sending tokens for `stall_timeout` seconds, is not a transport fault: it is retried
  `timeout_retries` times (once by default), then fails with what arrived and the token count.
  The clocks start when the call gets its slot (`max_concurrency`), so queued calls burn none.
  (`openai_stream`: reading the stream under both clocks.)
- Local servers: a base URL on this machine or a private network starts at one call in flight
  (llama-cpp-python serves one at a time; llama-server reports its slots at /props), because a
  second call sent to a one-slot server only waits there while its timeout runs. (`openai_local`.)
- Secrets: the API key is held as a `SecretStr`, never returned by `public_config()` and
  scrubbed from every error message this module produces. (`openai_redact`.)

The names other code imports from here (`is_local_url`, `METHODS`, `RetryPolicy`, ...) stay
importable from here wherever they live (see `__all__`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, SecretStr

from ..core.bounds import grammar_schema
from ..core.credentials import ServerCredentials
from ..core.credentials import server_credentials as read_server_credentials
from ..core.settings import METHODS
from .base import DEFAULT_REPLY_CAP, Provider, RawReply, StepRequest, TransportError, messages_tokens
from .openai_local import (
    DEFAULT_TIMEOUT_S,
    LOCAL_TIMEOUT_S,
    OPENAI,
    UNKNOWN,
    default_method,
    is_local_url,
    probe_server,
    slots_from,
)
from .openai_redact import public_url, redact, short
from .openai_stream import NotFinished, Stream, not_finished_message, read_stream, to_raw
from .openai_transport import MethodRefused, RetryPolicy, refuses, retriable, retry_after_seconds

# The names other modules and tests import from here, wherever they now live.
__all__ = [
    "DEFAULT_TIMEOUT_S",
    "LOCAL_TIMEOUT_S",
    "METHODS",
    "MIN_REPLY_TOKENS",
    "OpenAIProvider",
    "RetryPolicy",
    "default_method",
    "is_local_url",
    "parse_agent_models",
    "public_url",
    "redact",
    "retry_after_seconds",
]

log = logging.getLogger(__name__)

# Also the fallback order: a refused method gives way to the next one.

# Below this many tokens left for the reply a structured answer cannot fit; calling is pointless.
MIN_REPLY_TOKENS = 32


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
        timeout: float | None = None,
        stall_timeout: float | None = 30.0,
        timeout_retries: int = 1,
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
        repair: str | None = None,
        probe: bool = True,
        server_credentials: ServerCredentials | None = None,
    ) -> None:
        super().__init__(max_attempts=max_attempts, latency_ms=latency_ms, model=model, repair=repair)
        # The server's own key goes only to the base URLs its operator configured; a key passed in
        # (typed for this debate) goes where this debate points.
        creds = server_credentials if server_credentials is not None else read_server_credentials()
        self.base_url = base_url or creds.default_base_url or None
        key = api_key or creds.key_for(self.base_url)
        if not key and default_method(self.base_url) == "json_schema":
            if creds.api_key and not creds.allows(self.base_url):
                raise ValueError(f"the server's API key is not configured for {public_url(self.base_url) or 'the OpenAI API'}; "
                                 "pass the key for that server")
            raise ValueError("the OpenAI API needs a key: set OPENAI_API_KEY or pass an API key")
        # Local servers ignore the key, but the client insists on one.
        self._api_key = SecretStr(key or "not-needed")
        self._api_key_set = bool(key)
        # A key typed for this debate lives only in this process: such a debate is not handed to a
        # queue worker (jobs/worker.py), which could only use its own operator's key.
        self.key_typed = bool(api_key)
        self.temperature = float(temperature)
        # A local server that does not answer within 80 s will not answer within 120 either (it
        # generates at a steady pace under its reply cap), and 2 x 80 s keeps a failing step, retried
        # once, under three minutes; a hosted API gets the longer default.
        if timeout:
            self.timeout = float(timeout)
        else:
            self.timeout = LOCAL_TIMEOUT_S if is_local_url(self.base_url) else DEFAULT_TIMEOUT_S
        # Off (None or 0), or shorter than the whole call: a stalled stream fails before the timeout.
        self.stall_timeout = float(stall_timeout) if stall_timeout else None
        self.timeout_retries = max(0, int(timeout_retries))
        self.retry = RetryPolicy(
            retries=max(0, int(transport_retries)),
            base_delay=float(retry_base_delay),
            max_delay=float(retry_max_delay),
            max_wait=float(max_retry_wait),
        )
        # What serves the URL decides the method that constrains decoding. Only servers on this
        # machine or a private network are probed (llama.cpp, vLLM and Ollama run there); a hosted
        # API other than OpenAI's is called as an unknown compatible server.
        props = None
        if probe and is_local_url(self.base_url):
            self.server, props = probe_server(self.base_url)
        else:
            self.server = OPENAI if default_method(self.base_url) == "json_schema" else UNKNOWN
        self.method = method or self.server.method
        if self.method not in METHODS:
            raise ValueError(f"unknown structured output method {self.method!r}; choose from {', '.join(METHODS)}")
        self.method_fallback = bool(method_fallback)
        self.method_in_use = self.method
        self.agent_models = parse_agent_models(agent_models)
        self.max_tokens = int(max_tokens) if max_tokens else None
        self.max_concurrency = int(max_concurrency) if max_concurrency else None
        self.concurrency_note: str | None = None
        if self.max_concurrency is None and is_local_url(self.base_url):
            slots, how = slots_from(self.base_url, props) if probe else (1, "not probed")
            self.max_concurrency = slots
            self.concurrency_note = (f"{slots} call(s) at a time: {public_url(self.base_url)} is a local server "
                                     f"and {how} (--concurrency changes it)")
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
            "stall_timeout": self.stall_timeout,
            "timeout_retries": self.timeout_retries,
            "method": self.method,
            "method_in_use": self.method_in_use,
            "server_kind": self.server.kind,
            "server": self.server.label,
            "structured_output": self.structured_output(),
            "agent_models": dict(self.agent_models),
            "max_attempts": self.max_attempts,
            "transport_retries": self.retry.retries,
            "max_retry_wait": self.retry.max_wait,
            "max_tokens": self.max_tokens,
            "max_concurrency": self.max_concurrency,
            "concurrency_note": self.concurrency_note,
            "repair": self.repair,
            "latency_ms": self.latency_ms,
        }

    def structured_output(self) -> str:
        """How replies are held to the schema, in plain words (the debate page, `run --json`)."""
        if self.method_in_use == self.server.method:
            return f"{self.server.label}: {self.server.how}"
        return f"{self.server.label}: {self.method_in_use} (the server refused {self.method})"

    def _where(self) -> str:
        return f"the model server at {public_url(self.base_url)}" if self.base_url else "the OpenAI API"

    def _redact(self, text: str) -> str:
        return redact(text, self._api_key.get_secret_value())

    # -- building the call ----------------------------------------------------
    def _client(self, model: str) -> Any:
        loop = asyncio.get_running_loop()
        clients = self._clients.setdefault(loop, {})
        if model not in clients:
            # openai and langchain are heavy: loaded on the first call, so offline debates never load them.
            import openai
            from langchain_openai import ChatOpenAI

            kwargs: dict[str, Any] = {
                "model": model,
                "api_key": self._api_key,
                "temperature": self.temperature,
                # A backstop only: `read_stream` keeps the whole-call and stall clocks itself.
                "timeout": self.timeout + 10.0,
                "stream_chunk_timeout": None,
                "streaming": True,
                # Usage arrives in a last chunk; servers that do not send it get an estimate.
                "stream_usage": True,
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

    def _bound(self, model: str, output_model: type[BaseModel], method: str, cap: int | None) -> Any:
        """The chat model bound to the step's output schema, streaming, with the reply cap.

        A response format goes in `extra_body`, not as ChatOpenAI's own `response_format`: with the
        latter, ChatOpenAI streams through the SDK's parsing helper, which replays the whole reply
        at the end and raises on a cut-off reply; here every method streams the same way."""
        from langchain_core.utils.function_calling import convert_to_openai_tool  # heavy: loaded when used

        schema = output_model.model_json_schema()
        if self.server.grammar and method != "json_mode":
            # The grammar such a server builds keeps maxLength, maxItems and enums but not number
            # ranges: bounded numbers go as enumerated levels, which validate unchanged.
            schema = grammar_schema(schema)
        kwargs: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        if cap:
            kwargs["max_tokens"] = cap  # sent as max_completion_tokens by ChatOpenAI
            if self.base_url and "api.openai.com" not in self.base_url:
                # Older compatible servers (llama-cpp-python among them) only read max_tokens.
                extra["max_tokens"] = cap
        if method == "json_mode":
            extra["response_format"] = {"type": "json_object"}
        elif method == "json_schema":
            extra["response_format"] = {"type": "json_schema",
                                        "json_schema": {"name": output_model.__name__, "schema": schema}}
        if extra:
            kwargs["extra_body"] = extra
        llm = self._client(model)
        if method == "function_calling":
            tool = convert_to_openai_tool(schema)
            return llm.bind_tools([tool], tool_choice=tool["function"]["name"], parallel_tool_calls=False,
                                  **kwargs)
        return llm.bind(**kwargs)

    def reply_cap(self, req: StepRequest) -> int | None:
        """The step's reply cap: `max_tokens` when set, else its stage's (StageSpec.reply_cap)."""
        return self.max_tokens or req.reply_cap or DEFAULT_REPLY_CAP

    def _output_cap(self, req: StepRequest, messages: list[dict[str, str]]) -> int | None:
        """Tokens the reply may use: the step's cap and what the per-call bound leaves after the prompt."""
        caps = [self.reply_cap(req)]
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
        return min(c for c in caps if c)

    @staticmethod
    def _lc_messages(messages: list[dict[str, str]], output_model: type[BaseModel], method: str) -> list[Any]:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage  # heavy: loaded when used

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
        # The timeout clocks start inside the slot: a call queued behind others burns none of them.
        slot = self._slot()
        if slot is None:
            return await self._reply_unlimited(req, messages)
        async with slot:
            return await self._reply_unlimited(req, messages)

    async def _reply_unlimited(self, req: StepRequest, messages: list[dict[str, str]]) -> RawReply:
        model = self.model_for(req.agent)
        cap = self._output_cap(req, messages)
        for _ in range(len(METHODS)):
            method = self.method_in_use
            runnable = self._bound(model, req.output_model, method, cap)
            lc_messages = self._lc_messages(messages, req.output_model, method)
            try:
                stream = await self._invoke(runnable, lc_messages, req, method)
            except MethodRefused as exc:
                self._fall_back(method, str(exc))
                continue
            return to_raw(stream, method, cap)
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

    async def _invoke(self, runnable: Any, lc_messages: list[Any], req: StepRequest, method: str) -> Stream:
        """One streamed reply, with the two retry policies: transport faults (429, 5xx, refused or
        dropped connections, malformed responses) back off and retry within `retry`; a reply that
        does not finish in time (the whole-call timeout, or a stall) is retried `timeout_retries` times."""
        # heavy: loaded on the first call, so offline debates never load them
        import httpx
        import openai

        waited = 0.0
        tries = 0
        timeouts = 0  # of this call; `req.timeouts` counts them over the step's attempts
        while True:
            tries += 1
            retry_after: float | None = None
            stream = Stream(req)
            try:
                return await read_stream(runnable, lc_messages, stream, timeout=self.timeout,
                                         stall_timeout=self.stall_timeout)
            except NotFinished as exc:
                timeouts += 1
                req.timeouts += 1
                if req.timeouts > self.timeout_retries:
                    raise TransportError(str(exc), raw=stream.text, input_tokens=stream.input_tokens,
                                         output_tokens=stream.tokens) from None
                log.warning("%s: %s; trying once more", req.step_id, exc)
                continue
            except openai.APIStatusError as exc:
                detail = self._redact(f"HTTP {exc.status_code}: {short(exc.message)}")
                if self.method_fallback and refuses(exc, method):
                    raise MethodRefused(detail) from exc
                if not retriable(exc.status_code):
                    raise TransportError(f"{self._where()} refused the request for {req.step_id} ({detail})") from exc
                retry_after = retry_after_seconds(exc.response.headers)
            except openai.APITimeoutError:
                # The HTTP client's own timeout, a backstop behind the clocks in `read_stream`.
                timeouts += 1
                req.timeouts += 1
                message = not_finished_message(self.timeout, stream)
                if req.timeouts > self.timeout_retries:
                    raise TransportError(message, raw=stream.text, output_tokens=stream.tokens) from None
                log.warning("%s: %s; trying once more", req.step_id, message)
                continue
            except (openai.APIConnectionError, httpx.TransportError) as exc:
                cause = exc.__cause__ if isinstance(exc, openai.APIConnectionError) and exc.__cause__ else exc
                detail = self._redact(f"connection failed ({short(str(cause) or type(cause).__name__)})")
            except openai.OpenAIError as exc:
                raise TransportError(self._redact(f"{self._where()}: {type(exc).__name__}: {short(str(exc))}")) from exc
            except (ValueError, TypeError, KeyError) as exc:
                # A 200 whose body is not a chat completion stream (an HTML page, an error object).
                detail = self._redact(f"malformed response ({type(exc).__name__}: {short(str(exc))})")
            if tries - timeouts > self.retry.retries:
                raise TransportError(
                    f"{self._where()} gave no usable answer for {req.step_id} after {tries} tries "
                    f"({waited:.1f} s of back-off): {detail}"
                )
            delay = self.retry.delay(tries - timeouts, retry_after)
            if waited + delay > self.retry.max_wait:
                raise TransportError(
                    f"{self._where()} gave no usable answer for {req.step_id} within the retry budget of "
                    f"{self.retry.max_wait:g} s ({tries} tries; next wait would be {delay:.1f} s): {detail}"
                )
            log.warning("%s: %s; retry %d in %.2f s", req.step_id, detail, tries, delay)
            await asyncio.sleep(delay)
            waited += delay
