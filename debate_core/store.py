"""The SQLite store: the only module that writes SQL.

One class owns the database (sqlite-utils, WAL). Schema changes are registered migrations. Every
engine event is persisted as it happens (the store is the engine's event sink), so a crash loses
at most the call in flight and live pages only read the store. Review actions are an append-only
audit trail guarded by an optimistic version check, so two reviewers acting on the same debate at
once cannot both win; who may take which action is decided in `review.py`.

Many processes and threads may write one database at once (CLI runs, the app's worker threads).
Every write is one `BEGIN IMMEDIATE` transaction: it takes the write lock before it reads, waiting
up to the busy timeout, so a read-then-write can never fail with "database is locked" the way a
deferred transaction does under WAL when another writer commits between its read and its write.
A database that cannot be opened or written raises `StoreError` with one line a user can act on.

Opening a store writable migrates it. Before a migration changes a database that already holds a
schema, the database is copied next to itself with SQLite's online backup API, so an upgrade that
goes wrong, or a newer schema an older program cannot read, costs nothing. Readers that must not
change the file (`DebateStore.for_reading`) never migrate: they refuse a database that needs it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

from . import annotations as annotation_rules
from . import review as review_rules
from .events import TRANSIENT_EVENTS, Event, EventSink
from .ids import new_debate_id
from .review import (
    REVIEW_ACTIONS,
    REVIEW_STATES,
    SUPERVISOR_ACTIONS,
    ReviewConflict,
    ReviewError,
    ReviewRequest,
)
from .schemas import Case

DEFAULT_DB = Path(__file__).resolve().parent.parent / "data" / "debates.db"

__all__ = ["REVIEW_ACTIONS", "REVIEW_STATES", "SUPERVISOR_ACTIONS", "DebateStore", "NotFound", "ReviewConflict",
           "ReviewError", "StoreError", "StoreMissing", "StoreOutdated", "default_db_path"]

log = logging.getLogger(__name__)

# How long a write waits for another connection's write to finish before giving up. Many debates
# write one file at once, each holding the lock for a millisecond or so; a long wait only happens
# when something holds it abnormally (a stuck process, a slow disk).
DEFAULT_BUSY_TIMEOUT_S = 30.0


def default_db_path() -> Path:
    return Path(os.environ.get("DEBATE_DB") or DEFAULT_DB)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _load(value: Any, default: Any = None) -> Any:
    if value is None or value == "":
        return default
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return default


class NotFound(KeyError):
    pass


class StoreError(Exception):
    """The database cannot be opened or written. The message is one plain line naming the file."""


class StoreMissing(StoreError):
    """A read-only open of a database that does not exist yet, or holds no tables: nothing is stored."""


class StoreOutdated(StoreError):
    """A read-only open of a database written by an older version: it needs migrations that a reader
    may not apply. `pending` names them; a writable open (the CLI's `upgrade`) applies them."""

    def __init__(self, path: Path, pending: list[str]) -> None:
        self.path, self.pending = path, pending
        super().__init__(f"the database {path} was written by an older version of this program "
                         f"(schema changes not applied yet: {', '.join(pending)})")


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


# ---------------------------------------------------------------------------
# Migrations
# ---------------------------------------------------------------------------

Migration = Callable[[sqlite_utils.Database], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(name: str) -> Callable[[Migration], Migration]:
    def deco(fn: Migration) -> Migration:
        MIGRATIONS.append((name, fn))
        return fn

    return deco


@migration("0001_initial")
def _m0001(db: sqlite_utils.Database) -> None:
    db["cases"].create(
        {"id": str, "title": str, "question": str, "domain_hint": str, "data": str, "created_at": str},
        pk="id",
    )
    db["debates"].create(
        {
            "id": str, "case_id": str, "title": str, "question": str, "protocol": str, "provider": str,
            "model": str, "provider_config": str, "settings": str, "case_json": str, "status": str,
            "created_at": str, "updated_at": str, "finished_at": str, "rounds": int, "converged": int,
            "convergence_reason": str, "verdict": str, "needs_human_review": int, "final_answer": str,
            "confidence": float, "review_state": str, "reviewed_by": str, "version": int, "error": str,
            "failed_step": str, "calls": int, "input_tokens": int, "output_tokens": int, "trajectory": str,
            "agent_usage": str, "result": str, "summary": str, "warnings": str, "resumed_from": str,
        },
        pk="id",
        defaults={"version": 0, "review_state": "pending", "status": "running"},
    )
    db["steps"].create(
        {
            "debate_id": str, "step_id": str, "call": int, "seq": int, "round": int, "stage": str,
            "agent": str, "target": str, "status": str, "model": str, "prompt": str, "raw_output": str,
            "output": str, "input_tokens": int, "output_tokens": int, "latency_ms": float, "attempts": int,
            "errors": str, "error": str, "started_at": str, "finished_at": str,
        },
        pk=("debate_id", "step_id", "call"),
    )
    db["events"].create(
        {"id": int, "debate_id": str, "ts": float, "kind": str, "step_id": str, "data": str}, pk="id"
    )
    db["reviews"].create(
        {
            "id": int, "debate_id": str, "ts": str, "reviewer": str, "role": str, "action": str,
            "state_before": str, "state_after": str, "answer_before": str, "answer_after": str, "reason": str,
        },
        pk="id",
    )
    db["claims"].create(
        {
            "debate_id": str, "step_id": str, "round": int, "agent": str, "claim_id": str, "statement": str,
            "evidence": str, "confidence": float, "verified": int, "unverified_evidence": str,
        },
        pk=("debate_id", "step_id", "claim_id"),
    )
    db["critiques"].create(
        {
            "debate_id": str, "step_id": str, "call": int, "round": int, "critic": str, "target": str,
            "critique_id": str, "target_claim_id": str, "issue_type": str, "severity": str,
            "description": str, "suggested_fix": str,
        },
        pk=("debate_id", "step_id", "call", "critique_id"),
    )
    db["steps"].create_index(["debate_id", "seq"])
    db["events"].create_index(["debate_id", "id"])
    db["reviews"].create_index(["debate_id", "id"])
    db["debates"].create_index(["created_at"])
    db["debates"].create_index(["protocol", "created_at"])
    db["debates"].create_index(["status"])
    db["debates"].create_index(["review_state"])
    db["claims"].create_index(["debate_id"])
    db["critiques"].create_index(["debate_id"])
    # Full-text index over what reviewers search for: questions, answers and claims.
    db.execute(
        "CREATE VIRTUAL TABLE debate_search USING fts5(debate_id UNINDEXED, question, answer, claims)"
    )


@migration("0002_list_and_search_indexes")
def _m0002(db: sqlite_utils.Database) -> None:
    """Keep listing and search instant as history grows (bench/store_scale.py measures it).

    A debate row is wide (its case, result and summary JSON spill over several pages), so every
    filter and the date ordering must be answerable from an index without reading the row. The
    full-text row of a debate is found by its rowid, kept in `debates.search_rowid`: matching by the
    unindexed `debate_id` column scans the whole search table."""
    db["debates"].add_column("search_rowid", int)
    rows = db.execute("SELECT rowid, debate_id FROM debate_search").fetchall()
    db.conn.executemany("UPDATE debates SET search_rowid = ? WHERE id = ?", rows)
    db["debates"].create_index(["created_at", "id"])
    db["debates"].create_index(["protocol", "created_at", "id"])
    db["debates"].create_index(["status", "needs_human_review", "created_at", "id"])
    db["debates"].create_index(["review_state", "created_at", "id"])
    # Search with any filter is answered from this one index: the match, the order and the filters.
    db["debates"].create_index(
        ["search_rowid", "created_at", "id", "protocol", "status", "needs_human_review", "review_state"]
    )
    db["reviews"].create_index(["reviewer", "debate_id"])
    # Every column the per-protocol analytics read, so the Analytics page never scans the table.
    db["debates"].create_index(["protocol", "status", "needs_human_review", "converged", "rounds", "review_state",
                                "input_tokens", "output_tokens"])


@migration("0004_step_reply_cap")
def _m0004(db: sqlite_utils.Database) -> None:
    """The reply cap (tokens) a step's calls were sent with."""
    db["steps"].add_column("reply_cap", int)


@migration("0005_step_live_output")
def _m0005(db: sqlite_utils.Database) -> None:
    """A running step's reply so far (streamed), its token count and pace, for live views."""
    db["steps"].add_column("partial_output", str)
    db["steps"].add_column("partial_tokens", int)
    db["steps"].add_column("tokens_per_s", float)


@migration("0006_annotations")
def _m0006(db: sqlite_utils.Database) -> None:
    """Reviewers' labels on single claims and critiques (debate_core/annotations.py), append-only:
    a later label by the same reviewer on the same item supersedes theirs in the figures, and
    every one stays readable. An item is pinned by its stored row (step, call, id)."""
    db["annotations"].create(
        {
            "id": int, "debate_id": str, "ts": str, "reviewer": str, "kind": str, "ref": str, "step_id": str,
            "call": int, "round": int, "agent": str, "target": str, "item_id": str, "label": str,
            "severity": str, "item_severity": str, "comment": str,
        },
        pk="id",
    )
    db["annotations"].create_index(["debate_id", "id"])
    db["annotations"].create_index(["kind", "debate_id", "step_id", "call", "item_id", "reviewer"])
    db["annotations"].create_index(["reviewer"])
    # The Analytics page prices each protocol's tokens by model without reading the wide debate rows.
    db["debates"].create_index(["protocol", "model", "input_tokens", "output_tokens"])


@migration("0008_evaluations")
def _m0008(db: sqlite_utils.Database) -> None:
    """Evaluation runs (debate_core/evaluation.py): one row per evaluation with its settings, progress
    and summary, and one row per run (case x method x repeat) naming the stored debate it ran."""
    db["evaluations"].create(
        {
            "id": str, "created_at": str, "updated_at": str, "finished_at": str, "status": str, "protocol": str,
            "methods": str, "cases": str, "settings": str, "total_runs": int, "done_runs": int, "tokens": int,
            "summary": str, "error": str,
        },
        pk="id",
        defaults={"status": "running", "done_runs": 0, "tokens": 0},
    )
    db["evaluation_rows"].create(
        {
            "evaluation_id": str, "seq": int, "case_id": str, "method": str, "repeat": int, "debate_id": str,
            "status": str, "right": int, "flagged": int, "silent_wrong": int, "over_flagged": int, "tokens": int,
            "cost": float, "wall_ms": float, "data": str,
        },
        pk=("evaluation_id", "case_id", "method", "repeat"),
    )
    db["evaluations"].create_index(["created_at", "id"])
    db["evaluation_rows"].create_index(["evaluation_id", "seq"])


@migration("0009_steering")
def _m0009(db: sqlite_utils.Database) -> None:
    """Steering (debate_core/steering.py): a pending pause or stop request, where a paused debate
    stands, a fork's parent and the round it forked from, and which of a fork's steps were reused
    from its parent without a model call."""
    db["debates"].add_column("control", str)
    db["debates"].add_column("paused_at", str)
    db["debates"].add_column("paused_round", int)
    db["debates"].add_column("next_round", int)
    db["debates"].add_column("parent_id", str)
    db["debates"].add_column("fork_round", int)
    db["steps"].add_column("reused_from", str)
    db["debates"].create_index(["parent_id"])


# Audit rows of steering actions: they change no review state, so an undo passes over them.
STEERING_ACTIONS = ("pause", "stop", "continue", "intervene", "fork")


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------


# Files (device, inode) that passed quick_check in this process. A replaced file has a new inode
# and is checked again; damage that appears later is still reported by SQLite on the page it hits.
_CHECKED: set[tuple[int, int]] = set()


class DebateStore(EventSink):
    """Owns one SQLite database. Safe to share between threads: writes are serialised by a lock."""

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
        self.path: Path | None = None if memory else (Path(path) if path else default_db_path())
        self._lock = threading.RLock()
        self._seq: dict[str, int] = {}
        self.migrated: list[str] = []
        self.backup_path: Path | None = None
        conn = self._connect(memory)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            self.db = sqlite_utils.Database(conn)
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
                    busy_timeout: float = DEFAULT_BUSY_TIMEOUT_S) -> DebateStore:
        """A read-only store for commands that promise not to change the file: it is never created,
        migrated or checked by writing. Raises StoreMissing when the file does not exist or holds no
        tables, StoreOutdated when it needs migrations (a reader may not apply them, and the code
        reads the current schema only), StoreError when it cannot be read.

        SQLite may still create the empty `-wal` and `-shm` files of a WAL database next to it, as any
        reader does when no other connection has them open; the database file itself is untouched."""
        target = Path(path) if path else default_db_path()
        if not target.exists():
            raise StoreMissing(f"the database {target} does not exist yet")
        store = cls(target, readonly=True, busy_timeout=busy_timeout, check=False)
        try:
            tables = store.db.table_names()
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

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction. BEGIN IMMEDIATE takes the write lock first (waiting up to the busy
        timeout), so everything read inside is still true when it is written. A database or disk
        fault becomes a StoreError and nothing of the transaction is kept."""
        with self._lock:
            if self.db.conn.in_transaction:
                # Inside a caller's own transaction (a bulk fill batching many writes into one
                # commit): nest as a savepoint; the caller's commit decides.
                with self.db.atomic():
                    yield
                return
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._error(exc, "write") from exc
            try:
                yield
                self.db.conn.commit()
            except sqlite3.Error as exc:
                self._rollback()
                raise self._error(exc, "write") from exc
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        try:
            self.db.conn.rollback()
        except sqlite3.Error:  # the fault that got us here may have ended the transaction already
            pass

    # -- schema ---------------------------------------------------------------
    def pending_migrations(self) -> list[str]:
        """The registered migrations this database has not had yet, in the order they apply."""
        if "_migrations" not in self.db.table_names():
            return [name for name, _ in MIGRATIONS]
        done = {r[0] for r in self.db.execute("SELECT name FROM _migrations").fetchall()}
        return [name for name, _ in MIGRATIONS if name not in done]

    def migrate(self) -> list[str]:
        """Apply the pending migrations, in one transaction; a database that already holds a schema
        is first copied next to itself (`backup_path`). Returns the names applied."""
        applied: list[str] = []
        with self._lock:
            if not self.pending_migrations():
                return applied
            # Several processes may open a new file at once: the one that gets the write lock
            # migrates, the others wait for it and then find nothing left to do.
            with self._write():
                existing = self.db.table_names()
                if "_migrations" not in existing:
                    self.db["_migrations"].create({"name": str, "applied_at": str}, pk="name")
                done = {r[0] for r in self.db.execute("SELECT name FROM _migrations").fetchall()}
                todo = [(name, fn) for name, fn in MIGRATIONS if name not in done]
                if todo and existing and self.path is not None:
                    # Taken under the write lock, before the first change: the copy is exactly the
                    # database the migrations start from, and no other writer slips in between.
                    self.backup_path = self._backup_before_migrating()
                for name, fn in todo:
                    fn(self.db)
                    self.db["_migrations"].insert({"name": name, "applied_at": _now()})
                    applied.append(name)
            if applied and self.backup_path is not None:
                log.warning("upgraded the database %s (%s); the copy from before is %s",
                            self.path, ", ".join(applied), self.backup_path)
        return applied

    def _backup_before_migrating(self) -> Path:
        """Copy the database, as last committed, to `<name>.backup-<UTC time>` next to it.

        SQLite's backup cannot read through a connection in a write transaction, and this one holds
        the write lock, so a second, read-only connection reads the copy: under WAL a reader sees the
        last commit while the lock stays ours. Writers of other processes wait meanwhile (up to the
        busy timeout); the copy is as fast as the disk, a few seconds per GB."""
        assert self.path is not None
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.path.with_name(f"{self.path.name}.backup-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.name}.backup-{stamp}-{n}")
        source: sqlite3.Connection | None = None
        copy: sqlite3.Connection | None = None
        try:
            source = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=self.busy_timeout)
            copy = sqlite3.connect(str(target))
            source.backup(copy)
            # A standalone file: the copy would otherwise inherit WAL mode from the source's header.
            copy.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.Error as exc:
            for conn in (copy, source):
                if conn is not None:
                    conn.close()
            copy = source = None
            for leftover in (target, target.with_name(target.name + "-journal"),
                             target.with_name(target.name + "-wal"), target.with_name(target.name + "-shm")):
                with contextlib.suppress(OSError):
                    leftover.unlink()
            line = store_error(exc, target, "write", self.busy_timeout) or " ".join(str(exc).split())
            raise StoreError(f"the database {self.path} was not upgraded: its backup failed ({line})") from exc
        finally:
            for conn in (copy, source):
                if conn is not None:
                    conn.close()
        return target

    def close(self) -> None:
        self.db.close()

    # -- cases and debates ------------------------------------------------------
    def create_debate(
        self,
        case: Case,
        protocol: str,
        provider_config: dict[str, Any],
        settings: dict[str, Any],
        debate_id: str | None = None,
        resumed_from: str | None = None,
        parent_id: str | None = None,
        fork_round: int | None = None,
    ) -> str:
        debate_id = debate_id or new_debate_id()
        now = _now()
        with self._write():
            self.db["cases"].upsert(
                {
                    "id": case.id, "title": case.title, "question": case.question,
                    "domain_hint": case.domain_hint, "data": case.model_dump_json(), "created_at": now,
                },
                pk="id",
            )
            search_rowid = self.db.execute(
                "INSERT INTO debate_search (debate_id, question, answer, claims) VALUES (?, ?, '', '')",
                [debate_id, case.question],
            ).lastrowid
            self.db["debates"].insert(
                {
                    "id": debate_id, "case_id": case.id, "title": case.title, "question": case.question,
                    "protocol": protocol, "provider": provider_config.get("provider"),
                    "model": provider_config.get("model"), "provider_config": _dump(provider_config),
                    "settings": _dump(settings), "case_json": case.model_dump_json(), "status": "running",
                    "created_at": now, "updated_at": now, "version": 0, "review_state": "pending",
                    "calls": 0, "input_tokens": 0, "output_tokens": 0, "resumed_from": resumed_from,
                    "search_rowid": search_rowid, "parent_id": parent_id, "fork_round": fork_round,
                }
            )
        return debate_id

    # -- the event sink -----------------------------------------------------------
    def record(self, debate_id: str, event: Event) -> None:
        with self._write():
            if event.kind not in TRANSIENT_EVENTS:
                # Plain SQL: sqlite-utils' insert rebuilds its query on every call, which costs more
                # than the write itself when many debates record events at once (bench/eval_concurrency.py).
                self.db.execute(
                    "INSERT INTO events (debate_id, ts, kind, step_id, data) VALUES (?, ?, ?, ?, ?)",
                    [debate_id, event.ts, event.kind, event.step_id, _dump(_event_payload(event))])
            handler = getattr(self, f"_on_{event.kind}", None)
            if handler:
                handler(debate_id, event)
            self.db.execute("UPDATE debates SET updated_at = ? WHERE id = ?", [_now(), debate_id])

    def _next_seq(self, debate_id: str) -> int:
        if debate_id not in self._seq:
            row = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM steps WHERE debate_id = ?", [debate_id]).fetchone()
            self._seq[debate_id] = row[0]
        self._seq[debate_id] += 1
        return self._seq[debate_id]

    def _on_turn_started(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        row = {
            "debate_id": debate_id, "step_id": ev.step_id, "call": d.get("call", 1),
            "seq": self._next_seq(debate_id), "round": d.get("round"), "stage": d.get("stage"),
            "agent": d.get("agent"), "target": d.get("target"), "status": "running",
            "model": d.get("model"), "prompt": _dump(d.get("prompt")), "started_at": _now(),
            "reply_cap": d.get("reply_cap"),
        }
        # An upsert in plain SQL (see `record`): a step started again replaces the columns named here.
        columns = ", ".join(row)
        updates = ", ".join(f"{k} = excluded.{k}" for k in row if k not in ("debate_id", "step_id", "call"))
        self.db.execute(
            f"INSERT INTO steps ({columns}) VALUES ({', '.join('?' for _ in row)}) "
            f"ON CONFLICT (debate_id, step_id, call) DO UPDATE SET {updates}", list(row.values()))

    def _on_turn_progress(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        self.db.execute(
            """UPDATE steps SET partial_output = ?, partial_tokens = ?, tokens_per_s = ?
               WHERE debate_id = ? AND step_id = ? AND call = ? AND status = 'running'""",
            [d.get("text"), d.get("tokens"), d.get("tokens_per_s"), debate_id, ev.step_id, d.get("call", 1)],
        )

    def _on_turn_finished(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        call = d.get("call", 1)
        self.db.execute(
            """UPDATE steps SET status = 'ok', raw_output = ?, output = ?, input_tokens = ?, output_tokens = ?,
               latency_ms = ?, attempts = ?, errors = ?, model = COALESCE(?, model), finished_at = ?,
               reused_from = ?
               WHERE debate_id = ? AND step_id = ? AND call = ?""",
            [d.get("raw"), _dump(d.get("output")), d.get("input_tokens"), d.get("output_tokens"),
             d.get("latency_ms"), d.get("attempts"), _dump(d.get("errors") or []), d.get("model"), _now(),
             d.get("reused_from"), debate_id, ev.step_id, call],
        )
        self._add_usage(debate_id, d)
        step = self.db.execute(
            "SELECT stage, round, agent, target FROM steps WHERE debate_id = ? AND step_id = ? AND call = ?",
            [debate_id, ev.step_id, call],
        ).fetchone()
        if not step:
            return
        _stage, round_no, agent, target = step
        # The protocol's spec projected its output into these rows (the runtime hands them over in
        # the event), so the store keeps claims and critiques without knowing any protocol's stages.
        claims = d.get("claims_rows") or []
        if claims:
            self.db["claims"].upsert_all(
                [
                    {
                        "debate_id": debate_id, "step_id": ev.step_id, "round": round_no, "agent": agent,
                        "claim_id": c.get("claim_id"), "statement": c.get("statement"),
                        "evidence": _dump(c.get("evidence") or []), "confidence": c.get("confidence"),
                        "verified": int(bool(c.get("verified", True))),
                        "unverified_evidence": _dump(c.get("unverified_evidence") or []),
                    }
                    for c in claims
                ],
                pk=("debate_id", "step_id", "claim_id"),
            )
        critiques = d.get("critiques_rows") or []
        if critiques:
            self.db["critiques"].upsert_all(
                [
                    {
                        "debate_id": debate_id, "step_id": ev.step_id, "call": call, "round": round_no,
                        "critic": agent, "target": target, "critique_id": c.get("critique_id"),
                        "target_claim_id": c.get("target_claim_id"), "issue_type": c.get("issue_type"),
                        "severity": c.get("severity"), "description": c.get("description"),
                        "suggested_fix": c.get("suggested_fix"),
                    }
                    for c in critiques
                ],
                pk=("debate_id", "step_id", "call", "critique_id"),
            )

    def _on_turn_failed(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        self.db.execute(
            """UPDATE steps SET status = 'failed', raw_output = ?, error = ?, attempts = ?, errors = ?,
               input_tokens = ?, output_tokens = ?, finished_at = ?
               WHERE debate_id = ? AND step_id = ? AND call = ?""",
            [d.get("raw"), d.get("error"), d.get("attempts"), _dump(d.get("errors") or []),
             d.get("input_tokens"), d.get("output_tokens"), _now(), debate_id, ev.step_id, d.get("call", 1)],
        )
        self._add_usage(debate_id, d)

    def _add_usage(self, debate_id: str, d: dict[str, Any]) -> None:
        self.db.execute(
            """UPDATE debates SET calls = calls + ?, input_tokens = input_tokens + ?,
               output_tokens = output_tokens + ? WHERE id = ?""",
            [d.get("calls") or 0, d.get("input_tokens") or 0, d.get("output_tokens") or 0, debate_id],
        )

    def _on_completed(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        verdict = d.get("verdict") or {}
        now = _now()
        self.db.execute(
            """UPDATE debates SET status = 'completed', finished_at = ?, rounds = ?, converged = ?,
               convergence_reason = ?, verdict = ?, needs_human_review = ?, final_answer = ?, confidence = ?,
               trajectory = ?, agent_usage = ?, result = ?, summary = ?, warnings = ?, error = NULL,
               failed_step = NULL, control = NULL, paused_at = NULL, next_round = NULL WHERE id = ?""",
            [now, d.get("rounds"), int(bool(d.get("converged"))), d.get("convergence_reason"), _dump(verdict),
             int(bool(verdict.get("needs_human_review"))), verdict.get("answer"), verdict.get("confidence"),
             _dump(d.get("trajectory") or []), _dump(d.get("agent_usage") or {}), _dump(d.get("result") or {}),
             _dump(d.get("summary") or {}), _dump(d.get("warnings") or []), debate_id],
        )
        claims_text = " ".join(
            r[0] for r in self.db.execute("SELECT statement FROM claims WHERE debate_id = ?", [debate_id]).fetchall()
            if r[0]
        )
        self.db.execute(
            f"UPDATE debate_search SET answer = ?, claims = ? WHERE rowid = {_SEARCH_ROW}",
            [verdict.get("answer") or "", claims_text, debate_id],
        )

    def _on_failed(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        self.db.execute(
            "UPDATE debates SET status = 'failed', finished_at = ?, error = ?, failed_step = ?, agent_usage = ? WHERE id = ?",
            [_now(), d.get("error"), ev.step_id, _dump(d.get("agent_usage") or {}), debate_id],
        )

    def _on_paused(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        self.db.execute(
            """UPDATE debates SET status = 'paused', control = NULL, paused_at = ?, paused_round = ?, next_round = ?,
               rounds = ?, agent_usage = ? WHERE id = ?""",
            [d.get("at"), d.get("round"), d.get("next_round"), d.get("round"), _dump(d.get("agent_usage") or {}),
             debate_id])

    def _on_stopped(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        self.db.execute(
            """UPDATE debates SET status = 'stopped', control = NULL, finished_at = ?, paused_at = ?, paused_round = ?,
               next_round = NULL, rounds = COALESCE(?, rounds) WHERE id = ?""",
            [_now(), d.get("at"), d.get("round"), d.get("round"), debate_id])

    def _on_continued(self, debate_id: str, ev: Event) -> None:
        self.db.execute("UPDATE debates SET status = 'running', control = NULL WHERE id = ?", [debate_id])

    # -- steering ---------------------------------------------------------------------
    def control_request(self, debate_id: str) -> str | None:
        """A pending pause or stop request for a running debate (read at each of its pause points).
        Under the store's lock: debates on several threads (an evaluation) share one connection, and
        this read must not run inside another thread's write transaction."""
        with self._lock:
            row = self.db.execute("SELECT control FROM debates WHERE id = ?", [debate_id]).fetchone()
        return row[0] if row else None

    def _audit(self, debate_id: str, action: str, reviewer: str, reason: str, state: str | None) -> None:
        self.db["reviews"].insert({
            "debate_id": debate_id, "ts": _now(), "reviewer": reviewer, "role": "reviewer", "action": action,
            "state_before": state, "state_after": state, "reason": reason})

    def request_control(self, debate_id: str, action: str, *, reviewer: str = "") -> str:
        """Ask a running debate to pause or stop at its next pause point; a paused debate is stopped at
        once. Returns the debate's status afterwards ('running' with the request pending, or
        'stopped'). Raises ValueError when the debate is not in a state the action applies to."""
        from .steering import PAUSE, STOP, SteeringError

        if action not in (PAUSE, STOP):
            raise SteeringError(f"unknown request {action!r}")
        with self._write():
            row = self.db.execute("SELECT status, review_state, control FROM debates WHERE id = ?",
                                  [debate_id]).fetchone()
            if not row:
                raise NotFound(f"no debate with id {debate_id!r}")
            status, state, control = row
            who = reviewer.strip() or "unnamed"
            if status == "paused" and action == STOP:
                self.db.execute("INSERT INTO events (debate_id, ts, kind, step_id, data) VALUES (?, ?, 'stopped', NULL, ?)",
                                [debate_id, time.time(), _dump({"by": who})])
                self.db.execute(
                    "UPDATE debates SET status = 'stopped', control = NULL, next_round = NULL, finished_at = ?, "
                    "updated_at = ? WHERE id = ?", [_now(), _now(), debate_id])
                self._audit(debate_id, STOP, who, "stopped while paused", state)
                return "stopped"
            if status != "running":
                raise SteeringError(f"debate {debate_id} is {status}; only a running debate can be asked to {action}")
            if control == STOP and action == PAUSE:
                raise SteeringError(f"debate {debate_id} is already asked to stop")
            self.db.execute("UPDATE debates SET control = ?, updated_at = ? WHERE id = ?", [action, _now(), debate_id])
            self._audit(debate_id, action, who, f"asked to {action} at the next pause point", state)
            return "running"

    def begin_continue(self, debate_id: str, *, runner: dict[str, Any] | None, reviewer: str = "",
                       pause_after_round: int | None = None,
                       settings_update: dict[str, Any] | None = None) -> dict[str, Any]:
        """Claim a paused debate for one process to continue (two cannot both claim it): its status
        becomes running and its runner this process. Returns the debate as it stood, paused.
        `settings_update` replaces stored settings it names (the token budget it goes on with)."""
        from .steering import SteeringError

        with self._write():
            rows = list(self.db.query("SELECT * FROM debates WHERE id = ?", [debate_id]))
            if not rows:
                raise NotFound(f"no debate with id {debate_id!r}")
            debate = _decode_debate(rows[0])
            if debate["status"] != "paused":
                raise SteeringError(f"debate {debate_id} is {debate['status']}; only a paused debate can be continued")
            settings = dict(debate["settings"] or {})
            if runner:
                settings["runner"] = runner
            if pause_after_round is not None:
                settings["pause_after_round"] = pause_after_round
            settings.update(settings_update or {})
            self.db.execute("UPDATE debates SET status = 'running', control = NULL, settings = ?, updated_at = ? "
                            "WHERE id = ?", [_dump(settings), _now(), debate_id])
            self._audit(debate_id, "continue", reviewer.strip() or "unnamed",
                        f"continued from {debate.get('paused_at')}", debate.get("review_state"))
        debate["steps"] = self.steps(debate_id)
        return debate

    def add_intervention(self, debate_id: str, intervention: dict[str, Any], *, summary: str,
                         target_agent: str | None = None, critique_row: dict[str, Any] | None = None) -> str:
        """Record a reviewer's intervention on a paused debate as a step `r{n}.human.{reviewer}` (n:
        the round that follows), with an audit row and an event. Returns the step id."""
        from .steering import SteeringError

        with self._write():
            row = self.db.execute("SELECT status, paused_at, next_round FROM debates WHERE id = ?",
                                  [debate_id]).fetchone()
            if not row:
                raise NotFound(f"no debate with id {debate_id!r}")
            status, paused_at, next_round = row
            if status != "paused":
                raise SteeringError(f"debate {debate_id} is {status}; interventions are made while it is paused")
            if intervention.get("at") != paused_at or intervention.get("round") != next_round:
                raise SteeringError(f"debate {debate_id} is now paused at {paused_at}; reload and try again")
            step_id = self._insert_intervention(debate_id, intervention, summary=summary, target_agent=target_agent,
                                                critique_row=critique_row)
            self.db.execute("INSERT INTO events (debate_id, ts, kind, step_id, data) VALUES (?, ?, 'intervention', ?, ?)",
                            [debate_id, time.time(), step_id, _dump({"kind": intervention.get("kind"),
                                                                    "reviewer": intervention.get("reviewer")})])
        return step_id

    def _on_intervention(self, debate_id: str, ev: Event) -> None:
        """An intervention a run applied from elsewhere (a fork's parent, a resumed debate, a cassette):
        recorded in this debate at the point where it was applied."""
        d = ev.data
        if d.get("intervention"):
            self._insert_intervention(debate_id, d["intervention"], summary=d.get("summary") or "",
                                      target_agent=d.get("target_agent"), critique_row=d.get("critique_row"))

    def _insert_intervention(self, debate_id: str, intervention: dict[str, Any], *, summary: str,
                             target_agent: str | None, critique_row: dict[str, Any] | None) -> str:
        from .steering import human_step_id

        step_id = human_step_id(int(intervention["round"]), intervention["reviewer"])
        call = 1 + self.db.execute("SELECT COUNT(*) FROM steps WHERE debate_id = ? AND step_id = ?",
                                   [debate_id, step_id]).fetchone()[0]
        now = _now()
        self.db["steps"].insert({
            "debate_id": debate_id, "step_id": step_id, "call": call, "seq": self._next_seq(debate_id),
            "round": intervention["round"], "stage": "human", "agent": step_id.rsplit(".", 1)[1],
            "target": target_agent, "status": "ok", "model": "reviewer",
            "prompt": _dump([]), "raw_output": _dump(intervention), "output": _dump(intervention),
            "input_tokens": 0, "output_tokens": 0, "attempts": 0, "errors": _dump([]),
            "started_at": now, "finished_at": now})
        if critique_row:
            self.db["critiques"].insert({
                "debate_id": debate_id, "step_id": step_id, "call": call, "round": intervention["round"],
                "critic": step_id.rsplit(".", 1)[1], **critique_row})
        state = self.db.execute("SELECT review_state FROM debates WHERE id = ?", [debate_id]).fetchone()
        self._audit(debate_id, "intervene", intervention["reviewer"], summary, state[0] if state else None)
        return step_id

    def note_fork(self, fork_id: str, reviewer: str, reason: str) -> None:
        with self._write():
            self._audit(fork_id, "fork", reviewer.strip() or "unnamed", reason, "pending")

    def forks(self, debate_id: str) -> list[dict[str, Any]]:
        return list(self.db.query(
            "SELECT id, title, status, fork_round, created_at FROM debates WHERE parent_id = ? ORDER BY created_at",
            [debate_id]))

    def mark_interrupted(self, debate_id: str, message: str) -> None:
        """A debate whose process died: keep every completed step, mark it failed so it can be resumed."""
        self.record(debate_id, Event("failed", None, {"error": message}))

    # -- reads ----------------------------------------------------------------------
    def get_debate(self, debate_id: str, *, with_steps: bool = True) -> dict[str, Any]:
        rows = list(self.db.query("SELECT * FROM debates WHERE id = ?", [debate_id]))
        if not rows:
            raise NotFound(f"no debate with id {debate_id!r}")
        d = _decode_debate(rows[0])
        if with_steps:
            d["steps"] = self.steps(debate_id)
            d["reviews"] = self.reviews(debate_id)
            d["annotations"] = self.annotations(debate_id)
        return d

    def steps(self, debate_id: str) -> list[dict[str, Any]]:
        out = []
        for r in self.db.query("SELECT * FROM steps WHERE debate_id = ? ORDER BY seq", [debate_id]):
            r["prompt"] = _load(r["prompt"], [])
            r["output"] = _load(r["output"])
            r["errors"] = _load(r["errors"], [])
            out.append(r)
        return out

    def events(self, debate_id: str, after_id: int = 0) -> list[dict[str, Any]]:
        out = []
        for r in self.db.query(
            "SELECT * FROM events WHERE debate_id = ? AND id > ? ORDER BY id", [debate_id, after_id]
        ):
            r["data"] = _load(r["data"], {})
            out.append(r)
        return out

    def reviews(self, debate_id: str) -> list[dict[str, Any]]:
        return list(self.db.query("SELECT * FROM reviews WHERE debate_id = ? ORDER BY id", [debate_id]))

    def claims(self, debate_id: str) -> list[dict[str, Any]]:
        out = []
        for r in self.db.query("SELECT * FROM claims WHERE debate_id = ? ORDER BY round, agent, claim_id", [debate_id]):
            r["evidence"] = _load(r["evidence"], [])
            r["unverified_evidence"] = _load(r["unverified_evidence"], [])
            out.append(r)
        return out

    def critiques(self, debate_id: str) -> list[dict[str, Any]]:
        return list(self.db.query(
            "SELECT * FROM critiques WHERE debate_id = ? ORDER BY round, critic, target, call, critique_id", [debate_id]
        ))

    def list_debates(
        self,
        *,
        protocol: str | None = None,
        status: str | None = None,
        review_state: str | None = None,
        reviewer: str | None = None,
        needs_review: bool | None = None,
        since: str | None = None,
        until: str | None = None,
        search: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        searching = bool(search and search.strip())
        # With a search, the search index answers every filter too; `+` keeps SQLite from starting
        # at a filter's own index instead, which would read thousands of wide rows.
        col = "+d." if searching else "d."
        where, params = ["1 = 1"], []
        if protocol:
            where.append(f"{col}protocol = ?")
            params.append(protocol)
        if status:
            where.append(f"{col}status = ?")
            params.append(status)
        if review_state:
            where.append(f"{col}review_state = ?")
            params.append(review_state)
        if reviewer:
            where.append(f"{col}id IN (SELECT r.debate_id FROM reviews r WHERE r.reviewer = ? COLLATE NOCASE)")
            params.append(reviewer)
        if needs_review is not None:
            where.append(f"{col}needs_human_review = ?")
            params.append(int(needs_review))
        if since:
            where.append("d.created_at >= ?")
            params.append(since)
        if until:
            where.append("d.created_at < ?")
            params.append(until)
        if searching:
            where.append("d.search_rowid IN (SELECT rowid FROM debate_search WHERE debate_search MATCH ?)")
            params.append(_fts_query(search or ""))
        # Two steps: pick the page of rows from the indexes alone, then read only those wide rows.
        page = (
            f"SELECT d.rowid FROM debates d WHERE {' AND '.join(where)}"
            " ORDER BY d.created_at DESC, d.id DESC LIMIT ? OFFSET ?"
        )
        sql = (
            "SELECT d.id, d.case_id, d.title, d.question, d.protocol, d.provider, d.model, d.status, d.created_at,"
            " d.finished_at, d.rounds, d.converged, d.convergence_reason, d.needs_human_review, d.final_answer,"
            " d.confidence, d.review_state, d.reviewed_by, d.calls, d.input_tokens, d.output_tokens, d.error,"
            " d.parent_id, d.fork_round, d.paused_at, d.paused_round"
            f" FROM debates d WHERE d.rowid IN ({page}) ORDER BY d.created_at DESC, d.id DESC"
        )
        return list(self.db.query(sql, [*params, int(limit), int(offset)]))

    def count_debates(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM debates").fetchone()[0]

    def escalation_queue(self) -> list[dict[str, Any]]:
        return self.list_debates(review_state="escalated", limit=500)

    def reviewers(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT reviewer FROM reviews ORDER BY reviewer").fetchall()]

    # The headline measures, defined once for the per-protocol table and the overall figures.
    _ANALYTICS = """
               COUNT(*) AS debates,
               COALESCE(SUM(d.status = 'completed'), 0) AS completed,
               COALESCE(SUM(d.status = 'failed'), 0) AS failed,
               COALESCE(SUM(d.status = 'running'), 0) AS running,
               AVG(CASE WHEN d.status = 'completed' THEN d.needs_human_review END) AS escalation_rate,
               AVG(CASE WHEN d.converged = 1 THEN d.rounds END) AS rounds_to_converge,
               AVG(d.input_tokens + d.output_tokens) AS tokens_per_debate,
               COALESCE(SUM(d.review_state != 'pending'), 0) AS reviewed,
               AVG(CASE WHEN d.review_state IN ('accepted', 'overridden', 'escalated', 'approved', 'settled')
                        THEN d.review_state IN ('overridden', 'settled') END) AS override_rate,
               AVG(CASE WHEN d.review_state IN ('accepted', 'overridden', 'escalated', 'approved', 'settled')
                        THEN d.review_state IN ('accepted', 'approved') END) AS agreement_rate
    """

    def analytics(self) -> list[dict[str, Any]]:
        """Per protocol: escalation and override rates, rounds to converge, tokens, reviewer agreement."""
        return list(self.db.query(
            f"SELECT d.protocol AS protocol, {self._ANALYTICS} FROM debates d GROUP BY d.protocol ORDER BY d.protocol"))

    def analytics_overall(self) -> dict[str, Any]:
        """The same measures over every debate, aggregated by SQLite (no debate rows are loaded)."""
        return next(iter(self.db.query(f"SELECT {self._ANALYTICS} FROM debates d")))

    def token_quartiles(self) -> list[dict[str, Any]]:
        """Per protocol: the least, lower quartile, median, upper quartile and most tokens per debate,
        computed in SQL (for the box plot), so the page never reads every debate."""
        sql = """
        WITH t AS (
            SELECT protocol, input_tokens + output_tokens AS tokens,
                   ROW_NUMBER() OVER (PARTITION BY protocol ORDER BY input_tokens + output_tokens) AS rn,
                   COUNT(*) OVER (PARTITION BY protocol) AS n
            FROM debates
        )
        SELECT protocol, MIN(tokens) AS low, MAX(tokens) AS high, MAX(n) AS debates,
               MAX(CASE WHEN rn = (n + 3) / 4 THEN tokens END) AS q1,
               MAX(CASE WHEN rn = (n + 1) / 2 THEN tokens END) AS median,
               MAX(CASE WHEN rn = (3 * n + 3) / 4 THEN tokens END) AS q3
        FROM t GROUP BY protocol ORDER BY protocol
        """
        return list(self.db.query(sql))

    # -- annotations ------------------------------------------------------------------
    def annotate(self, debate_id: str, *, kind: str, ref: str, label: str, reviewer: str,
                 severity: str | None = None, comment: str | None = None) -> dict[str, Any]:
        """Label one claim (`kind="claim"`) or critique of a debate, named by its reference as the
        app shows it. The label is kept with the reviewer and the time, and a line is appended to
        the debate's audit trail; the review state and version are left as they are, so a
        reviewer's open review form stays valid. Raises AnnotationError for a bad reference,
        label or severity, NotFound for an unknown debate."""
        if kind not in ("claim", "critique"):
            raise annotation_rules.AnnotationError(f"cannot annotate a {kind!r}; annotate a claim or a critique")
        reviewer = (reviewer or "").strip()
        if not reviewer:
            raise annotation_rules.AnnotationError("an annotation needs the reviewer's name")
        comment = (comment or "").strip() or None
        if comment and len(comment) > annotation_rules.MAX_COMMENT:
            raise annotation_rules.AnnotationError(
                f"the comment is {len(comment)} characters; at most {annotation_rules.MAX_COMMENT} are kept")
        label, severity = annotation_rules.check_label(kind, label, severity)
        with self._write():
            row = self.db.execute("SELECT review_state FROM debates WHERE id = ?", [debate_id]).fetchone()
            if not row:
                raise NotFound(f"no debate with id {debate_id!r}")
            rows = self.claims(debate_id) if kind == "claim" else self.critiques(debate_id)
            target = annotation_rules.resolve(kind, ref, rows)
            now = _now()
            entry = {
                "debate_id": debate_id, "ts": now, "reviewer": reviewer, "kind": kind, "ref": target.ref,
                "step_id": target.step_id, "call": target.call, "round": target.round, "agent": target.agent,
                "target": target.target, "item_id": target.item_id, "label": label, "severity": severity,
                "item_severity": target.severity, "comment": comment,
            }
            entry["id"] = self.db["annotations"].insert(entry).last_pk
            self.db["reviews"].insert({
                "debate_id": debate_id, "ts": now, "reviewer": reviewer, "role": "reviewer", "action": "annotate",
                "state_before": row[0], "state_after": row[0],
                "reason": annotation_rules.audit_text(target, label, severity, comment),
            })
        return entry

    def annotations(self, debate_id: str) -> list[dict[str, Any]]:
        """Every annotation of a debate, oldest first."""
        if "annotations" not in self.db.table_names():  # a read-only open of a database not migrated yet
            return []
        return list(self.db.query("SELECT * FROM annotations WHERE debate_id = ? ORDER BY id", [debate_id]))

    # The annotations that count in the figures: each reviewer's latest on each item.
    _CURRENT_ANNOTATIONS = """
        SELECT a.* FROM annotations a WHERE a.id IN (
            SELECT MAX(id) FROM annotations GROUP BY kind, debate_id, step_id, call, item_id, reviewer COLLATE NOCASE)
    """

    def severity_confirmation(self) -> list[dict[str, Any]]:
        """Per severity the critic gave: how many critiques reviewers judged, and how many they
        confirmed (marked valid without giving another severity)."""
        if "annotations" not in self.db.table_names():
            return []
        sql = f"""
        WITH cur AS ({self._CURRENT_ANNOTATIONS})
        SELECT item_severity AS severity, COUNT(*) AS judged,
               SUM(label = 'valid' AND (severity IS NULL OR severity = item_severity)) AS confirmed,
               SUM(label = 'valid' AND severity IS NOT NULL AND severity != item_severity) AS regraded,
               SUM(label = 'invalid') AS rejected,
               AVG(label = 'valid' AND (severity IS NULL OR severity = item_severity)) AS confirmed_share
        FROM cur WHERE kind = 'critique' AND item_severity IS NOT NULL
        GROUP BY item_severity
        ORDER BY CASE item_severity WHEN 'CRITICAL' THEN 0 WHEN 'MAJOR' THEN 1 WHEN 'MINOR' THEN 2 ELSE 3 END
        """
        return list(self.db.query(sql))

    def claim_labels_by_protocol(self) -> list[dict[str, Any]]:
        """Per protocol: the claims reviewers labelled, and those marked incorrect (by at least one
        reviewer's latest label), unsupported or needing a source."""
        if "annotations" not in self.db.table_names():
            return []
        sql = f"""
        WITH cur AS ({self._CURRENT_ANNOTATIONS}),
        items AS (
            SELECT d.protocol AS protocol, c.debate_id, c.step_id, c.item_id,
                   MAX(c.label = 'incorrect') AS incorrect, MAX(c.label = 'unsupported') AS unsupported,
                   MAX(c.label = 'needs_source') AS needs_source, MAX(c.label = 'correct') AS correct
            FROM cur c JOIN debates d ON d.id = c.debate_id
            WHERE c.kind = 'claim'
            GROUP BY d.protocol, c.debate_id, c.step_id, c.item_id
        )
        SELECT protocol, COUNT(*) AS labelled, SUM(incorrect) AS incorrect, SUM(unsupported) AS unsupported,
               SUM(needs_source) AS needs_source, SUM(correct) AS correct, AVG(incorrect) AS incorrect_share
        FROM items GROUP BY protocol ORDER BY protocol
        """
        return list(self.db.query(sql))

    def trends(self, period: str = "day") -> list[dict[str, Any]]:
        """Debates started per day or week (weeks start on Monday), with how many completed and the
        share of completed ones the moderator flagged for a human."""
        if period not in ("day", "week"):
            raise ValueError(f"period must be 'day' or 'week', got {period!r}")
        bucket = ("substr(created_at, 1, 10)" if period == "day"
                  else "date(substr(created_at, 1, 10), 'weekday 0', '-6 days')")
        sql = f"""
        SELECT {bucket} AS period, COUNT(*) AS debates,
               COALESCE(SUM(status = 'completed'), 0) AS completed,
               COALESCE(SUM(status = 'completed' AND needs_human_review = 1), 0) AS escalated,
               AVG(CASE WHEN status = 'completed' THEN needs_human_review END) AS escalation_rate
        FROM debates WHERE created_at IS NOT NULL GROUP BY period ORDER BY period
        """
        return list(self.db.query(sql))

    def reviewer_activity(self) -> list[dict[str, Any]]:
        """Per reviewer (names matched without regard to case): review actions by kind, overrides,
        annotations, and the time of the latest of them."""
        has_annotations = "annotations" in self.db.table_names()
        ann = ("SELECT reviewer, COUNT(*) AS annotations, SUM(kind = 'claim') AS claim_annotations, "
               "SUM(kind = 'critique') AS critique_annotations, MAX(ts) AS last "
               "FROM annotations GROUP BY reviewer COLLATE NOCASE" if has_annotations
               else "SELECT NULL AS reviewer, 0 AS annotations, 0 AS claim_annotations, "
                    "0 AS critique_annotations, NULL AS last WHERE 0")
        sql = f"""
        WITH acts AS (
            SELECT reviewer, COUNT(*) AS actions, SUM(action = 'accept') AS accepts,
                   SUM(action = 'override') AS overrides, SUM(action = 'escalate') AS escalations,
                   SUM(action = 'approve') AS approvals, SUM(role = 'supervisor') AS as_supervisor, MAX(ts) AS last
            FROM reviews WHERE action != 'annotate' GROUP BY reviewer COLLATE NOCASE
        ),
        ann AS ({ann}),
        names AS (SELECT reviewer FROM acts UNION SELECT reviewer FROM ann)
        SELECT n.reviewer AS reviewer, COALESCE(a.actions, 0) AS actions, COALESCE(a.accepts, 0) AS accepts,
               COALESCE(a.overrides, 0) AS overrides, COALESCE(a.escalations, 0) AS escalations,
               COALESCE(a.approvals, 0) AS approvals, COALESCE(a.as_supervisor, 0) AS as_supervisor,
               COALESCE(x.annotations, 0) AS annotations, COALESCE(x.claim_annotations, 0) AS claim_annotations,
               COALESCE(x.critique_annotations, 0) AS critique_annotations,
               MAX(COALESCE(a.last, ''), COALESCE(x.last, '')) AS last
        FROM (SELECT reviewer FROM names GROUP BY reviewer COLLATE NOCASE) n
        LEFT JOIN acts a ON a.reviewer = n.reviewer COLLATE NOCASE
        LEFT JOIN ann x ON x.reviewer = n.reviewer COLLATE NOCASE
        ORDER BY COALESCE(a.actions, 0) + COALESCE(x.annotations, 0) DESC, n.reviewer COLLATE NOCASE
        """
        return list(self.db.query(sql))

    def tokens_by_model(self) -> list[dict[str, Any]]:
        """Per protocol and model the debates were run with: debates and tokens, for pricing."""
        return list(self.db.query(
            "SELECT protocol, model, COUNT(*) AS debates, COALESCE(SUM(input_tokens), 0) AS input_tokens,"
            " COALESCE(SUM(output_tokens), 0) AS output_tokens FROM debates GROUP BY protocol, model"
            " ORDER BY protocol, model"))

    # -- evaluations --------------------------------------------------------------------
    def create_evaluation(self, *, protocol: str, methods: list[str], cases: list[str], settings: dict[str, Any],
                          total_runs: int, evaluation_id: str | None = None) -> str:
        """Record an evaluation about to run; its rows arrive one by one as its runs finish."""
        evaluation_id = evaluation_id or new_debate_id()
        now = _now()
        with self._write():
            self.db["evaluations"].insert({
                "id": evaluation_id, "created_at": now, "updated_at": now, "status": "running",
                "protocol": protocol, "methods": _dump(methods), "cases": _dump(cases), "settings": _dump(settings),
                "total_runs": total_runs, "done_runs": 0, "tokens": 0,
            })
        return evaluation_id

    def add_evaluation_row(self, evaluation_id: str, row: dict[str, Any]) -> None:
        """One finished run of an evaluation, and the evaluation's progress with it."""
        with self._write():
            seq = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM evaluation_rows WHERE evaluation_id = ?",
                                  [evaluation_id]).fetchone()[0]
            self.db["evaluation_rows"].upsert({
                "evaluation_id": evaluation_id, "seq": seq, "case_id": row.get("case"), "method": row.get("method"),
                "repeat": row.get("repeat"), "debate_id": row.get("debate_id"), "status": row.get("status"),
                "right": _flag(row.get("right")), "flagged": _flag(row.get("flagged")),
                "silent_wrong": _flag(row.get("silent_wrong")), "over_flagged": _flag(row.get("over_flagged")),
                "tokens": row.get("tokens"), "cost": row.get("cost"), "wall_ms": row.get("wall_ms"),
                "data": _dump(row),
            }, pk=("evaluation_id", "case_id", "method", "repeat"))
            self.db.execute(
                "UPDATE evaluations SET done_runs = done_runs + 1, tokens = tokens + ?, updated_at = ? WHERE id = ?",
                [int(row.get("tokens") or 0), _now(), evaluation_id])

    def finish_evaluation(self, evaluation_id: str, *, status: str, summary: dict[str, Any] | None = None,
                          error: str | None = None) -> None:
        """Close an evaluation: `completed` with its summary, or `failed` with the reason."""
        now = _now()
        with self._write():
            self.db.execute(
                "UPDATE evaluations SET status = ?, summary = ?, error = ?, finished_at = ?, updated_at = ? WHERE id = ?",
                [status, _dump(summary) if summary is not None else None, error, now, now, evaluation_id])

    def list_evaluations(self, limit: int = 100) -> list[dict[str, Any]]:
        """Stored evaluations, newest first, without their rows."""
        if "evaluations" not in self.db.table_names():  # a read-only open of a database not migrated yet
            return []
        rows = self.db.query(
            "SELECT id, created_at, finished_at, status, protocol, methods, cases, total_runs, done_runs, tokens, error"
            " FROM evaluations ORDER BY created_at DESC, id DESC LIMIT ?", [int(limit)])
        return [{**r, "methods": _load(r["methods"], []), "cases": _load(r["cases"], [])} for r in rows]

    def get_evaluation(self, evaluation_id: str) -> dict[str, Any]:
        """One evaluation with its settings, summary and every run row (in the order they finished)."""
        if "evaluations" not in self.db.table_names():
            raise NotFound(f"no evaluation with id {evaluation_id!r}")
        rows = list(self.db.query("SELECT * FROM evaluations WHERE id = ?", [evaluation_id]))
        if not rows:
            raise NotFound(f"no evaluation with id {evaluation_id!r}")
        ev = dict(rows[0])
        for key, default in (("methods", []), ("cases", []), ("settings", {}), ("summary", None)):
            ev[key] = _load(ev.get(key), default)
        ev["rows"] = [_load(r[0], {}) for r in self.db.execute(
            "SELECT data FROM evaluation_rows WHERE evaluation_id = ? ORDER BY seq", [evaluation_id]).fetchall()]
        return ev

    # -- reviews ----------------------------------------------------------------------
    def review(
        self,
        debate_id: str,
        *,
        action: str,
        reviewer: str,
        answer: str | None = None,
        reason: str | None = None,
        expected_version: int | None = None,
        supervisor: bool = False,
    ) -> dict[str, Any]:
        """Append one review action, with the role rules of `review.submit` (a supervisor's action
        needs a supervisor named in the settings file). Raises ReviewConflict when
        `expected_version` is stale, ReviewError when the action is not allowed."""
        return review_rules.submit(self, debate_id, action=action, reviewer=reviewer, answer=answer,
                                   reason=reason, expected_version=expected_version, supervisor=supervisor)

    def record_review(self, req: ReviewRequest) -> dict[str, Any]:
        """Write a validated review action. The state rules are checked inside the write lock,
        against the state the action is written over, so two reviewers cannot both win."""
        with self._write():
            row = self.db.execute(
                "SELECT status, review_state, final_answer, version FROM debates WHERE id = ?", [req.debate_id]
            ).fetchone()
            if not row:
                raise NotFound(f"no debate with id {req.debate_id!r}")
            status, state, final_answer, version = row
            if req.action == review_rules.UNDO:
                last = next(iter(self.db.query(
                    # Annotations are audit rows too, but they change no review state: not undone here.
                    "SELECT * FROM reviews WHERE debate_id = ? AND action NOT IN "
                    f"('annotate', {', '.join('?' for _ in STEERING_ACTIONS)}) ORDER BY id DESC LIMIT 1",
                    [req.debate_id, *STEERING_ACTIONS])), None)
                new_state, new_answer = review_rules.undo_transition(
                    req, last, status=status, state=state, version=version, final_answer=final_answer)
                # Who the debate is "reviewed by" goes back with the state: whoever brought it there.
                before = self.db.execute(
                    "SELECT reviewer FROM reviews WHERE debate_id = ? AND id < ? AND state_after = ? "
                    "ORDER BY id DESC LIMIT 1", [req.debate_id, last["id"], new_state]).fetchone()
                reviewed_by = before[0] if before and new_state != "pending" else None
            else:
                new_state, new_answer = review_rules.transition(req, status=status, state=state, version=version,
                                                                final_answer=final_answer)
                reviewed_by = req.reviewer
            cur = self.db.execute(
                """UPDATE debates SET review_state = ?, final_answer = ?, reviewed_by = ?, version = version + 1,
                   updated_at = ? WHERE id = ? AND version = ?""",
                [new_state, new_answer, reviewed_by, _now(), req.debate_id, version],
            )
            if cur.rowcount != 1:
                raise ReviewConflict(f"debate {req.debate_id} was changed by someone else; reload and try again")
            entry = {
                "debate_id": req.debate_id, "ts": _now(), "reviewer": req.reviewer, "role": req.role,
                "action": req.action, "state_before": state, "state_after": new_state, "answer_before": final_answer,
                "answer_after": new_answer, "reason": req.reason,
            }
            self.db["reviews"].insert(entry)
            if new_answer != final_answer:
                self.db.execute(f"UPDATE debate_search SET answer = ? WHERE rowid = {_SEARCH_ROW}",
                                [new_answer, req.debate_id])
        return {**entry, "version": version + 1}


def _flag(value: Any) -> int | None:
    return None if value is None else int(bool(value))


def _event_payload(event: Event) -> dict[str, Any]:
    # The rendered prompt and outputs already live in the steps table; keep events light.
    return {k: v for k, v in event.data.items() if k not in ("prompt", "output", "raw", "claims_rows", "critiques_rows")}


def _decode_debate(row: dict[str, Any]) -> dict[str, Any]:
    d = dict(row)
    for key, default in (
        ("provider_config", {}), ("settings", {}), ("verdict", None), ("trajectory", []), ("agent_usage", {}),
        ("result", {}), ("summary", {}), ("warnings", []), ("case_json", None),
    ):
        d[key] = _load(d.get(key), default)
    d["case"] = d.pop("case_json")
    d["converged"] = bool(d.get("converged"))
    d["needs_human_review"] = bool(d.get("needs_human_review"))
    return d


# The full-text row of the debate bound to the query's `?`.
_SEARCH_ROW = "(SELECT search_rowid FROM debates WHERE id = ?)"


def _fts_query(text: str) -> str:
    """Turn free text into a safe FTS5 query: every word quoted, all required, last one as a prefix."""
    words = [w.replace('"', "") for w in text.split() if w.replace('"', "")]
    if not words:
        return '""'
    quoted = [f'"{w}"' for w in words]
    quoted[-1] += "*"
    return " ".join(quoted)
