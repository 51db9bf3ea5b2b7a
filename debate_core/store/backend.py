"""The seam between the store's mixins and the engine under them.

The mixins write portable SQL with `?` placeholders and call a `Backend` for everything else: rows
inserted and upserted by name, the write transaction and its lock, the table names, and the few
pieces of SQL that differ between engines (a boolean counted as 0 or 1, case-insensitive names,
the week of a date, the full-text search). One implementation per engine holds all of its own SQL:
`sqlite_backend.py` (a file path, the default) and `postgres_backend.py` (a `postgresql://` URL).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(location: str | Path | None) -> bool:
    """Whether a database location names a PostgreSQL server rather than a SQLite file."""
    return isinstance(location, str) and location.lower().startswith(POSTGRES_SCHEMES)


def redacted(location: str | Path | None) -> str:
    """A database location as it may be shown: a URL without its password."""
    text = str(location)
    if not is_postgres_url(text):
        return text
    parts = urlsplit(text)
    if parts.password is None:
        return text
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))


_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def unsupported_url(location: str | Path | None) -> str | None:
    """The one-line refusal of a location that is a URL of another scheme (`mysql://`, `sqlite://`),
    None for a file path or a PostgreSQL URL. Checked before anything is created."""
    if not isinstance(location, str) or is_postgres_url(location):
        return None
    m = _URL.match(location)
    if m is None:
        return None
    return (f"cannot open the database: {m.group(1)}:// is not supported "
            "(give a file path for SQLite, or a postgresql:// URL)")


class Cursor(Protocol):
    """What `Backend.execute` returns: sqlite3's cursor, or the rows PostgreSQL answered with."""

    rowcount: int

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Backend(Protocol):
    kind: str  # "sqlite" or "postgres"

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement with `?` placeholders; rows come back as tuples."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Run one query with `?` placeholders; rows come back as dicts."""

    def insert(self, table: str, row: dict[str, Any]) -> Any:
        """Insert one row; returns its key (the generated id of a table keyed by one)."""

    def upsert(self, table: str, rows: list[dict[str, Any]], pk: tuple[str, ...]) -> None:
        """Insert rows, or update the columns they name where the key exists already."""

    def table_names(self) -> list[str]: ...

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction holding the store's write lock; nested, a savepoint."""

    # Dialect: small pieces of SQL the portable queries are built from.
    def flag(self, condition: str) -> str:
        """A condition as 0 or 1, to SUM or AVG."""

    def nocase(self, expr: str) -> str:
        """An expression compared and grouped without regard to case."""

    def greatest(self, a: str, b: str) -> str: ...

    def week_of(self, date_text: str) -> str:
        """The Monday (YYYY-MM-DD) of the week of a YYYY-MM-DD text."""

    def row_key(self) -> str:
        """The column a page of debates is picked by (SQLite's rowid, PostgreSQL's id)."""

    def filter_column(self, searching: bool) -> str:
        """The prefix of a debate column in the history's filters."""

    # Full-text search over a debate's question, answer and claims.
    def search_insert(self, debate_id: str, question: str) -> int: ...

    def search_update(self, debate_id: str, values: dict[str, Any]) -> None:
        """Set the named columns (answer, claims) of a debate's search row."""

    def search_match(self, text: str) -> tuple[str, list[Any]]:
        """A condition on `d` (the debates table) true for debates matching free text, and its parameters."""

    def close(self) -> None: ...
