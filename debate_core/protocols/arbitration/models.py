"""Arbitration's step output (the contradiction-arbitration source protocol's resolution)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...core.schemas import StepOutput, confidence_field


class Resolution(StepOutput):
    resolution: Literal["agent1_correct", "agent2_correct", "both_valid", "neither_valid"]
    explanation: str = Field(min_length=1)
    recommended_value: float | str | None = None
    recommended_citation: str | None = None
    confidence: float = confidence_field()
    action: Literal["use_agent1", "use_agent2", "use_both", "flag_for_review"]
    # What the arbiter could not assess ("could not assess: ..."); the moderator sends those to a human.
    uncertainties: list[str] = Field(default_factory=list)
