"""The two baselines an evaluation compares a protocol with, as specs the engine runs and stores
like any debate (so each baseline run can be opened in the app):

- `single`: one agent answers from the same evidence, in one call (`r1.single.solo`);
- `majority`: `samples` independent single agents (`r1.single.s1` ... `r1.single.sN`) and a majority
  vote over their answers (Du et al.): labels vote exactly, free-text answers are grouped by similarity.

Both answer with the verdict's own fields (answer, confidence, rationale) and are held to the review
threshold of the protocol they are compared with (`review_threshold`, set by the evaluation; the
rules are in debate_core/protocols/baselines/rules.py). They are not offered as debate protocols.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...core import profiles, prompts
from ...core.schemas import ANSWER_CHARS, Verdict
from ...engine.runtime import DebateFailed, DebateRun, Outcome
from ...engine.spec import LOW_CONFIDENCE, ProtocolSpec, StageSpec
from ...engine.validation import SettingsError
from . import rules

STAGE = "single"
PROMPT = "baselines/single"


class BaselineAnswer(BaseModel):
    """One agent's whole answer, in the fields of a verdict."""

    answer: str = Field(min_length=1, max_length=ANSWER_CHARS)
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str = Field("", max_length=1000)


class SingleOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    review_threshold: float = Field(
        LOW_CONFIDENCE, ge=0, le=1,
        description="send the answer to a human when its confidence is below this (the compared protocol's)")
    compared_with: str | None = Field(None, description="the protocol this baseline is compared with")


class MajorityOptions(SingleOptions):
    samples: int = Field(3, ge=1, le=15, description="independent single agents that vote")
    similarity: float = Field(
        rules.SIMILAR_ANSWERS, ge=0, le=1,
        description="free-text answers sharing this much of their words (Jaccard) count as the same answer")


DEFAULT_AGENT: dict[str, Any] = {
    "id": "solo", "name": "Single agent",
    "role": "Answers the question alone from the evidence, without debate or critique.",
}


def _options(run: DebateRun, model: type[SingleOptions]) -> Any:
    try:
        return model.model_validate(run.settings.options or {})
    except Exception as exc:  # noqa: BLE001 - pydantic's message names the field
        raise DebateFailed(f"bad baseline option: {exc}") from None


def _material(run: DebateRun) -> str:
    """What else the case gives an agent besides passages: agents' reports, earlier-stage signals."""
    parts = []
    if run.case.reports:
        parts.append("Reports of other agents:\n" + prompts.data_block(
            "reports", [r.model_dump(exclude_none=True) for r in run.case.reports]))
    if run.case.signals:
        parts.append("Earlier-stage signals:\n" + prompts.data_block("signals", run.case.signals))
    return "\n\n".join(parts)


def _agent(run: DebateRun) -> dict[str, Any]:
    return run.agent_profiles([DEFAULT_AGENT])[0]


async def _ask(run: DebateRun, step_id: str, agent: dict[str, Any]) -> BaselineAnswer:
    variables = {
        "identity": profiles.identity(agent), "agent_id": agent["id"],
        "agent_name": agent.get("name") or agent["id"],
        "question": prompts.data_block("question", run.case.question),
        "domain_hint": run.case.domain_hint or "(none)",
        "evidence": prompts.evidence_block(run.case.evidence), "material": _material(run),
    }
    return await run.step(step_id, BaselineAnswer, PROMPT, variables, {"agent": agent}, stage=STAGE)  # type: ignore[return-value]


def _verdict(answer: str, confidence: float, rationale: str, reasons: list[str], rule_names: list[str]) -> Verdict:
    return Verdict(answer=answer, confidence=confidence, needs_human_review=bool(reasons),
                   escalation_reasons=reasons, rationale=rationale, applied_rules=rule_names)


async def run_single(run: DebateRun) -> Outcome:
    opts = _options(run, SingleOptions)
    out = await _ask(run, f"r1.{STAGE}.solo", _agent(run))
    low = rules.low_confidence(out.confidence, opts.review_threshold)
    verdict = _verdict(out.answer, out.confidence, out.rationale, [low] if low else [],
                       ["B1.low_confidence"] if low else [])
    return Outcome(rounds=1, converged=False, convergence_reason="one answer, no debate", verdict=verdict,
                   trajectory=[{"round": 1, "stage": "single answer", "confidence": out.confidence}],
                   result={"review_threshold": opts.review_threshold, "compared_with": opts.compared_with})


async def run_majority(run: DebateRun) -> Outcome:
    opts = _options(run, MajorityOptions)
    agent = _agent(run)
    ids = [f"s{i}" for i in range(1, opts.samples + 1)]
    outs: list[BaselineAnswer] = await run.gather(
        *(_ask(run, f"r1.{STAGE}.{sid}", {**agent, "id": sid}) for sid in ids))
    answers = [o.answer for o in outs]
    vote = rules.majority_vote(answers, opts.similarity)
    winner = vote.winner
    confidence = rules.vote_confidence([o.confidence for o in outs], winner)
    reasons, applied = [], []
    split = rules.no_majority(vote)
    if split:
        reasons.append(split)
        applied.append("B2.no_majority")
    low = rules.low_confidence(confidence, opts.review_threshold)
    if low:
        reasons.append(low)
        applied.append("B1.low_confidence")
    lead = outs[winner[0]]
    tally = "; ".join(f"{len(g)} of {vote.samples}: {' '.join(answers[g[0]].split()[:12])}" for g in vote.groups)
    rationale = f"Vote: {tally}. {lead.rationale}".strip()
    verdict = _verdict(lead.answer, confidence, rationale, reasons, applied)
    return Outcome(
        rounds=1, converged=vote.majority,
        convergence_reason="a majority of the samples agree" if vote.majority else "no majority among the samples",
        verdict=verdict,
        trajectory=[{"round": 1, "stage": "vote", "groups": vote.counts, "confidence": confidence}],
        result={"review_threshold": opts.review_threshold, "compared_with": opts.compared_with,
                "votes": [{"samples": [ids[i] for i in g], "answer": answers[g[0]]} for g in vote.groups],
                "majority": vote.majority})


GLOSSARY = {
    "B1.low_confidence": "The answer's confidence is below the review threshold of the protocol it is compared with.",
    "B2.no_majority": "No answer was given by more than half of the independent samples.",
}


def _spec(name: str, title: str, description: str, options: type[BaseModel], run: Any, stage_title: str) -> ProtocolSpec:
    return ProtocolSpec(
        name=name, title=title, description=description, default_agents=(DEFAULT_AGENT,), min_agents=1,
        max_agents=1, min_rounds=1, max_rounds=1, default_rounds=1, options_model=options, run=run,
        stages=(StageSpec(STAGE, stage_title, BaselineAnswer, "one agent's whole answer from the evidence",
                          reply_cap=1000),),
        moderator=(rules.review_threshold, rules.same_answer, rules.majority_vote, rules.low_confidence,
                   rules.no_majority, rules.vote_confidence),
        glossary=GLOSSARY, agents_title="agent",
        offline_agent=f"{__name__}.agent",
    )


SINGLE = _spec("single", "Single agent (baseline)",
               "One agent answers from the same evidence in one call, without debate; used to measure what a "
               "protocol adds.", SingleOptions, run_single, "Single answer")
MAJORITY = _spec("majority", "Majority of single agents (baseline)",
                 "Several independent single agents answer and the answer most of them give wins; with no "
                 "majority, a human decides.", MajorityOptions, run_majority, "Sample answer")

__all__ = ["MAJORITY", "SINGLE", "BaselineAnswer", "SettingsError"]
