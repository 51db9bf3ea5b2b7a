"""The PostgreSQL schema, as its own migration set: `0001_schema` is the final schema of the
SQLite migrations (0001 to 0010: steps' live output, annotations, evaluations, steering, the audit
table and actor columns) written at once; `0002_evaluation_runs` is SQLite's 0011, `0003_assignment`
SQLite's 0012. Later changes are appended here as new migrations.

Types follow the SQLite columns: text, bigint for every integer (flags stay 0 or 1, as on SQLite),
double precision for floats; JSON stays text, so rows read back exactly as on SQLite. The search
row of a debate holds its question, answer and claims already cut into words as FTS5 cuts them
(`postgres_backend.search_words`), matched through a GIN index on their `tsvector` (the `simple`
configuration: no stemming, no stop words; `0004` replaced the stored tsvector column of `0001`).
"""

from __future__ import annotations

# Text compares byte by byte, as SQLite's default BINARY collation does, whatever the database's locale.
_T, _I, _F = 'text COLLATE "C"', "bigint", "double precision"


def _table(name: str, columns: dict[str, str], pk: tuple[str, ...] | None = None, serial: str | None = None) -> str:
    cols = [f'"{c}" bigserial PRIMARY KEY' if c == serial else f'"{c}" {t}' for c, t in columns.items()]
    if pk:
        cols.append(f"PRIMARY KEY ({', '.join(pk)})")
    return f"CREATE TABLE {name} ({', '.join(cols)})"


def _index(table: str, *columns: str) -> str:
    return f"CREATE INDEX idx_{table}_{'_'.join(columns)} ON {table} ({', '.join(columns)})"


_ACTOR = {"actor_kind": _T, "actor_subject": _T, "actor_email": _T, "actor_provider": _T}

