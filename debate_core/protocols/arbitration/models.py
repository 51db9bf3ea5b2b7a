"""Arbitration's step output (the contradiction-arbitration source protocol's resolution)."""

from __future__ import annotations

from typing import Annotated, Literal

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
