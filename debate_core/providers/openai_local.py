"""Where an OpenAI-compatible server runs, and what follows from that.

A base URL on this machine or a private network starts at one call in flight (llama-cpp-python
serves one at a time; llama-server reports its slots at /props), because a second call sent to a
one-slot server only waits there while its timeout runs. Such a server also gets a shorter
default timeout, and a server other than OpenAI's starts with the `function_calling` method.
"""

from __future__ import annotations

import ipaddress
import os
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


def probe_parallelism(base_url: str, timeout: float = 1.5) -> tuple[int, str]:
    """How many requests a local server runs at once, and how that is known. Never fails.

    llama-server reports its `--parallel` slots at /props (`total_slots`); Ollama's parallelism
    (OLLAMA_NUM_PARALLEL) is read from this process's environment for a server on Ollama's port;
    anything else (llama-cpp-python among them) is taken to serve one request at a time."""
    # Like openai and langchain in openai_provider: loaded only when a server is called, so
    # offline debates never load it.
    import httpx

    root = base_url.rstrip("/")
    root = root[: -len("/v1")] if root.endswith("/v1") else root
    try:
        # Only the configured server, only once, briefly; a local address never goes through a proxy.
        with httpx.Client(timeout=timeout, trust_env=False) as client:
            response = client.get(f"{root}/props")
        if response.status_code == 200:
            slots = response.json().get("total_slots")
            if isinstance(slots, int) and slots >= 1:
                return slots, f"the server reports {slots} slot(s)"
    except (httpx.HTTPError, ValueError, AttributeError):
        pass
    parallel = os.environ.get("OLLAMA_NUM_PARALLEL", "")
    if urlsplit(base_url).port == 11434 and parallel.isdigit() and int(parallel) >= 1:
        return int(parallel), f"OLLAMA_NUM_PARALLEL is {parallel}"
    return 1, "it is taken to serve one request at a time"


def default_method(base_url: str | None) -> str:
    """The structured-output method to start with: OpenAI's API takes `json_schema`; compatible
    servers are more reliable with `function_calling` (llama-cpp-python refuses `json_schema`)."""
    if not base_url or "api.openai.com" in base_url:
        return "json_schema"
    return "function_calling"
