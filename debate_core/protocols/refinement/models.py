"""Refinement's step outputs (the hypothesis-refinement source protocol's hypotheses and judge scores)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from ...core.bounds import MAX_TEXT_CHARS
from ...core.schemas import (
    ID_CHARS,
    EvidenceRef,
    ShortLine,
    StepOutput,
    confidence_field,
    items,
    text,
)

Component = Annotated[str, Field(max_length=60)]

Category = Literal["hardware", "software", "network", "config", "resource"]


HYPOTHESIS_CHARS = 600


class Hypothesis(StepOutput):
    hypothesis: str = text(HYPOTHESIS_CHARS, required=True)
    confidence: float = confidence_field()
    reasoning: str = text(MAX_TEXT_CHARS)
    evidence: list[EvidenceRef] = items(8)
    category: Category
    affected_components: list[Component] = items(6)
    suggested_resolution: str = text(400)
    changes_made: str = text(240)

    @field_validator("category", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.lower().strip() if isinstance(v, str) else v


class HypothesesOutput(StepOutput):
    # The hypothesis-refinement source protocol: each reasoner gives 3-5 hypotheses.
    hypotheses: list[Hypothesis] = Field(min_length=3, max_length=5)


class JudgeScore(StepOutput):
    reasoner: str = text(ID_CHARS, required=True)
    index: int = Field(ge=0, le=9)
    score: float = Field(ge=0, le=100)
    strengths: list[ShortLine] = items(2)
    weaknesses: list[ShortLine] = items(2)
    feedback: str = text(240)


class JudgeOutput(StepOutput):
    # Every hypothesis of every reasoner (up to 6 reasoners of 5 hypotheses).
    scores: list[JudgeScore] = items(30, at_least=1)
