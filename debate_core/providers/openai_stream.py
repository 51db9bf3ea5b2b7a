"""A streamed reply of the OpenAI-compatible provider: reading it under the time limits, and
turning what arrived into a `RawReply`.

Every call streams. A reply that does not finish within `timeout` seconds, or stops sending
tokens for `stall_timeout` seconds, raises `NotFinished`: not a transport fault, the provider
retries it `timeout_retries` times, then fails with what arrived and the token count. The clocks
start when `read_stream` is called, which the provider does once the call has its slot, so queued
calls burn none.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any

from .base import RawReply, StepRequest
from .openai_redact import short


class NotFinished(Exception):
    """The reply did not finish in time (the whole-call timeout or a stall)."""


class Stream:
    """A reply as it streams: its chunks, the text so far (content, or a tool call's arguments) and
    its pace, reported to the step's progress callback as it grows."""

    def __init__(self, req: StepRequest) -> None:
        self.req = req
        self.chunks: list[Any] = []
        self.parts: list[str] = []
        self.arg_parts: list[str] = []
        self.tokens = 0
        self.input_tokens: int | None = None
        self.started = 0.0
        self.first_token_at: float | None = None
        self.last_chunk_at: float | None = None
        self.finish_reason: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def tool_args(self) -> str:
        """The first tool call's arguments as streamed (one tool is forced; others are ignored)."""
        return "".join(self.arg_parts)

    def add(self, chunk: Any, now: float) -> None:
        self.chunks.append(chunk)
        self.last_chunk_at = now
        meta = getattr(chunk, "response_metadata", None) or {}
        self.finish_reason = meta.get("finish_reason") or self.finish_reason
        usage = getattr(chunk, "usage_metadata", None) or {}
        if usage.get("input_tokens"):
            self.input_tokens = usage["input_tokens"]
        delta = content_text(chunk.content) if chunk.content else ""
        for tc in getattr(chunk, "tool_call_chunks", None) or []:
            if (tc.get("index") or 0) == 0 and tc.get("args"):
                self.arg_parts.append(tc["args"])
                delta += tc["args"]
        if not delta:
            return
        # Servers stream about one token per chunk (llama.cpp exactly one), so chunks count tokens.
        self.tokens += 1
        self.parts.append(delta)
        if self.first_token_at is None:
            self.first_token_at = now
        generating = now - self.first_token_at
        self.req.report(tokens=self.tokens, text=self.text, elapsed_s=round(now - self.started, 2),
                        tokens_per_s=round(self.tokens / generating, 1) if generating > 0 else None)

    def message(self) -> Any:
        if not self.chunks:
            return None
        # langchain is heavy and optional for offline debates: loaded when a reply is read.
        from langchain_core.messages.ai import add_ai_message_chunks

        return add_ai_message_chunks(self.chunks[0], *self.chunks[1:]) if len(self.chunks) > 1 else self.chunks[0]


def not_finished_message(timeout: float, stream: Stream) -> str:
    return f"the model did not finish within {timeout:g} s ({stream.tokens} tokens received)"


async def read_stream(runnable: Any, lc_messages: list[Any], stream: Stream, *, timeout: float,
                      stall_timeout: float | None) -> Stream:
    """Read the reply as it streams, under two clocks: the whole call (`timeout`) and, once the
    stream has begun, the gap between chunks (`stall_timeout`). Prompt processing before the
    first token counts against the whole-call timeout only: a large prompt on a slow server is
    not a stall."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    stream.started = started
    # A new try starts from nothing: what a live view shows of an earlier try is gone.
    stream.req.report(tokens=0, text="", elapsed_s=0.0, tokens_per_s=None)

    async def consume() -> None:
        async for chunk in runnable.astream(lc_messages):
            stream.add(chunk, loop.time())

    task = asyncio.ensure_future(consume())
    try:
        while True:
            now = loop.time()
            deadline, stalled = started + timeout, False
            if stall_timeout and stream.last_chunk_at is not None:
                stall_deadline = stream.last_chunk_at + stall_timeout
                if stall_deadline < deadline:
                    deadline, stalled = stall_deadline, True
            if now >= deadline:
                if stalled:
                    raise NotFinished(f"the model stalled: no token for {stall_timeout:g} s "
                                      f"({stream.tokens} tokens received)")
                raise NotFinished(not_finished_message(timeout, stream))
            # Chunks move the stall deadline on, so look again at least four times per stall period.
            wait = deadline - now if not stall_timeout else min(deadline - now, stall_timeout / 4)
            done, _ = await asyncio.wait({task}, timeout=wait)
            if done:
                task.result()  # re-raises what the stream raised
                return stream
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def to_raw(stream: Stream, method: str, cap: int | None) -> RawReply:
    """What the model returned and, when the reply is unusable before validation (cut off, refused,
    no tool call and no text), why. Validation and the re-ask loop stay in `Provider.complete`."""
    msg = stream.message()
    if msg is None:
        return RawReply(text="", error="the server sent an empty reply; a structured answer is required")
    usage = getattr(msg, "usage_metadata", None) or {}
    tokens = {"input_tokens": usage.get("input_tokens"), "output_tokens": usage.get("output_tokens")}
    if tokens["output_tokens"] is None and stream.tokens:
        tokens["output_tokens"] = stream.tokens
    finish = stream.finish_reason
    if finish == "length":
        return RawReply(text=stream.text, error=cut_off_message(cap), **tokens)
    if finish == "content_filter":
        return RawReply(text=stream.text, error="the server's content filter stopped the reply", **tokens)
    if stream.tool_args:
        # The streamed arguments, parsed strictly here: the chat model's own merge of tool-call
        # chunks completes truncated JSON, which would let a cut-off reply pass as valid.
        args_text = stream.tool_args
        try:
            args = json.loads(args_text, strict=False)
        except json.JSONDecodeError:
            if reached_cap(stream, cap):
                return RawReply(text=args_text, error=cut_off_message(cap), **tokens)
            return RawReply(text=args_text, **tokens)  # fed back with the parse error
        return RawReply(text=args_text, data=args if isinstance(args, dict) else None, **tokens)
    text = content_text(msg.content)
    refusal = (getattr(msg, "additional_kwargs", None) or {}).get("refusal")
    if refusal:
        return RawReply(text=str(refusal), error=f"the model refused to answer: {short(str(refusal))}", **tokens)
    if not text.strip():
        what = "no tool call and no text" if method == "function_calling" else "no text"
        return RawReply(text="", error=f"the reply had {what}; a structured answer is required", **tokens)
    if reached_cap(stream, cap) and not _parses(text):
        return RawReply(text=text, error=cut_off_message(cap), **tokens)
    # Text without a tool call (or JSON-mode text) still goes through parsing and validation.
    return RawReply(text=text, **tokens)


def reached_cap(stream: Stream, cap: int | None) -> bool:
    """A reply that streamed as many tokens as its cap allows was cut off there, whatever finish
    reason the server gave: llama-cpp-python ends a capped tool-call stream with "tool_calls", not
    "length", and the model is then told its JSON is broken instead of that it was too long."""
    return bool(cap) and stream.tokens >= int(cap) - 1


def _parses(text: str) -> bool:
    try:
        json.loads(text, strict=False)
    except ValueError:
        return False
    return True


def cut_off_message(cap: int | None) -> str:
    limit = f" of {cap} tokens" if cap else ""
    return f"the reply was cut off at the output limit{limit}; give a shorter answer that is complete JSON"


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable):
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
        return "".join(parts)
    return str(content or "")
