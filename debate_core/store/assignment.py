"""Assigning debates that wait for a human, and each person's queue.

A completed debate the moderator flagged waits in the reviewers' queue until someone accepts,
overrides or escalates it; an escalated one waits in the supervisors' queue until a supervisor
approves or settles it. Either may be assigned to one person. The rules:

- an assignment holds while the debate stays in the review state it was assigned in
  (`assigned_state`): a debate its reviewer escalates reaches the supervisors' queue unassigned, and
  undoing the escalation brings the reviewer's assignment back (unless a supervisor assigned the
  escalated debate meanwhile: one assignment is kept, the latest);
- taking a debate for yourself, or letting go of your own, needs the right to decide it in its state
  (`review` while it is pending, `decide_escalation` once escalated) and that nobody else holds it;
- assigning it to someone else, taking it from someone, or releasing someone else's needs a supervisor;
- every change is a row of the audit table (who, when, to whom); the review state and version are
  left alone, so a reviewer's open review form stays valid.

People are matched by a key: a signed-in person by their provider and subject (the name and e-mail
may change), anyone else (a local-mode label, the server's operator) by their name without regard
to case, as `Actor.same_person` matches the audit trail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.identity import Actor, PermissionRefused, require
from ..core.review_rules import ReviewError
from .audit import AuditMixin
from .connection import NotFound
from .queries import _real_work

# The capacity a queue is worked in, and the review state its debates wait in.
QUEUE_STATES = {"reviewer": "pending", "supervisor": "escalated"}
_DECIDE = {"pending": "review", "escalated": "decide_escalation"}


def person_key(kind: str | None, name: str | None, subject: str | None = None, provider: str | None = None) -> str:
    """The key a person is assigned under (see the module's docstring)."""
    if kind == "verified":
        return f"signed-in:{provider or ''}:{subject or ''}"
    return f"name:{(name or '').strip().casefold()}"


@dataclass(frozen=True)
class Assignee:
    key: str
    name: str

    @classmethod
    def of(cls, actor: Actor) -> Assignee:
        return cls(person_key(actor.kind, actor.name, actor.subject, actor.provider), actor.name)

    @classmethod
    def named(cls, name: str) -> Assignee:
        """Someone named by a label (local mode, the command line): matched by the name."""
        name = (name or "").strip()[:100]
        return cls(person_key("label", name), name)


def actor_key(actor: Actor) -> str:
    return Assignee.of(actor).key


def current_assignee(debate: dict[str, Any]) -> Assignee | None:
    """Who holds a debate now: its assignment, if made in the state the debate is still in."""
    key = debate.get("assignee_key")
    if not key or debate.get("assigned_state") != debate.get("review_state"):
        return None
    return Assignee(str(key), str(debate.get("assignee_name") or ""))


# An assignment counts only while the debate is in the state it was made in.
_HELD = "(d.assigned_state = d.review_state)"


class AssignmentMixin(AuditMixin):
    """Assignment writes (checked and audited) and the per-person queues."""

    def assign(self, debate_id: str, assignee: Actor | Assignee | str | None, *, actor: Actor | None) -> dict[str, Any]:
        """Assign a debate waiting for a decision to `assignee` (a person, or a name in local mode), or
        release it with None. Raises PermissionRefused (nothing written) when the acting person's role
        does not allow it, ReviewError when the debate waits for no decision, NotFound for an unknown id."""
        if isinstance(assignee, str):
            assignee = Assignee.named(assignee)
        elif isinstance(assignee, Actor):
            assignee = Assignee.of(assignee)
        if assignee is not None and not assignee.name:
            raise ReviewError("name the person the debate is assigned to")
        require(actor, "review")
        assert actor is not None  # require refuses None
        me = actor_key(actor)
        with self._write():
            row = self.sql.execute(
                "SELECT status, review_state, assignee_key, assignee_name, assigned_state FROM debates WHERE id = ?",
                [debate_id]).fetchone()
            if not row:
                raise NotFound(f"no debate with id {debate_id!r}")
            status, state, held_key, held_name, held_state = row
            if status != "completed" or state not in _DECIDE:
                raise ReviewError(f"debate {debate_id} is not waiting for a decision (it is {status}, "
                                  f"review '{state}'); there is nothing to assign")
            if held_state != state:
                held_key = held_name = None
            require(actor, _DECIDE[state])
            for_self = assignee is None or assignee.key == me
            if not (for_self and held_key in (None, me)) and not actor.may("decide_escalation"):
                what = (f"take a debate assigned to {held_name}" if held_key not in (None, me)
                        else "assign a debate to someone else")
                raise PermissionRefused(f"{actor.name} has the {actor.role} role; only a supervisor or above may "
                                        f"{what}")
            new_key = assignee.key if assignee else None
            if new_key == held_key:  # nothing changes: no audit row for it
                return {"debate_id": debate_id, "assignee_key": held_key, "assignee_name": held_name, "changed": False}
            now = self._now()
            self.sql.execute(
                "UPDATE debates SET assignee_key = ?, assignee_name = ?, assigned_at = ?, assigned_state = ? "
                "WHERE id = ?",
                [new_key, assignee.name if assignee else None, now if assignee else None,
                 state if assignee else None, debate_id])
            if assignee is None:
                detail = f"released debate {debate_id} (was assigned to {held_name})"
            elif assignee.key == me:
                detail = f"took debate {debate_id}" + (f" from {held_name}" if held_key else "")
            else:
                detail = f"assigned debate {debate_id} to {assignee.name}" + (f" (was {held_name})" if held_key else "")
            self._audit_row(actor, "assign", debate_id, detail)
        return {"debate_id": debate_id, "assignee_key": new_key, "assignee_name": assignee.name if assignee else None,
                "changed": True}

    def _queue_where(self, role: str, include_evaluations: bool) -> tuple[str, list[Any]]:
        if role not in QUEUE_STATES:
            raise ValueError(f"no queue for the role {role!r}; choose from {', '.join(QUEUE_STATES)}")
        where = ["d.review_state = ?", "d.status = 'completed'", _real_work(include_evaluations, "d.")]
        if role == "reviewer":  # the moderator's flag; an escalated debate waits whether it was flagged or not
            where.append("d.needs_human_review = 1")
        return " AND ".join(where), [QUEUE_STATES[role]]

    def my_queue(self, actor_key: str, role: str = "reviewer", *, include_evaluations: bool = False,
                 limit: int = 50) -> list[dict[str, Any]]:
        """The debates waiting for `role` ("reviewer": flagged by the moderator and not yet reviewed;
        "supervisor": escalated, awaiting approval or settlement) that are assigned to the person
        with `actor_key` or to nobody, oldest first. Runs made by an evaluation are left out unless
        `include_evaluations`. Each row names its current assignee (None when unassigned)."""
        where, params = self._queue_where(role, include_evaluations)
        sql = (
            "SELECT d.id, d.title, d.question, d.protocol, d.provider, d.model, d.status, d.created_at,"
            " d.finished_at, d.rounds, d.converged, d.needs_human_review, d.final_answer, d.confidence,"
            " d.review_state, d.reviewed_by, d.version, d.evaluation_id,"
            f" CASE WHEN {_HELD} THEN d.assignee_key END AS assignee_key,"
            f" CASE WHEN {_HELD} THEN d.assignee_name END AS assignee_name,"
            f" CASE WHEN {_HELD} THEN d.assigned_at END AS assigned_at"
            f" FROM debates d WHERE {where}"
            f" AND (d.assignee_key IS NULL OR d.assigned_state IS NULL OR NOT {_HELD} OR d.assignee_key = ?)"
            " ORDER BY d.created_at, d.id LIMIT ?"
        )
        return list(self.sql.query(sql, [*params, actor_key, int(limit)]))

    def queue_counts(self, actor_key: str, role: str = "reviewer", *,
                     include_evaluations: bool = False) -> dict[str, int]:
        """How many debates wait in `role`'s queue: `left` (assigned to this person or to nobody: what
        `my_queue` lists), `mine`, `unassigned`, and `others` (held by someone else)."""
        where, params = self._queue_where(role, include_evaluations)
        f = self.sql.flag
        free = f"d.assignee_key IS NULL OR d.assigned_state IS NULL OR NOT {_HELD}"
        row = self.sql.execute(
            f"SELECT COUNT(*), COALESCE(SUM({f(free)}), 0), COALESCE(SUM({f(f'{_HELD} AND d.assignee_key = ?')}), 0)"
            f" FROM debates d WHERE {where}", [actor_key, *params]).fetchone()
        waiting, unassigned, mine = (int(x or 0) for x in row)
        return {"left": unassigned + mine, "mine": mine, "unassigned": unassigned,
                "others": waiting - unassigned - mine}

    def known_people(self, *, signed_in: bool) -> list[Assignee]:
        """People a supervisor may assign a debate to: everyone who has acted in the app (review,
        annotate, start, settings), by the key they are matched under, with their latest name. With
        `signed_in`, only signed-in people (their labels from local mode are not identities);
        otherwise only names (labels and the operator's)."""
        kind = "d.actor_kind = 'verified'" if signed_in else "(d.actor_kind IS NULL OR d.actor_kind != 'verified')"
        rows = []
        for table in ("reviews", "audit"):
            rows += self.sql.execute(
                f"SELECT d.reviewer, d.actor_kind, d.actor_subject, d.actor_provider, MAX(d.ts) FROM {table} d"
                f" WHERE {kind} AND d.reviewer IS NOT NULL AND d.reviewer != 'unnamed'"
                " GROUP BY d.reviewer, d.actor_kind, d.actor_subject, d.actor_provider").fetchall()
        latest: dict[str, tuple[str, str]] = {}
        for name, actor_kind, subject, provider, ts in rows:
            if actor_kind == "verified" and not subject:
                continue
            key = person_key(actor_kind, name, subject, provider)
            if key not in latest or (ts or "") > latest[key][1]:
                latest[key] = (str(name).strip(), ts or "")
        return sorted((Assignee(k, n) for k, (n, _) in latest.items()), key=lambda a: (a.name.casefold(), a.key))
