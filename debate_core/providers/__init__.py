"""Model providers behind one factory: offline (default), replay, openai."""

from __future__ import annotations

from typing import Any

from .base import Provider, StepFailed, StepRequest, StepResult, TransportError, Usage
from .offline import OfflineProvider
from .openai_provider import OpenAIProvider  # light: it loads openai and langchain only when called
from .replay import CassetteError, ReplayProvider, load_cassette

PROVIDERS = ("offline", "openai", "replay")


def make_provider(name: str = "offline", **options: Any) -> Provider:
    """Build a provider from plain settings (CLI flags, environment, app settings)."""
    latency_ms = float(options.get("latency_ms") or 0.0)
    if options.get("repair") not in (None, "none") and name != "openai":
        raise ValueError("--repair applies to the openai provider only")
    if name == "offline":
        return OfflineProvider(latency_ms=latency_ms)
    if name == "replay":
        cassette = options.get("cassette")
        if not cassette:
            raise ValueError("the replay provider needs a cassette (--cassette FILE)")
        return ReplayProvider(cassette, latency_ms=latency_ms)
    if name == "openai":
        model = options.get("model")
        if not model:
            raise ValueError("the openai provider needs a model (--model NAME)")
        keys = (
            "base_url", "api_key", "temperature", "timeout", "max_attempts", "transport_retries",
            "method", "agent_models", "max_tokens", "retry_base_delay", "retry_max_delay", "max_retry_wait",
            "method_fallback", "max_concurrency", "stall_timeout", "timeout_retries", "repair",
            "server_credentials",
        )
        kwargs = {k: options[k] for k in keys if options.get(k) is not None}
        return OpenAIProvider(model=model, latency_ms=latency_ms, **kwargs)
    raise ValueError(f"unknown provider {name!r}; choose from {', '.join(PROVIDERS)}")


__all__ = [
    "PROVIDERS",
    "CassetteError",
    "OfflineProvider",
    "Provider",
    "ReplayProvider",
    "StepFailed",
    "StepRequest",
    "StepResult",
    "TransportError",
    "Usage",
    "load_cassette",
    "make_provider",
]