SCHEMA_0001: list[str] = [
    _table("cases", {"id": _T, "title": _T, "question": _T, "domain_hint": _T, "data": _T, "created_at": _T},
           pk=("id",)),
    _table("debates", {
        "id": _T, "case_id": _T, "title": _T, "question": _T, "protocol": _T, "provider": _T, "model": _T,
        "provider_config": _T, "settings": _T, "case_json": _T, "status": f"{_T} DEFAULT 'running'",
        "created_at": _T, "updated_at": _T, "finished_at": _T, "rounds": _I, "converged": _I,
        "convergence_reason": _T, "verdict": _T, "needs_human_review": _I, "final_answer": _T, "confidence": _F,
        "review_state": f"{_T} DEFAULT 'pending'", "reviewed_by": _T, "version": f"{_I} DEFAULT 0", "error": _T,
        "failed_step": _T, "calls": _I, "input_tokens": _I, "output_tokens": _I, "trajectory": _T,
        "agent_usage": _T, "result": _T, "summary": _T, "warnings": _T, "resumed_from": _T, "search_rowid": _I,
        "control": _T, "paused_at": _T, "paused_round": _I, "next_round": _I, "parent_id": _T, "fork_round": _I,
    }, pk=("id",)),
    _table("steps", {
        "debate_id": _T, "step_id": _T, "call": _I, "seq": _I, "round": _I, "stage": _T, "agent": _T,
        "target": _T, "status": _T, "model": _T, "prompt": _T, "raw_output": _T, "output": _T,
        "input_tokens": _I, "output_tokens": _I, "latency_ms": _F, "attempts": _I, "errors": _T, "error": _T,
        "started_at": _T, "finished_at": _T, "reply_cap": _I, "partial_output": _T, "partial_tokens": _I,
        "tokens_per_s": _F, "reused_from": _T,
    }, pk=("debate_id", "step_id", "call")),
    _table("events", {"id": _I, "debate_id": _T, "ts": _F, "kind": _T, "step_id": _T, "data": _T}, serial="id"),
    _table("reviews", {
        "id": _I, "debate_id": _T, "ts": _T, "reviewer": _T, "role": _T, "action": _T, "state_before": _T,
        "state_after": _T, "answer_before": _T, "answer_after": _T, "reason": _T, **_ACTOR,
    }, serial="id"),
    _table("claims", {
        "debate_id": _T, "step_id": _T, "round": _I, "agent": _T, "claim_id": _T, "statement": _T,
        "evidence": _T, "confidence": _F, "verified": _I, "unverified_evidence": _T,
    }, pk=("debate_id", "step_id", "claim_id")),
    _table("critiques", {
        "debate_id": _T, "step_id": _T, "call": _I, "round": _I, "critic": _T, "target": _T, "critique_id": _T,
        "target_claim_id": _T, "issue_type": _T, "severity": _T, "description": _T, "suggested_fix": _T,
    }, pk=("debate_id", "step_id", "call", "critique_id")),
    _table("annotations", {
        "id": _I, "debate_id": _T, "ts": _T, "reviewer": _T, "kind": _T, "ref": _T, "step_id": _T, "call": _I,
        "round": _I, "agent": _T, "target": _T, "item_id": _T, "label": _T, "severity": _T, "item_severity": _T,
        "comment": _T,
    }, serial="id"),
    _table("evaluations", {
        "id": _T, "created_at": _T, "updated_at": _T, "finished_at": _T, "status": f"{_T} DEFAULT 'running'",
        "protocol": _T, "methods": _T, "cases": _T, "settings": _T, "total_runs": _I,
        "done_runs": f"{_I} DEFAULT 0", "tokens": f"{_I} DEFAULT 0", "summary": _T, "error": _T, **_ACTOR,
        "started_by": _T,
    }, pk=("id",)),
    _table("evaluation_rows", {
        "evaluation_id": _T, "seq": _I, "case_id": _T, "method": _T, "repeat": _I, "debate_id": _T, "status": _T,
        "right": _I, "flagged": _I, "silent_wrong": _I, "over_flagged": _I, "tokens": _I, "cost": _F,
        "wall_ms": _F, "data": _T,
    }, pk=("evaluation_id", "case_id", "method", "repeat")),
    _table("audit", {
        "id": _I, "ts": _T, "action": _T, "target": _T, "detail": _T, "reviewer": _T, "role": _T, **_ACTOR,
    }, serial="id"),
    "CREATE TABLE debate_search (rowid bigserial PRIMARY KEY, debate_id text, question text, answer text, "
    "claims text, tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(question, '') || ' ' || "
    "coalesce(answer, '') || ' ' || coalesce(claims, ''))) STORED)",
    "CREATE INDEX idx_debate_search_tsv ON debate_search USING gin (tsv)",
    _index("steps", "debate_id", "seq"),
    _index("events", "debate_id", "id"),
    _index("reviews", "debate_id", "id"),
    _index("reviews", "reviewer", "debate_id"),
    "CREATE INDEX idx_reviews_lower_reviewer ON reviews (lower(reviewer))",
    _index("debates", "created_at", "id"),
    _index("debates", "protocol", "created_at", "id"),
    _index("debates", "status", "needs_human_review", "created_at", "id"),
    _index("debates", "review_state", "created_at", "id"),
    _index("debates", "search_rowid"),
    _index("debates", "parent_id"),
    _index("debates", "protocol", "model", "input_tokens", "output_tokens"),
    _index("claims", "debate_id"),
    _index("critiques", "debate_id"),
    _index("annotations", "debate_id", "id"),
    _index("annotations", "kind", "debate_id", "step_id", "call", "item_id", "reviewer"),
    _index("annotations", "reviewer"),
    _index("evaluations", "created_at", "id"),
    _index("evaluation_rows", "evaluation_id", "seq"),
    _index("audit", "ts"),
]

# Tables keyed by a generated id: an insert returns it.
SERIAL_TABLES = frozenset({"events", "reviews", "annotations", "audit", "debate_search"})

# SQLite's 0011: the evaluation that made a run (NULL for real work), so lists, queues and analytics
# leave evaluation runs out; the listing index ends with it, as on SQLite.
SCHEMA_0002: list[str] = [
    'ALTER TABLE debates ADD COLUMN "evaluation_id" text COLLATE "C"',
    _index("debates", "created_at", "id", "evaluation_id"),
    _index("debates", "evaluation_id"),
]

