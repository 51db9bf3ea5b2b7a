"""Cross critique's own step outputs: the critics' critiques and reviews, and the supervisor's answer
(an agent's answer, `AgentOutput`, and a `Critique` are shared: debate_core/core/schemas.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from ...core.schemas import (
    CLAIM_ID_CHARS,
    FIX_CHARS,
    REVIEWER_ISSUE,
    Critique,
    IdRef,
    StepOutput,
    confidence_field,
    items,
    text,
)

# A critic reviews its earlier critiques of one target and raises new ones; the source protocol asks
# for at least 3 per agent in round 1 and a claim rarely draws more than one.
MAX_CRITIQUES = 8
SUPERVISOR_ANSWER_CHARS = 800


class ReviewerCritique(Critique):
    """A critique a person raised on a paused debate (steering.py): a critique like any other, with
    its own issue type, so that no agent can pass its critique off as a reviewer's."""

    issue_type: Literal["reviewer"] = REVIEWER_ISSUE  # type: ignore[assignment]


class CritiqueReview(StepOutput):
    """The critic's word on one of its own earlier critiques of the same target (from round 2 on):
    only the critic closes a CRITICAL or MAJOR critique, by marking it `resolved`."""

    id: str = text(CLAIM_ID_CHARS, required=True)
    status: Literal["resolved", "maintained"]
    note: str = text(FIX_CHARS)

    @field_validator("status", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.lower().strip() if isinstance(v, str) else v


class CritiqueOutput(StepOutput):
    critiques: list[Critique] = items(MAX_CRITIQUES)
    previous: list[CritiqueReview] = items(MAX_CRITIQUES)
    # Round 1: why the critic raised fewer critiques than asked (it found no more grounded ones).
    shortfall: str = text(120)


class SupervisorOutput(StepOutput):
    answer: str = text(SUPERVISOR_ANSWER_CHARS, required=True)
    confidence: float = confidence_field()
    rationale: str = text(300)
    # Claim ids ("agent:C1"), the main ones the agents agree and dispute on.
    agreed_claims: list[IdRef] = items(16)
    disputed_claims: list[IdRef] = items(16)
