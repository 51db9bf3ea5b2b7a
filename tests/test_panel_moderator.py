"""The rule-based pieces of the persona-panel source protocol as pure functions: moderator rules, review context, override, metrics."""

from __future__ import annotations

import pytest

from debate_core.protocols.panel import rules as mod
from debate_core.protocols.panel.models import DebateSummary
from debate_core.protocols.panel.rules import AspectSentiment, StageSignal, ValidatorSignal


def stage(label, conf, span=None, aspects=()):
    return StageSignal(label=label, confidence=conf, span=span,
                       aspect_sentiments=[AspectSentiment(aspect=a, polarity=p, confidence=c) for a, p, c in aspects])


def summary(consensus="", rationale="", agreements=(), disagreements=()):
    return {"winner": None, "consensus": consensus, "rationale": rationale,
            "key_agreements": list(agreements), "key_disagreements": list(disagreements)}


# --- Rule Z -----------------------------------------------------------------


def test_rule_z_both_confidences_zero_stops_at_once():
    out = mod.decide(stage("positive", 0.0), stage("positive", 0.9), ValidatorSignal(suggested_label="negative", confidence=1.0),
                     stage("negative", 0.0), None, summary("전체는 부정"))
    assert out.final_label == "neutral"
    assert out.confidence == 0.0
    assert out.applied_rules == ["RuleZ"]
    assert out.rationale == "RuleZ: insufficient signal (both confidences 0)."
    assert out.selected_stage == "stage1"


def test_rule_z_counts_missing_stage2_as_zero_but_not_a_nonzero_stage2():
    assert mod.decide(stage("positive", 0.0)).applied_rules == ["RuleZ"]
    assert "RuleZ" not in mod.decide(stage("positive", 0.0), stage2_ate=stage("positive", 0.4)).applied_rules


# --- Rule B -----------------------------------------------------------------


def test_rule_b_prefers_stage2():
    out = mod.decide(stage("positive", 0.6), stage2_ate=stage("positive", 0.5))
    assert out.selected_stage == "stage2"
    assert out.confidence == 0.5
    assert "RuleB: Stage2 preferred." in out.rationale
    assert out.arbiter_flags.stage2_rejected_due_to_confidence is False


def test_rule_b_drop_guard_keeps_stage1_at_exactly_point_two():
    out = mod.decide(stage("positive", 0.8), stage2_ate=stage("positive", 0.6))
    assert out.selected_stage == "stage1"
    assert out.confidence == 0.8
    assert "RuleB: Stage2 drop>=0.2; keep Stage1." in out.rationale
    assert out.arbiter_flags.stage2_rejected_due_to_confidence is True
    assert out.arbiter_flags.confidence_margin_used == pytest.approx(0.2)


def test_rule_b_drop_just_below_guard_prefers_stage2():
    out = mod.decide(stage("positive", 0.79), stage2_ate=stage("positive", 0.6))
    assert out.selected_stage == "stage2"
    assert out.arbiter_flags.stage2_rejected_due_to_confidence is False


def test_rule_b_without_stage2_keeps_stage1():
    out = mod.decide(stage("negative", 0.7))
    assert out.selected_stage == "stage1"
    assert out.final_label == "negative"
    assert "Stage2 missing" in out.rationale


def test_drop_guard_skips_rule_a():
    span = {"start": 0, "end": 10}
    s1_atsa = stage("positive", 0.4, span)
    out = mod.decide(stage("positive", 0.9), s1_atsa, stage2_ate=stage("positive", 0.5),
                     stage2_atsa=stage("positive", 0.3, span))
    assert out.arbiter_flags.stage2_rejected_due_to_confidence
    assert "RuleA" not in out.applied_rules
    assert out.confidence == 0.9


# --- Rule M -----------------------------------------------------------------


def test_rule_m_conflicting_stage_labels_become_mixed_with_max_confidence():
    out = mod.decide(stage("positive", 0.62), stage2_ate=stage("negative", 0.58))
    assert out.final_label == "mixed"
    assert out.confidence == 0.62
    assert "RuleM: conflicting stage1/stage2 labels -> mixed." in out.rationale


