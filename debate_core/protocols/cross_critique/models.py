"""Cross critique's own step outputs: the critics' critiques and reviews, and the supervisor's answer
(an agent's answer, `AgentOutput`, and a `Critique` are shared: debate_core/core/schemas.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from ...core.schemas import REVIEWER_ISSUE, Critique, StepOutput, confidence_field


class ReviewerCritique(Critique):
    """A critique a person raised on a paused debate (steering.py): a critique like any other, with
    its own issue type, so that no agent can pass its critique off as a reviewer's."""

    issue_type: Literal["reviewer"] = REVIEWER_ISSUE  # type: ignore[assignment]


class CritiqueReview(StepOutput):
    """The critic's word on one of its own earlier critiques of the same target (from round 2 on):
    only the critic closes a CRITICAL or MAJOR critique, by marking it `resolved`."""

    id: str = Field(min_length=1)
    status: Literal["resolved", "maintained"]
    note: str = ""

    @field_validator("status", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.lower().strip() if isinstance(v, str) else v


class CritiqueOutput(StepOutput):
    critiques: list[Critique] = Field(default_factory=list)
    previous: list[CritiqueReview] = Field(default_factory=list)
    # Round 1: why the critic raised fewer critiques than asked (it found no more grounded ones).
    shortfall: str = ""


class SupervisorOutput(StepOutput):
    answer: str = Field(min_length=1)
    confidence: float = confidence_field()
    rationale: str = ""
    agreed_claims: list[str] = Field(default_factory=list)
    disputed_claims: list[str] = Field(default_factory=list)
