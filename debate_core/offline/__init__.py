"""Rule-based offline agents, registered per (protocol, stage).

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

# Protocol name -> module holding its offline agents (imported on first use).
_MODULES = {
    "cross_critique": "debate_core.offline.cross_critique",
    "panel": "debate_core.offline.panel",
    "refinement": "debate_core.offline.refinement",
    "dialectic": "debate_core.offline.dialectic",
    "arbitration": "debate_core.offline.arbitration",
    "single": "debate_core.offline.single",
    "majority": "debate_core.offline.single",
}


def register(protocol: str, stage: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        _HANDLERS[(protocol, stage)] = fn
        return fn

    return deco


def handler_for(protocol: str, stage: str) -> Handler | None:
    if (protocol, stage) not in _HANDLERS and protocol in _MODULES:
        importlib.import_module(_MODULES[protocol])
    return _HANDLERS.get((protocol, stage))
