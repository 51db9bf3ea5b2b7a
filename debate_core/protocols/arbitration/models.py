"""Arbitration's step output (the contradiction-arbitration source protocol's resolution) and the
moderator's pooled decision on one contradiction."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field

from ...core.schemas import LONG_LINE, LongLine, StepOutput, confidence_field, items, text


class Resolution(StepOutput):
    resolution: Literal["agent1_correct", "agent2_correct", "both_valid", "neither_valid"]
    explanation: str = text(600, required=True)
    recommended_value: float | Annotated[str, Field(max_length=200)] | None = None
    recommended_citation: str | None = Field(None, max_length=LONG_LINE)
    confidence: float = confidence_field()
    action: Literal["use_agent1", "use_agent2", "use_both", "flag_for_review"]
    # What the arbiter could not assess ("could not assess: ..."); the moderator sends those to a human.
    uncertainties: list[LongLine] = items(3)


@dataclass
class Decision:
    """The pooled ruling on one contradiction."""

    index: int
    status: str  # "resolved" or "flagged_for_review"
    resolution: str | None  # None when the arbiters split
    action: str
    confidence: float
    explanation: str
    recommended_value: float | str | None = None
    recommended_citation: str | None = None
    review_reason: str | None = None
    votes: dict[str, float] = field(default_factory=dict)
    arbiters: dict[str, dict[str, Any]] = field(default_factory=dict)
    # A passage of the winning source that gives the rejected figure too, quoted (escalation.py).
    context: str | None = None

    @property
    def resolved(self) -> bool:
        return self.status == "resolved"

    def flag(self, reason: str) -> None:
        self.status = "flagged_for_review"
        self.review_reason = f"{self.review_reason}; {reason}" if self.review_reason else reason

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "resolution": self.resolution,
            "action": self.action,
            "confidence": self.confidence,
            "explanation": self.explanation,
            "recommended_value": self.recommended_value,
            "recommended_citation": self.recommended_citation,
            "review_reason": self.review_reason,
            "votes": self.votes,
            "arbiters": self.arbiters,
        }
