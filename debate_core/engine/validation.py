"""Settings checked before a debate is saved: rounds, agents, limits and the protocol's typed options.

The CLI, the app's worker, the New debate page and the engine all call `validate_settings`, so a bad
value is refused with the same one-line message everywhere, naming the key (with a did-you-mean for
an unknown one) and never showing a pydantic dump.
"""

from __future__ import annotations

import difflib
import json
import types
import typing
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.fields import FieldInfo

# AGENT_ID and SettingsError live in core.settings; older callers still import them from here.
from ..core.settings import AGENT_ID, DebateSettings, SettingsError


class SpecLimits(Protocol):
    """What these checks read of a protocol's spec. A structural type, so this module needs nothing
    from base.py, which builds ProtocolSpec on top of it."""

    name: str
    min_agents: int
    max_agents: int | None
    options_model: type[BaseModel]

    def rounds(self, asked: int | None, warn: Any = None) -> int: ...

MIN_ROUNDS, MAX_ROUNDS_ASKED = 1, 10  # each protocol caps the rounds further, with a warning


def validate_settings(spec: SpecLimits, settings: DebateSettings) -> DebateSettings:
    """Check rounds, agents, limits and options; return the settings unchanged, or raise SettingsError."""
    _check_whole_number("rounds", settings.rounds, MIN_ROUNDS, MAX_ROUNDS_ASKED, optional=True)
    _check_whole_number("concurrency", settings.concurrency, 1, None)
    _check_whole_number("max_tokens_per_call", settings.max_tokens_per_call, 1, None, optional=True)
    _check_whole_number("max_total_tokens", settings.max_total_tokens, 1, None, optional=True)
    if settings.agents is not None:
        validate_agents(spec, settings.agents)
    validate_options(spec, settings.options)
    if settings.pause_after_round is not None:
        _check_whole_number("pause_after_round", settings.pause_after_round, 1, None)
        last = spec.rounds(settings.rounds)
        if settings.pause_after_round > last:
            # A round the debate never reaches would never pause it. After the last round it pauses
            # before the verdict.
            raise SettingsError(f"pause_after_round must be at most the last round ({last}) of this {spec.name} "
                                f"debate, got {settings.pause_after_round}")
    return settings


def validate_agents(spec: SpecLimits, agents: list[Any]) -> list[str]:
    """Agent ids: letters, digits, '_' and '-', unique, as many as the protocol takes. Returns the ids."""
    protocol = spec.name
    if not isinstance(agents, list):
        raise SettingsError("agents must be a list of agents, each with an 'id'")
    ids: list[str] = []
    for agent in agents:
        if not isinstance(agent, dict) or "id" not in agent:
            raise SettingsError("every agent needs an 'id'")
        agent_id = agent["id"]
        if not isinstance(agent_id, str) or not AGENT_ID.match(agent_id):
            shown = agent_id if isinstance(agent_id, str) else _show(agent_id)
            if isinstance(agent_id, str) and len(agent_id) > 40:
                raise SettingsError(f"agent id '{shown[:40]}...' is longer than 40 characters")
            raise SettingsError(f"agent id '{shown}' may contain only letters, digits, '_' and '-'")
        if agent_id in ids:
            raise SettingsError(f"agent id '{agent_id}' appears twice")
        ids.append(agent_id)
    low, high = spec.min_agents, spec.max_agents
    if len(ids) < low or (high is not None and len(ids) > high):
        if high == low:
            wanted = f"exactly {low}"
        elif high is None:
            wanted = f"at least {low}"
        else:
            wanted = f"from {low} to {high}"
        raise SettingsError(f"{protocol} takes {wanted} agent(s), got {len(ids)}")
    return ids


def validate_options(spec: SpecLimits, options: dict[str, Any] | None) -> BaseModel:
    """The protocol's typed options, or SettingsError naming the first bad or unknown key."""
    protocol = spec.name
    model: type[BaseModel] = spec.options_model or NoOptions
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise SettingsError(f"{protocol} options must be KEY=VALUE pairs")
    try:
        return model.model_validate(options)
    except ValidationError as exc:
        raise SettingsError(_error_line(protocol, model, exc.errors()[0], options)) from None
    except RecursionError:
        raise SettingsError(f"{protocol} options are nested too deeply") from None


class NoOptions(BaseModel):
    """The options of a protocol that defines none: every key is unknown."""

    model_config = ConfigDict(extra="forbid")


