"""Refinement's step outputs (the hypothesis-refinement source protocol's hypotheses and judge scores)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from ...core.schemas import StepOutput, confidence_field

Category = Literal["hardware", "software", "network", "config", "resource"]


class Hypothesis(StepOutput):
    hypothesis: str = Field(min_length=1)
    confidence: float = confidence_field()
    reasoning: str = ""
    evidence: list[str] = Field(default_factory=list)
    category: Category
    affected_components: list[str] = Field(default_factory=list)
    suggested_resolution: str = ""
    changes_made: str = ""

    @field_validator("category", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.lower().strip() if isinstance(v, str) else v


class HypothesesOutput(StepOutput):
    # The hypothesis-refinement source protocol: each reasoner gives 3-5 hypotheses.
    hypotheses: list[Hypothesis] = Field(min_length=3, max_length=5)


class JudgeScore(StepOutput):
    reasoner: str = Field(min_length=1)
    index: int = Field(ge=0)
    score: float = Field(ge=0, le=100)
    strengths: list[str] = Field(default_factory=list)
    weaknesses: list[str] = Field(default_factory=list)
    feedback: str = ""


class JudgeOutput(StepOutput):
    scores: list[JudgeScore] = Field(min_length=1)
