"""Reviewers' actions on a debate: review actions (an append-only audit trail guarded by an
optimistic version check, so two reviewers acting on the same debate at once cannot both win) and
labels on single claims and critiques. Who may take which action is decided in `debate_core/core/review_rules.py`,
what a label may say in `debate_core/core/annotation_rules.py`; this module writes what they allow.
"""

from __future__ import annotations

from typing import Any

from ..core import annotation_rules, review_rules
from ..core.identity import Actor, PermissionRefused, operator, require
from ..core.review_rules import ReviewConflict, ReviewRequest
from .connection import NotFound
from .queries import QueriesMixin, _real_work
from .rows import load
from .steering import STEERING_ACTIONS
from .webhooks import WebhooksMixin

# The states whose decision is final (debate_core/evaluation/labels.py reads their case and verdict).
_DECIDED = ("accepted", "overridden", "approved", "settled")
# Review actions that decide, take back or pass on a debate's answer (annotations and steering do not).
_ANSWER_ACTIONS = ("accept", "override", "escalate", "approve", review_rules.UNDO)


class ReviewsMixin(WebhooksMixin, QueriesMixin):
    """Writes review actions and annotations; an annotation is resolved against the stored rows it names."""

    def annotate(self, debate_id: str, *, kind: str, ref: str, label: str, reviewer: str | None = None,
                 actor: Actor | None = None, severity: str | None = None,
                 comment: str | None = None) -> dict[str, Any]:
        """Label one claim (`kind="claim"`) or critique of a debate, named by its reference as the
        app shows it. The label is kept with the reviewer and the time, and a line is appended to
        the debate's audit trail; the review state and version are left as they are, so a
        reviewer's open review form stays valid. Raises AnnotationError for a bad reference,
        label or severity, NotFound for an unknown debate."""
        if kind not in ("claim", "critique"):
            raise annotation_rules.AnnotationError(f"cannot annotate a {kind!r}; annotate a claim or a critique")
        if actor is None:  # the server's operator (the CLI, a script on the database)
            if not (reviewer or "").strip():
                raise annotation_rules.AnnotationError("an annotation needs the reviewer's name")
            actor = operator(reviewer)
        try:
            require(actor, "annotate")
        except PermissionRefused as exc:
            raise annotation_rules.AnnotationError(str(exc)) from None
        reviewer = actor.name
        comment = (comment or "").strip() or None
        if comment and len(comment) > annotation_rules.MAX_COMMENT:
            raise annotation_rules.AnnotationError(
                f"the comment is {len(comment)} characters; at most {annotation_rules.MAX_COMMENT} are kept")
        label, severity = annotation_rules.check_label(kind, label, severity)
        with self._write():
            row = self.sql.execute("SELECT review_state FROM debates WHERE id = ?", [debate_id]).fetchone()
            if not row:
                raise NotFound(f"no debate with id {debate_id!r}")
            rows = self.claims(debate_id) if kind == "claim" else self.critiques(debate_id)
            target = annotation_rules.resolve(kind, ref, rows)
            now = self._now()
            entry = {
                "debate_id": debate_id, "ts": now, "reviewer": reviewer, "kind": kind, "ref": target.ref,
                "step_id": target.step_id, "call": target.call, "round": target.round, "agent": target.agent,
                "target": target.target, "item_id": target.item_id, "label": label, "severity": severity,
                "item_severity": target.severity, "comment": comment,
            }
            entry["id"] = self.sql.insert("annotations", entry)
            self.sql.insert("reviews", {
                "debate_id": debate_id, "ts": now, **actor.audit_fields(), "role": "reviewer", "action": "annotate",
                "state_before": row[0], "state_after": row[0],
                "reason": annotation_rules.audit_text(target, label, severity, comment),
            })
        return entry

    def review(
        self,
        debate_id: str,
        *,
        action: str,
        reviewer: str | None = None,
        actor: Actor | None = None,
        answer: str | None = None,
        reason: str | None = None,
        expected_version: int | None = None,
        supervisor: bool = False,
    ) -> dict[str, Any]:
        """Append one review action, with the role rules of `review_rules.submit` (a supervisor's
        action needs the supervisor role). `actor` is who acts, as the front end vouches for it;
        without one, the server's operator acts under the name `reviewer`. Raises ReviewConflict
        when `expected_version` is stale, ReviewError (RoleError) when the action is not allowed."""
        return review_rules.submit(self, debate_id, action=action, reviewer=reviewer, actor=actor, answer=answer,
                                   reason=reason, expected_version=expected_version, supervisor=supervisor)

    def record_review(self, req: ReviewRequest) -> dict[str, Any]:
        """Write a validated review action. The state rules are checked inside the write lock,
        against the state the action is written over, so two reviewers cannot both win."""
        with self._write():
            row = self.sql.execute(
                "SELECT status, review_state, final_answer, version FROM debates WHERE id = ?", [req.debate_id]
            ).fetchone()
            if not row:
                raise NotFound(f"no debate with id {req.debate_id!r}")
            status, state, final_answer, version = row
            if req.action == review_rules.UNDO:
                last = next(iter(self.sql.query(
                    # Annotations are audit rows too, but they change no review state: not undone here.
                    "SELECT * FROM reviews WHERE debate_id = ? AND action NOT IN "
                    f"('annotate', {', '.join('?' for _ in STEERING_ACTIONS)}) ORDER BY id DESC LIMIT 1",
                    [req.debate_id, *STEERING_ACTIONS])), None)
                new_state, new_answer = review_rules.undo_transition(
                    req, last, status=status, state=state, version=version, final_answer=final_answer)
                # Who the debate is "reviewed by" goes back with the state: whoever brought it there.
                before = self.sql.execute(
                    "SELECT reviewer FROM reviews WHERE debate_id = ? AND id < ? AND state_after = ? "
                    "ORDER BY id DESC LIMIT 1", [req.debate_id, last["id"], new_state]).fetchone()
                reviewed_by = before[0] if before and new_state != "pending" else None
            else:
                new_state, new_answer = review_rules.transition(req, status=status, state=state, version=version,
                                                                final_answer=final_answer)
                reviewed_by = req.reviewer
            cur = self.sql.execute(
                """UPDATE debates SET review_state = ?, final_answer = ?, reviewed_by = ?, version = version + 1,
                   updated_at = ? WHERE id = ? AND version = ?""",
                [new_state, new_answer, reviewed_by, self._now(), req.debate_id, version],
            )
            if cur.rowcount != 1:
                raise ReviewConflict(f"debate {req.debate_id} was changed by someone else; reload and try again")
            entry = {
                "debate_id": req.debate_id, "ts": self._now(), **req.actor.audit_fields(), "role": req.role,
                "action": req.action, "state_before": state, "state_after": new_state, "answer_before": final_answer,
                "answer_after": new_answer, "reason": req.reason,
            }
            self.sql.insert("reviews", entry)
            if new_answer != final_answer:
                self.sql.search_update(req.debate_id, {"answer": new_answer})
            self._enqueue_review_webhooks(req.debate_id, entry)  # outbox rows in this write, sent later
        return {**entry, "version": version + 1}

    def review_records(self, *, protocol: str | None = None, since: str | None = None,
                       include_evaluations: bool = False, with_cases: bool = True) -> list[dict[str, Any]]:
        """Completed debates, oldest first, each with its review state, its highest critique severity
        (`top_severity`, None without critiques) and its review actions on the answer (`reviews`),
        for labelled data and agreement figures. The wide case and verdict columns are read only for
        decided debates, and only `with_cases`. `since` is a date (or time) the debate started on or
        after. Runs made by an evaluation are left out unless `include_evaluations`."""
        where, params = ["d.status = 'completed'", _real_work(include_evaluations, "d.")], []
        if protocol:
            where.append("d.protocol = ?")
            params.append(protocol)
        if since:
            where.append("d.created_at >= ?")
            params.append(since)
        marks = ", ".join("?" for _ in _DECIDED)
        wide = (f", CASE WHEN d.review_state IN ({marks}) THEN d.case_json END AS case_json,"
                f" CASE WHEN d.review_state IN ({marks}) THEN d.verdict END AS verdict") if with_cases else ""
        rank = "CASE c.severity WHEN 'CRITICAL' THEN 0 WHEN 'MAJOR' THEN 1 WHEN 'MINOR' THEN 2 END"
        sql = (
            "SELECT d.id, d.protocol, d.case_id, d.created_at, d.review_state, d.reviewed_by, d.final_answer,"
            f" (SELECT MIN({rank}) FROM critiques c WHERE c.debate_id = d.id) AS severity_rank{wide}"
            f" FROM debates d WHERE {' AND '.join(where)} ORDER BY d.created_at, d.id"
        )
        rows = self.sql.query(sql, [*((*_DECIDED, *_DECIDED) if with_cases else ()), *params])
        acts = ", ".join("?" for _ in _ANSWER_ACTIONS)
        history: dict[str, list[dict[str, Any]]] = {}
        for r in self.sql.query(
            f"SELECT r.* FROM reviews r JOIN debates d ON d.id = r.debate_id WHERE r.action IN ({acts})"
            f" AND {' AND '.join(where)} ORDER BY r.id", [*_ANSWER_ACTIONS, *params]):
            history.setdefault(r["debate_id"], []).append(r)
        severities = ("CRITICAL", "MAJOR", "MINOR")
        out = []
        for r in rows:
            rank_value = r.pop("severity_rank")
            r["top_severity"] = None if rank_value is None else severities[int(rank_value)]
            if with_cases:
                r["case"] = load(r.pop("case_json"))
                r["verdict"] = load(r["verdict"])
            r["reviews"] = history.get(r["id"], [])
            out.append(r)
        return out
