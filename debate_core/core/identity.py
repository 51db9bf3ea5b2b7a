"""Who is acting, and what they may do.

An `Actor` is built by the front end from what it can vouch for, never from what a visitor types:

- `verified`: a person signed in through OpenID Connect; the name, subject, e-mail and provider
  come from the identity provider's signed token, the role from the deployment's role mapping;
- `label`: local mode (no sign-in configured): the name is a label someone typed, not an
  identity, and everyone using the app acts with the one role the operator chose for local mode;
- `operator`: whoever runs the server and its command line (the CLI, scripts on the database);
- `token`: another system calling the HTTP API with a token the operator created; the token's name
  is the name recorded, its role the one it was created with.

Roles are ranked: a supervisor may do what a reviewer may, an admin what a supervisor may. The
rules are pure functions; the store applies them to every write, whatever the front end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

ROLES = ("viewer", "reviewer", "supervisor", "admin")
ROLE_RANK = {role: rank for rank, role in enumerate(ROLES)}

# What each permission needs, in plain words for the refusal message.
PERMISSIONS: dict[str, tuple[str, str]] = {
    "review": ("reviewer", "accept, override or escalate a verdict"),
    "annotate": ("reviewer", "label a claim or a critique"),
    "steer": ("reviewer", "pause, stop, continue, steer or fork a debate"),
    "start": ("reviewer", "start a debate"),
    "evaluate": ("reviewer", "start an evaluation"),
    "save_presets": ("reviewer", "save a preset or a team"),
    "decide_escalation": ("supervisor", "approve or settle an escalated debate"),
    "manage_settings": ("admin", "change the app's settings"),
    "manage_roles": ("admin", "change who has which role"),
}

# Actions on a debate's review are recorded under a name; in local mode someone must type one first.
NAMED_PERMISSIONS = frozenset({"review", "annotate", "steer", "decide_escalation"})
KINDS = ("verified", "label", "operator", "token")
LOCAL_MODE_NOTICE = "Local mode: no sign-in; names are labels, not identities."


class PermissionRefused(ValueError):
    """The acting person's role does not allow the action; nothing was written."""


@dataclass(frozen=True)
class Actor:
    name: str
    role: str
    kind: str
    subject: str = ""
    email: str = ""
    provider: str = ""

    def __post_init__(self) -> None:
        if self.role not in ROLE_RANK:
            raise ValueError(f"unknown role {self.role!r}; choose from {', '.join(ROLES)}")
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind of identity {self.kind!r}")

    @property
    def verified(self) -> bool:
        return self.kind == "verified"

    def has(self, role: str) -> bool:
        return ROLE_RANK[self.role] >= ROLE_RANK[role]

    def may(self, permission: str) -> bool:
        return self.has(PERMISSIONS[permission][0])

    def described(self) -> str:
        """How the audit trail names this person: who vouches for the name is part of it."""
        if self.kind == "verified":
            extra = self.email if self.email and self.email.casefold() != self.name.casefold() else ""
            return f"{self.name} ({extra}, signed in)" if extra else f"{self.name} (signed in)"
        if self.kind == "operator":
            return f"{self.name} (server operator)"
        if self.kind == "token":
            return f"API token {self.name}"
        return f"{self.name} (unverified label)"

    def audit_fields(self) -> dict[str, Any]:
        """The columns every audit row carries about who acted."""
        return {"reviewer": self.name or "unnamed", "actor_kind": self.kind, "actor_subject": self.subject or None,
                "actor_email": self.email or None, "actor_provider": self.provider or None}

    def same_person(self, row: Mapping[str, Any]) -> bool:
        """Whether an audit row was written by this person: a verified identity is matched by its
        provider and subject; labels and operator names by the name, without regard to case."""
        if row.get("actor_kind") == "verified" or self.kind == "verified":
            return (row.get("actor_kind") == self.kind and bool(self.subject)
                    and row.get("actor_subject") == self.subject
                    and (row.get("actor_provider") or "") == self.provider)
        return (row.get("reviewer") or "").strip().casefold() == self.name.strip().casefold()


def require(actor: Actor | None, permission: str) -> Actor:
    """Refuse unless `actor` may take the action; returns the actor for chaining."""
    needed, what = PERMISSIONS[permission]
    if actor is None:
        raise PermissionRefused(f"sign in to {what}")
    if not actor.name.strip() and (permission in NAMED_PERMISSIONS or actor.kind == "verified"):
        raise PermissionRefused(f"a name is needed to {what}" if actor.kind == "label" else f"sign in to {what}")
    if not actor.has(needed):
        raise PermissionRefused(f"{actor.name} has the {actor.role} role; only a{'n' if needed == 'admin' else ''} "
                                f"{needed} or above may {what}")
    return actor