def test_rule_m_applies_even_under_drop_guard():
    out = mod.decide(stage("positive", 0.9), stage2_ate=stage("negative", 0.3))
    assert out.applied_rules[:2] == ["RuleB", "RuleM"]
    assert out.final_label == "mixed" and out.confidence == 0.9


# --- Rule C -----------------------------------------------------------------


def test_rule_c_critical_issue_vetoes_even_with_lower_confidence():
    v = ValidatorSignal(suggested_label="negative", confidence=0.3, issues=[{"type": "negation", "severity": "low"}])
    out = mod.decide(stage("positive", 0.8), validator=v)
    assert out.final_label == "negative"
    assert out.confidence == 0.8  # raised to the larger of the two, never lowered
    assert "RuleC: Validator critical veto." in out.rationale
    assert out.arbiter_flags.validator_override_applied


@pytest.mark.parametrize("issue", ["irony detected", "Contrast: '-지만'", "scope severity:high",
                                   {"type": "other", "severity": "high"}])
def test_rule_c_critical_issue_forms(issue):
    assert mod.is_critical_issue(issue)


def test_rule_c_non_critical_needs_at_least_current_confidence():
    low = ValidatorSignal(suggested_label="negative", confidence=0.5, issues=["span too wide"])
    assert mod.decide(stage("positive", 0.8), validator=low).final_label == "positive"
    high = ValidatorSignal(suggested_label="negative", confidence=0.85, issues=["span too wide"])
    out = mod.decide(stage("positive", 0.8), validator=high)
    assert out.final_label == "negative" and out.confidence == 0.85


def test_rule_c_without_suggestion_does_nothing():
    v = ValidatorSignal(suggested_label=None, confidence=0.99, issues=[{"type": "contrast", "severity": "high"}])
    assert "RuleC" not in mod.decide(stage("positive", 0.8), validator=v).applied_rules


# --- Rule A -----------------------------------------------------------------


def test_rule_a_averages_confidence_when_spans_align_and_labels_match():
    s1 = stage("positive", 0.5, [0, 50])
    s2 = stage("positive", 0.9, [0, 45])  # IoU 0.9
    out = mod.decide(stage("positive", 0.7), s1, stage2_ate=stage("positive", 0.6), stage2_atsa=s2)
    assert "RuleA: IoU>=0.8 span aligned." in out.rationale
    assert out.confidence == pytest.approx((0.6 + 0.9) / 2)


def test_rule_a_needs_iou_at_least_point_eight_and_matching_label():
    s1 = stage("positive", 0.5, [0, 50])
    low_iou = stage("positive", 0.9, [0, 35])  # IoU 0.7
    assert "RuleA" not in mod.decide(stage("positive", 0.7), s1, stage2_ate=stage("positive", 0.6),
                                     stage2_atsa=low_iou).applied_rules
    assert mod.span_iou(mod.Span(start=0, end=50), mod.Span(start=0, end=40)) == pytest.approx(0.8)
    other_label = stage("neutral", 0.65, [0, 50])
    assert "RuleA" not in mod.decide(stage("positive", 0.7), s1, stage2_ate=stage("positive", 0.6),
                                     stage2_atsa=other_label).applied_rules


# --- Rule D -----------------------------------------------------------------


def test_rule_d_small_difference_keeps_sentence_ate():
    out = mod.decide(stage("positive", 0.6), stage2_atsa=stage("negative", 0.65))
    assert out.final_label == "positive" and out.confidence == 0.6
    assert "RuleD: diff<0.1 conflict -> sentence ATE." in out.rationale


def test_rule_d_atsa_wins_with_higher_confidence():
    out = mod.decide(stage("positive", 0.6), stage2_atsa=stage("negative", 0.8))
    assert out.final_label == "negative" and out.confidence == 0.8
    assert "RuleD: diff>=0.1 ATSA wins." in out.rationale


def test_rule_d_ate_wins_with_higher_confidence():
    out = mod.decide(stage("positive", 0.9), stage2_atsa=stage("negative", 0.7))
    assert out.final_label == "positive" and out.confidence == 0.9
    assert "RuleD: diff>=0.1 ATE wins." in out.rationale


def test_rule_d_silent_when_labels_agree():
    assert "RuleD" not in mod.decide(stage("positive", 0.9), stage2_atsa=stage("positive", 0.2)).applied_rules


