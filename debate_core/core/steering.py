"""Steering a debate while it runs: pause points, pause and stop requests, and a reviewer's
interventions, plus the stored steps a continued or forked debate reuses.

A debate can stop at a *pause point*: the end of every round in every protocol, and in cross
critique also the end of each stage (answers, revisions). A pause point has a stable label
(`r1.end`, `r2.revisions`) that names where the debate stands.

Continuing a paused debate runs its protocol again from the start, with every step the debate
already stored served from the store instead of a model: no call is made and nothing is recorded
twice, and the protocol's own state (the critique ledger, the latest answers) is rebuilt exactly as
it was. When the run reaches the pause point it stopped at, the reviewer's interventions recorded
there are handed to the protocol, which applies them before its next step. A fork does the same
with its parent's steps of the first N rounds, recorded in the fork as reused steps.

Interventions are stored as steps with the id `r{n}.human.{reviewer}` (n: the round that follows),
so they sit in the transcript, the exports and cassettes like any other step, and a replay
re-applies them at the same pause point.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .schemas import REVIEWER_ISSUE, SEVERITIES

PAUSE = "pause"
STOP = "stop"


class SteeringError(ValueError):
    """A pause, stop, continue, intervention or fork that cannot be taken; the message says why."""


class DebatePaused(Exception):
    """Raised at a pause point when the debate is to pause there."""

    def __init__(self, point: PausePoint, asked_by: str) -> None:
        super().__init__(f"paused at {point.label}")
        self.point = point
        self.asked_by = asked_by  # "request" (pause ID) or "setting" (--pause-after-round)


class DebateStopped(Exception):
    """Raised at a pause point when someone asked the debate to stop."""

    def __init__(self, point: PausePoint) -> None:
        super().__init__(f"stopped at {point.label}")
        self.point = point


@dataclass(frozen=True)
class PausePoint:
    label: str  # r{round}.{where}: "r1.end", "r2.revisions"
    round: int  # the round in progress or just closed
    next_round: int  # the round whose steps come next: interventions made here are r{next_round}.human
    round_end: bool

    def describe(self) -> str:
        if self.round_end:
            return f"after round {self.round}"
        where = self.label.split(".", 1)[1] if "." in self.label else self.label
        return f"in round {self.round}, after the {where}"


def round_end(round_no: int) -> PausePoint:
    return PausePoint(f"r{round_no}.end", round_no, round_no + 1, True)


def stage_end(round_no: int, stage: str) -> PausePoint:
    return PausePoint(f"r{round_no}.{stage}", round_no, round_no, False)


_SLUG = re.compile(r"[^A-Za-z0-9_-]+")


def reviewer_slug(name: str) -> str:
    """A reviewer's name as it appears in a step id: letters, digits, `_` and `-`."""
    slug = _SLUG.sub("_", name.strip()).strip("_").lower()
    return slug or "reviewer"


def human_step_id(next_round: int, reviewer: str) -> str:
    return f"r{next_round}.human.{reviewer_slug(reviewer)}"


class NewEvidence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    source: str = Field(min_length=1)
    text: str = Field(min_length=1)


class Intervention(BaseModel):
    """One reviewer action on a paused debate, as stored (the output of an `r{n}.human.*` step)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["critique", "evidence", "pin", "strike", "resolve"]
    reviewer: str = Field(min_length=1)
    at: str = Field(min_length=1, description="the pause point it was made at, and where it applies")
    round: int = Field(ge=1, description="the round that follows")
    ts: str = ""
    target: str | None = Field(None, description="agent.claim_id (critique, pin, strike) or a critique id (resolve)")
    critique_id: str | None = None
    severity: Literal["CRITICAL", "MAJOR", "MINOR"] | None = None
    description: str | None = None
    suggested_fix: str | None = None
    evidence: NewEvidence | None = None

    @field_validator("severity", mode="before")
    @classmethod
    def _upper(cls, v: Any) -> Any:
        return v.upper().strip() if isinstance(v, str) else v

    @property
    def agent(self) -> str | None:
        """The agent a critique, pin or strike concerns."""
        if self.kind in ("critique", "pin", "strike") and self.target and "." in self.target:
            return self.target.split(".", 1)[0]
        return None

    @property
    def claim_id(self) -> str | None:
        if self.kind in ("critique", "pin", "strike") and self.target and "." in self.target:
            return self.target.split(".", 1)[1]
        return None

    def summary(self) -> str:
        """One line in plain words, for the transcript, the audit trail and the prompts' notes."""
        who = self.reviewer
        if self.kind == "critique":
            fix = f" Suggested fix: {self.suggested_fix}" if self.suggested_fix else ""
            return f"{who} raised {self.severity} critique {self.critique_id} on {self.target}: {self.description}{fix}"
        if self.kind == "evidence" and self.evidence is not None:
            return f"{who} added evidence {self.evidence.id} ({self.evidence.source})"
        if self.kind == "pin":
            return f"{who} pinned {self.target} as established: it may not be dropped"
        if self.kind == "strike":
            return f"{who} withdrew {self.target} from the debate"
        if self.kind == "resolve":
            return f"{who} resolved critique {self.target}"
        return f"{who}: {self.kind}"


