"""Dialectic's step outputs (the thesis-antithesis-synthesis source protocol's thesis, antithesis and synthesis)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from ...core.schemas import StepOutput, confidence_field


class Thesis(StepOutput):
    rule: str = Field(min_length=1)
    reasoning: str = ""
    confidence: float = confidence_field()


class Antithesis(StepOutput):
    issues: list[str] = Field(default_factory=list)
    edge_cases: list[str] = Field(default_factory=list)
    contradictions: list[str] = Field(default_factory=list)
    recommendation: Literal["accept", "revise", "reject"]
    argument: str = ""

    @field_validator("recommendation", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.lower().strip() if isinstance(v, str) else v


class Synthesis(StepOutput):
    rule: str = Field(min_length=1)
    argument: str = ""
    confidence: float = confidence_field()
