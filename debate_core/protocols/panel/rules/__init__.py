"""The persona panel's rule-based post-debate logic (the persona-panel source protocol): no model calls, pure functions.

Seven modules, in the order the protocol uses them:

- ``signals``: ``parse_signals``, the case's earlier-stage outputs (Stage1/Stage2 ATE and ATSA,
  validator, aspect terms, synonym hints) validated into typed signals;
- ``review_context`` (section 4 of the source protocol): ``build_review_context``, the Debate Review Context, i.e.
  rebuttal points mapped onto the case's aspects with stance weights and polarity hints;
- ``stage2`` (section 5, steps 1-3): the validator's corrections, the aspect review and the
  sentiment review, applied in that order, each change logged;
- ``override`` (section 5.1, step 4): ``apply_debate_override``, aspect polarity correction from the panel's hints;
- ``rules`` (section 6): ``decide``, the moderator rules Z, B, M, C, A, D, E, in that order;
- ``metrics`` (section 9): ``debate_metrics`` / ``metric_warnings``;
- ``verdict`` (sections 2.3 and 6): ``escalation_reasons`` and ``convergence``, when the decision
  goes to a human and whether the judge's consensus agrees with it; the answer quotes, through
  ``counterweight``, what in the text sounds the other way to a positive or negative label.

Every public name is re-exported here, so ``from debate_core.protocols.panel import rules`` reaches them all.
"""

from __future__ import annotations

from .metrics import (
    DEFAULT_WARN_THRESHOLDS,
    debate_metrics,
    metric_warnings,
    warn_thresholds,
)
from .override import (
    OVERRIDE_OUTCOMES,
    OverrideResult,
    OverrideThresholds,
    apply_debate_override,
)
from .review_context import (
    FAIL_REASONS,
    FALLBACK_MAPPING_POLICY,
    OTHER_STANCE_WEIGHT,
    REVIEW_GUIDANCE,
    STANCE_WEIGHTS,
    SYNONYM_GROUPS,
    TermIndex,
    aspect_scores,
    build_review_context,
    expand_synonyms,
    fallback_map,
    map_turn,
    normalize_text,
    stance_to_polarity,
    stance_weight,
    strip_particle,
)
from .rules import (
    DEBATE_KEYWORDS,
    RULE_E_MAX_CONFIDENCE,
    SPAN_IOU_MIN,
    STAGE2_DROP_GUARD,
    TIEBREAK_DIFF,
    ArbiterFlags,
    ModeratorOutput,
    decide,
    infer_label_from_debate,
    is_critical_issue,
    rule_a,
    rule_b,
    rule_c,
    rule_d,
    span_iou,
)
from .signals import (
    LABELS,
    AspectSentiment,
    PanelSignals,
    SignalsError,
    Span,
    StageSignal,
    ValidatorSignal,
    aggregate_sentiments,
    normalize_label,
    parse_signals,
    resolve_stage,
)
from .stage2 import (
    STAGE2_STAGES,
    Stage2State,
    apply_aspect_review,
    apply_sentiment_review,
    apply_validator_corrections,
    case_has_stage2,
    renamed_hints,
    stage2_counts,
    stage2_summary,
)
from .verdict import (
    JUDGE_ONLY_BASE_CONFIDENCE,
    JUDGE_ONLY_CONFIDENCE_SPREAD,
    NO_CONSENSUS,
    aspect_quotes,
    convergence,
    escalation_reasons,
    judge_has_consensus,
    judge_only_confidence,
    judge_only_escalation_reasons,
    label_doubts,
    label_sentence,
    panel_low_confidence_reason,
    panel_reading_reasons,
    panel_unassessed_reason,
    panel_uncertainties,
    provisional_note,
    verdict_answer,
)

__all__ = [
    "LABELS",
    "normalize_label",
    "Span",
    "AspectSentiment",
    "StageSignal",
    "ValidatorSignal",
    "PanelSignals",
    "SignalsError",
    "parse_signals",
    "aggregate_sentiments",
    "resolve_stage",
    "STANCE_WEIGHTS",
    "OTHER_STANCE_WEIGHT",
    "stance_weight",
    "stance_to_polarity",
    "normalize_text",
    "strip_particle",
    "SYNONYM_GROUPS",
    "expand_synonyms",
    "REVIEW_GUIDANCE",
    "FALLBACK_MAPPING_POLICY",
    "FAIL_REASONS",
    "TermIndex",
    "fallback_map",
    "map_turn",
    "build_review_context",
    "aspect_scores",
    "OverrideThresholds",
    "OVERRIDE_OUTCOMES",
    "OverrideResult",
    "apply_debate_override",
    "STAGE2_STAGES",
    "Stage2State",
    "apply_validator_corrections",
    "case_has_stage2",
    "renamed_hints",
    "apply_aspect_review",
    "apply_sentiment_review",
    "stage2_counts",
    "stage2_summary",
    "RULE_E_MAX_CONFIDENCE",
    "STAGE2_DROP_GUARD",
    "SPAN_IOU_MIN",
    "TIEBREAK_DIFF",
    "DEBATE_KEYWORDS",
    "ArbiterFlags",
    "ModeratorOutput",
    "infer_label_from_debate",
    "span_iou",
    "is_critical_issue",
    "rule_b",
    "rule_c",
    "rule_a",
    "rule_d",
    "decide",
    "DEFAULT_WARN_THRESHOLDS",
    "warn_thresholds",
    "debate_metrics",
    "metric_warnings",
    "NO_CONSENSUS",
    "JUDGE_ONLY_BASE_CONFIDENCE",
    "JUDGE_ONLY_CONFIDENCE_SPREAD",
    "judge_has_consensus",
    "escalation_reasons",
    "judge_only_escalation_reasons",
    "judge_only_confidence",
    "convergence",
    "panel_uncertainties",
    "panel_low_confidence_reason",
    "panel_unassessed_reason",
    "panel_reading_reasons",
    "provisional_note",
    "verdict_answer",
    "aspect_quotes",
    "label_doubts",
    "label_sentence",
]
