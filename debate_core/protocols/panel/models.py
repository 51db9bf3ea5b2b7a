"""The panel's step outputs (the persona-panel source protocol's DebateTurn / DebateSummary)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ...core.schemas import StepOutput

Stance = Literal["pro", "con", "neutral"]


class DebatePersona(BaseModel):
    name: str
    stance: str
    role: str = ""
    style: str = ""
    goal: str = ""


class DebateTurn(StepOutput):
    speaker: str = ""
    stance: str = ""
    planning: str = Field(min_length=1)
    reflection: str = ""
    message: str = Field(min_length=1)
    key_points: list[str] = Field(default_factory=list)


class DebateSummary(StepOutput):
    winner: str | None = None
    consensus: str = ""
    key_agreements: list[str] = Field(default_factory=list)
    key_disagreements: list[str] = Field(default_factory=list)
    rationale: str = ""
    # The judge's confidence in its consensus, and what the panel could not assess ("could not assess: ...").
    confidence: float | None = Field(None, ge=0.0, le=1.0)
    uncertainties: list[str] = Field(default_factory=list)
