"""A debate submitted over the API, checked as `run` and the New debate page check theirs: the case,
the protocol, its preset and options, the provider and where the server's key may go. Every problem
is an ApiProblem naming the request field, raised before anything is saved."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

from ..core.app_settings import SettingsError as AppSettingsError
from ..core.app_settings import load_settings
from ..core.cases import CaseError, parse_case
from ..core.credentials import key_plan, server_credentials
from ..core.files import CASE_BYTES, FileProblem, check_size
from ..core.schemas import Case
from ..engine.runtime import DebateSettings
from ..protocols import CaseUnfit, SettingsError, UnknownProtocol, get_spec, validate_settings
from ..providers import CassetteError, make_provider
from .errors import ApiProblem, bad_input
from .models import DebateRequest, ProviderSettings

# The body of a submission: the case's own bound (DEBATE_MAX_CASE_BYTES, as for a case file) plus
# room for the settings and the provider beside it.
SETTINGS_ALLOWANCE = 256 * 1024


def body_limit() -> int:
    return CASE_BYTES.value() + SETTINGS_ALLOWANCE


def agent_list(agents: list[str | dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Agent ids or profiles, as the command line's --agents and --agents-file give them."""
    if agents is None:
        return None
    return [{"id": a.strip()} if isinstance(a, str) else dict(a) for a in agents if not isinstance(a, str) or a.strip()]


def parsed_case(data: dict[str, Any]) -> Case:
    try:
        check_size(len(json.dumps(data, ensure_ascii=False).encode("utf-8")), CASE_BYTES, "the case")
        return parse_case(data, "case")
    except (CaseError, FileProblem) as exc:
        raise bad_input(str(exc), "case") from None


def _preset(protocol: str, name: str, db_path: str | Path) -> dict[str, Any]:
    """The preset as `run --preset` finds it: the protocol's own first, else one saved in the app."""
    spec = get_spec(protocol)
    if name in spec.presets:
        return copy.deepcopy(dict(spec.presets[name]))
    try:
        saved = {str(k): dict(v) for k, v in load_settings(db_path).presets.get(protocol, {}).items()}
    except (AppSettingsError, OSError):
        saved = {}
    if name in saved:
        return copy.deepcopy(saved[name])
    names = ", ".join([*spec.presets, *saved]) or "none"
    raise bad_input(f"{protocol} has no preset {name!r}; its presets: {names}", "preset")


def settings_for(protocol: str, req: DebateRequest | Any, db_path: str | Path, *,
                 preset: str | None = None) -> DebateSettings:
    """The run's settings: the preset, then the rounds, agents and options given beside it, which win.
    Each part is checked on its own first, so a refusal names the field it comes from."""
    base = _preset(protocol, preset, db_path) if preset else {}
    agents = agent_list(req.agents) if req.agents is not None else base.get("agents")
    rounds = req.rounds if req.rounds is not None else base.get("rounds")
    options = {**(base.get("options") or {}), **(req.options or {})}
    extra = {k: getattr(req, k) for k in ("max_total_tokens", "max_tokens_per_call", "pause_after_round")
             if getattr(req, k, None) is not None}
    concurrency = getattr(req, "concurrency", None) or 8
    for field, trial in (("rounds", DebateSettings(rounds=rounds)), ("agents", DebateSettings(agents=agents)),
                         ("pause_after_round", DebateSettings(rounds=rounds, **extra))):
        try:
            validate_settings(protocol, trial)
        except SettingsError as exc:
            raise bad_input(str(exc), field) from None
    settings = DebateSettings(rounds=rounds, agents=agents, concurrency=concurrency, options=options, **extra)
    try:
        return validate_settings(protocol, settings)
    except SettingsError as exc:
        raise bad_input(str(exc), "options") from None


def provider_for(p: ProviderSettings, protocol: str) -> Any:
    """The provider, as `run` builds it from its flags; the server's own key goes only to the base
    URLs its operator configured (core/credentials.py), so a caller naming another server brings
    its own key or says that server needs none."""
    creds = server_credentials(os.environ)
    if p.name == "openai":
        if not p.model:
            raise bad_input("the openai provider needs a model", "provider.model")
        plan = key_plan(creds, p.base_url, p.api_key, p.no_key_needed)
        if plan.blocker:
            field = "provider.api_key" if "needs a key" in plan.blocker else "provider.base_url"
            raise bad_input(plan.blocker.replace("type yours above", "pass it as provider.api_key")
                            .replace("type the key for that server above, or tick 'This server needs no key'",
                                     "pass provider.api_key for that server, or provider.no_key_needed"), field)
    if p.name == "replay" and not p.cassette:
        raise bad_input("the replay provider needs a cassette object", "provider.cassette")
    options = {
        "model": p.model, "base_url": p.base_url, "api_key": p.api_key, "temperature": p.temperature,
        "timeout": p.timeout, "max_attempts": p.max_attempts, "method": p.method, "latency_ms": p.latency_ms,
        "agent_models": p.agent_models, "max_tokens": p.max_output_tokens, "cassette": p.cassette,
        "transport_retries": p.transport_retries, "stall_timeout": p.stall_timeout,
        "timeout_retries": p.timeout_retries, "repair": p.repair, "server_credentials": creds,
    }
    try:
        provider = make_provider(p.name, **options)
    except (CassetteError, ValueError) as exc:
        raise bad_input(str(exc), "provider") from None
    if p.name == "replay" and getattr(provider, "protocol", None) not in (None, protocol):
        raise bad_input(f"the cassette was recorded for protocol {provider.protocol!r}, not {protocol!r}",
                        "provider.cassette")
    return provider


def prepared(req: DebateRequest, db_path: str | Path) -> tuple[Case, DebateSettings, Any]:
    """The case, settings and provider of a submission, each checked; nothing is saved here."""
    try:
        spec = get_spec(req.protocol)
    except UnknownProtocol as exc:
        raise bad_input(str(exc), "protocol") from None
    case = parsed_case(req.case)
    settings = settings_for(req.protocol, req, db_path, preset=req.preset)
    try:
        spec.check_case(case, settings)
    except (CaseUnfit, SettingsError) as exc:
        raise bad_input(str(exc), "case") from None
    provider = provider_for(req.provider, req.protocol)
    return case, settings, provider


def check_body_size(length: int) -> None:
    if length > body_limit():
        raise ApiProblem(413, "too_large", f"the body is {length:,} bytes; the limit is {body_limit():,} bytes "
                         f"(the case bound {CASE_BYTES.env} plus {SETTINGS_ALLOWANCE // 1024} KB for the settings)",
                         "body")
