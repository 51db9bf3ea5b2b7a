"""Dialectic's step outputs (the thesis-antithesis-synthesis source protocol's thesis, antithesis and synthesis)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from ...core.schemas import LongLine, StepOutput, confidence_field, items, text

RULE_CHARS = 1000
ARGUMENT_CHARS = 600
Issue = Annotated[str, Field(max_length=700)]


class Thesis(StepOutput):
    rule: str = text(RULE_CHARS, required=True)
    reasoning: str = text(ARGUMENT_CHARS)
    confidence: float = confidence_field()


class Antithesis(StepOutput):
    issues: list[Issue] = items(6)
    edge_cases: list[LongLine] = items(5)
    contradictions: list[LongLine] = items(5)
    recommendation: Literal["accept", "revise", "reject"]
    argument: str = text(ARGUMENT_CHARS)

    @field_validator("recommendation", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.lower().strip() if isinstance(v, str) else v


class Synthesis(StepOutput):
    rule: str = text(RULE_CHARS, required=True)
    argument: str = text(ARGUMENT_CHARS)
    confidence: float = confidence_field()
