"""Recording a debate: its row when it starts, and every engine event into rows as it happens.

The store is the engine's event sink, so a crash loses at most the call in flight and live pages
only read the store. Each event kind has its handler `_on_<kind>`; kinds without one are kept in
the events table only.
"""

from __future__ import annotations

from typing import Any

from ..core.events import TRANSIENT_EVENTS, Event
from ..core.identity import Actor, require
from ..core.ids import new_debate_id
from ..core.schemas import Case
from .rows import dump, load
from .webhooks import WebhooksMixin


class ProjectionMixin(WebhooksMixin):
    """Creates debates and is the event sink: `record` writes an event and calls the handler of its
    kind, looked up by name on the whole store (`SteeringMixin._on_intervention` is one)."""

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
        actor: Actor | None = None,
        evaluation_id: str | None = None,
    ) -> str:
        """Create a debate's row. With `actor` (a debate started from the app), their role must allow
        starting debates (PermissionRefused otherwise, nothing written) and the start is audited.
        `evaluation_id` marks a run made by that evaluation: History, the queues and Analytics leave
        it out unless asked."""
        if actor is not None:
            require(actor, "start")
        debate_id = debate_id or new_debate_id()
        now = self._now()
        with self._write():
            self.sql.upsert("cases", [{
                "id": case.id, "title": case.title, "question": case.question,
                "domain_hint": case.domain_hint, "data": case.model_dump_json(), "created_at": now,
            }], pk=("id",))
            search_rowid = self.sql.search_insert(debate_id, case.question)
            self.sql.insert("debates",
                {
                    "id": debate_id, "case_id": case.id, "title": case.title, "question": case.question,
                    "protocol": protocol, "provider": provider_config.get("provider"),
                    "model": provider_config.get("model"), "provider_config": dump(provider_config),
                    "settings": dump(settings), "case_json": case.model_dump_json(), "status": "running",
                    "created_at": now, "updated_at": now, "version": 0, "review_state": "pending",
                    "calls": 0, "input_tokens": 0, "output_tokens": 0, "resumed_from": resumed_from,
                    "search_rowid": search_rowid, "parent_id": parent_id, "fork_round": fork_round,
                    "evaluation_id": evaluation_id,
                }
            )
            if actor is not None:
                self.sql.insert("audit", {"ts": now, "action": "start", "target": debate_id, "role": actor.role,
                                         "detail": f"started a {protocol} debate", **actor.audit_fields()})
        return debate_id

    def record(self, debate_id: str, event: Event) -> None:
        with self._write():
            if event.kind not in TRANSIENT_EVENTS:
                # Plain SQL: sqlite-utils' insert rebuilds its query on every call, which costs more
                # than the write itself when many debates record events at once (bench/eval_concurrency.py).
                self.sql.execute(
                    "INSERT INTO events (debate_id, ts, kind, step_id, data) VALUES (?, ?, ?, ?, ?)",
                    [debate_id, event.ts, event.kind, event.step_id, dump(_event_payload(event))])
            handler = getattr(self, f"_on_{event.kind}", None)
            if handler:
                handler(debate_id, event)
            self.sql.execute("UPDATE debates SET updated_at = ? WHERE id = ?", [self._now(), debate_id])

    def _next_seq(self, debate_id: str) -> int:
        if debate_id not in self._seq:
            row = self.sql.execute("SELECT COALESCE(MAX(seq), 0) FROM steps WHERE debate_id = ?", [debate_id]).fetchone()
            self._seq[debate_id] = row[0]
        self._seq[debate_id] += 1
        return self._seq[debate_id]

    def _on_turn_started(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        row = {
            "debate_id": debate_id, "step_id": ev.step_id, "call": d.get("call", 1),
            "seq": self._next_seq(debate_id), "round": d.get("round"), "stage": d.get("stage"),
            "agent": d.get("agent"), "target": d.get("target"), "status": "running",
            "model": d.get("model"), "prompt": dump(d.get("prompt")), "started_at": self._now(),
            "reply_cap": d.get("reply_cap"),
        }
        # An upsert in plain SQL (see `record`): a step started again replaces the columns named here.
        columns = ", ".join(row)
        updates = ", ".join(f"{k} = excluded.{k}" for k in row if k not in ("debate_id", "step_id", "call"))
        self.sql.execute(
            f"INSERT INTO steps ({columns}) VALUES ({', '.join('?' for _ in row)}) "
            f"ON CONFLICT (debate_id, step_id, call) DO UPDATE SET {updates}", list(row.values()))

    def _on_turn_progress(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        self.sql.execute(
            """UPDATE steps SET partial_output = ?, partial_tokens = ?, tokens_per_s = ?
               WHERE debate_id = ? AND step_id = ? AND call = ? AND status = 'running'""",
            [d.get("text"), d.get("tokens"), d.get("tokens_per_s"), debate_id, ev.step_id, d.get("call", 1)],
        )

    def _on_turn_finished(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        call = d.get("call", 1)
        self.sql.execute(
            """UPDATE steps SET status = 'ok', raw_output = ?, output = ?, input_tokens = ?, output_tokens = ?,
               latency_ms = ?, attempts = ?, errors = ?, model = COALESCE(?, model), finished_at = ?,
               reused_from = ?
               WHERE debate_id = ? AND step_id = ? AND call = ?""",
            [d.get("raw"), dump(d.get("output")), d.get("input_tokens"), d.get("output_tokens"),
             d.get("latency_ms"), d.get("attempts"), dump(d.get("errors") or []), d.get("model"), self._now(),
             d.get("reused_from"), debate_id, ev.step_id, call],
        )
        self._add_usage(debate_id, d)
        step = self.sql.execute(
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
            self.sql.upsert(
                "claims", [
                    {
                        "debate_id": debate_id, "step_id": ev.step_id, "round": round_no, "agent": agent,
                        "claim_id": c.get("claim_id"), "statement": c.get("statement"),
                        "evidence": dump(c.get("evidence") or []), "confidence": c.get("confidence"),
                        "verified": int(bool(c.get("verified", True))),
                        "unverified_evidence": dump(c.get("unverified_evidence") or []),
                    }
                    for c in claims
                ],
                pk=("debate_id", "step_id", "claim_id"),
            )
        critiques = d.get("critiques_rows") or []
        if critiques:
            self.sql.upsert(
                "critiques", [
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
        self.sql.execute(
            """UPDATE steps SET status = 'failed', raw_output = ?, error = ?, attempts = ?, errors = ?,
               input_tokens = ?, output_tokens = ?, finished_at = ?
               WHERE debate_id = ? AND step_id = ? AND call = ?""",
            [d.get("raw"), d.get("error"), d.get("attempts"), dump(d.get("errors") or []),
             d.get("input_tokens"), d.get("output_tokens"), self._now(), debate_id, ev.step_id, d.get("call", 1)],
        )
        self._add_usage(debate_id, d)

    def _add_usage(self, debate_id: str, d: dict[str, Any]) -> None:
        self.sql.execute(
            """UPDATE debates SET calls = calls + ?, input_tokens = input_tokens + ?,
               output_tokens = output_tokens + ? WHERE id = ?""",
            [d.get("calls") or 0, d.get("input_tokens") or 0, d.get("output_tokens") or 0, debate_id],
        )

    def _on_completed(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        verdict = d.get("verdict") or {}
        now = self._now()
        self.sql.execute(
            """UPDATE debates SET status = 'completed', finished_at = ?, rounds = ?, converged = ?,
               convergence_reason = ?, verdict = ?, needs_human_review = ?, final_answer = ?, confidence = ?,
               trajectory = ?, agent_usage = ?, result = ?, summary = ?, warnings = ?, error = NULL,
               failed_step = NULL, control = NULL, paused_at = NULL, next_round = NULL WHERE id = ?""",
            [now, d.get("rounds"), int(bool(d.get("converged"))), d.get("convergence_reason"), dump(verdict),
             int(bool(verdict.get("needs_human_review"))), verdict.get("answer"), verdict.get("confidence"),
             dump(d.get("trajectory") or []), dump(d.get("agent_usage") or {}), dump(d.get("result") or {}),
             dump(d.get("summary") or {}), dump(d.get("warnings") or []), debate_id],
        )
        claims_text = " ".join(
            r[0] for r in self.sql.execute("SELECT statement FROM claims WHERE debate_id = ?", [debate_id]).fetchall()
            if r[0]
        )
        self.sql.search_update(debate_id, {"answer": verdict.get("answer") or "", "claims": claims_text})
        self._enqueue_debate_webhooks(debate_id)  # an outbox row in this write; nothing is sent here

    def _on_failed(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        self.sql.execute(
            "UPDATE debates SET status = 'failed', finished_at = ?, error = ?, failed_step = ?, agent_usage = ? WHERE id = ?",
            [self._now(), d.get("error"), ev.step_id, dump(d.get("agent_usage") or {}), debate_id],
        )
        self._enqueue_debate_webhooks(debate_id)

    def _on_paused(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        self.sql.execute(
            """UPDATE debates SET status = 'paused', control = NULL, paused_at = ?, paused_round = ?, next_round = ?,
               rounds = ?, agent_usage = ? WHERE id = ?""",
            [d.get("at"), d.get("round"), d.get("next_round"), d.get("round"), dump(d.get("agent_usage") or {}),
             debate_id])

    def _on_stopped(self, debate_id: str, ev: Event) -> None:
        d = ev.data
        self.sql.execute(
            """UPDATE debates SET status = 'stopped', control = NULL, finished_at = ?, paused_at = ?, paused_round = ?,
               next_round = NULL, rounds = COALESCE(?, rounds) WHERE id = ?""",
            [self._now(), d.get("at"), d.get("round"), d.get("round"), debate_id])

    def _on_continued(self, debate_id: str, ev: Event) -> None:
        self.sql.execute("UPDATE debates SET status = 'running', control = NULL WHERE id = ?", [debate_id])

    def _on_run_claimed(self, debate_id: str, ev: Event) -> None:
        """A queue worker took the debate's job: it is the debate's runner now. The event itself
        stays in the log, so the record lists every worker that ran the debate."""
        row = self.sql.execute("SELECT settings FROM debates WHERE id = ?", [debate_id]).fetchone()
        if row is None:
            return
        settings = load(row[0]) or {}
        settings["runner"] = {k: v for k, v in ev.data.items() if k in ("queue", "job_id", "worker", "host", "pid")}
        self.sql.execute("UPDATE debates SET settings = ? WHERE id = ?", [dump(settings), debate_id])

    def mark_interrupted(self, debate_id: str, message: str) -> None:
        """A debate whose process died: keep every completed step, mark it failed so it can be resumed."""
        self.record(debate_id, Event("failed", None, {"error": message}))


def _event_payload(event: Event) -> dict[str, Any]:
    # The rendered prompt and outputs already live in the steps table; keep events light.
    return {k: v for k, v in event.data.items() if k not in ("prompt", "output", "raw", "claims_rows", "critiques_rows")}
