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
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .identity import ROLES, role_for
from .pricing import PriceTable, PriceTableError, parse_price_table
from .profiles import parse_profiles
from .settings import METHODS
from .settings import SettingsError as ProfileError


class AppSettingsError(ValueError):
    """The app's settings file cannot be read, or a change to it cannot be saved; the message says why.

    Not a debate's SettingsError (core/settings.py, a debate setting that cannot be used): this one is
    about the app's own file next to the database."""


SettingsError = AppSettingsError  # the old name: the CLI and older callers still import it


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
    """Add or replace one saved team of agent profiles, keeping every other setting as it is on disk."""
    name = (name or "").strip()
    if not name:
        raise AppSettingsError("a team needs a name")
    try:
        profiles = parse_profiles(agents, f"team {name!r}")
    except ProfileError as exc:
        raise AppSettingsError(str(exc)) from None
    current = load_settings(db_path)
    updated = current.model_copy(update={"teams": {**current.teams, name: profiles}})
    save_settings(updated, db_path)
    return updated
