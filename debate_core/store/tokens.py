"""API tokens: how another system calls the HTTP API (debate_core/api/) with a role.

Only the SHA-256 of a token is kept, so a copy of the database gives no way in; the token itself is
shown once, when it is created. A token is looked up by that hash and acts as a `token` actor
(core/identity.py) with the role it was created with, through the same permission checks as a
signed-in person. Creating and revoking a token are audited and need the admin role."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime
from typing import Any

from ..core.identity import ROLES, Actor, require, token
from .audit import AuditMixin

TOKEN_PREFIX = "dbt_"  # recognisable in logs and secret scanners
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$")
# last_used_at is a hint for whoever reviews the tokens, not a log: written at most once a minute
# per token, so a busy caller does not turn every read into a write.
LAST_USED_EVERY_S = 60.0


class TokenError(ValueError):
    """A token cannot be created or revoked as asked (bad name or role, a name in use, none by that name)."""


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class TokensMixin(AuditMixin):
    def create_token(self, *, name: str, role: str, actor: Actor | None) -> str:
        """Create a token and return it; only its hash is stored. Needs the admin role."""
        actor = require(actor, "manage_roles")
        name = (name or "").strip()
        if not NAME_PATTERN.match(name):
            raise TokenError("the token name must be 1 to 64 letters, digits, spaces, dots, dashes or underscores")
        if role not in ROLES:
            raise TokenError(f"unknown role {role!r}; choose from {', '.join(ROLES)}")
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self._write():
            # Checked under the write lock, so two creations with one name cannot both pass.
            if self.sql.query("SELECT name FROM api_tokens WHERE name = ?", [name]):
                raise TokenError(f"a token named {name!r} exists already; choose another name or revoke it")
            self.sql.insert("api_tokens", {"name": name, "token_hash": token_hash(secret), "role": role,
                                           "created_at": self._now(), "created_by": actor.described(),
                                           "last_used_at": None, "revoked_at": None})
            self._audit_row(actor, "create token", name, f"role {role}")
        return secret

    def list_tokens(self) -> list[dict[str, Any]]:
        """Every token, revoked ones included, oldest first: never the secret nor its hash."""
        return list(self.sql.query("SELECT name, role, created_at, created_by, last_used_at, revoked_at "
                                   "FROM api_tokens ORDER BY created_at, name"))

    def revoke_token(self, name: str, *, actor: Actor | None) -> bool:
        """Revoke the token named `name`; False when there is none by that name or it was revoked already."""
        actor = require(actor, "manage_roles")
        with self._write():
            cur = self.sql.execute("UPDATE api_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                                   [self._now(), (name or "").strip()])
            if not cur.rowcount:
                return False
            self._audit_row(actor, "revoke token", name.strip(), None)
        return True

    def token_actor(self, secret: str | None) -> Actor | None:
        """Who a presented token acts as; None for a missing, unknown or revoked token."""
        if not secret or not secret.startswith(TOKEN_PREFIX):
            return None
        rows = self.sql.query("SELECT name, role, last_used_at FROM api_tokens "
                              "WHERE token_hash = ? AND revoked_at IS NULL", [token_hash(secret)])
        if not rows:
            return None
        row = rows[0]
        now = self._now()
        if not row["last_used_at"] or _seconds_between(row["last_used_at"], now) >= LAST_USED_EVERY_S:
            with self._write():
                self.sql.execute("UPDATE api_tokens SET last_used_at = ? WHERE name = ?", [now, row["name"]])
        return token(row["name"], row["role"])


def _seconds_between(earlier: str, later: str) -> float:
    try:
        return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()
    except ValueError:
        return LAST_USED_EVERY_S
