"""The app's own settings: who has which role, and the default provider settings.

They live in a small JSON file next to the database (`debates.db` -> `debates.settings.json`), so
each database carries its own team's set-up. Roles are given to verified identities only (an
e-mail or subject the identity provider vouches for, or a claim it sends such as `groups`); see
core/identity.py. An API key is never written here nor to the database: it comes from the
environment or is typed in for one browser session only.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .identity import ROLES, role_for
from .pricing import PriceTable, PriceTableError, parse_price_table
from .settings import AGENT_ID, METHODS


class AppSettingsError(ValueError):
    """The app's settings file cannot be read, or a change to it cannot be saved; the message says why.

    Not a debate's SettingsError (core/settings.py, a debate setting that cannot be used): this one is
    about the app's own file next to the database."""


SettingsError = AppSettingsError  # the old name: the CLI and older callers still import it


# ---------------------------------------------------------------------------
# Teams: named lists of agent profiles, edited as a table in the app
# ---------------------------------------------------------------------------

# The columns a team is edited in, with the words a reader sees and the longest text each takes.
# The limits keep a prompt's identity block small: every agent's identity enters each of its prompts.
TEAM_COLUMNS = {"id": "Id", "name": "Name", "role": "Role", "instructions": "Instructions", "model": "Model",
                "terms": "Terms"}
TEAM_LIMITS = {"id": 40, "name": 80, "role": 2000, "instructions": 4000, "model": 120}
TERM_LIMIT, TERMS_MAX = 80, 60  # one term's length, and how many terms an agent lists
TEAM_NAME_LIMIT, TEAM_AGENTS_MAX = 80, 20
OTHER_FIELD_LIMIT = 2000  # a profile's other fields (a persona's stance, style, goal...), kept as they are
ONE_LINE = {"id", "name", "model"}  # fields a line break makes no sense in


class TeamProblem(AppSettingsError):
    """A team that cannot be saved, with the row (1-based, None for the whole team) and the column
    at fault, so the table can point at the cell."""

    def __init__(self, message: str, row: int | None = None, column: str | None = None):
        where = ""
        if row is not None:
            where = f"Row {row}" + (f", {TEAM_COLUMNS.get(column or '', column)}" if column else "") + ": "
        super().__init__(where + message)
        self.row, self.column = row, column


def _control_chars(text: str, one_line: bool) -> bool:
    allowed = "" if one_line else "\n\t"
    return any(unicodedata.category(c) == "Cc" and c not in allowed for c in text)


def plain_text(value: Any, limit: int, *, one_line: bool = True) -> str:
    """A field's text, stripped; ValueError in plain words when it is not text, too long, or holds
    control characters (plain text only: the table, the prompts and the file all read it as text)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError("must be text")
    text = value.strip().replace("\r\n", "\n")
    if _control_chars(text, one_line):
        raise ValueError("must be plain text on one line" if one_line else "must be plain text")
    if len(text) > limit:
        raise ValueError(f"is {len(text):,} characters long; at most {limit:,} are allowed")
    return text


def agent_id_from(name: str, taken: set[str], row: int) -> str:
    """An agent id made from its name: letters and digits, '_' between words ('Clinical pharmacist'
    -> 'clinical_pharmacist'), made unique in the team; 'agent_<row>' when the name has no letter."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    base = re.sub(r"[^a-z0-9]+", "_", ascii_name.lower()).strip("_")[:36] or f"agent_{row}"
    made, n = base, 2
    while made.casefold() in taken:
        made, n = f"{base}_{n}", n + 1
    return made


def _terms(value: Any, row: int) -> list[str]:
    items = value.split(",") if isinstance(value, str) else value
    if items is None:
        return []
    if not isinstance(items, list):
        raise TeamProblem("list the terms separated by commas", row, "terms")
    terms = []
    for item in items:
        try:
            term = plain_text(item, TERM_LIMIT)
        except ValueError as exc:
            raise TeamProblem(f"the term {str(item)[:40]!r} {exc}", row, "terms") from None
        if term:
            terms.append(term)
    if len(terms) > TERMS_MAX:
        raise TeamProblem(f"{len(terms)} terms; at most {TERMS_MAX} are allowed", row, "terms")
    return terms


