"""Cross critique's own step outputs: the critics' critiques and reviews, and the supervisor's answer
(an agent's answer, `AgentOutput`, and a `Critique` are shared: debate_core/core/schemas.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from ...core.schemas import (
    ANSWER_CHARS,
    ID_CHARS,
    LONG_LINE,
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
MAX_CRITIQUES = 12


class ReviewerCritique(Critique):
    """A critique a person raised on a paused debate (steering.py): a critique like any other, with
    its own issue type, so that no agent can pass its critique off as a reviewer's."""

    issue_type: Literal["reviewer"] = REVIEWER_ISSUE  # type: ignore[assignment]


class CritiqueReview(StepOutput):
    """The critic's word on one of its own earlier critiques of the same target (from round 2 on):
    only the critic closes a CRITICAL or MAJOR critique, by marking it `resolved`."""

    id: str = text(ID_CHARS, required=True)
    status: Literal["resolved", "maintained"]
    note: str = text(LONG_LINE)

    @field_validator("status", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.lower().strip() if isinstance(v, str) else v


class CritiqueOutput(StepOutput):
    critiques: list[Critique] = items(MAX_CRITIQUES)
    previous: list[CritiqueReview] = items(MAX_CRITIQUES)
    # Round 1: why the critic raised fewer critiques than asked (it found no more grounded ones).
    shortfall: str = text(LONG_LINE)


class SupervisorOutput(StepOutput):
    answer: str = text(ANSWER_CHARS, required=True)
    confidence: float = confidence_field()
    rationale: str = text(1000)
    # Claim ids of every agent (up to 6 agents of 10 claims each).
    agreed_claims: list[IdRef] = items(60)
    disputed_claims: list[IdRef] = items(60)