# --- Rule E -----------------------------------------------------------------


def test_rule_e_overrides_low_confidence_with_debate_consensus():
    out = mod.decide(stage("positive", 0.5), debate_summary=summary("패널은 문장 전체를 부정으로 본다"))
    assert out.final_label == "negative"
    assert out.confidence == 0.5
    assert "RuleE: debate consensus -> negative." in out.rationale
    assert out.arbiter_flags.rule_e_fired


def test_rule_e_overrides_mixed_even_when_confident():
    out = mod.decide(stage("positive", 0.9), stage2_ate=stage("negative", 0.9),
                     debate_summary=summary("The panel reads it as negative overall."))
    assert out.applied_rules[-1] == "RuleE"
    assert out.final_label == "negative"


def test_rule_e_blocked_when_confident_and_not_mixed():
    out = mod.decide(stage("positive", 0.55), debate_summary=summary("negative"))
    assert out.final_label == "positive"
    assert out.arbiter_flags.rule_e_block_reason == "confidence_too_high"
    assert out.arbiter_flags.debate_inferred_label == "negative"


def test_rule_e_block_reasons():
    assert mod.decide(stage("positive", 0.3), debate_summary=summary("긍정")).arbiter_flags.rule_e_block_reason \
        == "label_unchanged"
    assert mod.decide(stage("positive", 0.3), debate_summary=summary("no words")).arbiter_flags.rule_e_block_reason \
        == "inferred_empty"
    assert mod.decide(stage("positive", 0.3)).arbiter_flags.rule_e_block_reason == "no_debate"


@pytest.mark.parametrize(("text", "label"), [
    ("평가가 엇갈린다", "mixed"), ("양면적인 리뷰", "mixed"), ("Mixed overall", "mixed"),
    ("호의적인 평가", "positive"), ("맛이 좋다", "positive"), ("clearly positive", "positive"),
    ("서비스 비판이 핵심", "negative"), ("응대가 나쁘다", "negative"), ("negative tone", "negative"),
    ("중립적 서술", "neutral"), ("표현이 모호하다", "neutral"), ("neutral", "neutral"),
    ("긍정과 부정이 혼합", "mixed"),  # mixed is checked first
    ("긍정 요소와 부정 요소", "positive"),  # then positive before negative
    ("", None), ("nothing to infer", None),
])
def test_infer_label_keyword_lists_in_seed_order(text, label):
    assert mod.infer_label_from_debate(summary(consensus=text)) == label


def test_infer_label_reads_rationale_and_key_lists():
    assert mod.infer_label_from_debate(summary(agreements=["음식은 긍정"])) == "positive"
    assert mod.infer_label_from_debate(summary(disagreements=["의견이 엇갈림"])) == "mixed"
    assert mod.infer_label_from_debate(summary(rationale="overall negative")) == "negative"
    assert mod.infer_label_from_debate(None) is None


def test_rules_apply_in_seed_order():
    span = [0, 40]
    out = mod.decide(
        stage("positive", 0.62), stage("negative", 0.5, span),
        ValidatorSignal(suggested_label="mixed", confidence=0.4, issues=[{"type": "contrast", "severity": "high"}]),
        stage("negative", 0.6), stage("negative", 0.8, span), summary("전체적으로 부정"),
    )
    # B (stage2) -> M (mixed 0.62) -> C (validator mixed, 0.62) -> D (ATSA negative 0.8 wins) -> E blocked.
    assert out.applied_rules == ["RuleB", "RuleM", "RuleC", "RuleD"]
    assert out.final_label == "negative" and out.confidence == 0.8
    assert out.arbiter_flags.rule_e_block_reason == "label_unchanged"


# --- Signals ----------------------------------------------------------------


def test_parse_signals_accepts_pairs_aliases_and_korean_labels():
    sig = mod.parse_signals({
        "stage1_ate": {"label": "긍정", "confidence": 0.6},
        "stage1_atsa": {"span": [0, 12], "aspect_sentiments": [{"aspect_term": {"term": "맛"}, "polarity": "pos"}]},
    })
    assert sig.stage1_ate.label == "positive"
    assert sig.stage1_atsa.span.end == 12
    assert sig.stage1_atsa.aspect_sentiments[0].aspect == "맛"
    assert sig.stage1_atsa.aspect_sentiments[0].polarity == "positive"


