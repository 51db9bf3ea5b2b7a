"""The schema: registered migrations, and applying them.

Opening a store writable migrates it. Before a migration changes a database that already holds a
schema, the database is copied next to itself with SQLite's online backup API, so an upgrade that
goes wrong, or a newer schema an older program cannot read, costs nothing. Readers that must not
change the file (`DebateStore.for_reading`) never migrate: they refuse a database that needs it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from .connection import StoreConnection, StoreError, copy_database

log = logging.getLogger(__name__)

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
    """Reviewers' labels on single claims and critiques (debate_core/core/annotation_rules.py), append-only:
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
    """Evaluation runs (debate_core/evaluation/harness.py): one row per evaluation with its settings, progress
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
    """Steering (debate_core/core/steering.py): a pending pause or stop request, where a paused debate
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


@migration("0010_identities")
def _m0010(db: sqlite_utils.Database) -> None:
    """Who acted, as the front end could vouch for it (debate_core/core/identity.py): a verified
    sign-in, a typed label in local mode, or the server's operator. Kept with every audit row, every
    evaluation, and in an audit table for actions that belong to no debate (settings, roles)."""
    for table in ("reviews", "evaluations"):
        for column in ("actor_kind", "actor_subject", "actor_email", "actor_provider"):
            db[table].add_column(column, str)
    db["evaluations"].add_column("started_by", str)
    db["audit"].create(
        {"id": int, "ts": str, "action": str, "target": str, "detail": str, "reviewer": str, "role": str,
         "actor_kind": str, "actor_subject": str, "actor_email": str, "actor_provider": str},
        pk="id",
    )
    db["audit"].create_index(["ts"])


# The list, search and analytics indexes of 0002 and 0006, each rebuilt by 0011 with `evaluation_id` last,
# so that leaving evaluation runs out is still answered from the index alone.
_EVALUATION_AWARE_INDEXES = (
    ["created_at", "id"],
    ["protocol", "created_at", "id"],
    ["status", "needs_human_review", "created_at", "id"],
    ["review_state", "created_at", "id"],
    ["search_rowid", "created_at", "id", "protocol", "status", "needs_human_review", "review_state"],
    ["protocol", "status", "needs_human_review", "converged", "rounds", "review_state", "input_tokens",
     "output_tokens"],
    ["protocol", "model", "input_tokens", "output_tokens"],
)


@migration("0011_evaluation_runs")
def _m0011(db: sqlite_utils.Database) -> None:
    """Runs made by an evaluation are kept apart from real work: `debates.evaluation_id` names the
    evaluation that made the run (NULL for real work), back-filled from `evaluation_rows`. History,
    the review queues and Analytics leave such runs out unless asked; they are reached from their
    evaluation. The list and analytics indexes are rebuilt with the column last, so the filter costs
    no read of the wide debate rows (bench/store_scale.py)."""
    db["debates"].add_column("evaluation_id", str)
    db.execute(
        "UPDATE debates SET evaluation_id = (SELECT MIN(r.evaluation_id) FROM evaluation_rows r"
        " WHERE r.debate_id = debates.id)"
        " WHERE id IN (SELECT debate_id FROM evaluation_rows WHERE debate_id IS NOT NULL)")
    # A run that failed before its row was written is known only by the settings it was stored with.
    db.execute(
        "UPDATE debates SET evaluation_id = json_extract(settings, '$.evaluation.id')"
        " WHERE evaluation_id IS NULL AND settings LIKE '%\"evaluation\"%'"
        " AND json_extract(settings, '$.evaluation.id') IN (SELECT id FROM evaluations)")
    for columns in _EVALUATION_AWARE_INDEXES:
        db.execute(f"DROP INDEX IF EXISTS idx_debates_{'_'.join(columns)}")
        db["debates"].create_index([*columns, "evaluation_id"])
    # No index leads with `evaluation_id`: SQLite would pick it for "IS NULL" (nearly every row) and
    # read the wide rows; an evaluation's runs are found through `evaluation_rows`.


# The review queues' filter and order, with the assignment last: a queue and its counts are answered
# from this index without reading the wide debate rows.
QUEUE_INDEX = ["review_state", "needs_human_review", "status", "created_at", "id", "evaluation_id",
               "assignee_key", "assigned_state"]


