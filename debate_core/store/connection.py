"""Opening the database, its errors, and the write transaction every write goes through.

Many processes and threads may write one database at once (CLI runs, the app's worker threads).
Every write is one `BEGIN IMMEDIATE` transaction: it takes the write lock before it reads, waiting
up to the busy timeout, so a read-then-write can never fail with "database is locked" the way a
deferred transaction does under WAL when another writer commits between its read and its write.
A database that cannot be opened or written raises `StoreError` with one line a user can act on.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Self

import sqlite_utils

from .backend import Backend, is_postgres_url, unsupported_url
from .errors import BadLocation, StoreError, StoreMissing, StoreOutdated
from .errors import NotFound as NotFound
from .rows import now
from .sqlite_backend import SQLiteBackend

DEFAULT_DB = Path(__file__).resolve().parent.parent.parent / "data" / "debates.db"

# How long a write waits for another connection's write to finish before giving up. Many debates
# write one file at once, each holding the lock for a millisecond or so; a long wait only happens
# when something holds it abnormally (a stuck process, a slow disk).
DEFAULT_BUSY_TIMEOUT_S = 30.0


def default_db_path() -> Path:
    """The SQLite file `$DEBATE_DB` names, or the default one. A PostgreSQL URL in `$DEBATE_DB` is
    returned as it is (a str): a Path would fold its `//`."""
    location = os.environ.get("DEBATE_DB")
    if is_postgres_url(location) or unsupported_url(location):
        return location  # type: ignore[return-value]
    return Path(location or DEFAULT_DB)


def db_location(location: str | Path | None) -> str | Path:
    """A `--db` value as the store takes it: a URL kept as a str (a PostgreSQL one is opened, any
    other refused by the store in one line), else a file path."""
    if is_postgres_url(location) or unsupported_url(location):
        return str(location)
    return Path(location) if location else default_db_path()


# SQLite's primary result codes (the low byte of an extended code) that describe the database
# or the disk rather than a mistake in the program.
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 10, 11, 13, 14, 26


def _primary_code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def store_error(exc: BaseException, path: Path | None, doing: str = "use",
                busy_timeout: float = DEFAULT_BUSY_TIMEOUT_S) -> StoreError | None:
    """The readable StoreError for a database or disk fault, or None for any other error (a bug
    should surface as itself, not be dressed up as a disk problem)."""
    where = f"the database {path}" if path else "the in-memory database"
    code = _primary_code(exc)
    text = " ".join(str(exc).split())
    if code == _SQLITE_FULL:
        return StoreError(f"cannot write {where}: the disk is full")
    if code == _SQLITE_READONLY:
        return StoreError(f"cannot write {where}: it is read-only (check the permissions of the file and its folder)")
    if code == _SQLITE_NOTADB:
        return StoreError(f"cannot {doing} {where}: the file is not a SQLite database")
    if code == _SQLITE_CORRUPT:
        return StoreError(f"cannot {doing} {where}: it is damaged ({text})")
    if code == _SQLITE_CANTOPEN:
        if path is not None and path.is_dir():
            return StoreError(f"cannot open {where}: it is a directory")
        return StoreError(f"cannot open {where}: the file or its folder cannot be opened or created")
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return StoreError(f"cannot {doing} {where}: another process kept it locked for over {busy_timeout:g} s")
    if code == _SQLITE_IOERR:
        return StoreError(f"cannot {doing} {where}: the disk reported an input/output error "
                          "(it may be full, removed or failing)")
    if code == _SQLITE_PERM:
        return StoreError(f"cannot {doing} {where}: permission denied")
    if code is None and isinstance(exc, sqlite3.DatabaseError) and type(exc) in (
            sqlite3.DatabaseError, sqlite3.OperationalError):
        return StoreError(f"cannot {doing} {where}: {text}")
    return None


def copy_database(source: Path, target: Path, busy_timeout: float = DEFAULT_BUSY_TIMEOUT_S) -> None:
    """Copy a SQLite database, as last committed, to `target` with SQLite's online backup: safe
    while other connections read and write it (under WAL a reader sees the last commit; writers
    wait at most the busy timeout). The copy is a standalone file (journal mode DELETE). On failure
    nothing is left at `target` and StoreError says why in one line."""
    src: sqlite3.Connection | None = None
    copy: sqlite3.Connection | None = None
    try:
        src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=busy_timeout)
        copy = sqlite3.connect(str(target))
        src.backup(copy)
        # A standalone file: the copy would otherwise inherit WAL mode from the source's header.
        copy.execute("PRAGMA journal_mode=DELETE")
    except sqlite3.Error as exc:
        for conn in (copy, src):
            if conn is not None:
                conn.close()
        copy = src = None
        for leftover in (target, target.with_name(target.name + "-journal"),
                         target.with_name(target.name + "-wal"), target.with_name(target.name + "-shm")):
            with contextlib.suppress(OSError):
                leftover.unlink()
        raise StoreError(store_error(exc, target, "write", busy_timeout) or " ".join(str(exc).split())) from exc
    finally:
        for conn in (copy, src):
            if conn is not None:
                conn.close()


# Files (device, inode) that passed quick_check in this process. A replaced file has a new inode
# and is checked again; damage that appears later is still reported by SQLite on the page it hits.
_CHECKED: set[tuple[int, int]] = set()


class StoreConnection:
    """One SQLite connection, shared between threads: writes are serialised by a lock. The schema
    methods (`migrate`, `pending_migrations`) come from `migrations.MigrationsMixin`."""

    def __init__(self, path: str | Path | None = None, *, memory: bool = False, readonly: bool = False,
                 busy_timeout: float = DEFAULT_BUSY_TIMEOUT_S, check: bool = True) -> None:
        """Open (creating and migrating when writable) the database.

        A writable store is checked with `PRAGMA quick_check` before anything writes to it, so a
        damaged file is reported instead of being written into. The check reads the whole file
        (seconds for 10,000 debates, 2.3 GB: bench/store_open.py), so it runs once per file per process; `check=False`
        skips it for callers that only read.

        `migrated` names the migrations this open applied; `backup_path` is the copy of the database
        taken before them (None when none was needed: nothing pending, or a new, empty database)."""
        self.readonly = readonly
        self.busy_timeout = busy_timeout
        location = path if path else os.environ.get("DEBATE_DB")
        refusal = None if memory else unsupported_url(location)
        if refusal:
            raise BadLocation(refusal)
        self.url: str | None = str(location) if is_postgres_url(location) else None
        self.path: Path | None = None if memory or self.url else (Path(path) if path else default_db_path())
        self._lock = threading.RLock()
        self._seq: dict[str, int] = {}
        self.migrated: list[str] = []
        self.backup_path: Path | None = None
        self.sql: Backend
        if self.url is not None:
            from .postgres_backend import PostgresBackend  # psycopg is needed only for a PostgreSQL store

            self.db = None
            self.sql = PostgresBackend(self.url, timeout=busy_timeout, readonly=readonly)
            if not readonly:
                try:
                    self.migrated = self.migrate()
                except BaseException:
                    self.sql.close()
                    raise
            return
        conn = self._connect(memory)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            self.db = sqlite_utils.Database(conn)
            self.sql = SQLiteBackend(self.db, self._lock, self._error)
            if not readonly:
                if check and not memory:
                    self._quick_check()
                if not memory:
                    self._enable_wal()
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.migrated = self.migrate()
        except sqlite3.Error as exc:
            conn.close()
            raise self._error(exc, "open") from exc
        except BaseException:
            conn.close()
            raise

    @classmethod
    def for_reading(cls, path: str | Path | None = None, *,
                    busy_timeout: float = DEFAULT_BUSY_TIMEOUT_S) -> Self:
        """A read-only store for commands that promise not to change the file: it is never created,
        migrated or checked by writing. Raises StoreMissing when the file does not exist or holds no
        tables, StoreOutdated when it needs migrations (a reader may not apply them, and the code
        reads the current schema only), StoreError when it cannot be read.

        SQLite may still create the empty `-wal` and `-shm` files of a WAL database next to it, as any
        reader does when no other connection has them open; the database file itself is untouched."""
        location = path if path else os.environ.get("DEBATE_DB")
        refusal = unsupported_url(location)
        if refusal:
            raise BadLocation(refusal)
        target: Path | str = str(location) if is_postgres_url(location) else (Path(path) if path else default_db_path())
        if isinstance(target, Path) and not target.exists():
            raise StoreMissing(f"the database {target} does not exist yet")
        store = cls(target, readonly=True, busy_timeout=busy_timeout, check=False)
        try:
            tables = store.sql.table_names()
            pending = store.pending_migrations()
        except sqlite3.Error as exc:
            store.close()
            raise store._error(exc, "read") from exc
        if pending:
            store.close()
            if not tables:
                raise StoreMissing(f"the database {target} is empty")
            raise StoreOutdated(target, pending)
        return store

    @property
    def location(self) -> str | Path | None:
        """Where the store is: a PostgreSQL URL, a SQLite file, or None (in memory). Another store
        opened on it (an evaluation's lanes) shares the data."""
        return self.url or self.path

    def ensure_job_queue(self, script: str) -> bool:
        """Set up the job queue's tables (its library's schema script) in a PostgreSQL store, once;
        True when this call set them up. SQLite runs debates in-process and has no queue."""
        if self.url is None:
            raise StoreError("the job queue needs a PostgreSQL store (a postgresql:// database location)")
        return self.sql.ensure_script("job_queue", "procrastinate_jobs", script, self._now())  # type: ignore[attr-defined]

    def pending_migrations(self) -> list[str]:  # pragma: no cover - provided by MigrationsMixin
        raise NotImplementedError

    def migrate(self) -> list[str]:  # pragma: no cover - provided by MigrationsMixin
        raise NotImplementedError

    def _now(self) -> str:
        """The time stamp rows are dated with (the DebateStore facade says why it is a method)."""
        return now()

    def _connect(self, memory: bool) -> sqlite3.Connection:
        if memory:
            return sqlite3.connect(":memory:", check_same_thread=False)
        assert self.path is not None
        if self.path.is_dir():
            raise StoreError(f"cannot open the database {self.path}: it is a directory")
        try:
            if self.readonly:
                return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False,
                                       timeout=self.busy_timeout)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return sqlite3.connect(str(self.path), check_same_thread=False, timeout=self.busy_timeout)
        except OSError as exc:
            raise StoreError(f"cannot create the folder of the database {self.path}: {exc.strerror}") from exc
        except sqlite3.Error as exc:
            raise self._error(exc, "open") from exc

    def _error(self, exc: sqlite3.Error, doing: str) -> BaseException:
        return store_error(exc, self.path, doing, self.busy_timeout) or exc

    def _quick_check(self) -> None:
        assert self.path is not None
        try:
            st = self.path.stat()
            identity: tuple[int, int] | None = (st.st_dev, st.st_ino)
        except OSError:
            identity = None  # a new file: nothing to check yet, and its identity is known only later
        if identity in _CHECKED:
            return
        rows = [r[0] for r in self.db.execute("PRAGMA quick_check").fetchall()]
        if rows == ["ok"]:
            if identity is not None:
                _CHECKED.add(identity)
            return
        # Each problem may span lines and starts with a "*** in database main ***" banner.
        problems = [line.strip() for row in rows for line in str(row).splitlines()
                    if line.strip() and not line.startswith("***")] or ["unknown problem"]
        more = f" and {len(problems) - 1} more problems" if len(problems) > 1 else ""
        raise StoreError(f"cannot open the database {self.path}: it is damaged (quick_check: {problems[0]}{more})")

    def _enable_wal(self) -> None:
        # Switching a new file to WAL needs the file to itself for a moment; when many processes
        # open a new file at once SQLite may answer "locked" without waiting, so wait here.
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                self.db.enable_wal()
                return
            except sqlite3.OperationalError as exc:
                if _primary_code(exc) not in (_SQLITE_BUSY, _SQLITE_LOCKED) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _write(self) -> contextlib.AbstractContextManager[None]:
        """One write transaction holding the store's write lock (the backend says how); a database
        or disk fault becomes a StoreError and nothing of the transaction is kept."""
        return self.sql.transaction()

    def close(self) -> None:
        self.sql.close()
