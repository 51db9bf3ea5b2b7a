"""Protocol registry. Each protocol module exposes:

- ``NAME``: its registry name;
- ``DEFAULT_AGENTS``: list of agent dicts (at least ``id``; role/focus/stance as the seed says);
- ``DEFAULT_ROUNDS`` and ``MAX_ROUNDS``;
- ``async def run(run: DebateRun) -> Outcome``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

PROTOCOLS = ("cross_critique", "panel", "refinement", "dialectic", "arbitration")


class UnknownProtocol(ValueError):
    pass


def get_protocol(name: str) -> ModuleType:
    if name not in PROTOCOLS:
        raise UnknownProtocol(f"unknown protocol {name!r}; choose from {', '.join(PROTOCOLS)}")
    return importlib.import_module(f"debate_core.protocols.{name}")