@pytest.mark.parametrize(("raw", "field"), [
    ({}, "stage1_ate"),
    ({"stage1_ate": {"label": "great", "confidence": 0.5}}, "stage1_ate.label"),
    ({"stage1_ate": {"label": "positive", "confidence": 1.5}}, "stage1_ate.confidence"),
    ({"stage1_ate": {"label": "positive", "confidence": 0.5}, "stage2_atsa": {"span": [5, 2]}}, "stage2_atsa.span"),
])
def test_parse_signals_names_the_bad_field(raw, field):
    with pytest.raises(mod.SignalsError, match=f"'{field}"):
        mod.parse_signals(raw)


def test_aggregate_sentiments():
    A = AspectSentiment
    assert mod.aggregate_sentiments([A(aspect="a", polarity="positive", confidence=0.9),
                                     A(aspect="b", polarity="negative", confidence=0.6)]) == ("mixed", 0.6)
    assert mod.aggregate_sentiments([A(aspect="a", polarity="negative", confidence=0.4),
                                     A(aspect="b", polarity="neutral", confidence=0.9)]) == ("negative", 0.4)
    assert mod.aggregate_sentiments([]) is None
    explicit = stage("positive", 0.3, aspects=[("a", "negative", 0.9)])
    assert mod.resolve_stage(explicit).label == "positive"
    assert mod.resolve_stage(stage(None, 0.0, aspects=[("a", "negative", 0.9)])).label == "negative"


# --- Stance weights and mapping ---------------------------------------------


def test_stance_weights_and_polarity():
    assert mod.stance_weight("neutral") == 0.6
    assert mod.stance_weight("pro") == 1.0 and mod.stance_weight("con") == 1.0
    assert mod.stance_weight("skeptic") == 0.8 and mod.stance_weight(None) == 0.8
    assert mod.stance_to_polarity("pro") == "positive"
    assert mod.stance_to_polarity("con") == "negative"
    assert mod.stance_to_polarity("neutral") == "neutral" and mod.stance_to_polarity("skeptic") == "neutral"


ATSA = [AspectSentiment(aspect="파스타", polarity="positive", confidence=0.88),
        AspectSentiment(aspect="응대", polarity="negative", confidence=0.55),
        AspectSentiment(aspect="가격", polarity="positive", confidence=0.45)]


def turn(speaker, stance, message, key_points=()):
    return {"speaker": speaker, "stance": stance, "message": message, "key_points": list(key_points), "round": 1}


def test_direct_mapping_normalises_whitespace_punctuation_and_particles():
    ctx = mod.build_review_context([turn("critic", "con", "응 대 가 너무 느렸다!")], None,
                                   aspect_terms=["응대", "가격은"], atsa_sentiments=ATSA)
    point = ctx["rebuttal_points"][0]
    assert point["aspect_refs"] == ["응대"]
    assert point["mapping"] == "direct"
    assert point["weight"] == 1.0 and point["polarity_hint"] == "negative"
    assert point["provenance_hint"] == "source:critic/con"
    # "가격은" is matched by its particle-stripped form too.
    ctx = mod.build_review_context([turn("empath", "pro", "가격 대비 만족")], None, aspect_terms=["가격은"])
    assert ctx["rebuttal_points"][0]["aspect_refs"] == ["가격은"]


def test_synonym_mapping_uses_builtin_groups_and_case_hints():
    ctx = mod.build_review_context(
        [turn("critic", "con", "직원들이 불친절했다"), turn("empath", "pro", "소스가 진했다")], None,
        aspect_terms=["응대", "파스타"], atsa_sentiments=ATSA, synonym_hints={"파스타": ["소스"]},
    )
    assert [p["aspect_refs"] for p in ctx["rebuttal_points"]] == [["응대"], ["파스타"]]
    assert "직원" in ctx["synonym_hints"]["응대"] and "소스" in ctx["synonym_hints"]["파스타"]
    assert ctx["mapping_stats"] == {"direct": 2, "fallback": 0, "none": 0}


