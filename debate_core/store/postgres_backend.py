"""The PostgreSQL backend (a `postgresql://` URL): psycopg 3 with a connection pool. Every piece
of SQL that is PostgreSQL's own lives here or in `postgres_schema.py` (its migrations).

Each write is one transaction on a connection of the pool, bound to the calling thread so that the
reads inside it see what it wrote; it first takes a transaction-scoped advisory lock, which
serialises writers across every process on the database exactly as SQLite's `BEGIN IMMEDIATE`
does, so a read-then-write (the review's version check, claiming a paused debate) stays true when
written. Reads outside a write run on any pooled connection in autocommit.
"""

from __future__ import annotations

import atexit
import contextlib
import re
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
from psycopg.adapt import Loader
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from .backend import redacted
from .errors import StoreError
from .postgres_schema import PG_MIGRATIONS, SERIAL_TABLES

# The advisory lock every write transaction takes (an arbitrary constant: "debate" in ASCII).
WRITE_LOCK = 0x646562617465


def store_fault(exc: BaseException, url: str, doing: str, timeout: float = 30.0) -> StoreError | None:
    """The readable StoreError for a server, disk or permission fault, or None for any other error
    (a bug should surface as itself)."""
    where = f"the database {redacted(url)}"
    text = " ".join(str(exc).split())
    if isinstance(exc, psycopg.errors.ReadOnlySqlTransaction):
        return StoreError(f"cannot write {where}: it is open read-only")
    if isinstance(exc, psycopg.errors.DiskFull):
        return StoreError(f"cannot write {where}: the server's disk is full")
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return StoreError(f"cannot {doing} {where}: permission denied ({text})")
    if isinstance(exc, psycopg.errors.LockNotAvailable):
        return StoreError(f"cannot {doing} {where}: another process kept it locked for over {timeout:g} s")
    if isinstance(exc, psycopg.OperationalError | PoolTimeout):
        return StoreError(f"cannot {doing} {where}: {text}")
    return None


class _NumberLoader(Loader):
    """numeric as SQLite answers it: an integer when it has no fraction (SUM of bigint), else a float (AVG)."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        return float(text) if ("." in text or "e" in text.lower() or text.isalpha()) else int(text)


def _configure(conn: psycopg.Connection) -> None:
    conn.adapters.register_loader("numeric", _NumberLoader)


_TRANSLATED: dict[str, str] = {}


def translate(sql: str) -> str:
    """`?` placeholders as psycopg's `%s` (a literal `%` doubled). The store's SQL has no `?` inside strings."""
    out = _TRANSLATED.get(sql)
    if out is None:
        out = _TRANSLATED[sql] = sql.replace("%", "%%").replace("?", "%s")
    return out


class Result:
    """The answer of one statement, read in full before its connection went back to the pool."""

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows, self.rowcount = rows, rowcount

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Any]:
        return list(self._rows)


_POOLS: dict[tuple[str, bool], ConnectionPool] = {}
_POOLS_LOCK = threading.Lock()


def _shared_pool(url: str, *, timeout: float, max_size: int, readonly: bool) -> ConnectionPool:
    """The process's pool for this URL (one for readers, one for writers), opened on first use."""
    with _POOLS_LOCK:
        pool = _POOLS.get((url, readonly))
        if pool is not None and not pool.closed:
            return pool
        try:  # one direct connection first: a refused server or bad credentials is one clear line
            psycopg.connect(url, connect_timeout=max(1, int(min(timeout, 10)))).close()
        except psycopg.Error as exc:
            raise StoreError(f"cannot open the database {redacted(url)}: {' '.join(str(exc).split())}") from exc
        kwargs: dict[str, Any] = {"autocommit": True}
        if readonly:  # a reader (`for_reading`) cannot write, whatever it runs
            kwargs["options"] = "-c default_transaction_read_only=on"
        # `check`: a connection is tried before it is handed out, so after the server restarted
        # (a database that went away and came back) the pool makes new ones instead of failing.
        pool = ConnectionPool(url, min_size=1, max_size=max_size, kwargs=kwargs, configure=_configure,
                              timeout=timeout, max_idle=60, open=False, name="debate-store",
                              check=ConnectionPool.check_connection)
        pool.open(wait=True, timeout=timeout)
        _POOLS[(url, readonly)] = pool
        return pool


