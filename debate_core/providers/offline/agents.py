"""Rule-based offline agents, registered per (protocol, stage); shared helpers for them (reading.py).

Each protocol keeps its agents in its own folder (`protocols/<name>/agent.py`), which its spec names
(`ProtocolSpec.offline_agent`); they are imported the first time a step of that protocol is asked for.

They read the case's evidence, rank passages against the question and each agent's focus and
produce step outputs in exactly the JSON a model would return, so they exercise the same
validation, storage and verdict path as a real provider. Everything here is deterministic.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

Handler = Callable[[dict[str, Any]], dict[str, Any]]
_HANDLERS: dict[tuple[str, str], Handler] = {}


def register(protocol: str, stage: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        _HANDLERS[(protocol, stage)] = fn
        return fn

    return deco


def handler_for(protocol: str, stage: str) -> Handler | None:
    if (protocol, stage) not in _HANDLERS:
        module = _agent_module(protocol)
        if module:
            importlib.import_module(module)
    return _HANDLERS.get((protocol, stage))


def _agent_module(protocol: str) -> str | None:
    """The module its spec names for its offline agents. The spec is loaded by name, the way
    `protocols.get_spec` does it, because the protocols sit above the providers that call this."""
    if not protocol.isidentifier():
        return None
    try:
        package = importlib.import_module(f"debate_core.protocols.{protocol}")
    except ModuleNotFoundError as exc:
        if exc.name != f"debate_core.protocols.{protocol}":
            raise
        return None  # not a protocol (the evaluation's judge, say): no offline agent
    spec = getattr(package, "SPEC", None)
    return getattr(spec, "offline_agent", None)