def test_fallback_mapping_picks_matching_polarity_then_highest_confidence():
    ctx = mod.build_review_context(
        [turn("critic", "con", "다시는 안 간다"), turn("empath", "pro", "행복한 저녁이었다")], None,
        aspect_terms=["파스타", "응대", "가격"], atsa_sentiments=ATSA,
    )
    refs = [p["aspect_refs"] for p in ctx["rebuttal_points"]]
    assert refs == [["응대"], ["파스타"]]
    assert ctx["mapping_stats"]["fallback"] == 2
    assert ctx["mapping_fail_reasons"]["fallback_used"] == 2
    only_positive = [AspectSentiment(aspect="맛", polarity="positive", confidence=0.3),
                     AspectSentiment(aspect="양", polarity="positive", confidence=0.8)]
    assert mod.fallback_map(only_positive, "negative") == ["양"]


def test_no_mapping_reasons():
    neutral = mod.build_review_context([turn("analyst", "neutral", "근거를 보자")], None,
                                       aspect_terms=["파스타", "응대"], atsa_sentiments=ATSA)
    assert neutral["rebuttal_points"][0]["mapping"] == "none"
    assert neutral["mapping_fail_reasons"]["neutral_stance"] == 1
    # A neutral turn falls back only when Stage1 ATSA has exactly one aspect.
    single = mod.build_review_context([turn("analyst", "neutral", "근거를 보자")], None, aspect_terms=["파스타"],
                                      atsa_sentiments=ATSA[:1])
    assert single["rebuttal_points"][0]["aspect_refs"] == ["파스타"]
    no_aspects = mod.build_review_context([turn("critic", "con", "별로")], None, aspect_terms=[])
    assert no_aspects["mapping_fail_reasons"]["no_aspects"] == 1
    no_match = mod.build_review_context([turn("critic", "con", "별로")], None, aspect_terms=["파스타"],
                                        atsa_sentiments=[])
    assert no_match["rebuttal_points"][0]["mapping_fail_reason"] == "no_match"
    assert no_match["mapping_stats"] == {"direct": 0, "fallback": 0, "none": 1}


def test_aspect_hints_collect_speaker_stance_weight_and_polarity():
    ctx = mod.build_review_context(
        [turn("critic", "con", "응대 최악"), turn("analyst", "neutral", "응대 근거 4건"), turn("empath", "pro", "응대 아쉬움")],
        {"consensus": "혼합"}, aspect_terms=["응대"],
    )
    hints = ctx["aspect_hints"]["응대"]
    assert [(h["speaker"], h["weight"], h["polarity_hint"]) for h in hints] == [
        ("critic", 1.0, "negative"), ("analyst", 0.6, "neutral"), ("empath", 1.0, "positive")]
    assert mod.aspect_scores(ctx["aspect_hints"]) == {"응대": {"positive": 1.0, "negative": 1.0}}
    assert ctx["summary"] == {"consensus": "혼합"}
    for key in ("review_guidance", "fallback_mapping_policy", "aspect_terms", "synonym_hints"):
        assert ctx[key]


# --- Debate override ----------------------------------------------------------


def hints(pos=0, neg=0, neu=0):
    return ([{"weight": 1.0, "polarity_hint": "positive"}] * pos + [{"weight": 1.0, "polarity_hint": "negative"}] * neg
            + [{"weight": 0.6, "polarity_hint": "neutral"}] * neu)


def test_override_skipped_low_signal():
    res = mod.apply_debate_override({"응대": hints(neg=1, neu=3)}, ATSA)
    assert res.stats["skipped_low_signal"] == 1 and res.stats["applied"] == 0
    assert res.decisions["응대"]["total"] == 1.0


def test_override_skipped_conflict():
    res = mod.apply_debate_override({"응대": hints(pos=2, neg=2)}, ATSA)
    assert res.stats["skipped_conflict"] == 1
    assert res.sentiments[1].confidence == 0.55


def test_override_applied_flips_and_raises_confidence():
    res = mod.apply_debate_override({"가격": hints(neg=2)}, ATSA)
    assert res.stats["applied"] == 1
    price = next(s for s in res.sentiments if s.aspect == "가격")
    assert price.polarity == "negative" and price.confidence == 0.7
    assert res.log[0]["proposal_type"] == "DEBATE_OVERRIDE"
    assert res.log[0]["reason"] == "debate_override_flip positive->negative"
    assert ATSA[2].polarity == "positive"  # the input is left untouched


