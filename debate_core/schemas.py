"""Pydantic models for cases and for every step output.

Field names follow the source protocols exactly (the cross-critique source protocol's agent output
and critique, the persona-panel source protocol's DebateTurn / DebateSummary, the hypothesis-refinement
source protocol's hypotheses, the dialectic (thesis-antithesis-synthesis) source protocol's thesis /
antithesis / synthesis, the contradiction-arbitration source protocol's resolution) so that exported
files read like those protocols' own examples. Round, agent, target and speaker are taken from the
step id by the engine, never trusted from model output, so they are tolerated here but not required.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Confidence = float  # validated to [0, 1] by the Field bounds below


def _conf(default: float | None = None, **kw: Any) -> Any:
    if default is None:
        return Field(ge=0.0, le=1.0, **kw)
    return Field(default=default, ge=0.0, le=1.0, **kw)


class _Out(BaseModel):
    """Base for step outputs: extra keys from a model (round, agent, ...) are ignored."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


class Evidence(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1)
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


class Claim(_Out):
    id: str = Field(min_length=1)
    statement: str = Field(min_length=1)
    evidence: list[str] = Field(default_factory=list)
    confidence: float = _conf()
    assumptions: list[str] = Field(default_factory=list)
    # Set by the engine after validation (never trusted from the model): evidence ids that are
    # not in the case, and whether every cited id exists.
    verified: bool = True
    unverified_evidence: list[str] = Field(default_factory=list)


class AgentOutput(_Out):
    answer: str = Field(min_length=1)
    claims: list[Claim] = Field(min_length=1)
    uncertainties: list[str] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_claim_ids(self) -> AgentOutput:
        ids = [c.id for c in self.claims]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"claim ids must be unique, repeated: {', '.join(dupes)}")
        return self


class Critique(_Out):
    id: str = Field(min_length=1)
    target_claim_id: str = Field(min_length=1)
    issue_type: IssueType
    description: str = Field(min_length=1)
    severity: Severity
    # Section 8 of the cross-critique source protocol: a critique without a concrete fix is invalid (over-criticism guard).
    suggested_fix: str = Field(min_length=1)

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


class ReviewerCritique(Critique):
    """A critique a person raised on a paused debate (steering.py): a critique like any other, with
    its own issue type, so that no agent can pass its critique off as a reviewer's."""

    issue_type: Literal["reviewer"] = REVIEWER_ISSUE  # type: ignore[assignment]


class CritiqueReview(_Out):
    """The critic's word on one of its own earlier critiques of the same target (from round 2 on):
    only the critic closes a CRITICAL or MAJOR critique, by marking it `resolved`."""

    id: str = Field(min_length=1)
    status: Literal["resolved", "maintained"]
    note: str = ""

    @field_validator("status", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.lower().strip() if isinstance(v, str) else v


class CritiqueOutput(_Out):
    critiques: list[Critique] = Field(default_factory=list)
    previous: list[CritiqueReview] = Field(default_factory=list)


class SupervisorOutput(_Out):
    answer: str = Field(min_length=1)
    confidence: float = _conf()
    rationale: str = ""
    agreed_claims: list[str] = Field(default_factory=list)
    disputed_claims: list[str] = Field(default_factory=list)


# ---------------------------------------------------------------------------
# Persona panel (the persona-panel source protocol)
# ---------------------------------------------------------------------------

Stance = Literal["pro", "con", "neutral"]


class DebatePersona(BaseModel):
    name: str
    stance: str
    role: str = ""
    style: str = ""
    goal: str = ""


class DebateTurn(_Out):
    speaker: str = ""
    stance: str = ""
    planning: str = Field(min_length=1)
    reflection: str = ""
    message: str = Field(min_length=1)
    key_points: list[str] = Field(default_factory=list)


class DebateSummary(_Out):
    winner: str | None = None
    consensus: str = ""
    key_agreements: list[str] = Field(default_factory=list)
    key_disagreements: list[str] = Field(default_factory=list)
    rationale: str = ""
    # The judge's confidence in its consensus, and what the panel could not assess ("could not assess: ...").
    confidence: float | None = Field(None, ge=0.0, le=1.0)
    uncertainties: list[str] = Field(default_factory=list)


# ---------------------------------------------------------------------------
# Hypothesis refinement (the hypothesis-refinement source protocol)
# ---------------------------------------------------------------------------

Category = Literal["hardware", "software", "network", "config", "resource"]


class Hypothesis(_Out):
    hypothesis: str = Field(min_length=1)
    confidence: float = _conf()
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


class HypothesesOutput(_Out):
    # The hypothesis-refinement source protocol: each reasoner gives 3-5 hypotheses.
    hypotheses: list[Hypothesis] = Field(min_length=3, max_length=5)


class JudgeScore(_Out):
    reasoner: str = Field(min_length=1)
    index: int = Field(ge=0)
    score: float = Field(ge=0, le=100)
    strengths: list[str] = Field(default_factory=list)
    weaknesses: list[str] = Field(default_factory=list)
    feedback: str = ""


class JudgeOutput(_Out):
    scores: list[JudgeScore] = Field(min_length=1)


# ---------------------------------------------------------------------------
# Dialectic (the dialectic (thesis-antithesis-synthesis) source protocol)
# ---------------------------------------------------------------------------


class Thesis(_Out):
    rule: str = Field(min_length=1)
    reasoning: str = ""
    confidence: float = _conf()


class Antithesis(_Out):
    issues: list[str] = Field(default_factory=list)
    edge_cases: list[str] = Field(default_factory=list)
    contradictions: list[str] = Field(default_factory=list)
    recommendation: Literal["accept", "revise", "reject"]
    argument: str = ""

    @field_validator("recommendation", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.lower().strip() if isinstance(v, str) else v


class Synthesis(_Out):
    rule: str = Field(min_length=1)
    argument: str = ""
    confidence: float = _conf()


# ---------------------------------------------------------------------------
# Arbitration (the contradiction-arbitration source protocol)
# ---------------------------------------------------------------------------


class Resolution(_Out):
    resolution: Literal["agent1_correct", "agent2_correct", "both_valid", "neither_valid"]
    explanation: str = Field(min_length=1)
    recommended_value: float | str | None = None
    recommended_citation: str | None = None
    confidence: float = _conf()
    action: Literal["use_agent1", "use_agent2", "use_both", "flag_for_review"]
    # What the arbiter could not assess ("could not assess: ..."); the moderator sends those to a human.
    uncertainties: list[str] = Field(default_factory=list)


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