def _other_field(key: str, value: Any, row: int) -> Any:
    """A profile field the table does not show (a persona's stance, a reasoner's evidence kinds):
    plain text, numbers, yes/no, or a list of short texts."""
    if isinstance(value, bool | int | float) or value is None:
        return value
    try:
        if isinstance(value, list):
            return [plain_text(v, TERM_LIMIT) for v in value]
        return plain_text(value, OTHER_FIELD_LIMIT, one_line=False)
    except ValueError as exc:
        raise TeamProblem(f"{exc}", row, key) from None


def team_agents(rows: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The agent profiles of a team, from its rows (the table's, or a saved team's). Empty rows are
    skipped; an agent needs a name or an id, and an id missing is made from the name. Raises
    TeamProblem naming the row and column at fault, in plain words."""
    if not isinstance(rows, list):
        raise TeamProblem("a team is a list of agents")
    agents: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    names: dict[str, int] = {}
    pending: list[tuple[int, dict[str, Any]]] = []  # rows whose id is made from the name, once every typed id is known
    for row, raw in enumerate(rows, start=1):
        if not isinstance(raw, Mapping):
            raise TeamProblem("must be an agent with a name or an id", row)
        agent: dict[str, Any] = {}
        for key in TEAM_LIMITS:
            try:
                text = plain_text(raw.get(key), TEAM_LIMITS[key], one_line=key in ONE_LINE)
            except ValueError as exc:
                raise TeamProblem(f"the {TEAM_COLUMNS[key].lower()} {exc}", row, key) from None
            if text:
                agent[key] = text
        terms = _terms(raw.get("terms"), row)
        if terms:
            agent["terms"] = terms
        for key, value in raw.items():
            if key not in TEAM_COLUMNS and value not in (None, "", []):
                agent[str(key)] = _other_field(str(key), value, row)
        if not agent:
            continue  # an empty row, as the table's "add row" leaves one
        if not agent.get("name") and not agent.get("id"):
            raise TeamProblem("give the agent a name (its id is made from it)", row, "name")
        if "id" in agent:
            if not AGENT_ID.match(agent["id"]):
                raise TeamProblem(f"the id {agent['id']!r} may hold only letters, digits, '_' and '-' "
                                  "(leave it empty to make it from the name)", row, "id")
            if agent["id"].casefold() in ids:
                raise TeamProblem(f"the id {agent['id']!r} is already used in row {ids[agent['id'].casefold()]}; "
                                  "each agent needs its own", row, "id")
            ids[agent["id"].casefold()] = row
        else:
            pending.append((row, agent))
        if agent.get("name"):
            if agent["name"].casefold() in names:
                raise TeamProblem(f"the name {agent['name']!r} is already used in row "
                                  f"{names[agent['name'].casefold()]}; each agent needs its own", row, "name")
            names[agent["name"].casefold()] = row
        agents.append(agent)
    for row, agent in pending:
        agent["id"] = agent_id_from(agent["name"], set(ids), row)
        ids[agent["id"].casefold()] = row
    if not agents:
        raise TeamProblem("A team needs at least one agent: add a row with its name.")
    if len(agents) > TEAM_AGENTS_MAX:
        raise TeamProblem(f"A team has at most {TEAM_AGENTS_MAX} agents; this one has {len(agents)}.")
    return [{k: a[k] for k in ("id", *[c for c in a if c != "id"])} for a in agents]


def team_name(name: Any) -> str:
    """A team's name, stripped; AppSettingsError in plain words when it cannot be one."""
    try:
        text = plain_text(name, TEAM_NAME_LIMIT)
    except ValueError as exc:
        raise AppSettingsError(f"The team name {exc}.") from None
    if not text:
        raise AppSettingsError("Give the team a name.")
    return text


class AppSettings(BaseModel):
    # Unknown keys (say an api_key someone added by hand) are dropped on load and never saved back.
    model_config = ConfigDict(extra="ignore")

    # Roles of signed-in people: verified e-mail or subject -> role (viewer, reviewer, supervisor, admin).
    roles: dict[str, Literal[*ROLES]] = Field(default_factory=dict)
    # A claim the identity provider sends (say "groups") and which of its values give which role.
    role_claim: str = ""
    claim_roles: dict[str, Literal[*ROLES]] = Field(default_factory=dict)
    # What a signed-in person nobody gave a role gets: read everything, act on nothing.
    default_role: Literal[*ROLES] = "viewer"
    # The old list of supervisor names: names are labels, not identities, so it gives no rights any
    # more; kept on load only so the Settings page can say so.
    supervisors: list[str] = Field(default_factory=list)
    default_provider: Literal["offline", "openai", "replay"] = "offline"
    # No base URL here: which servers the server's key may reach is the operator's, set in the
    # environment or secrets.toml (debate_core/core/credentials.py), never in a file the app writes.
    openai_model: str = ""
    openai_method: Literal["", *METHODS] = ""  # "" lets the provider choose by server
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    # Offline agents answer instantly; a small delay per call lets a demo show rounds arriving.
    offline_latency_ms: float = Field(default=0.0, ge=0.0, le=10_000.0)
    refresh_seconds: float = Field(default=1.0, ge=0.2, le=60.0)
    stale_after_minutes: float = Field(default=30.0, ge=1.0)
    # Saved New-debate presets: protocol -> preset name -> {"agents": [...], "rounds": n, "options": {...}}.
    presets: dict[str, dict[str, dict[str, Any]]] = Field(default_factory=dict)
    # Saved teams of agent profiles, reusable with any protocol: team name -> [profile, ...].
    teams: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    # Estimated cost: model -> {"input": ..., "output": ...} in `price_currency` per million tokens
    # (debate_core/core/pricing.py matches model names). Empty: no cost figures are shown.
    prices: dict[str, dict[str, float]] = Field(default_factory=dict)
    price_currency: str = "USD"

    @field_validator("teams", mode="after")
    @classmethod
    def _teams(cls, v: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        seen: dict[str, str] = {}
        for raw_name, agents in v.items():
            name = team_name(raw_name)
            if name.casefold() in seen:
                raise ValueError(f"the teams {seen[name.casefold()]!r} and {name!r} have the same name")
            seen[name.casefold()] = name
            try:
                out[name] = team_agents(agents)
            except TeamProblem as exc:
                raise ValueError(f"team {name!r}: {exc}") from None
        return out

    @field_validator("prices", mode="after")
    @classmethod
    def _prices(cls, v: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        try:
            parse_price_table({"models": v}, "prices")
        except PriceTableError as exc:
            raise ValueError(str(exc)) from None
        return {str(k).strip(): {"input": float(e["input"]), "output": float(e["output"])} for k, e in v.items()
                if str(k).strip()}

    def price_table(self) -> PriceTable | None:
        """The price table, or None when no model has a price."""
        if not self.prices:
            return None
        return parse_price_table({"currency": self.price_currency.strip() or "USD", "models": self.prices})

    @field_validator("supervisors", mode="before")
    @classmethod
    def _names(cls, v: object) -> object:
        if isinstance(v, str):
            v = v.splitlines()
        if isinstance(v, list):
            seen: list[str] = []
            for name in v:
                name = str(name).strip()
                if name and name.casefold() not in {s.casefold() for s in seen}:
                    seen.append(name)
            return seen
        return v

    @field_validator("roles", "claim_roles", mode="before")
    @classmethod
    def _keys(cls, v: object) -> object:
        if isinstance(v, dict):
            return {str(k).strip(): (str(r).strip().lower() if isinstance(r, str) else r)
                    for k, r in v.items() if str(k).strip()}
        return v

    def role_of(self, claims: dict[str, Any]) -> str:
        """The role of a signed-in person, from their verified claims (core/identity.py, role_for)."""
        return role_for(claims, roles=self.roles, role_claim=self.role_claim.strip(),
                        claim_roles=self.claim_roles, default_role=self.default_role)


def settings_path(db_path: str | Path) -> Path:
    """The settings file of a database: next to a SQLite file. A PostgreSQL store (a URL) has no
    folder: its settings file is `$DEBATE_SETTINGS`, else `data/<database name>.settings.json` of the
    working directory (for now: several app servers need them in the database, see PG_STATUS.md)."""
    if isinstance(db_path, str) and db_path.lower().startswith(("postgresql://", "postgres://")):
        if os.environ.get("DEBATE_SETTINGS"):
            return Path(os.environ["DEBATE_SETTINGS"])
        name = db_path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "postgres"
        return Path("data") / f"{name}.settings.json"
    db_path = Path(db_path)
    return db_path.with_name(f"{db_path.stem}.settings.json")


def load_settings(db_path: str | Path) -> AppSettings:
    """The saved settings, or the defaults when none were saved yet."""
    path = settings_path(db_path)
    if not path.exists():
        return AppSettings()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise AppSettingsError(f"cannot read the settings file {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise AppSettingsError(f"the settings file {path} is not valid JSON: {exc.msg} at line {exc.lineno}") from exc
    if not isinstance(data, dict):
        raise AppSettingsError(f"the settings file {path} must hold a JSON object")
    try:
        return AppSettings.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"]) or "(settings)"
        raise AppSettingsError(f"the settings file {path}: field '{field}' {err['msg']}") from exc


def save_settings(settings: AppSettings, db_path: str | Path) -> Path:
    """Write atomically, so a reader never sees half a file."""
    path = settings_path(db_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(settings.model_dump(mode="json"), indent=2, ensure_ascii=False)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def save_preset(db_path: str | Path, protocol: str, name: str, preset: dict[str, Any]) -> AppSettings:
    """Add or replace one saved preset, keeping every other setting as it is on disk."""
    name = (name or "").strip()
    if not name:
        raise AppSettingsError("a preset needs a name")
    if name == "default":
        raise AppSettingsError("'default' is the protocol's own settings; choose another name")
    current = load_settings(db_path)
    presets = {p: dict(v) for p, v in current.presets.items()}
    presets.setdefault(protocol, {})[name] = {k: preset[k] for k in ("agents", "rounds", "options") if k in preset}
    updated = current.model_copy(update={"presets": presets})
    save_settings(updated, db_path)
    return updated


def save_prices(db_path: str | Path, prices: dict[str, dict[str, float]], currency: str = "USD") -> AppSettings:
    """Replace the price table, keeping every other setting as it is on disk."""
    currency = (currency or "").strip()
    if not currency:
        raise AppSettingsError("the currency needs a name, e.g. USD")
    current = load_settings(db_path)
    try:
        updated = AppSettings.model_validate({**current.model_dump(), "prices": prices, "price_currency": currency})
    except ValidationError as exc:
        raise AppSettingsError(exc.errors()[0]["msg"].removeprefix("Value error, ")) from None
    save_settings(updated, db_path)
    return updated


def save_team(db_path: str | Path, name: str, agents: list[dict[str, Any]]) -> AppSettings:
    """Add or replace one saved team of agent profiles, keeping every other setting as it is on disk.
    A name that differs from a saved one only in capitals replaces it. Raises TeamProblem (the row
    and column at fault) or AppSettingsError (the name)."""
    name = team_name(name)
    profiles = team_agents(agents)
    current = load_settings(db_path)
    teams = {k: v for k, v in current.teams.items() if k.casefold() != name.casefold()}
    updated = current.model_copy(update={"teams": {**teams, name: profiles}})
    save_settings(updated, db_path)
    return updated


def delete_team(db_path: str | Path, name: str) -> AppSettings:
    """Remove one saved team, keeping every other setting as it is on disk."""
    current = load_settings(db_path)
    if name not in current.teams:
        raise AppSettingsError(f"There is no saved team {name!r}.")
    updated = current.model_copy(update={"teams": {k: v for k, v in current.teams.items() if k != name}})
    save_settings(updated, db_path)
    return updated
