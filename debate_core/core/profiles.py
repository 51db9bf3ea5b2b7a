"""Agent profiles: who speaks in a debate, in the reviewer's own terms.

An agent is a profile, `{"id", "name", "role", "instructions", "model", "terms"}`. Profiles come from,
in this order of precedence: the settings (`--agents-file`, the app's agent editor or a saved team),
the case's own `agents` list, then the protocol's default agents. `--agents a,b` names ids only: an id
found among the case's or the protocol's profiles takes that profile, any other id gets a profile
that says only its name. The role and instructions enter every prompt of that agent as its identity.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .files import FileProblem, json_error, read_text_capped

# AGENT_ID is also read from here by older callers.
from .settings import AGENT_ID, SettingsError


class AgentProfile(BaseModel):
    """One agent. Only `id` is required; the rest describe it to the model and to the reviewer."""

    model_config = ConfigDict(extra="allow")

    id: str
    name: str | None = None
    role: str | None = Field(None, description="what this agent knows and argues for")
    instructions: str | None = Field(None, description="extra guidance for this agent")
    model: str | None = Field(None, description="the model this agent uses, where the provider has several")
    terms: list[str] = Field(default_factory=list, description="domain words this agent looks for")

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not AGENT_ID.match(value):
            raise ValueError(f"agent id '{value}' may contain only letters, digits, '_' and '-'")
        return value

    def display_name(self) -> str:
        return self.name or self.id.replace("_", " ")

    def identity(self) -> str:
        """The agent's identity as its prompts state it: name, role and instructions, in plain words."""
        lines = [f"You are {self.display_name()} (agent id {self.id})."]
        if self.role:
            lines.append(f"Your role: {self.role.strip()}")
        if self.instructions:
            lines.append(f"Your instructions: {self.instructions.strip()}")
        if self.terms:
            lines.append("Terms you know well: " + ", ".join(self.terms) + ".")
        return "\n".join(lines)


def parse_profiles(data: Any, origin: str = "agents") -> list[dict[str, Any]]:
    """A JSON list of profiles as plain dicts; SettingsError names the item and field at fault."""
    if not isinstance(data, list) or not data:
        raise SettingsError(f"{origin}: expected a non-empty JSON list of agent profiles")
    out: list[dict[str, Any]] = []
    for i, item in enumerate(data, start=1):
        if not isinstance(item, Mapping):
            raise SettingsError(f"{origin}: agent {i} must be an object with at least an 'id'")
        try:
            out.append(AgentProfile.model_validate(dict(item)).model_dump(exclude_none=True))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(x) for x in err["loc"]) or "id"
            msg = "is required" if err["type"] == "missing" else str(err["msg"]).removeprefix("Value error, ")
            raise SettingsError(f"{origin}: agent {i} field '{field}' {msg}") from None
    return out


def load_profiles(path: str | Path) -> list[dict[str, Any]]:
    """Profiles from an `--agents-file`: a JSON list (or an object with an `agents` list)."""
    p = Path(path)
    try:
        data = json.loads(read_text_capped(p, "agents file"))
    except FileProblem as exc:
        raise SettingsError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{p}: {json_error(exc)}") from None
    except RecursionError:
        raise SettingsError(f"{p}: the JSON is nested too deeply to read") from None
    if isinstance(data, Mapping) and "agents" in data:
        data = data["agents"]
    return parse_profiles(data, str(p))


def case_profiles(case: Any, protocol: str | None = None) -> list[dict[str, Any]] | None:
    """The case's own `agents` list, validated, or None when it has none. A case written for one
    protocol (its `protocol` field) keeps its agents to that protocol: another protocol run on it
    uses its own defaults, since its agents play other parts (a judge, a critic, personas)."""
    extra = getattr(case, "model_extra", None) if case is not None else None
    extra = extra if isinstance(extra, dict) else {}
    written_for = extra.get("protocol")
    if protocol and written_for and written_for != protocol:
        return None
    raw = getattr(case, "agents", None) if case is not None else None
    if raw is None:
        raw = extra.get("agents")
    return parse_profiles(raw, "case agents") if raw else None


def resolve(chosen: Sequence[Mapping[str, Any]] | None, case: Any,
            defaults: Sequence[Mapping[str, Any]], protocol: str | None = None) -> list[dict[str, Any]]:
    """The debate's agents: the chosen ones (each completed from a known profile with the same id),
    else the case's profiles (for the protocol it was written for), else the protocol's defaults."""
    from_case = case_profiles(case, protocol) or []
    known = {str(a["id"]): dict(a) for a in [*defaults, *from_case]}
    if chosen:
        return [{**known.get(str(a["id"]), {}), **dict(a)} for a in chosen]
    if from_case:
        return [dict(a) for a in from_case]
    return [dict(a) for a in defaults]


def identity(agent: Mapping[str, Any]) -> str:
    """The identity text of an agent dict (any protocol's), for its prompts."""
    fields = {k: agent.get(k) for k in ("id", "name", "role", "instructions", "model")}
    fields["terms"] = list(agent.get("terms") or [])
    return AgentProfile.model_validate({k: v for k, v in fields.items() if v is not None}).identity()