@migration("0012_assignment")
def _m0012(db: sqlite_utils.Database) -> None:
    """Who a debate waiting for a human is assigned to (debate_core/store/assignment.py): a stable key
    for the person (a signed-in subject, or a name), the name to show, when, and the review state it
    was assigned in. An assignment holds while the debate stays in that state, so a debate escalated
    by its reviewer reaches the supervisors' queue unassigned."""
    for column in ("assignee_key", "assignee_name", "assigned_at", "assigned_state"):
        db["debates"].add_column(column, str)
    # Only columns the table has: SQLite takes a quoted name that is no column for a text constant, and
    # the index would then no longer match its table once 0011 adds `evaluation_id` ("malformed").
    # tests/test_evaluation_runs_apart.py builds such a database, standing in for a program older
    # than 0011 by leaving that one migration out.
    columns = set(db["debates"].columns_dict)
    db["debates"].create_index([c for c in QUEUE_INDEX if c in columns])


@migration("0013_api_tokens")
def _m0013(db: sqlite_utils.Database) -> None:
    """Tokens for the HTTP API (debate_core/store/tokens.py): the SHA-256 of each token, never the
    token, with its unique name, its role, who created it and when, its last use and its revocation."""
    db["api_tokens"].create(
        {"name": str, "token_hash": str, "role": str, "created_at": str, "created_by": str,
         "last_used_at": str, "revoked_at": str},
        pk="name",
    )
    db["api_tokens"].create_index(["token_hash"], unique=True)


@migration("0014_webhooks")
def _m0014(db: sqlite_utils.Database) -> None:
    """Webhooks (debate_core/store/webhooks.py): the endpoints an admin registered, the outbox of
    deliveries written in the same transaction as the change they announce, and each attempt."""
    db["webhooks"].create({"id": int, "url": str, "events": str, "secret": str, "created_at": str,
                           "created_by": str, "active": int}, pk="id")
    db["webhook_deliveries"].create(
        {"id": int, "webhook_id": int, "event_type": str, "message_id": str, "payload": str, "status": str,
         "attempts": int, "next_attempt_at": str, "last_status_code": int, "last_error": str, "created_at": str,
         "delivered_at": str}, pk="id")
    db["webhook_deliveries"].create_index(["status", "next_attempt_at"])
    db["webhook_deliveries"].create_index(["webhook_id", "id"])
    db["webhook_attempts"].create({"id": int, "delivery_id": int, "attempt": int, "at": str, "status_code": int,
                                   "error": str, "duration_ms": float}, pk="id")
    db["webhook_attempts"].create_index(["delivery_id", "attempt"])


class MigrationsMixin(StoreConnection):
    """Applies the registered migrations, backing up a database that already holds a schema first."""

    def _registered_migrations(self) -> list[tuple[str, Migration]]:
        """Every migration, in the order they apply (the DebateStore facade says why it is a method)."""
        return MIGRATIONS

    def pending_migrations(self) -> list[str]:
        """The registered migrations this database has not had yet, in the order they apply."""
        if self.url is not None:
            return self.sql.pending_migrations()  # type: ignore[attr-defined]  # PostgreSQL's own set
        registered = self._registered_migrations()
        if "_migrations" not in self.db.table_names():
            return [name for name, _ in registered]
        done = {r[0] for r in self.db.execute("SELECT name FROM _migrations").fetchall()}
        return [name for name, _ in registered if name not in done]

    def migrate(self) -> list[str]:
        """Apply the pending migrations, in one transaction; a database that already holds a schema
        is first copied next to itself (`backup_path`). Returns the names applied."""
        if self.url is not None:
            return self.sql.migrate(self._now())  # type: ignore[attr-defined]  # postgres_schema.py
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
                todo = [(name, fn) for name, fn in self._registered_migrations() if name not in done]
                if todo and existing and self.path is not None:
                    # Taken under the write lock, before the first change: the copy is exactly the
                    # database the migrations start from, and no other writer slips in between.
                    self.backup_path = self._backup_before_migrating()
                for name, fn in todo:
                    fn(self.db)
                    self.db["_migrations"].insert({"name": name, "applied_at": self._now()})
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
        try:
            copy_database(self.path, target, self.busy_timeout)
        except StoreError as exc:
            raise StoreError(f"the database {self.path} was not upgraded: its backup failed ({exc})") from exc
        return target
