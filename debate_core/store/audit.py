"""Who did what outside a debate's review trail: debates and evaluations started, settings and
roles changed. Each row carries the identity as the front end vouched for it (core/identity.py).
The role is checked here, inside the same write as the row, so no front end can skip it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..core.identity import Actor, require
from .connection import StoreConnection

T = TypeVar("T")


class AuditMixin(StoreConnection):
    def _audit_row(self, actor: Actor, action: str, target: str | None, detail: str | None) -> None:
        self.sql.insert("audit", {"ts": self._now(), "action": action, "target": target, "detail": detail,
                                 "role": actor.role, **actor.audit_fields()})

    def record_action(self, actor: Actor | None, action: str, *, permission: str, target: str | None = None,
                      detail: str | None = None, apply: Callable[[], T] | None = None) -> T | None:
        """Check `permission`, run `apply` (the change itself, say saving the settings file) and keep
        an audit row; a refusal (PermissionRefused) or a failing change writes nothing."""
        actor = require(actor, permission)
        with self._write():
            result = apply() if apply is not None else None
            self._audit_row(actor, action, target, detail)
        return result

    def audit_log(self, *, target: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """The latest audit rows, newest first; only those about `target` (a debate or evaluation id) when given."""
        if target is None:
            return list(self.sql.query("SELECT * FROM audit ORDER BY id DESC LIMIT ?", [limit]))
        return list(self.sql.query("SELECT * FROM audit WHERE target = ? ORDER BY id DESC LIMIT ?", [target, limit]))
