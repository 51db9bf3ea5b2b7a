"""The store: the only package that writes SQL, on SQLite (a file path, the default) or PostgreSQL
(a `postgresql://` URL, psycopg 3 with a connection pool).

One class, `DebateStore`, owns the database. It is a facade composed of one mixin per concern, each
in its module; the mixins write portable SQL and call a backend (`backend.Backend`) for the rest:

- `backend`: the interface; `sqlite_backend` (sqlite-utils, WAL, FTS5) and `postgres_backend`
  (pooled connections, an advisory write lock, tsvector search) hold all SQL of their engine, with
  `migrations` (SQLite's schema changes) and `postgres_schema` (PostgreSQL's);
- `connection`: opening either engine, the quick check, errors a user can act on, the write transaction;
- `migrations`: the registered schema changes, applied (after a backup) when a store opens writable;
- `projection`: a debate's row, and every engine event recorded into rows as it happens;
- `steering`: pause and stop requests, continuing a paused debate, interventions, forks;
- `queries`: reading debates back, the history's filters and search, the analytics figures;
- `reviews`: review actions and annotations, written as the rules of `review.py` allow;
- `assignment`: who a debate waiting for a human is assigned to, and each person's queue;
- `evaluations`: evaluation runs and their rows;
- `tokens`: the HTTP API's tokens, kept as hashes, and who each one acts as;
- `webhooks`: the endpoints admins registered and the outbox of deliveries to them;
- `audit`: who started debates and evaluations and changed settings or roles, checked against their role;
- `rows`: how values are written into columns and read back.

Every engine event is persisted as it happens (the store is the engine's event sink), so a crash
loses at most the call in flight and live pages only read the store. The store knows no engine and
no protocol: a protocol's output arrives already projected into claim and critique rows.
"""

from __future__ import annotations

from ..core.events import EventSink
from ..core.review_rules import REVIEW_ACTIONS, REVIEW_STATES, SUPERVISOR_ACTIONS, ReviewConflict, ReviewError
from .assignment import QUEUE_STATES, Assignee, AssignmentMixin, actor_key, current_assignee
from .audit import AuditMixin
from .backend import is_postgres_url, redacted, unsupported_url
from .connection import _CHECKED as _CHECKED  # bench/store_open.py empties it to time a first open
from .connection import (
    DEFAULT_BUSY_TIMEOUT_S,
    DEFAULT_DB,
    BadLocation,
    NotFound,
    StoreError,
    StoreMissing,
    StoreOutdated,
    db_location,
    default_db_path,
    store_error,
)
from .evaluations import EvaluationsMixin
from .migrations import MIGRATIONS, Migration, MigrationsMixin, migration
from .migrations import _m0001 as _m0001  # tests/test_store.py builds a first-version database with it
from .reviews import ReviewsMixin
from .rows import now as _now
from .steering import STEERING_ACTIONS, SteeringMixin
from .tokens import TOKEN_PREFIX, TokenError, TokensMixin
from .webhooks import WebhooksMixin

__all__ = ["QUEUE_STATES", "Assignee", "actor_key", "current_assignee", "DEFAULT_BUSY_TIMEOUT_S", "DEFAULT_DB", "BadLocation", "MIGRATIONS", "REVIEW_ACTIONS", "REVIEW_STATES",
           "STEERING_ACTIONS", "SUPERVISOR_ACTIONS", "TOKEN_PREFIX", "TokenError", "DebateStore", "Migration", "NotFound", "ReviewConflict",
           "ReviewError", "StoreError", "StoreMissing", "StoreOutdated", "db_location", "default_db_path", "is_postgres_url", "redacted", "unsupported_url", "migration",
           "store_error"]


class DebateStore(SteeringMixin, ReviewsMixin, AssignmentMixin, EvaluationsMixin, TokensMixin, WebhooksMixin,
                  AuditMixin, MigrationsMixin, EventSink):
    """Owns one SQLite database. Safe to share between threads: writes are serialised by a lock.

    `DebateStore(path)` opens the database writable, checking and migrating it;
    `DebateStore.for_reading(path)` opens it for commands that must not change the file."""

    # The clock and the migration list are looked up in this package when called, not bound in the
    # modules that use them, so they can be replaced here: bench/store_fill.py dates rows by its own
    # clock through `debate_core.store._now`, and tests/test_store_upgrade.py stands in for an older
    # program by replacing `debate_core.store.MIGRATIONS`.
    def _now(self) -> str:
        return _now()

    def _registered_migrations(self) -> list[tuple[str, Migration]]:
        return MIGRATIONS
