"""Protocol registry: every protocol is one `ProtocolSpec` (see `base.py`), and callers read only specs.

A protocol is one folder, `protocols/<name>/` (its spec and flow, rules, models, offline agent and
rows), whose package exports `SPEC`; listing its name in PROTOCOLS is all the CLI, the worker, the
app, the exports, the offline provider and the conformance tests need to take a new protocol in
(docs/ENGINE.md).
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel

from ..engine.runtime import DebateFailed, DebateRun, DebateSettings
from ..engine.spec import CaseNeed, CaseUnfit, ProtocolSpec, StageSpec
from ..engine.validation import SettingsError

PROTOCOLS = ("cross_critique", "panel", "refinement", "dialectic", "arbitration")
# What an evaluation compares the protocols with. They are stored and opened like debates, but are
# not offered as protocols to debate with (`specs()` lists the protocols only).
BASELINES = ("single", "majority")

__all__ = [
    "BASELINES", "PROTOCOLS", "CaseNeed", "CaseUnfit", "ProtocolSpec", "SettingsError", "StageSpec", "UnknownProtocol",
    "get_spec", "run_options", "specs", "validate_options", "validate_settings",
]


class UnknownProtocol(ValueError):
    pass


def get_spec(name: str) -> ProtocolSpec:
    if name not in PROTOCOLS and name not in BASELINES:
        raise UnknownProtocol(f"unknown protocol {name!r}; choose from {', '.join(PROTOCOLS)}")
    spec = importlib.import_module(f"debate_core.protocols.{name}").SPEC
    if not isinstance(spec, ProtocolSpec) or spec.name != name:
        raise TypeError(f"debate_core.protocols.{name} must export SPEC, a ProtocolSpec named {name!r}")
    return spec


def specs() -> list[ProtocolSpec]:
    return [get_spec(name) for name in PROTOCOLS]


def _spec(protocol: str | ProtocolSpec) -> ProtocolSpec:
    return protocol if isinstance(protocol, ProtocolSpec) else get_spec(protocol)


def validate_settings(protocol: str | ProtocolSpec, settings: DebateSettings) -> DebateSettings:
    """Rounds, agents, limits and options, checked before anything is saved (SettingsError otherwise)."""
    return _spec(protocol).validate(settings)


def validate_options(protocol: str | ProtocolSpec, options: dict[str, Any] | None) -> BaseModel:
    return _spec(protocol).options(options)


def run_options(run: DebateRun) -> Any:
    """The validated options of a running debate; bad ones fail it before any model call."""
    try:
        return _spec(run.spec or run.protocol).options(run.settings.options)
    except SettingsError as exc:
        raise DebateFailed(str(exc)) from None