# SQLite's 0012: who a debate waiting for a human is assigned to, and the queues' index.
SCHEMA_0003: list[str] = [
    *(f'ALTER TABLE debates ADD COLUMN "{column}" text COLLATE "C"'
      for column in ("assignee_key", "assignee_name", "assigned_at", "assigned_state")),
    # Named here: the generated name would pass PostgreSQL's 63-character limit on identifiers.
    "CREATE INDEX idx_debates_queue ON debates (review_state, needs_human_review, status, created_at, id, "
    "evaluation_id, assignee_key, assigned_state)",
]

# PostgreSQL only (bench/store_scale.py at 10,000 debates): History's search and Analytics read
# covering indexes, as on SQLite. The stored tsvector is replaced by a GIN index on the same
# expression: the stored column was large enough to live out of line, so the planner, not counting
# that cost, scanned it row by row; matching on the indexed expression (postgres_backend.SEARCH_DOC)
# costs a scan with the expression per row, and the index is chosen.
SCHEMA_0004: list[str] = [
    "CREATE INDEX idx_debates_search_cover ON debates (search_rowid) "
    "INCLUDE (created_at, id, evaluation_id, protocol, status, needs_human_review, review_state)",
    "DROP INDEX idx_debates_search_rowid",
    "CREATE INDEX idx_debates_analytics ON debates (protocol) INCLUDE (status, needs_human_review, converged, "
    "rounds, review_state, input_tokens, output_tokens, evaluation_id)",
    "CREATE INDEX idx_debate_search_words ON debate_search USING gin ((to_tsvector('simple', "
    "coalesce(question, '') || ' ' || coalesce(answer, '') || ' ' || coalesce(claims, ''))))",
    "DROP INDEX idx_debate_search_tsv",
    "ALTER TABLE debate_search DROP COLUMN tsv",
]

# SQLite's 0013: API tokens, kept as their SHA-256 only (debate_core/store/tokens.py).
SCHEMA_0005: list[str] = [
    _table("api_tokens", {"name": _T, "token_hash": _T, "role": _T, "created_at": _T, "created_by": _T,
                          "last_used_at": _T, "revoked_at": _T}, pk=("name",)),
    "CREATE UNIQUE INDEX idx_api_tokens_token_hash ON api_tokens (token_hash)",
]

PG_MIGRATIONS: list[tuple[str, list[str]]] = [("0001_schema", SCHEMA_0001), ("0002_evaluation_runs", SCHEMA_0002),
                                              ("0003_assignment", SCHEMA_0003),
                                              ("0004_covering_and_search_indexes", SCHEMA_0004),
                                              ("0005_api_tokens", SCHEMA_0005)]

# SQLite's 0014: webhook endpoints, the outbox of deliveries and each attempt (store/webhooks.py).
SCHEMA_0006: list[str] = [
    _table("webhooks", {"id": _I, "url": _T, "events": _T, "secret": _T, "created_at": _T, "created_by": _T,
                        "active": _I}, serial="id"),
    _table("webhook_deliveries", {
        "id": _I, "webhook_id": _I, "event_type": _T, "message_id": _T, "payload": _T, "status": _T, "attempts": _I,
        "next_attempt_at": _T, "last_status_code": _I, "last_error": _T, "created_at": _T, "delivered_at": _T,
    }, serial="id"),
    _index("webhook_deliveries", "status", "next_attempt_at"),
    _index("webhook_deliveries", "webhook_id", "id"),
    _table("webhook_attempts", {"id": _I, "delivery_id": _I, "attempt": _I, "at": _T, "status_code": _I,
                                "error": _T, "duration_ms": _F}, serial="id"),
    _index("webhook_attempts", "delivery_id", "attempt"),
]
SERIAL_TABLES = SERIAL_TABLES | {"webhooks", "webhook_deliveries", "webhook_attempts"}
PG_MIGRATIONS.append(("0006_webhooks", SCHEMA_0006))
