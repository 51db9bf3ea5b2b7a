"""Evaluation runs (debate_core/evaluation/harness.py): one row per evaluation with its settings, progress
and summary, and one row per run (case x method x repeat) naming the stored debate it ran.
"""

from __future__ import annotations

from typing import Any

from ..core.identity import Actor, require
from ..core.ids import new_debate_id
from .connection import NotFound, StoreConnection
from .rows import dump, flag, load


class EvaluationsMixin(StoreConnection):
    """Writes and reads evaluation runs; their debates are stored as any other."""

    def create_evaluation(self, *, protocol: str, methods: list[str], cases: list[str], settings: dict[str, Any],
                          total_runs: int, evaluation_id: str | None = None, actor: Actor | None = None) -> str:
        """Record an evaluation about to run; its rows arrive one by one as its runs finish. With
        `actor` (started from the app) their role must allow it, and who started it is kept."""
        if actor is not None:
            require(actor, "evaluate")
        evaluation_id = evaluation_id or new_debate_id()
        now = self._now()
        with self._write():
            self.sql.insert("evaluations", {
                "id": evaluation_id, "created_at": now, "updated_at": now, "status": "running",
                "protocol": protocol, "methods": dump(methods), "cases": dump(cases), "settings": dump(settings),
                "total_runs": total_runs, "done_runs": 0, "tokens": 0,
                **({"started_by": actor.name, **{k: v for k, v in actor.audit_fields().items() if k != "reviewer"}}
                   if actor is not None else {}),
            })
        return evaluation_id

    def add_evaluation_row(self, evaluation_id: str, row: dict[str, Any]) -> None:
        """One finished run of an evaluation, and the evaluation's progress with it."""
        with self._write():
            seq = self.sql.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM evaluation_rows WHERE evaluation_id = ?",
                                  [evaluation_id]).fetchone()[0]
            self.sql.upsert("evaluation_rows", [{
                "evaluation_id": evaluation_id, "seq": seq, "case_id": row.get("case"), "method": row.get("method"),
                "repeat": row.get("repeat"), "debate_id": row.get("debate_id"), "status": row.get("status"),
                "right": flag(row.get("right")), "flagged": flag(row.get("flagged")),
                "silent_wrong": flag(row.get("silent_wrong")), "over_flagged": flag(row.get("over_flagged")),
                "tokens": row.get("tokens"), "cost": row.get("cost"), "wall_ms": row.get("wall_ms"),
                "data": dump(row),
            }], pk=("evaluation_id", "case_id", "method", "repeat"))
            self.sql.execute(
                "UPDATE evaluations SET done_runs = done_runs + 1, tokens = tokens + ?, updated_at = ? WHERE id = ?",
                [int(row.get("tokens") or 0), self._now(), evaluation_id])

    def finish_evaluation(self, evaluation_id: str, *, status: str, summary: dict[str, Any] | None = None,
                          error: str | None = None) -> None:
        """Close an evaluation: `completed` with its summary, or `failed` with the reason."""
        now = self._now()
        with self._write():
            self.sql.execute(
                "UPDATE evaluations SET status = ?, summary = ?, error = ?, finished_at = ?, updated_at = ? WHERE id = ?",
                [status, dump(summary) if summary is not None else None, error, now, now, evaluation_id])

    def list_evaluations(self, limit: int = 100) -> list[dict[str, Any]]:
        """Stored evaluations, newest first, without their rows."""
        if "evaluations" not in self.sql.table_names():  # a read-only open of a database not migrated yet
            return []
        rows = self.sql.query(
            "SELECT id, created_at, finished_at, status, protocol, methods, cases, total_runs, done_runs, tokens, error,"
            " started_by, actor_kind, actor_email, actor_provider FROM evaluations ORDER BY created_at DESC, id DESC LIMIT ?", [int(limit)])
        return [{**r, "methods": load(r["methods"], []), "cases": load(r["cases"], [])} for r in rows]

    def get_evaluation(self, evaluation_id: str) -> dict[str, Any]:
        """One evaluation with its settings, summary and every run row (in the order they finished)."""
        if "evaluations" not in self.sql.table_names():
            raise NotFound(f"no evaluation with id {evaluation_id!r}")
        rows = list(self.sql.query("SELECT * FROM evaluations WHERE id = ?", [evaluation_id]))
        if not rows:
            raise NotFound(f"no evaluation with id {evaluation_id!r}")
        ev = dict(rows[0])
        for key, default in (("methods", []), ("cases", []), ("settings", {}), ("summary", None)):
            ev[key] = load(ev.get(key), default)
        ev["rows"] = [load(r[0], {}) for r in self.sql.execute(
            "SELECT data FROM evaluation_rows WHERE evaluation_id = ? ORDER BY seq", [evaluation_id]).fetchall()]
        return ev
