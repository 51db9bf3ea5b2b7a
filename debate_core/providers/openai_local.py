"""Where an OpenAI-compatible server runs, and what follows from that.

A base URL on this machine or a private network starts at one call in flight (llama-cpp-python
serves one at a time; llama-server reports its slots at /props), because a second call sent to a
one-slot server only waits there while its timeout runs. Such a server also gets a shorter
default timeout, and a server other than OpenAI's starts with the `function_calling` method.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

DEFAULT_TIMEOUT_S = 120.0  # seconds per call to a hosted API
LOCAL_TIMEOUT_S = 80.0  # seconds per call to a server on this machine or the local network


def is_local_url(base_url: str | None) -> bool:
    """A server on this machine or a private network (llama.cpp, Ollama, vLLM run there)."""
    if not base_url:
        return False
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith((".localhost", ".local")):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_unspecified or ip.is_link_local


def slots_from(base_url: str, props: Any) -> tuple[int, str]:
    """The server's parallel slots from llama-server's /props (None when it has none), else Ollama's
    setting, else one."""
    slots = props.get("total_slots") if isinstance(props, dict) else None
    if isinstance(slots, int) and not isinstance(slots, bool) and slots >= 1:
        return slots, f"the server reports {slots} slot(s)"
    parallel = os.environ.get("OLLAMA_NUM_PARALLEL", "")
    if urlsplit(base_url).port == 11434 and parallel.isdigit() and int(parallel) >= 1:
        return int(parallel), f"OLLAMA_NUM_PARALLEL is {parallel}"
    return 1, "it is taken to serve one request at a time"


@dataclass(frozen=True)
class ServerKind:
    """What serves a base URL, the structured-output method that constrains its decoding, and
    whether it builds a grammar from the schema (so `maxLength`, `maxItems` and enums hold while
    the reply is generated, and bounded numbers go as enumerated levels: core/bounds.py)."""

    kind: str
    label: str
    method: str
    grammar: bool
    how: str  # the structured output, in plain words, for the debate page and `run --json`


OPENAI = ServerKind("openai", "OpenAI", "json_schema", False,
                    "structured outputs (json_schema); numbers held to their ranges by validation")
LLAMA_SERVER = ServerKind("llama.cpp", "llama.cpp (llama-server)", "json_schema", True,
                          "a JSON schema turned into a grammar by llama.cpp (json_schema)")
LLAMA_CPP_PYTHON = ServerKind("llama-cpp-python", "llama.cpp (llama-cpp-python)", "function_calling", True,
                              "a forced tool call generated under llama.cpp's grammar (function_calling)")
VLLM = ServerKind("vllm", "vLLM", "json_schema", True, "vLLM's guided decoding from the JSON schema (json_schema)")
OLLAMA = ServerKind("ollama", "Ollama", "json_schema", True,
                    "Ollama's structured outputs, a grammar from the JSON schema (json_schema)")
UNKNOWN = ServerKind("unknown", "an OpenAI-compatible server", "function_calling", True,
                     "a forced tool call (function_calling); whether the server constrains it is not known")


def _root(base_url: str) -> str:
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def _json(client: Any, url: str) -> Any:
    try:
        response = client.get(url)
        return response.json() if response.status_code == 200 else None
    except Exception:  # noqa: BLE001 - any failure of a probe means "not this kind"
        return None


def probe_server(base_url: str | None, timeout: float = 1.5) -> tuple[ServerKind, dict[str, Any] | None]:
    """Which kind of server answers at `base_url`, and llama-server's /props when it has them.
    Never fails: a server that answers none of the probes is `UNKNOWN`."""
    if not base_url or "api.openai.com" in base_url:
        return OPENAI, None
    import httpx  # loaded only when a server is called, like openai and langchain

    root = _root(base_url)
    # A local address never goes through a proxy; a remote one goes the way the client's calls go.
    with httpx.Client(timeout=timeout, trust_env=not is_local_url(base_url)) as client:
        props = _json(client, f"{root}/props")
        if isinstance(props, dict) and ("total_slots" in props or "default_generation_settings" in props):
            return LLAMA_SERVER, props
        spec = _json(client, f"{root}/openapi.json")
        title = str(((spec or {}).get("info") or {}).get("title") or "") if isinstance(spec, dict) else ""
        if "llama" in title.lower():
            return LLAMA_CPP_PYTHON, None
        if isinstance(_json(client, f"{root}/api/version"), dict):
            return OLLAMA, None
        models = _json(client, f"{root}/v1/models")
        owners = {str(m.get("owned_by", "")).lower() for m in (models or {}).get("data", []) if isinstance(m, dict)} \
            if isinstance(models, dict) else set()
        if "vllm" in owners:
            return VLLM, None
        if "llamacpp" in owners:
            return LLAMA_SERVER, None
    return UNKNOWN, None


def default_method(base_url: str | None) -> str:
    """The structured-output method to start with: OpenAI's API takes `json_schema`; compatible
    servers are more reliable with `function_calling` (llama-cpp-python refuses `json_schema`)."""
    if not base_url or "api.openai.com" in base_url:
        return "json_schema"
    return "function_calling"