def test_override_applied_adds_missing_aspect():
    res = mod.apply_debate_override({"분위기": hints(pos=2)}, ATSA)
    assert res.stats["applied"] == 1
    added = res.sentiments[-1]
    assert (added.aspect, added.polarity, added.confidence) == ("분위기", "positive", 0.7)
    assert res.log[0]["reason"] == "debate_override_add"


def test_override_skipped_already_confident():
    res = mod.apply_debate_override({"파스타": hints(pos=2, neg=1)}, ATSA)
    assert res.stats == {"applied": 0, "skipped_low_signal": 0, "skipped_conflict": 0,
                         "skipped_already_confident": 1}


def test_override_thresholds_are_configurable():
    strict = mod.OverrideThresholds.from_options({"min_total": 5, "min_margin": 3})
    assert mod.apply_debate_override({"가격": hints(neg=2)}, ATSA, strict).stats["skipped_low_signal"] == 1
    loose = mod.OverrideThresholds.from_options({"min_target_conf": 0.95})
    res = mod.apply_debate_override({"파스타": hints(pos=2)}, ATSA, loose)
    assert res.stats["applied"] == 1 and res.sentiments[0].confidence == 0.95
    with pytest.raises(ValueError, match="min_totl"):
        mod.OverrideThresholds.from_options({"min_totl": 1})


# --- Metrics -----------------------------------------------------------------


def test_metrics_rates_and_override_counters():
    m = mod.debate_metrics({"direct": 3, "fallback": 1, "none": 2},
                           {"no_aspects": 0, "no_match": 1, "neutral_stance": 1, "fallback_used": 1},
                           {"applied": 1, "skipped_low_signal": 1, "skipped_conflict": 1, "skipped_already_confident": 1})
    assert m["debate_mapping_coverage"] == pytest.approx(4 / 6, abs=1e-4)
    assert m["debate_mapping_direct_rate"] == 0.5
    assert m["debate_mapping_fallback_rate"] == pytest.approx(1 / 6, abs=1e-4)
    assert m["debate_mapping_none_rate"] == pytest.approx(2 / 6, abs=1e-4)
    assert m["debate_fail_no_match_rate"] == pytest.approx(1 / 6, abs=1e-4)
    assert m["debate_fail_no_aspects_rate"] == 0.0
    assert m["debate_override_applied"] == 1
    assert m["debate_override_skipped_already_confident_rate"] == 0.25
    empty = mod.debate_metrics(None, None, None)
    assert empty["debate_mapping_coverage"] is None
    assert empty["debate_override_skipped_already_confident_rate"] is None


def test_metric_warnings_levels_and_configurable_thresholds():
    th = mod.warn_thresholds(None)
    ok = {"debate_mapping_coverage": 0.9, "debate_fail_no_match_rate": 0.1, "debate_fail_neutral_stance_rate": 0.1}
    assert mod.metric_warnings(ok, th) == []
    warn = {"debate_mapping_coverage": 0.5, "debate_fail_no_match_rate": 0.3, "debate_fail_neutral_stance_rate": 0.3}
    out = mod.metric_warnings(warn, th)
    assert len(out) == 3 and all(w.startswith("[WARN]") for w in out)
    high = {"debate_mapping_coverage": 0.2, "debate_fail_no_match_rate": 0.5, "debate_fail_neutral_stance_rate": 0.5}
    assert all(w.startswith("[HIGH]") for w in mod.metric_warnings(high, th))
    relaxed = mod.warn_thresholds({"coverage_warn": 0.1, "coverage_high": 0.05})
    assert not any("coverage" in w for w in mod.metric_warnings(high, relaxed))
    with pytest.raises(ValueError, match="coverage_wrn"):
        mod.warn_thresholds({"coverage_wrn": 1})


# --- Verdict: escalation and convergence -------------------------------------


def judged(consensus, agreements=(), disagreements=()):
    return DebateSummary(consensus=consensus, key_agreements=list(agreements), key_disagreements=list(disagreements))


