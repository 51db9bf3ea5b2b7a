"""The SQLite store: the only module that writes SQL.

One class owns the database (sqlite-utils, WAL). Schema changes are registered migrations. Every
engine event is persisted as it happens (the store is the engine's event sink), so a crash loses
at most the call in flight and live pages only read the store. Review actions are an append-only
audit trail guarded by an optimistic version check, so two reviewers acting on the same debate at
once cannot both win.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

from .engine import new_debate_id
from .events import TRANSIENT_EVENTS, Event, EventSink
from .schemas import Case

DEFAULT_DB = Path(__file__).resolve().parent.parent / "data" / "debates.db"

REVIEW_ACTIONS = ("accept", "override", "escalate")
SUPERVISOR_ACTIONS = ("approve", "override")
# review_state values: pending -> accepted | overridden | escalated; escalated -> approved | overridden
REVIEW_STATES = ("pending", "accepted", "overridden", "escalated", "approved")


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


class ReviewConflict(Exception):
    """Someone else acted on this debate first; nothing was written."""


class ReviewError(ValueError):
    """A review action that is not allowed (bad action, missing reason, wrong state)."""


class NotFound(KeyError):
    pass


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


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------


class DebateStore(EventSink):
    """Owns one SQLite database. Safe to share between threads: writes are serialised by a lock."""

    def __init__(self, path: str | Path | None = None, *, memory: bool = False, readonly: bool = False) -> None:
        self.readonly = readonly
        if memory:
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            self.path: Path | None = None
        else:
            self.path = Path(path) if path else default_db_path()
            if readonly:
                conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False, timeout=30)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        self.db = sqlite_utils.Database(conn)
        self._lock = threading.RLock()
        if not readonly:
            if not memory:
                self.db.enable_wal()
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.migrate()
        self._seq: dict[str, int] = {}

    # -- schema ---------------------------------------------------------------
    def migrate(self) -> list[str]:
        applied: list[str] = []
        with self._lock:
            if "_migrations" not in self.db.table_names():
                self.db["_migrations"].create({"name": str, "applied_at": str}, pk="name")
            done = {r["name"] for r in self.db["_migrations"].rows}
            for name, fn in MIGRATIONS:
                if name in done:
                    continue
                with self.db.atomic():
                    fn(self.db)
                    self.db["_migrations"].insert({"name": name, "applied_at": _now()})
                applied.append(name)
        return applied

    def close(self) -> None:
        self.db.close()

    # -- cases and debates ------------------------------------------------------
    def save_case(self, case: Case) -> None:
        with self._lock, self.db.atomic():
            self.db["cases"].upsert(
                {
                    "id": case.id, "title": case.title, "question": case.question,
                    "domain_hint": case.domain_hint, "data": case.model_dump_json(), "created_at": _now(),
                },
                pk="id",
            )

    def create_debate(
        self,
        case: Case,
        protocol: str,
        provider_config: dict[str, Any],
        settings: dict[str, Any],
        debate_id: str | None = None,
        resumed_from: str | None = None,
    ) -> str:
        debate_id = debate_id or new_debate_id()
        now = _now()
        with self._lock, self.db.atomic():
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
                    "search_rowid": search_rowid,
                }
            )
        return debate_id

    # -- the event sink -----------------------------------------------------------
    def record(self, debate_id: str, event: Event) -> None:
        with self._lock, self.db.atomic():
            if event.kind not in TRANSIENT_EVENTS:
                self.db["events"].insert(
                    {"debate_id": debate_id, "ts": event.ts, "kind": event.kind, "step_id": event.step_id,
                     "data": _dump(_event_payload(event))}
                )
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
        self.db["steps"].upsert(
            {
                "debate_id": debate_id, "step_id": ev.step_id, "call": d.get("call", 1),
                "seq": self._next_seq(debate_id), "round": d.get("round"), "stage": d.get("stage"),
                "agent": d.get("agent"), "target": d.get("target"), "status": "running",
                "model": d.get("model"), "prompt": _dump(d.get("prompt")), "started_at": _now(),
                "reply_cap": d.get("reply_cap"),
            },
            pk=("debate_id", "step_id", "call"),
        )

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
               latency_ms = ?, attempts = ?, errors = ?, model = COALESCE(?, model), finished_at = ?
               WHERE debate_id = ? AND step_id = ? AND call = ?""",
            [d.get("raw"), _dump(d.get("output")), d.get("input_tokens"), d.get("output_tokens"),
             d.get("latency_ms"), d.get("attempts"), _dump(d.get("errors") or []), d.get("model"), _now(),
             debate_id, ev.step_id, call],
        )
        self._add_usage(debate_id, d)
        step = self.db.execute(
            "SELECT stage, round, agent, target FROM steps WHERE debate_id = ? AND step_id = ? AND call = ?",
            [debate_id, ev.step_id, call],
        ).fetchone()
        if not step:
            return
        stage, round_no, agent, target = step
        output = d.get("output") or {}
        if stage in ("answer", "revise"):
            self.db["claims"].upsert_all(
                [
                    {
                        "debate_id": debate_id, "step_id": ev.step_id, "round": round_no, "agent": agent,
                        "claim_id": c.get("id"), "statement": c.get("statement"), "evidence": _dump(c.get("evidence", [])),
                        "confidence": c.get("confidence"), "verified": int(bool(c.get("verified", True))),
                        "unverified_evidence": _dump(c.get("unverified_evidence", [])),
                    }
                    for c in output.get("claims", [])
                ],
                pk=("debate_id", "step_id", "claim_id"),
            )
        elif stage == "critique":
            self.db["critiques"].upsert_all(
                [
                    {
                        "debate_id": debate_id, "step_id": ev.step_id, "call": call, "round": round_no,
                        "critic": agent, "target": target, "critique_id": c.get("id"),
                        "target_claim_id": c.get("target_claim_id"), "issue_type": c.get("issue_type"),
                        "severity": c.get("severity"), "description": c.get("description"),
                        "suggested_fix": c.get("suggested_fix"),
                    }
                    for c in output.get("critiques", [])
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
               failed_step = NULL WHERE id = ?""",
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
            where.append(f"{col}id IN (SELECT r.debate_id FROM reviews r WHERE r.reviewer = ?)")
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
            " d.confidence, d.review_state, d.reviewed_by, d.calls, d.input_tokens, d.output_tokens, d.error"
            f" FROM debates d WHERE d.rowid IN ({page}) ORDER BY d.created_at DESC, d.id DESC"
        )
        return list(self.db.query(sql, [*params, int(limit), int(offset)]))

    def count_debates(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM debates").fetchone()[0]

    def escalation_queue(self) -> list[dict[str, Any]]:
        return self.list_debates(review_state="escalated", limit=500)

    def reviewers(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT reviewer FROM reviews ORDER BY reviewer").fetchall()]

    def analytics(self) -> list[dict[str, Any]]:
        """Per protocol: escalation and override rates, rounds to converge, tokens, reviewer agreement."""
        sql = """
        SELECT d.protocol AS protocol,
               COUNT(*) AS debates,
               SUM(d.status = 'completed') AS completed,
               SUM(d.status = 'failed') AS failed,
               AVG(CASE WHEN d.status = 'completed' THEN d.needs_human_review END) AS escalation_rate,
               AVG(CASE WHEN d.converged = 1 THEN d.rounds END) AS rounds_to_converge,
               AVG(d.input_tokens + d.output_tokens) AS tokens_per_debate,
               SUM(d.review_state != 'pending') AS reviewed,
               AVG(CASE WHEN d.review_state IN ('accepted', 'overridden', 'escalated', 'approved')
                        THEN d.review_state = 'overridden' END) AS override_rate,
               AVG(CASE WHEN d.review_state IN ('accepted', 'overridden', 'escalated', 'approved')
                        THEN d.review_state IN ('accepted', 'approved') END) AS agreement_rate
        FROM debates d GROUP BY d.protocol ORDER BY d.protocol
        """
        return list(self.db.query(sql))

    # -- reviews ----------------------------------------------------------------------
    @contextlib.contextmanager
    def _immediate(self) -> Iterator[None]:
        """A write transaction that takes the lock before reading, so a read-then-write cannot
        deadlock against another reviewer's connection: the second one waits, then sees the change."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.conn.rollback()
            raise
        else:
            self.db.conn.commit()

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
        """Append one review action. Raises ReviewConflict when `expected_version` is stale."""
        reviewer = (reviewer or "").strip()
        if not reviewer:
            raise ReviewError("a reviewer name is required")
        allowed = SUPERVISOR_ACTIONS if supervisor else REVIEW_ACTIONS
        if action not in allowed:
            raise ReviewError(f"unknown action {action!r}; choose from {', '.join(allowed)}")
        reason = (reason or "").strip() or None
        answer = (answer or "").strip() or None
        if action == "override" and not answer:
            raise ReviewError("an override needs the corrected answer")
        if action in ("override", "escalate") and not reason:
            raise ReviewError(f"{action} needs a reason")
        with self._lock, self._immediate():
            row = self.db.execute(
                "SELECT status, review_state, final_answer, version FROM debates WHERE id = ?", [debate_id]
            ).fetchone()
            if not row:
                raise NotFound(f"no debate with id {debate_id!r}")
            status, state, final_answer, version = row
            if status != "completed":
                raise ReviewError(f"debate {debate_id} is {status}; only completed debates can be reviewed")
            if expected_version is not None and expected_version != version:
                raise ReviewConflict(
                    f"debate {debate_id} was changed by someone else (now '{state}'); reload and try again"
                )
            if supervisor and state != "escalated":
                raise ReviewError(f"only escalated debates go to a supervisor; this one is '{state}'")
            if not supervisor and state not in ("pending",):
                raise ReviewError(f"debate {debate_id} was already reviewed ('{state}')")
            new_state = {
                "accept": "accepted", "override": "overridden", "escalate": "escalated", "approve": "approved",
            }[action]
            new_answer = answer if action == "override" else final_answer
            cur = self.db.execute(
                """UPDATE debates SET review_state = ?, final_answer = ?, reviewed_by = ?, version = version + 1,
                   updated_at = ? WHERE id = ? AND version = ?""",
                [new_state, new_answer, reviewer, _now(), debate_id, version],
            )
            if cur.rowcount != 1:
                raise ReviewConflict(f"debate {debate_id} was changed by someone else; reload and try again")
            entry = {
                "debate_id": debate_id, "ts": _now(), "reviewer": reviewer,
                "role": "supervisor" if supervisor else "reviewer", "action": action, "state_before": state,
                "state_after": new_state, "answer_before": final_answer, "answer_after": new_answer, "reason": reason,
            }
            self.db["reviews"].insert(entry)
            if action == "override":
                self.db.execute(f"UPDATE debate_search SET answer = ? WHERE rowid = {_SEARCH_ROW}",
                                [new_answer, debate_id])
        return {**entry, "version": version + 1}


def _event_payload(event: Event) -> dict[str, Any]:
    # The rendered prompt and outputs already live in the steps table; keep events light.
    return {k: v for k, v in event.data.items() if k not in ("prompt", "output", "raw")}


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
