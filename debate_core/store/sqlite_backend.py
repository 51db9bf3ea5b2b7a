"""The SQLite backend (a file path, the default): sqlite-utils over one shared connection, writes
serialised by a lock and `BEGIN IMMEDIATE`, full-text search with FTS5. Every piece of SQL that is
SQLite's own lives here or in `migrations.py` (its schema)."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import sqlite_utils

from .rows import SEARCH_ROW, fts_query


class SQLiteBackend:
    kind = "sqlite"

    def __init__(self, db: sqlite_utils.Database, lock: threading.RLock,
                 error: Callable[[sqlite3.Error, str], BaseException]) -> None:
        self.db, self._lock, self._error = db, lock, error

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.db.execute(sql, list(params))

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return list(self.db.query(sql, list(params)))

    def insert(self, table: str, row: dict[str, Any]) -> Any:
        return self.db[table].insert(row).last_pk

    def upsert(self, table: str, rows: list[dict[str, Any]], pk: tuple[str, ...]) -> None:
        self.db[table].upsert_all(rows, pk=pk[0] if len(pk) == 1 else pk)

    def table_names(self) -> list[str]:
        return self.db.table_names()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE takes the write lock first (waiting up to the busy timeout), so everything
        read inside is still true when it is written. A database or disk fault becomes a StoreError
        and nothing of the transaction is kept."""
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

    def flag(self, condition: str) -> str:
        return f"({condition})"

    def nocase(self, expr: str) -> str:
        return f"{expr} COLLATE NOCASE"

    def greatest(self, a: str, b: str) -> str:
        return f"MAX({a}, {b})"

    def week_of(self, date_text: str) -> str:
        return f"date({date_text}, 'weekday 0', '-6 days')"

    def row_key(self) -> str:
        return "rowid"

    def filter_column(self, searching: bool) -> str:
        # With a search, the search index answers every filter too; `+` keeps SQLite from starting
        # at a filter's own index instead, which would read thousands of wide rows.
        return "+d." if searching else "d."

    def search_insert(self, debate_id: str, question: str) -> int:
        return self.db.execute("INSERT INTO debate_search (debate_id, question, answer, claims) VALUES (?, ?, '', '')",
                               [debate_id, question]).lastrowid

    def search_update(self, debate_id: str, values: dict[str, Any]) -> None:
        self.db.execute(f"UPDATE debate_search SET {', '.join(f'{k} = ?' for k in values)} WHERE rowid = {SEARCH_ROW}",
                        [*values.values(), debate_id])

    def search_match(self, text: str) -> tuple[str, list[Any]]:
        return ("d.search_rowid IN (SELECT rowid FROM debate_search WHERE debate_search MATCH ?)", [fts_query(text)])

    def close(self) -> None:
        self.db.close()
