"""Steering a debate from outside its run: pause and stop requests, claiming a paused debate to
continue it, reviewers' interventions, forks. Who may steer and what an intervention holds is
decided in `debate_core/core/steering.py`; this module only writes it, each action with an audit row.
"""

from __future__ import annotations

import time
from typing import Any

from ..core.events import Event
from ..core.identity import Actor, PermissionRefused, operator, require
from ..core.steering import PAUSE, STOP, SteeringError, human_step_id
from .connection import NotFound
from .projection import ProjectionMixin
from .queries import QueriesMixin
from .rows import decode_debate, dump

# Audit rows of steering actions: they change no review state, so an undo passes over them.
STEERING_ACTIONS = ("pause", "stop", "continue", "intervene", "fork")


class SteeringMixin(ProjectionMixin, QueriesMixin):
    """Writes steering actions; an intervention becomes a step of the debate, so it needs the projection."""

    def control_request(self, debate_id: str) -> str | None:
        """A pending pause or stop request for a running debate (read at each of its pause points).
        Under the store's lock: debates on several threads (an evaluation) share one connection, and
        this read must not run inside another thread's write transaction."""
        with self._lock:
            row = self.sql.execute("SELECT control FROM debates WHERE id = ?", [debate_id]).fetchone()
        return row[0] if row else None

    def _audit(self, debate_id: str, action: str, actor: Actor, reason: str, state: str | None) -> None:
        self.sql.insert("reviews", {
            "debate_id": debate_id, "ts": self._now(), **actor.audit_fields(), "role": "reviewer", "action": action,
            "state_before": state, "state_after": state, "reason": reason})

    @staticmethod
    def _steerer(actor: Actor | None, reviewer: str | None) -> Actor:
        """Who steers: the actor the front end vouches for, or the server's operator under a name.
        Refused (SteeringError, nothing written) when the role does not allow steering."""
        actor = actor or operator((reviewer or "").strip() or "unnamed")
        try:
            return require(actor, "steer")
        except PermissionRefused as exc:
            raise SteeringError(str(exc)) from None

    def request_control(self, debate_id: str, action: str, *, reviewer: str = "", actor: Actor | None = None) -> str:
        """Ask a running debate to pause or stop at its next pause point; a paused debate is stopped at
        once. Returns the debate's status afterwards ('running' with the request pending, or
        'stopped'). Raises ValueError when the debate is not in a state the action applies to."""
        if action not in (PAUSE, STOP):
            raise SteeringError(f"unknown request {action!r}")
        who = self._steerer(actor, reviewer)
        with self._write():
            row = self.sql.execute("SELECT status, review_state, control FROM debates WHERE id = ?",
                                  [debate_id]).fetchone()
            if not row:
                raise NotFound(f"no debate with id {debate_id!r}")
            status, state, control = row
            if status == "paused" and action == STOP:
                self.sql.execute("INSERT INTO events (debate_id, ts, kind, step_id, data) VALUES (?, ?, 'stopped', NULL, ?)",
                                [debate_id, time.time(), dump({"by": who.name})])
                self.sql.execute(
                    "UPDATE debates SET status = 'stopped', control = NULL, next_round = NULL, finished_at = ?, "
                    "updated_at = ? WHERE id = ?", [self._now(), self._now(), debate_id])
                self._audit(debate_id, STOP, who, "stopped while paused", state)
                return "stopped"
            if status != "running":
                raise SteeringError(f"debate {debate_id} is {status}; only a running debate can be asked to {action}")
            if control == STOP and action == PAUSE:
                raise SteeringError(f"debate {debate_id} is already asked to stop")
            self.sql.execute("UPDATE debates SET control = ?, updated_at = ? WHERE id = ?", [action, self._now(), debate_id])
            self._audit(debate_id, action, who, f"asked to {action} at the next pause point", state)
            return "running"

    def begin_continue(self, debate_id: str, *, runner: dict[str, Any] | None, reviewer: str = "",
                       actor: Actor | None = None, pause_after_round: int | None = None,
                       settings_update: dict[str, Any] | None = None) -> dict[str, Any]:
        """Claim a paused debate for one process to continue (two cannot both claim it): its status
        becomes running and its runner this process. Returns the debate as it stood, paused.
        `settings_update` replaces stored settings it names (the token budget it goes on with)."""
        who = self._steerer(actor, reviewer)
        with self._write():
            rows = list(self.sql.query("SELECT * FROM debates WHERE id = ?", [debate_id]))
            if not rows:
                raise NotFound(f"no debate with id {debate_id!r}")
            debate = decode_debate(rows[0])
            if debate["status"] != "paused":
                raise SteeringError(f"debate {debate_id} is {debate['status']}; only a paused debate can be continued")
            settings = dict(debate["settings"] or {})
            if runner:
                settings["runner"] = runner
            if pause_after_round is not None:
                settings["pause_after_round"] = pause_after_round
            settings.update(settings_update or {})
            self.sql.execute("UPDATE debates SET status = 'running', control = NULL, settings = ?, updated_at = ? "
                            "WHERE id = ?", [dump(settings), self._now(), debate_id])
            self._audit(debate_id, "continue", who,
                        f"continued from {debate.get('paused_at')}", debate.get("review_state"))
        debate["steps"] = self.steps(debate_id)
        return debate

    def add_intervention(self, debate_id: str, intervention: dict[str, Any], *, summary: str,
                         target_agent: str | None = None, critique_row: dict[str, Any] | None = None,
                         actor: Actor | None = None) -> str:
        """Record a reviewer's intervention on a paused debate as a step `r{n}.human.{reviewer}` (n:
        the round that follows), with an audit row and an event. Returns the step id."""
        who = self._steerer(actor, intervention.get("reviewer"))
        with self._write():
            row = self.sql.execute("SELECT status, paused_at, next_round FROM debates WHERE id = ?",
                                  [debate_id]).fetchone()
            if not row:
                raise NotFound(f"no debate with id {debate_id!r}")
            status, paused_at, next_round = row
            if status != "paused":
                raise SteeringError(f"debate {debate_id} is {status}; interventions are made while it is paused")
            if intervention.get("at") != paused_at or intervention.get("round") != next_round:
                raise SteeringError(f"debate {debate_id} is now paused at {paused_at}; reload and try again")
            step_id = self._insert_intervention(debate_id, intervention, summary=summary, target_agent=target_agent,
                                                critique_row=critique_row, actor=who)
            self.sql.execute("INSERT INTO events (debate_id, ts, kind, step_id, data) VALUES (?, ?, 'intervention', ?, ?)",
                            [debate_id, time.time(), step_id, dump({"kind": intervention.get("kind"),
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
                             target_agent: str | None, critique_row: dict[str, Any] | None,
                             actor: Actor | None = None) -> str:
        step_id = human_step_id(int(intervention["round"]), intervention["reviewer"])
        call = 1 + self.sql.execute("SELECT COUNT(*) FROM steps WHERE debate_id = ? AND step_id = ?",
                                   [debate_id, step_id]).fetchone()[0]
        now = self._now()
        self.sql.insert("steps", {
            "debate_id": debate_id, "step_id": step_id, "call": call, "seq": self._next_seq(debate_id),
            "round": intervention["round"], "stage": "human", "agent": step_id.rsplit(".", 1)[1],
            "target": target_agent, "status": "ok", "model": "reviewer",
            "prompt": dump([]), "raw_output": dump(intervention), "output": dump(intervention),
            "input_tokens": 0, "output_tokens": 0, "attempts": 0, "errors": dump([]),
            "started_at": now, "finished_at": now})
        if critique_row:
            self.sql.insert("critiques", {
                "debate_id": debate_id, "step_id": step_id, "call": call, "round": intervention["round"],
                "critic": step_id.rsplit(".", 1)[1], **critique_row})
        state = self.sql.execute("SELECT review_state FROM debates WHERE id = ?", [debate_id]).fetchone()
        # Replayed from a parent or a cassette (no actor): the name it was made under, as the operator's record.
        self._audit(debate_id, "intervene", actor or operator(intervention["reviewer"]), summary,
                    state[0] if state else None)
        return step_id

    def note_fork(self, fork_id: str, reviewer: str, reason: str, actor: Actor | None = None) -> None:
        who = self._steerer(actor, reviewer)
        with self._write():
            self._audit(fork_id, "fork", who, reason, "pending")

    def forks(self, debate_id: str) -> list[dict[str, Any]]:
        return list(self.sql.query(
            "SELECT id, title, status, fork_round, created_at FROM debates WHERE parent_id = ? ORDER BY created_at",
            [debate_id]))
