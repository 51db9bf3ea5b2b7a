"""Section 6 of the persona-panel source protocol: the moderator rules Z, B, M, C, A, D, E, in that order, as named pure functions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from ....engine.spec import LOW_CONFIDENCE
from .signals import Span, StageSignal, ValidatorSignal

RULE_E_MAX_CONFIDENCE = 0.55
STAGE2_DROP_GUARD = 0.2
SPAN_IOU_MIN = 0.8
TIEBREAK_DIFF = 0.1

# Section 6.3 of the source protocol, checked in this order: the first list that matches decides.
DEBATE_KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mixed", ("혼합", "mixed", "엇갈", "양면")),
    ("positive", ("긍정", "호의", "좋다", "positive")),
    ("negative", ("부정", "비판", "나쁘", "negative")),
    ("neutral", ("중립", "neutral", "모호")),
)
_CRITICAL_ISSUES = ("negation", "irony", "contrast")


class ArbiterFlags(BaseModel):
    stage2_rejected_due_to_confidence: bool = False
    validator_override_applied: bool = False
    confidence_margin_used: float = 0.0
    rule_e_fired: bool = False
    rule_e_block_reason: str | None = None
    debate_inferred_label: str | None = None


class ModeratorOutput(BaseModel):
    final_label: str
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str
    selected_stage: str
    applied_rules: list[str] = Field(default_factory=list)
    arbiter_flags: ArbiterFlags = Field(default_factory=ArbiterFlags)


def _summary_text(summary: Any) -> str:
    if summary is None:
        return ""
    get = summary.get if isinstance(summary, Mapping) else (lambda k, d=None: getattr(summary, k, d))
    parts = [get("consensus", "") or "", get("rationale", "") or "",
             " ".join(get("key_agreements", None) or []), " ".join(get("key_disagreements", None) or [])]
    return " ".join(p for p in parts if p).lower()


def infer_label_from_debate(summary: Any) -> str | None:
    """Rule E's label: keyword search over the judge's consensus, rationale, agreements, disagreements."""
    text = _summary_text(summary)
    if not text:
        return None
    for label, words in DEBATE_KEYWORDS:
        if any(w in text for w in words):
            return label
    return None


def judge_confidence(summary: Any) -> float | None:
    """The confidence the judge states for its consensus, when it states one."""
    if summary is None:
        return None
    value = summary.get("confidence") if isinstance(summary, Mapping) else getattr(summary, "confidence", None)
    return float(value) if isinstance(value, (int, float)) else None


def span_iou(a: Span | None, b: Span | None) -> float:
    if a is None or b is None:
        return 0.0
    inter = max(0, min(a.end, b.end) - max(a.start, b.start))
    union = max(a.end, b.end) - min(a.start, b.start)
    return inter / union if union > 0 else 0.0


def is_critical_issue(issue: str | Mapping[str, Any]) -> bool:
    if isinstance(issue, Mapping):
        kind = str(issue.get("type") or issue.get("kind") or "").strip().lower()
        severity = str(issue.get("severity") or "").strip().lower()
        return kind.startswith(_CRITICAL_ISSUES) or severity == "high"
    text = str(issue).strip().lower()
    return text.startswith(_CRITICAL_ISSUES) or "severity:high" in text.replace(" ", "")


def rule_b(stage1_ate: StageSignal, stage2_ate: StageSignal | None) -> tuple[StageSignal, bool, float, str]:
    """Stage2 is preferred unless its confidence dropped by 0.2 or more (drop_guard)."""
    if stage2_ate is None:
        return stage1_ate, False, 0.0, "RuleB: Stage2 missing; keep Stage1."
    drop = stage1_ate.confidence - stage2_ate.confidence
    # A tolerance so that 0.8 - 0.6 (0.19999...) counts as the 0.2 drop it is.
    if drop >= STAGE2_DROP_GUARD - 1e-9:
        return stage1_ate, True, round(drop, 4), "RuleB: Stage2 drop>=0.2; keep Stage1."
    return stage2_ate, False, 0.0, "RuleB: Stage2 preferred."


def rule_c(validator: ValidatorSignal | None, label: str, conf: float) -> tuple[str, float, str | None]:
    if validator is None or not validator.suggested_label:
        return label, conf, None
    critical = any(is_critical_issue(i) for i in validator.issues)
    if critical or validator.confidence >= conf:
        return validator.suggested_label, max(conf, validator.confidence), "RuleC: Validator critical veto."
    return label, conf, None


def rule_a(candidate: StageSignal | None, stage1_atsa: StageSignal | None, label: str, conf: float
           ) -> tuple[float, str | None]:
    if candidate is None or stage1_atsa is None:
        return conf, None
    if span_iou(candidate.span, stage1_atsa.span) >= SPAN_IOU_MIN and candidate.label == label:
        return (conf + candidate.confidence) / 2, "RuleA: IoU>=0.8 span aligned."
    return conf, None


def rule_d(ate_label: str, ate_conf: float, atsa_label: str | None, atsa_conf: float
           ) -> tuple[str, float, str | None]:
    if atsa_label is None or atsa_label == ate_label:
        return ate_label, ate_conf, None
    if abs(ate_conf - atsa_conf) < TIEBREAK_DIFF - 1e-9:
        return ate_label, ate_conf, "RuleD: diff<0.1 conflict -> sentence ATE."
    if atsa_conf > ate_conf:
        return atsa_label, atsa_conf, "RuleD: diff>=0.1 ATSA wins."
    return ate_label, ate_conf, "RuleD: diff>=0.1 ATE wins."


def decide(
    stage1_ate: StageSignal,
    stage1_atsa: StageSignal | None = None,
    validator: ValidatorSignal | None = None,
    stage2_ate: StageSignal | None = None,
    stage2_atsa: StageSignal | None = None,
    debate_summary: Any = None,
) -> ModeratorOutput:
    """Section 6.2 of the source protocol: each rule's label and confidence are the next rule's input."""
    s2_conf = stage2_ate.confidence if stage2_ate is not None else 0.0
    if stage1_ate.confidence == 0.0 and s2_conf == 0.0:
        why = "RuleZ: insufficient signal (both confidences 0)."
        return ModeratorOutput(final_label="neutral", confidence=0.0, rationale=why, selected_stage="stage1",
                               applied_rules=["RuleZ"])
    parts: list[str] = []
    rules: list[str] = []
    candidate_ate, drop_guard, margin, why = rule_b(stage1_ate, stage2_ate)
    parts.append(why)
    rules.append("RuleB")
    selected = "stage2" if stage2_ate is not None and not drop_guard else "stage1"
    candidate_atsa = stage2_atsa or stage1_atsa
    label = candidate_ate.label or "neutral"
    conf = candidate_ate.confidence

    if stage2_ate is not None and stage1_ate.label and stage2_ate.label and stage1_ate.label != stage2_ate.label:
        label, conf = "mixed", max(stage1_ate.confidence, stage2_ate.confidence)
        parts.append("RuleM: conflicting stage1/stage2 labels -> mixed.")
        rules.append("RuleM")

    label, conf, why = rule_c(validator, label, conf)
    validator_override = why is not None
    if why:
        parts.append(why)
        rules.append("RuleC")

    if not drop_guard:
        conf, why = rule_a(candidate_atsa, stage1_atsa, label, conf)
        if why:
            parts.append(why)
            rules.append("RuleA")

    if candidate_atsa is not None:
        label, conf, why = rule_d(label, conf, candidate_atsa.label, candidate_atsa.confidence)
        if why:
            parts.append(why)
            rules.append("RuleD")

    inferred = infer_label_from_debate(debate_summary)
    block: str | None = None
    fired = False
    if debate_summary is None:
        block = "no_debate"
    elif inferred is None:
        block = "inferred_empty"
    elif inferred == label:
        block = "label_unchanged"
    elif (stated := judge_confidence(debate_summary)) is not None and stated < LOW_CONFIDENCE:
        # A judge unsure of its own consensus does not get to change the label.
        block = "judge_not_confident"
    elif conf >= RULE_E_MAX_CONFIDENCE and label != "mixed":
        block = "confidence_too_high"
    else:
        parts.append(f"RuleE: debate consensus -> {inferred}.")
        rules.append("RuleE")
        label, fired = inferred, True

    flags = ArbiterFlags(
        stage2_rejected_due_to_confidence=drop_guard,
        validator_override_applied=validator_override,
        confidence_margin_used=margin,
        rule_e_fired=fired,
        rule_e_block_reason=block,
        debate_inferred_label=inferred,
    )
    return ModeratorOutput(final_label=label, confidence=round(min(1.0, max(0.0, conf)), 4),
                           rationale=" ".join(parts), selected_stage=selected, applied_rules=rules,
                           arbiter_flags=flags)
