"""Panel signals: the case's earlier-stage outputs (Stage1/Stage2 ATE and ATSA, validator, aspect
terms, synonym hints) validated into typed signals, and the sentence labels they share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

LABELS = ("positive", "negative", "neutral", "mixed")
_LABEL_ALIASES = {
    "pos": "positive", "neg": "negative", "neu": "neutral",
    "긍정": "positive", "부정": "negative", "중립": "neutral", "혼합": "mixed",
}


def normalize_label(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip().lower()
    if not text:
        return None
    text = _LABEL_ALIASES.get(text, text)
    return text if text in LABELS else None


def _optional_label(v: Any) -> str | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    label = normalize_label(v)
    if label is None:
        raise ValueError(f"label must be one of {', '.join(LABELS)}")
    return label


class Span(BaseModel):
    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, v: Any) -> Any:
        if isinstance(v, (list, tuple)) and len(v) == 2:
            return {"start": v[0], "end": v[1]}
        return v

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError("span end must not be before start")
        return self


class AspectSentiment(BaseModel):
    """One aspect's polarity. ``aspect_term`` (a string or ``{term, span}``) is accepted as an alias."""

    model_config = ConfigDict(extra="allow")

    aspect: str = Field(min_length=1)
    polarity: str
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    evidence: str = ""

    @model_validator(mode="before")
    @classmethod
    def _aspect_alias(cls, v: Any) -> Any:
        if isinstance(v, dict) and "aspect" not in v and "aspect_term" in v:
            term = v["aspect_term"]
            v = {**v, "aspect": term.get("term") if isinstance(term, dict) else term}
        return v

    @field_validator("polarity", mode="before")
    @classmethod
    def _polarity(cls, v: Any) -> str:
        label = normalize_label(v)
        if label is None or label == "mixed":
            raise ValueError("polarity must be positive, negative or neutral")
        return label


class StageSignal(BaseModel):
    """An aggregated stage output: a sentence label with its confidence, optionally a span and aspects."""

    model_config = ConfigDict(extra="allow")

    label: str | None = None
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    span: Span | None = None
    aspect_sentiments: list[AspectSentiment] = Field(default_factory=list)

    @field_validator("label", mode="before")
    @classmethod
    def _label(cls, v: Any) -> str | None:
        return _optional_label(v)


class ValidatorSignal(BaseModel):
    model_config = ConfigDict(extra="allow")

    suggested_label: str | None = None
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    issues: list[str | dict[str, Any]] = Field(default_factory=list)

    @field_validator("suggested_label", mode="before")
    @classmethod
    def _label(cls, v: Any) -> str | None:
        return _optional_label(v)


class PanelSignals(BaseModel):
    model_config = ConfigDict(extra="allow")

    text: str | None = None
    language: str | None = None
    stage1_ate: StageSignal
    stage1_atsa: StageSignal | None = None
    stage2_ate: StageSignal | None = None
    stage2_atsa: StageSignal | None = None
    validator: ValidatorSignal | None = None
    aspect_terms: list[str] = Field(default_factory=list)
    synonym_hints: dict[str, list[str]] = Field(default_factory=dict)


class SignalsError(ValueError):
    """The case's signals are malformed; the message names the field."""


def parse_signals(raw: Mapping[str, Any]) -> PanelSignals:
    try:
        return PanelSignals.model_validate(dict(raw))
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"]) or "(signals)"
        msg = "is required" if err["type"] == "missing" else err["msg"]
        raise SignalsError(f"case signals: field '{loc}' {msg}") from exc


def aggregate_sentiments(items: Sequence[AspectSentiment]) -> tuple[str, float] | None:
    """A sentence label from aspect polarities: both signs present -> mixed, bounded by the weaker side."""
    if not items:
        return None
    best: dict[str, float] = {}
    for s in items:
        best[s.polarity] = max(best.get(s.polarity, 0.0), s.confidence)
    if "positive" in best and "negative" in best:
        return "mixed", round(min(best["positive"], best["negative"]), 4)
    for label in ("positive", "negative", "neutral"):
        if label in best:
            return label, round(best[label], 4)
    return None


def resolve_stage(signal: StageSignal | None, sentiments: Sequence[AspectSentiment] | None = None) -> StageSignal | None:
    """A stage with its label filled in: an explicit label wins, else the aggregate of its aspects."""
    if signal is None:
        return None
    if signal.label is not None:
        return signal
    agg = aggregate_sentiments(list(sentiments if sentiments is not None else signal.aspect_sentiments))
    if agg is None:
        return signal
    return signal.model_copy(update={"label": agg[0], "confidence": agg[1]})