def operator(name: str | None) -> Actor:
    """The server's operator at the command line: every right, recorded as an operator action."""
    return Actor(name=(name or "").strip() or "operator", role="admin", kind="operator", provider="command line")


def token(name: str, role: str) -> Actor:
    """A system calling the HTTP API: the token's name (unique per store) and the role it was created with."""
    return Actor(name=name, role=role, kind="token", provider="api token")


def local_label(name: str | None, role: str) -> Actor:
    """Local mode: a typed name, recorded as a label, with the operator's local-mode role."""
    return Actor(name=(name or "").strip()[:100], role=role, kind="label", provider="local mode")


def verified(claims: Mapping[str, Any], role: str) -> Actor:
    """A signed-in person: every field comes from the identity provider's claims."""
    email = str(claims.get("email") or "").strip()
    name = str(claims.get("name") or claims.get("preferred_username") or email or claims.get("sub") or "").strip()
    provider = str(claims.get("iss") or claims.get("provider") or "").strip()
    return Actor(name=name, role=role, kind="verified", subject=str(claims.get("sub") or "").strip(),
                 email=email, provider=provider)


def role_for(claims: Mapping[str, Any], *, roles: Mapping[str, str], role_claim: str,
             claim_roles: Mapping[str, str], default_role: str) -> str:
    """The role a signed-in person gets: the highest of what the settings file gives their verified
    e-mail or subject, what the provider's claim (say `groups`) maps to, and the default role.

    Rule: only verified claims count; an e-mail counts only when the provider says it is verified
    (or does not say either way, as many enterprise providers do not)."""
    found = [default_role]
    keys: list[str] = []
    if claims.get("sub"):
        keys.append(str(claims["sub"]).strip().casefold())
    if claims.get("email") and claims.get("email_verified", True) is not False:
        keys.append(str(claims["email"]).strip().casefold())
    by_key = {str(k).strip().casefold(): v for k, v in roles.items()}
    found += [by_key[k] for k in keys if k in by_key]
    if role_claim:
        values = claims.get(role_claim)
        if isinstance(values, str):
            values = [values]
        if isinstance(values, Iterable):
            found += [claim_roles[str(v)] for v in values if str(v) in claim_roles]
    return max((r for r in found if r in ROLE_RANK), key=ROLE_RANK.__getitem__, default="viewer")


LOCAL_ROLE_VARIABLE = "DEBATE_LOCAL_ROLE"


def local_role(environ: Mapping[str, str], secrets: Mapping[str, Any]) -> str:
    """The role everyone has in local mode, chosen by whoever runs the server: the environment
    (DEBATE_LOCAL_ROLE) or `local_role` under `[workbench]` in secrets.toml. Every right by default:
    local mode is one person on their own laptop, or a demo. An unknown value fails closed (viewer),
    never open."""
    section = secrets.get("workbench") if isinstance(secrets.get("workbench"), Mapping) else {}
    value = str(environ.get(LOCAL_ROLE_VARIABLE) or section.get("local_role") or "admin").strip().lower()
    return value if value in ROLE_RANK else "viewer"


DEFAULT_SESSION_HOURS = 12.0


def session_hours(secrets: Mapping[str, Any]) -> float:
    """How long a sign-in stays valid, set by whoever runs the server (`session_hours` under
    `[workbench]` in secrets.toml). Streamlit keeps its identity cookie for 30 days; a team's
    workbench asks again sooner. A value that is not a positive number keeps the default."""
    section = secrets.get("workbench") if isinstance(secrets.get("workbench"), Mapping) else {}
    try:
        hours = float(section.get("session_hours", DEFAULT_SESSION_HOURS))
    except (TypeError, ValueError):
        return DEFAULT_SESSION_HOURS
    return hours if hours > 0 else DEFAULT_SESSION_HOURS


def sign_in_age_exceeded(claims: Mapping[str, Any], *, now: float, max_hours: float) -> bool:
    """Rule: a sign-in older than `max_hours` (from the provider's auth_time, else the token's
    issue time) is refused. A sign-in that carries neither time is refused too: its age is unknown."""
    when = claims.get("auth_time") or claims.get("iat")
    try:
        return now - float(when) > max_hours * 3600
    except (TypeError, ValueError):
        return True
