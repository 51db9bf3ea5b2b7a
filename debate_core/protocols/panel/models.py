"""The panel's step outputs (the persona-panel source protocol's DebateTurn / DebateSummary)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ...core.schemas import ID_CHARS, ShortLine, StepOutput, items, text

Stance = Literal["pro", "con", "neutral"]


class DebatePersona(BaseModel):
    name: str
    stance: str
    role: str = ""
    style: str = ""
    goal: str = ""


class DebateTurn(StepOutput):
    speaker: str = text(ID_CHARS)
    stance: str = text(ID_CHARS)
    planning: str = text(240, required=True)
    reflection: str = text(240)
    message: str = text(600, required=True)
    key_points: list[ShortLine] = items(4)


class DebateSummary(StepOutput):
    winner: str | None = Field(None, max_length=ID_CHARS)
    consensus: str = text(500)
    key_agreements: list[ShortLine] = items(4)
    key_disagreements: list[ShortLine] = items(4)
    rationale: str = text(300)
    # The judge's confidence in its consensus, and what the panel could not assess ("could not assess: ...").
    confidence: float | None = Field(None, ge=0.0, le=1.0)
    uncertainties: list[ShortLine] = items(3)


# ---------------------------------------------------------------------------
# Stage2 reviews (section 5 of the source protocol), applied in its order after the debate
# ---------------------------------------------------------------------------

Polarity = Literal["positive", "negative", "neutral"]
SentenceLabel = Literal["positive", "negative", "neutral", "mixed"]
MAX_REVIEW_ITEMS = 8  # more corrections than a review sentence has aspects is a model running on
TERM_CHARS = 60  # an aspect term: the words the sentence uses
REASON_CHARS = 160  # one correction's rationale


class CorrectionProposal(BaseModel):
    """One validator correction: flip an aspect's polarity, drop an aspect, or revise its span."""

    proposal_type: Literal["FLIP_POLARITY", "DROP_ASPECT", "REVISE_SPAN"]
    target_aspect: str = Field(min_length=1, max_length=TERM_CHARS)
    new_polarity: Polarity | None = None  # FLIP_POLARITY: the polarity the aspect should have
    revised_term: str | None = Field(None, max_length=TERM_CHARS)  # REVISE_SPAN: the words the sentence uses
    rationale: str = Field("", max_length=REASON_CHARS)


class ValidatorReview(StepOutput):
    correction_proposals: list[CorrectionProposal] = Field(default_factory=list, max_length=MAX_REVIEW_ITEMS)
    rationale: str = Field("", max_length=300)


class AspectAction(BaseModel):
    """One aspect-term review action (ATE): revise an aspect's span, drop it, or add one."""

    action: Literal["revise_span", "drop", "add"]
    aspect: str = Field(min_length=1, max_length=TERM_CHARS)
    revised_term: str | None = Field(None, max_length=TERM_CHARS)  # revise_span: the words the sentence uses
    rationale: str = Field("", max_length=REASON_CHARS)


class AspectReview(StepOutput):
    aspect_review: list[AspectAction] = Field(default_factory=list, max_length=MAX_REVIEW_ITEMS)
    # Stage2's sentence label (its ATE label), which the moderator's rules B and M compare with Stage1's.
    label: SentenceLabel
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str = Field("", max_length=300)


class SentimentAction(BaseModel):
    """One aspect-sentiment review action (ATSA): maintain, flip polarity, drop, or add."""

    action: Literal["maintain", "flip_polarity", "drop", "add"]
    aspect: str = Field(min_length=1, max_length=TERM_CHARS)
    polarity: Polarity | None = None  # flip_polarity and add: the polarity the aspect gets
    confidence: float | None = Field(None, ge=0.0, le=1.0)
    rationale: str = Field("", max_length=REASON_CHARS)


class SentimentReview(StepOutput):
    sentiment_review: list[SentimentAction] = Field(default_factory=list, max_length=MAX_REVIEW_ITEMS)
    rationale: str = Field("", max_length=300)