def stored_interventions(steps: list[dict[str, Any]]) -> list[Intervention]:
    """The interventions among a debate's stored steps, in the order they were made."""
    return [Intervention.model_validate(s["output"]) for s in steps
            if s.get("stage") == "human" and s.get("status") == "ok" and isinstance(s.get("output"), dict)]


def target_agent(iv: Intervention) -> str | None:
    """The agent an intervention concerns (None for new evidence, which concerns every agent)."""
    if iv.kind == "resolve" and iv.target and "->" in iv.target:
        return iv.target.split("->", 1)[1].split(":", 1)[0]
    return iv.agent


def critique_row(iv: Intervention) -> dict[str, Any] | None:
    """A reviewer's critique as a row of the critiques table, beside the agents' critiques."""
    if iv.kind != "critique":
        return None
    return {"target": iv.agent, "critique_id": iv.critique_id, "target_claim_id": iv.claim_id,
            "issue_type": REVIEWER_ISSUE, "severity": iv.severity, "description": iv.description,
            "suggested_fix": iv.suggested_fix}


def parse_evidence(text: str) -> NewEvidence:
    """`"id | source | text"` as the command line and the app take it."""
    parts = [p.strip() for p in text.split("|", 2)]
    if len(parts) != 3 or not all(parts):
        raise SteeringError('evidence must be "id | source | text", three parts separated by |')
    try:
        return NewEvidence(id=parts[0], source=parts[1], text=parts[2])
    except ValueError:
        raise SteeringError(f"evidence id {parts[0]!r} may use letters, digits and . _ : - only") from None


def check_severity(severity: str | None) -> str:
    value = (severity or "").upper().strip()
    if value not in SEVERITIES:
        raise SteeringError(f"severity must be one of {', '.join(SEVERITIES)}")
    return value


@dataclass
class StoredCalls:
    """Steps served from the store instead of a model. `own`: the debate's own steps (a continued
    debate: nothing is recorded again); otherwise a parent's steps reused by a fork (recorded in the
    fork with `reused_from`, and no tokens of the fork's own)."""

    calls: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    own: bool = True
    reused_from: str | None = None

    def get(self, step_id: str, call: int) -> dict[str, Any] | None:
        found = self.calls.get(step_id) or []
        return found[call - 1] if 0 < call <= len(found) else None

    @classmethod
    def from_steps(cls, steps: list[dict[str, Any]], *, own: bool, reused_from: str | None = None,
                   keep: Callable[[dict[str, Any]], bool] | None = None) -> StoredCalls:
        """Every successful model step (not the reviewers' own), in call order."""
        calls: dict[str, list[dict[str, Any]]] = {}
        for step in sorted(steps, key=lambda s: (s.get("call") or 1, s.get("seq") or 0)):
            if step.get("stage") == "human" or step.get("status") != "ok" or step.get("output") is None:
                continue
            if keep is not None and not keep(step):
                continue
            calls.setdefault(step["step_id"], []).append(step)
        return cls(calls=calls, own=own, reused_from=reused_from)


@dataclass
class Steering:
    """What a run knows about being steered: where it resumes, what to pause on, where to read pause
    and stop requests, the interventions to apply, and the stored steps it reuses."""

    control: Callable[[], str | None] | None = None  # reads a pending pause/stop request
    pause_after_round: int | None = None
    resume_at: str | None = None  # the pause point a continued or forked run passes without stopping
    interventions: list[Intervention] = field(default_factory=list)
    stored: StoredCalls | None = None
    known_warnings: set[str] = field(default_factory=set)  # warnings the store already holds
    closed_rounds: set[int] = field(default_factory=set)  # round_closed events the store already holds
    continued: bool = False  # the debate exists already: announce a continuation, not a start

    def __post_init__(self) -> None:
        self.replaying = self.resume_at is not None

    def at(self, label: str) -> list[Intervention]:
        return [iv for iv in self.interventions if iv.at == label]

    def decide(self, point: PausePoint) -> str | None:
        """At a pause point: None to go on, PAUSE or STOP. A run still replaying stored steps goes on
        until it passes the point it resumes from."""
        if self.replaying:
            if point.label == self.resume_at:
                self.replaying = False
            return None
        request = self.control() if self.control is not None else None
        if request == STOP:
            return STOP
        if request == PAUSE:
            return PAUSE
        if point.round_end and self.pause_after_round is not None and point.round == self.pause_after_round:
            return PAUSE
        return None
