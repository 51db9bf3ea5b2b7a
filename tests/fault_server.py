"""A small OpenAI-chat-compatible HTTP server for tests, with scripted replies and injected faults.

It listens on 127.0.0.1 on an ephemeral port and answers `POST /v1/chat/completions` with whatever
the test's responder returns for each request: a tool call, plain content, an HTTP error (429 with
Retry-After, 500, ...), a slow answer, a body cut off mid-JSON or a dropped connection. A request
with `"stream": true` gets the same completion as server-sent events, a few characters per chunk
(as a real server streams tokens), optionally paced, stalled after some chunks or cut off. Every
request is recorded (path, headers, JSON body) so tests can check what the client sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict (sent as JSON), str or bytes (sent verbatim)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False  # close the connection without answering
    # Streaming only: seconds between chunks, chunks sent before the stream stalls (then nothing
    # until the client gives up), and `cut` for a stream that stops half-way without finishing.
    chunk_delay: float = 0.0
    stall_after: int | None = None
    cut: bool = False


Responder = Callable[[dict[str, Any]], Reply]


def requested_name(body: dict[str, Any]) -> str | None:
    """The output schema the client asked for: the forced tool or the json_schema name."""
    tools = body.get("tools") or []
    if tools:
        return tools[0]["function"]["name"]
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt["json_schema"]["name"]
    return None


def prompt_tokens(body: dict[str, Any]) -> int:
    text = " ".join(str(m.get("content") or "") for m in body.get("messages", []))
    return max(1, len(text) // 4)


def _completion(body: dict[str, Any], message: dict[str, Any], finish: str, completion_tokens: int) -> dict:
    p = prompt_tokens(body)
    return {
        "id": f"chatcmpl-{int(time.time() * 1000)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fault-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": p, "completion_tokens": completion_tokens, "total_tokens": p + completion_tokens},
    }


def tool_call(args: dict[str, Any] | str, *, finish: str = "tool_calls") -> Responder:
    """Answer with a call of the requested tool; `args` as a dict, or a raw (possibly broken) string."""
    arguments = args if isinstance(args, str) else json.dumps(args)

    def respond(body: dict[str, Any]) -> Reply:
        name = requested_name(body) or "answer"
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}],
        }
        return Reply(body=_completion(body, message, finish, max(1, len(arguments) // 4)))

    return respond


def content(text: str | None, *, finish: str = "stop") -> Responder:
    """Answer with plain assistant text (JSON, prose or nothing at all)."""

    def respond(body: dict[str, Any]) -> Reply:
        message = {"role": "assistant", "content": text}
        return Reply(body=_completion(body, message, finish, max(0, len(text or "") // 4)))

    return respond


def structured(args: dict[str, Any]) -> Responder:
    """A well-behaved server: a tool call when tools were sent, JSON content otherwise."""

    def respond(body: dict[str, Any]) -> Reply:
        if body.get("tools"):
            return tool_call(args)(body)
        return content(json.dumps(args))(body)

    return respond


def error(status: int, message: str, headers: dict[str, str] | None = None) -> Responder:
    def respond(body: dict[str, Any]) -> Reply:
        payload = {"error": {"message": message, "type": "server_error", "code": status}}
        return Reply(status=status, body=payload, headers=dict(headers or {}))

    return respond


def slow(seconds: float, then: Responder) -> Responder:
    def respond(body: dict[str, Any]) -> Reply:
        reply = then(body)
        reply.delay = seconds
        return reply

    return respond


def cut_body() -> Responder:
    """A 200 whose JSON body stops half-way (streaming: a stream whose events stop half-way)."""

    def respond(body: dict[str, Any]) -> Reply:
        completion = _completion(body, {"role": "assistant", "content": "{}"}, "stop", 1)
        if body.get("stream"):
            return Reply(body=completion, cut=True)
        text = json.dumps(completion)
        return Reply(body=text[: len(text) // 2])

    return respond


def paced(seconds: float, then: Responder) -> Responder:
    """Stream the reply with `seconds` between chunks."""

    def respond(body: dict[str, Any]) -> Reply:
        reply = then(body)
        reply.chunk_delay = seconds
        return reply

    return respond


def stall(after_chunks: int, then: Responder) -> Responder:
    """Stream the first `after_chunks` chunks of the reply, then send nothing more."""

    def respond(body: dict[str, Any]) -> Reply:
        reply = then(body)
        reply.stall_after = after_chunks
        return reply

    return respond


CHARS_PER_CHUNK = 4  # about one token


def stream_chunks(completion: dict[str, Any], include_usage: bool) -> list[dict[str, Any]]:
    """A chat completion as the chunks a streaming server sends for it."""
    choice = completion["choices"][0]
    message = choice["message"]
    base = {"id": completion["id"], "object": "chat.completion.chunk", "created": completion["created"],
            "model": completion["model"]}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    def pieces(text: str) -> list[str]:
        return [text[i:i + CHARS_PER_CHUNK] for i in range(0, len(text), CHARS_PER_CHUNK)]

    out = []
    calls = message.get("tool_calls") or []
    if calls:
        fn = calls[0]["function"]
        out.append(chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": calls[0]["id"], "type": "function", "function": {"name": fn["name"], "arguments": ""}}]}))
        out += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces(fn["arguments"])]
    else:
        out.append(chunk({"role": "assistant", "content": ""}))
        out += [chunk({"content": p}) for p in pieces(message.get("content") or "")]
    out.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        out.append({**base, "choices": [], "usage": completion["usage"]})
    return out


def drop() -> Responder:
    return lambda body: Reply(drop=True)


_STEP = re.compile(r"Step:\s*(\S+)")


class StepScript:
    """Replies chosen by the step named in the prompt (`Step: <id>`): a queue per step, then a default.

    Steps run concurrently, so order across steps is not fixed; within one step it is.
    """

    def __init__(self, default: Callable[[str, dict[str, Any]], Responder], script: dict[str, list[Responder]]):
        self.default = default
        self.queues = {step: list(replies) for step, replies in script.items()}
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        step = step_of(body)
        with self.lock:
            queue = self.queues.get(step or "")
            responder = queue.pop(0) if queue else self.default(step or "", body)
        return responder(body)


class NameScript:
    """Replies chosen by the requested output schema (tool or json_schema name): a queue per name,
    then a well-formed answer from `valid[name]`. For protocols whose prompts name no step."""

    def __init__(self, valid: dict[str, dict[str, Any]], script: dict[str, list[Responder]] | None = None):
        self.valid = valid
        self.queues = {name: list(replies) for name, replies in (script or {}).items()}
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        name = requested_name(body) or ""
        with self.lock:
            queue = self.queues.get(name)
            responder = queue.pop(0) if queue else structured(self.valid[name])
        return responder(body)


def step_of(body: dict[str, Any]) -> str | None:
    for msg in body.get("messages", []):
        if msg.get("role") == "user":
            m = _STEP.search(str(msg.get("content") or ""))
            if m:
                return m.group(1)
    return None


class _Handler(BaseHTTPRequestHandler):
    server: FaultServer._Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        owner = self.server.owner
        with owner.lock:
            owner.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                   "body": None})
        route = owner.get_routes.get(self.path.rstrip("/"))
        if route is not None:
            self._send(Reply(body=route))
        elif self.path.rstrip("/").endswith("/models"):
            self._send(Reply(body={"object": "list", "data": [{"id": "fault-model", "object": "model"}]}))
        else:
            self._send(Reply(status=404, body={"error": {"message": "not found"}}))

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        owner = self.server.owner
        with owner.lock:
            owner.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
            owner.in_flight += 1
            owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
        try:
            if not self.path.rstrip("/").endswith("/chat/completions"):
                reply = Reply(status=404, body={"error": {"message": f"no route {self.path}"}})
            else:
                reply = owner.responder(body)
            if reply.delay and owner.stopping.wait(reply.delay):
                return
            if body.get("stream") and reply.status == 200 and isinstance(reply.body, dict) and not reply.drop:
                self._send_stream(reply, body)
            else:
                self._send(reply)
        finally:
            with owner.lock:
                owner.in_flight -= 1

    def _send_stream(self, reply: Reply, body: dict[str, Any]) -> None:
        owner = self.server.owner
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        chunks = stream_chunks(reply.body, include_usage)
        if reply.cut:
            chunks = chunks[: max(1, len(chunks) // 2)]
        # No length: the stream ends when the connection closes.
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            for i, item in enumerate(chunks):
                if reply.stall_after is not None and i >= reply.stall_after:
                    owner.stopping.wait(60)  # silent until the client gives up or the server stops
                    return
                self.wfile.write(f"data: {json.dumps(item)}\n\n".encode())
                self.wfile.flush()
                if reply.chunk_delay and owner.stopping.wait(reply.chunk_delay):
                    return
            if not reply.cut:
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass  # the client gave up (its timeout or stall clock)

    def _send(self, reply: Reply) -> None:
        try:
            if reply.drop:
                self.close_connection = True
                self.connection.close()
                return
            payload = reply.body
            if isinstance(payload, (dict, list)):
                data = json.dumps(payload).encode()
            elif isinstance(payload, str):
                data = payload.encode()
            else:
                data = payload or b""
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError, OSError):
            # The client gave up (its timeout): nothing to answer to.
            self.close_connection = True


class FaultServer:
    """`with FaultServer(responder) as server: ... server.base_url ...`"""

    class _Server(ThreadingHTTPServer):
        daemon_threads = True
        block_on_close = False
        owner: FaultServer

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        # Extra GET answers by path, e.g. {"/props": {...}} for a llama-server's slot count.
        self.get_routes: dict[str, Any] = {}
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.stopping = threading.Event()
        self._httpd = self._Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of the POST requests."""
        with self.lock:
            return [r["body"] for r in self.requests if r["body"] is not None]

    def start(self) -> FaultServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