@pytest.mark.parametrize("text", ["", "   ", "No consensus was reached", "The panel did not agree",
                                  "패널은 합의하지 못했다", "합의 실패"])
def test_the_judge_has_no_consensus_when_it_says_so_or_says_nothing(text):
    assert not mod.judge_has_consensus(judged(text))


def test_the_judge_has_a_consensus_when_it_names_one():
    assert mod.judge_has_consensus(judged("Overall positive about the service"))
    assert not mod.judge_has_consensus(None)


def test_rule_z_escalates_as_insufficient_signal_and_nothing_else():
    decision = mod.decide(stage("positive", 0.0))
    reasons = mod.escalation_reasons(decision, None, True, None, mod.RULE_E_MAX_CONFIDENCE)
    assert reasons == ["insufficient_signal: RuleZ fired, both Stage1 and Stage2 confidences are 0"]


def test_a_confidence_below_the_review_threshold_escalates_as_low_confidence():
    decision = mod.decide(stage("positive", 0.5), debate_summary=summary("긍정"))
    agreed = judged("긍정")
    assert decision.confidence == 0.5
    assert mod.escalation_reasons(decision, agreed, True, None, 0.55) == [
        "low_confidence: the final confidence 0.50 is below 0.55"]
    assert mod.escalation_reasons(decision, agreed, True, None, 0.5) == []


def test_mixed_from_rule_m_alone_escalates_but_a_panel_that_reads_mixed_confirms_it():
    alone = mod.decide(stage("positive", 0.9), stage2_ate=stage("negative", 0.8))
    assert alone.final_label == "mixed"
    reasons = mod.escalation_reasons(alone, judged("엇갈린 평가"), True, None, 0.55)
    assert [r.split(":")[0] for r in reasons] == ["unresolved_conflict"]
    confirmed = mod.decide(stage("positive", 0.9), stage2_ate=stage("negative", 0.8), debate_summary=summary("엇갈린 평가"))
    assert confirmed.arbiter_flags.debate_inferred_label == "mixed"
    assert mod.escalation_reasons(confirmed, judged("엇갈린 평가"), True, None, 0.55) == []


def test_a_judge_without_consensus_escalates_only_when_the_panel_debated():
    decision = mod.decide(stage("positive", 0.9))
    assert mod.escalation_reasons(decision, judged("no consensus"), True, None, 0.55) == [
        "no_consensus: the judge reported no consensus"]
    assert mod.escalation_reasons(decision, None, False, None, 0.55) == []


def test_a_panel_consensus_rule_e_could_not_apply_escalates_as_panel_dissent():
    decision = mod.decide(stage("positive", 0.9), debate_summary=summary("전체는 부정"))
    assert decision.arbiter_flags.rule_e_block_reason == "confidence_too_high"
    reasons = mod.escalation_reasons(decision, judged("전체는 부정"), True, None, 0.55)
    assert [r.split(":")[0] for r in reasons] == ["panel_dissent"]


def test_the_panel_converges_when_the_judges_consensus_agrees_with_the_moderator():
    assert mod.convergence(True, judged("긍정"), "positive", "positive", 2) == (
        True, "the judge's consensus agrees with the moderator's label (positive)")
    assert mod.convergence(True, judged("부정"), "positive", "negative", 2) == (
        False, "the judge's consensus (negative) differs from the moderator's label (positive)")
    assert mod.convergence(True, judged("no consensus"), "positive", None, 3) == (
        False, "the judge reported no consensus after 3 round(s)")
    assert mod.convergence(True, judged("agreed"), None, None, 1)[0] is True
    assert mod.convergence(False, None, "positive", None, 0)[0] is False


def test_a_judge_only_verdict_stays_between_point_two_and_point_eight():
    assert mod.judge_only_confidence(0, 0) == 0.5
    assert mod.judge_only_confidence(3, 1) == 0.65
    assert mod.judge_only_confidence(5, 0) == 0.8
    assert mod.judge_only_confidence(0, 5) == 0.2


def test_a_judge_only_verdict_escalates_only_without_consensus():
    assert mod.judge_only_escalation_reasons(judged("agreed on the delay")) == []
    assert mod.judge_only_escalation_reasons(judged("")) == ["no_consensus: the judge reported no consensus"]
