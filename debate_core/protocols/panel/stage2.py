"""The panel's Stage2 review steps (section 5 of the persona-panel source protocol, steps 1-3).

After the debate, three recorded steps review the Stage1 labels with the Debate Review Context:
the validator proposes corrections, the aspect review (ATE) revises the aspect terms and gives
Stage2's sentence label, and the sentiment review (ATSA) settles each aspect's polarity. Each is
applied by a pure rule (rules/stage2.py) in the source's order before the debate override (step
4) and the moderator. A case that already carries Stage2 output skips them.
"""

from __future__ import annotations

from typing import Any

from ...core import prompts, steps
from ...engine.runtime import DebateRun
from . import rules as mod
from .models import AspectReview, SentimentReview, ValidatorReview

# Step ids and stages of the three reviews, in the order they run.
VALIDATOR = (steps.final("validator"), "validator_review")
ASPECTS = (steps.final("ate"), "aspect_review")
SENTIMENTS = (steps.final("atsa"), "sentiment_review")


def _review_view(review: dict[str, Any] | None) -> dict[str, Any] | str:
    """The parts of the Debate Review Context a reviewer acts on (the rebuttal points are in the hints)."""
    if review is None:
        return "(no debate: the panel did not run)"
    return {k: review[k] for k in ("summary", "aspect_hints", "review_guidance", "fallback_mapping_policy")}


def _sentiments_json(state: mod.Stage2State) -> list[dict[str, Any]]:
    return [s.model_dump(mode="json", include={"aspect", "polarity", "confidence"}) for s in state.sentiments]


async def run_reviews(run: DebateRun, context: dict[str, Any], review: dict[str, Any] | None,
                      state: mod.Stage2State) -> tuple[mod.Stage2State, AspectReview]:
    """Steps 1-3 in the source's order; each sees the aspects as the previous one left them."""
    text = prompts.data_block("text", context.get("text") or run.case.question)
    evidence = prompts.evidence_block(run.case.evidence)
    stage1 = prompts.data_block("stage1 outputs", {k: context.get(k) for k in ("stage1_ate", "stage1_atsa", "validator")})
    review_block = prompts.data_block("debate review context", _review_view(review))

    def inputs(state: mod.Stage2State) -> tuple[dict[str, Any], dict[str, Any]]:
        current = {"aspect_terms": list(state.terms), "aspect_sentiments": _sentiments_json(state)}
        variables = {"text": text, "evidence": evidence, "stage1": stage1, "review_context": review_block,
                     "current": prompts.data_block("current aspects", current)}
        payload = {"context": context, "review": review, "terms": list(state.terms),
                   "sentiments": _sentiments_json(state)}
        return variables, payload

    variables, payload = inputs(state)
    validator = await run.step(VALIDATOR[0], ValidatorReview, "panel/validator_review", variables, payload,
                               stage=VALIDATOR[1])
    state = mod.apply_validator_corrections(state, validator.correction_proposals)

    variables, payload = inputs(state)
    aspects = await run.step(ASPECTS[0], AspectReview, "panel/aspect_review", variables, payload, stage=ASPECTS[1])
    state = mod.apply_aspect_review(state, aspects.aspect_review)

    variables, payload = inputs(state)
    sentiments = await run.step(SENTIMENTS[0], SentimentReview, "panel/sentiment_review", variables, payload,
                                stage=SENTIMENTS[1])
    state = mod.apply_sentiment_review(state, sentiments.sentiment_review)
    return state, aspects