def _check_whole_number(name: str, value: Any, low: int, high: int | None, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsError(f"{name} must be a whole number, got {_show(value)}")
    if value < low:
        raise SettingsError(f"{name} must be at least {low}, got {value}")
    if high is not None and value > high:
        raise SettingsError(f"{name} must be at most {high}, got {value}")


# ---------------------------------------------------------------------------
# One plain line per pydantic error
# ---------------------------------------------------------------------------


def _error_line(protocol: str, model: type[BaseModel], err: dict[str, Any], options: dict[str, Any]) -> str:
    path, owner, field = _resolve(model, err["loc"])
    key = ".".join(path) or "options"
    # Inside a list pydantic reports the bad item; the reader typed (and wants to see) the whole value.
    given = _value_at(options, path) if len(path) < len(err["loc"]) else err.get("input")
    if err["type"] == "extra_forbidden":
        known = list(owner.model_fields) if owner is not None else []
        where = f"a {protocol} option" if len(path) == 1 else f"a key of option '{'.'.join(path[:-1])}'"
        line = f"option '{key}' is not {where}"
        close = difflib.get_close_matches(path[-1], known, n=1, cutoff=0.6)
        if close:
            return f"{line}; did you mean '{close[0]}'?"
        return f"{line}; known: {', '.join(known)}" if known else line
    if err["type"] == "value_error":
        reason = str(err.get("ctx", {}).get("error") or err["msg"]).removeprefix("Value error, ")
        return f"option '{key}' {reason}, got {_show(given)}"
    expected = _describe(field) if field is not None else _TYPE_WORDS.get(err["type"], "a valid value")
    return f"option '{key}' must be {expected}, got {_show(given)}"


def _value_at(options: dict[str, Any], path: list[str]) -> Any:
    value: Any = options
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


_TYPE_WORDS = {
    "int_parsing": "a whole number", "int_type": "a whole number", "int_from_float": "a whole number",
    "float_parsing": "a number", "float_type": "a number", "bool_parsing": "true or false",
    "bool_type": "true or false", "string_type": "text", "list_type": "a list", "dict_type": "an object",
    "model_type": "an object", "too_short": "a longer list",
}


def _resolve(model: type[BaseModel], loc: tuple[Any, ...]) -> tuple[list[str], type[BaseModel] | None, FieldInfo | None]:
    """Walk an error location through the models: the dotted key, the model owning the last key
    (for did-you-mean), and the field at fault (for what it takes)."""
    path: list[str] = []
    owner: type[BaseModel] | None = model
    field: FieldInfo | None = None
    parts = list(loc)
    i = 0
    while i < len(parts) and owner is not None:
        path.append(str(parts[i]))
        i += 1
        field = owner.model_fields.get(path[-1])
        if field is None:
            return path, owner, None
        inner = _strip_optional(field.annotation)
        if typing.get_origin(inner) is dict and i < len(parts):
            # A free key such as a persona id: name it, then go on inside its value.
            path.append(str(parts[i]))
            i += 1
            args = typing.get_args(inner)
            owner = _model(args[1]) if len(args) == 2 else None
            field = None
            continue
        owner = _model(inner)
    # List indexes and union tags left in `loc` add nothing a reader needs.
    return path, owner, field


def _model(annotation: Any) -> type[BaseModel] | None:
    annotation = _strip_optional(annotation)
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _strip_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _describe(field: FieldInfo) -> str:
    """What a field takes, in plain words: 'a whole number from 1 to 50', 'one of any, all', ..."""
    extra = field.json_schema_extra
    if isinstance(extra, dict) and extra.get("expects"):
        return str(extra["expects"])
    annotation = field.annotation
    optional = typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in typing.get_args(annotation)
    base = _strip_optional(annotation)
    low = high = None
    for m in field.metadata:
        low = getattr(m, "ge", None) if getattr(m, "ge", None) is not None else low
        high = getattr(m, "le", None) if getattr(m, "le", None) is not None else high
    if base is bool:
        words = "true or false"
    elif base in (int, float):
        words = "a whole number" if base is int else "a number"
        if low is not None and high is not None:
            words += f" from {low:g} to {high:g}"
        elif low is not None:
            words += f" of at least {low:g}"
        elif high is not None:
            words += f" of at most {high:g}"
    elif typing.get_origin(base) is Literal:
        words = "one of " + ", ".join(f"'{v}'" for v in typing.get_args(base))
    elif base is str:
        words = "text"
    elif typing.get_origin(base) is list:
        words = "a list"
    elif _model(base) is not None or typing.get_origin(base) is dict:
        words = "an object"
    else:
        words = "a valid value"
    return words + (" or null" if optional else "")


def _show(value: Any) -> str:
    """A value as a user typed it: text in quotes, the rest as JSON, cut short when long."""
    if isinstance(value, str):
        text = f"'{value}'"
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."
