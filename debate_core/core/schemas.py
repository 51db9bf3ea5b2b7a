"""Pydantic models for cases, verdicts and the step outputs several protocols share (an agent's
answer with its claims, a critique); each protocol keeps its own output models in its folder
(`protocols/<name>/models.py`), on the base `StepOutput` defined here.

Field names follow the source protocols exactly (the cross-critique source protocol's agent output
and critique) so that exported files read like those protocols' own examples. Round, agent, target
and speaker are taken from the step id by the engine, never trusted from model output, so they are
tolerated here but not required.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

Confidence = float  # validated to [0, 1] by the Field bounds below


def confidence_field(default: float | None = None, **kw: Any) -> Any:
    if default is None:
        return Field(ge=0.0, le=1.0, **kw)
    return Field(default=default, ge=0.0, le=1.0, **kw)


def text(limit: int, *, required: bool = False, default: str = "") -> Any:
    """A free-text field of a model's reply, at most `limit` characters: a bound a server's grammar
    enforces (core/bounds.py), and that validation enforces on every other server."""
    if required:
        return Field(min_length=1, max_length=limit)
    return Field(default=default, max_length=limit)


def items(limit: int, *, at_least: int = 0) -> Any:
    """A list in a model's reply, at most `limit` entries."""
    if at_least:
        return Field(min_length=at_least, max_length=limit)
    return Field(default_factory=list, max_length=limit)


# Sizes shared by the protocols, in characters: an id a step refers to, a passage id, a short line
# (an assumption, a question), a longer line (an uncertainty, an issue).
ID_CHARS = 24
EVIDENCE_ID_CHARS = 64
SHORT_LINE = 160
LONG_LINE = 240
# Entries of lists of strings, bounded like any other free text.
IdRef = Annotated[str, Field(max_length=ID_CHARS)]
EvidenceRef = Annotated[str, Field(max_length=EVIDENCE_ID_CHARS)]
ShortLine = Annotated[str, Field(max_length=SHORT_LINE)]
LongLine = Annotated[str, Field(max_length=LONG_LINE)]
# An assumption under a claim: a short clause.
Assumption = Annotated[str, Field(max_length=70)]


class StepOutput(BaseModel):
    """Base for step outputs: extra keys from a model (round, agent, ...) are ignored."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


class Evidence(BaseModel):
    model_config = ConfigDict(extra="allow")

    # A passage id is what a claim cites: no longer than a model's reply may write one (EVIDENCE_ID_CHARS).
    id: str = Field(min_length=1, max_length=EVIDENCE_ID_CHARS)
    source: str = Field(min_length=1)
    text: str = Field(min_length=1)
    authority: float | str | None = None
    date: str | None = None


class AgentReport(BaseModel):
    """An agent finding, the input of the arbitration protocol (the contradiction-arbitration source protocol)."""

    model_config = ConfigDict(extra="allow")

    agent: str = Field(min_length=1)
    metric: str = Field(min_length=1)
    value: float | None = None
    unit: str | None = None
    citation: str | None = None
    source: str | None = None
    period: str | None = None
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    interpretation: str | None = None


class Case(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    question: str = Field(min_length=1)
    evidence: list[Evidence] = Field(default_factory=list)
    domain_hint: str | None = None
    reports: list[AgentReport] = Field(default_factory=list)
    signals: dict[str, Any] | None = None
    expected: dict[str, Any] | None = None

    @field_validator("question", "title", "id")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be blank")
        return v

    @model_validator(mode="after")
    def _unique_evidence_ids(self) -> Case:
        seen: set[str] = set()
        for ev in self.evidence:
            if ev.id in seen:
                raise ValueError(f"evidence id {ev.id!r} appears twice")
            seen.add(ev.id)
        return self

    def evidence_by_id(self) -> dict[str, Evidence]:
        return {e.id: e for e in self.evidence}


# ---------------------------------------------------------------------------
# Cross critique (the cross-critique source protocol)
# ---------------------------------------------------------------------------

Severity = Literal["CRITICAL", "MAJOR", "MINOR"]
IssueType = Literal["evidence_gap", "logic_gap", "conflict", "domain_mismatch", "overclaim"]
SEVERITIES: tuple[str, ...] = ("CRITICAL", "MAJOR", "MINOR")
ISSUE_TYPES: tuple[str, ...] = ("evidence_gap", "logic_gap", "conflict", "domain_mismatch", "overclaim")


# The cross-critique source protocol limits an agent to 8-10 main claims (its mitigation of token
# blow-up); the rest in characters. Sized so that the longest reply these bounds allow fits the
# stage's reply cap (tests/test_output_bounds.py): a model generating under a grammar is never cut off.
MAX_CLAIMS = 10
CLAIM_ID_CHARS = 8
CLAIM_CHARS = 130
ANSWER_CHARS = 300
CRITIQUE_CHARS = 160
FIX_CHARS = 100


class Claim(StepOutput):
    id: str = text(CLAIM_ID_CHARS, required=True)
    statement: str = text(CLAIM_CHARS, required=True)
    evidence: list[EvidenceRef] = items(2)
    confidence: float = confidence_field()
    assumptions: list[Assumption] = items(1)
    # Set by the engine after validation (never trusted from the model): evidence ids that are
    # not in the case, and whether every cited id exists. Left out of the schema a model is sent.
    verified: SkipJsonSchema[bool] = True
    unverified_evidence: SkipJsonSchema[list[str]] = Field(default_factory=list)


class AgentOutput(StepOutput):
    """An agent's answer with its claims. Claim ids a model repeats are made distinct by the
    moderator's rule (cross_critique/rules.py `distinct_claims`), which says so in the debate's
    warnings; they are not a reason to ask again: a small model repeats a claim word for word."""

    answer: str = text(ANSWER_CHARS, required=True)
    claims: list[Claim] = items(MAX_CLAIMS, at_least=1)
    uncertainties: list[ShortLine] = items(2)
    open_questions: list[ShortLine] = items(1)



class Critique(StepOutput):
    id: str = text(CLAIM_ID_CHARS, required=True)
    target_claim_id: str = text(CLAIM_ID_CHARS, required=True)
    issue_type: IssueType
    description: str = text(CRITIQUE_CHARS, required=True)
    severity: Severity
    # Section 8 of the cross-critique source protocol: a critique without a concrete fix is invalid (over-criticism guard).
    suggested_fix: str = text(FIX_CHARS, required=True)

    @field_validator("severity", mode="before")
    @classmethod
    def _upper(cls, v: Any) -> Any:
        return v.upper() if isinstance(v, str) else v

    @field_validator("suggested_fix")
    @classmethod
    def _fix_not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("suggested_fix is required: a critique must propose a concrete fix")
        return v


REVIEWER_ISSUE = "reviewer"  # the issue type of a critique a person raised


# ---------------------------------------------------------------------------
# Engine results
# ---------------------------------------------------------------------------


class Verdict(BaseModel):
    answer: str
    # One sentence that answers the question, for the top of the debate page. Older stored
    # verdicts lack it; readers fall back to the answer's first sentence.
    short_answer: str | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    needs_human_review: bool
    escalation_reasons: list[str] = Field(default_factory=list)
    rationale: str = ""
    applied_rules: list[str] = Field(default_factory=list)