@atexit.register
def close_pools() -> None:
    """Close every pool of this process (at exit; tests call it to let a database be dropped)."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.close()


class PostgresBackend:
    kind = "postgres"

    def __init__(self, url: str, *, timeout: float = 30.0, max_size: int = 10, readonly: bool = False) -> None:
        self.url = url
        self.timeout = timeout
        self.pool = _shared_pool(url, timeout=timeout, max_size=max_size, readonly=readonly)
        self._local = threading.local()

    # -- statements

    @contextlib.contextmanager
    def _conn(self) -> Iterator[psycopg.Connection]:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with self.pool.connection() as conn:
            yield conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        try:
            with self._conn() as conn, conn.cursor() as cur:
                cur.execute(translate(sql), list(params))
                rows = cur.fetchall() if cur.description else []
                return Result(rows, cur.rowcount)
        except (psycopg.Error, PoolTimeout) as exc:
            raise self._fault(exc, "read") from exc

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        try:
            with self._conn() as conn, conn.cursor(row_factory=dict_row) as cur:
                cur.execute(translate(sql), list(params))
                return cur.fetchall()
        except (psycopg.Error, PoolTimeout) as exc:
            raise self._fault(exc, "read") from exc

    def _fault(self, exc: BaseException, doing: str) -> BaseException:
        """Inside a write, the error as it is (the transaction turns it into a StoreError once); outside, the StoreError."""
        if getattr(self._local, "conn", None) is not None or isinstance(exc, StoreError):
            return exc
        return (store_fault(exc, self.url, doing) if isinstance(exc, psycopg.Error | PoolTimeout) else None) or exc

    def insert(self, table: str, row: dict[str, Any]) -> Any:
        columns = ", ".join(f'"{c}"' for c in row)
        returning = " RETURNING id" if table in SERIAL_TABLES else ""
        result = self.execute(f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' for _ in row)}){returning}",
                              list(row.values()))
        return result.fetchone()[0] if returning else row.get("id")

    def upsert(self, table: str, rows: list[dict[str, Any]], pk: tuple[str, ...]) -> None:
        for row in rows:
            columns = ", ".join(f'"{c}"' for c in row)
            updates = ", ".join(f'"{c}" = excluded."{c}"' for c in row if c not in pk)
            action = f"DO UPDATE SET {updates}" if updates else "DO NOTHING"
            self.execute(f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' for _ in row)}) "
                         f"ON CONFLICT ({', '.join(pk)}) {action}", list(row.values()))

    def table_names(self) -> list[str]:
        return [r[0] for r in self.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename").fetchall()]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        conn = getattr(self._local, "conn", None)
        if conn is not None:  # nested: a savepoint, the outer transaction decides
            with conn.transaction():
                yield
            return
        try:
            with self.pool.connection() as conn:
                self._local.conn = conn
                try:
                    with conn.transaction():
                        # Wait for another writer as long as SQLite's busy timeout would, then give up.
                        conn.execute(f"SET LOCAL lock_timeout = {int(self.timeout * 1000)}")
                        conn.execute("SELECT pg_advisory_xact_lock(%s)", [WRITE_LOCK])
                        yield
                finally:
                    self._local.conn = None
        except (psycopg.Error, PoolTimeout) as exc:
            fault = store_fault(exc, self.url, "write", self.timeout)
            if fault is None:
                raise
            raise fault from exc

    # -- migrations

    def pending_migrations(self) -> list[str]:
        if "_migrations" not in self.table_names():
            return [name for name, _ in PG_MIGRATIONS]
        done = {r[0] for r in self.execute("SELECT name FROM _migrations").fetchall()}
        return [name for name, _ in PG_MIGRATIONS if name not in done]

    def migrate(self, now: str) -> list[str]:
        """Apply the pending migrations in one transaction, under the write lock: several processes
        opening a new database at once migrate it once."""
        applied: list[str] = []
        if not self.pending_migrations():
            return applied
        with self.transaction():
            self.execute("CREATE TABLE IF NOT EXISTS _migrations (name text PRIMARY KEY, applied_at text)")
            done = {r[0] for r in self.execute("SELECT name FROM _migrations").fetchall()}
            for name, statements in PG_MIGRATIONS:
                if name in done:
                    continue
                for statement in statements:
                    self.execute(statement)
                self.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", [name, now])
                applied.append(name)
        return applied

    def ensure_script(self, name: str, marker_table: str, script: str, now: str) -> bool:
        """Run a whole SQL script once per database (another library's schema, such as the job
        queue's), under the write lock, recorded in `_migrations` as `name`. A database that already
        has `marker_table` (set up by that library's own tool) counts as done. True when it ran."""
        with self.transaction():
            self.execute("CREATE TABLE IF NOT EXISTS _migrations (name text PRIMARY KEY, applied_at text)")
            if self.execute("SELECT 1 FROM _migrations WHERE name = ?", [name]).fetchall():
                return False
            if marker_table not in self.table_names():
                # The script as written: several statements and its own placeholders-free text, so it
                # goes through psycopg without parameters (no `?` translation, no extended protocol).
                self._local.conn.execute(script.encode())
            self.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", [name, now])
        return True

    # -- dialect

    def flag(self, condition: str) -> str:
        return f"(({condition})::int)"

    def nocase(self, expr: str) -> str:
        return f"lower({expr})"

    def greatest(self, a: str, b: str) -> str:
        return f"GREATEST({a}, {b})"

    def week_of(self, date_text: str) -> str:
        return f"to_char(date_trunc('week', ({date_text})::date), 'YYYY-MM-DD')"

    def row_key(self) -> str:
        return "id"

    def filter_column(self, searching: bool) -> str:
        return "d."

    # -- full-text search

    def search_insert(self, debate_id: str, question: str) -> int:
        return self.execute("INSERT INTO debate_search (debate_id, question, answer, claims) VALUES (?, ?, '', '') "
                            "RETURNING rowid", [debate_id, " ".join(search_words(question))]).fetchone()[0]

    def search_update(self, debate_id: str, values: dict[str, Any]) -> None:
        self.execute(f"UPDATE debate_search SET {', '.join(f'{k} = ?' for k in values)} "
                     "WHERE rowid = (SELECT search_rowid FROM debates WHERE id = ?)",
                     [*(" ".join(search_words(v or "")) for v in values.values()), debate_id])

    def search_match(self, text: str) -> tuple[str, list[Any]]:
        query = tsquery(text)
        if query is None:
            return "1 = 0", []
        # OFFSET 0 keeps the matches a subquery of their own, answered once from the GIN index: joined
        # into the outer query, the planner would test the words row by row for the rows another
        # filter picked (a reviewer's 882 debates at 10,000: 350 ms instead of 5).
        return (f"d.search_rowid IN (SELECT rowid FROM debate_search WHERE {SEARCH_DOC} @@ to_tsquery('simple', ?) "
                "OFFSET 0)", [query])

    def close(self) -> None:
        """Nothing to close: the pool is the process's, shared by every store on this URL (the app
        opens a store per page run; a new pool each time would connect each time)."""


# The search document exactly as the GIN index of migration 0004 is built on it: the planner uses
# the index only for the same expression, character for character.
SEARCH_DOC = "to_tsvector('simple', coalesce(question, '') || ' ' || coalesce(answer, '') || ' ' || coalesce(claims, ''))"


def search_words(text: str) -> list[str]:
    """Text cut into words as FTS5's default tokenizer (unicode61) cuts it: runs of letters and digits,
    lower-cased, diacritics removed. The search rows hold these words joined by spaces, so PostgreSQL's
    parser finds exactly these words (it would keep `foo@bar.com` or `3.5` whole, and `café` accented)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return re.findall(r"[^\W_]+", plain.casefold())


def tsquery(text: str) -> str | None:
    """Free text as a tsquery matching what `rows.fts_query` matches on FTS5: every word required,
    the last one as a prefix."""
    words = search_words(text)
    if not words:
        return None
    return " & ".join([*words[:-1], f"{words[-1]}:*"])
