"""The persona panel's rule-based post-debate logic (seed 001): no model calls, pure functions.

Four pieces, in the order the protocol uses them:

- ``parse_signals``: the case's earlier-stage outputs (Stage1/Stage2 ATE and ATSA, validator,
  aspect terms, synonym hints) validated into typed signals;
- ``build_review_context`` (seed section 4): the Debate Review Context, i.e. rebuttal points
  mapped onto the case's aspects with stance weights and polarity hints;
- ``apply_debate_override`` (section 5.1): aspect polarity correction from the panel's hints;
- ``decide`` (section 6): the moderator rules Z, B, M, C, A, D, E, in that order;
- ``debate_metrics`` / ``metric_warnings`` (section 9).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
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


# ---------------------------------------------------------------------------
# Signals: the case's earlier-stage outputs
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Section 4: Debate Review Context
# ---------------------------------------------------------------------------

STANCE_WEIGHTS = {"neutral": 0.6, "pro": 1.0, "con": 1.0}
OTHER_STANCE_WEIGHT = 0.8


def stance_weight(stance: str | None) -> float:
    return STANCE_WEIGHTS.get((stance or "").strip().lower(), OTHER_STANCE_WEIGHT)


def stance_to_polarity(stance: str | None) -> str:
    s = (stance or "").strip().lower()
    return {"pro": "positive", "con": "negative"}.get(s, "neutral")


_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
# Korean particles that stick to a noun ("음식은", "직원이"); stripped from aspect terms only.
_PARTICLES = ("에서", "으로", "은", "는", "이", "가", "을", "를", "도", "의", "에", "로", "과", "와")


def normalize_text(text: str) -> str:
    """Lower-case with whitespace and punctuation removed, as the seed's mapping does."""
    return _NON_WORD.sub("", (text or "").lower())


def strip_particle(term: str) -> str:
    term = term.strip()
    for suffix in _PARTICLES:
        # Keep at least two characters so that a noun ending in a particle-like syllable survives.
        if term.endswith(suffix) and len(term) - len(suffix) >= 2:
            return term[: -len(suffix)]
    return term


# Conservative synonym groups (Korean and English) for review aspects. A term that shares a
# group with another expands to the whole group; case-level synonym_hints are added on top.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("가격", "비용", "가성비", "금액", "price", "cost", "value"),
    ("배송", "배달", "출고", "delivery", "shipping"),
    ("서비스", "응대", "직원", "종업원", "고객응대", "service", "staff", "waiter", "waitress"),
    ("품질", "퀄리티", "마감", "quality"),
    ("맛", "풍미", "taste", "flavor", "flavour"),
    ("음식", "요리", "메뉴", "food", "dish", "dishes", "meal"),
    ("분위기", "인테리어", "atmosphere", "ambience", "ambiance", "decor"),
    ("디자인", "외관", "스타일", "design"),
    ("성능", "속도", "퍼포먼스", "performance", "speed"),
    ("대기", "웨이팅", "기다림", "waiting", "queue"),
    ("위생", "청결", "hygiene", "cleanliness"),
    ("배터리", "충전", "battery", "charging"),
)


def expand_synonyms(term: str, extra: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    norm = normalize_text(strip_particle(term))
    out: list[str] = []
    for group in SYNONYM_GROUPS:
        if any(normalize_text(g) == norm for g in group):
            out += [g for g in group if normalize_text(g) != norm]
    for key, values in (extra or {}).items():
        if normalize_text(strip_particle(key)) == norm:
            out += [str(v) for v in values if str(v).strip()]
    return list(dict.fromkeys(out))


REVIEW_GUIDANCE = (
    "Map rebuttal points to aspect-level review actions where applicable. Use aspect_refs when "
    "available; if empty, infer from context cautiously. Cite provenance_hint in review reasons."
)
FALLBACK_MAPPING_POLICY = (
    "If a turn names no aspect, map it to the Stage1 ATSA aspect whose polarity matches the turn's "
    "polarity_hint (highest confidence first), otherwise to the highest-confidence aspect; a neutral "
    "turn is mapped only when Stage1 ATSA has exactly one aspect."
)
FAIL_REASONS = ("no_aspects", "no_match", "neutral_stance", "fallback_used")


@dataclass
class TermIndex:
    """Normalised surface forms (terms, particle-stripped terms, synonyms) -> canonical aspect term."""

    aspect_terms: list[str]
    synonym_hints: dict[str, list[str]]
    forms: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, aspect_terms: Iterable[str], extra_synonyms: Mapping[str, Sequence[str]] | None = None) -> TermIndex:
        terms = list(dict.fromkeys(t.strip() for t in aspect_terms if t and t.strip()))
        hints = {t: expand_synonyms(t, extra_synonyms) for t in terms}
        forms: dict[str, str] = {}
        # Exact terms claim their forms before any synonym does, so a synonym never steals a term.
        for t in terms:
            for cand in (t, strip_particle(t)):
                key = normalize_text(cand)
                if key and key not in forms:
                    forms[key] = t
        for t in terms:
            for cand in hints[t]:
                key = normalize_text(strip_particle(cand))
                if key and key not in forms:
                    forms[key] = t
        return cls(terms, hints, forms)

    def find(self, text: str) -> list[str]:
        blob = normalize_text(text)
        hits: list[tuple[int, str]] = []
        for key, term in self.forms.items():
            pos = blob.find(key)
            if pos != -1:
                hits.append((pos, term))
        hits.sort()
        return list(dict.fromkeys(term for _, term in hits))


def fallback_map(sentiments: Sequence[AspectSentiment], polarity_hint: str) -> list[str]:
    """The seed's ATSA-polarity fallback for a turn that names no aspect."""
    named = [s for s in sentiments if s.aspect.strip()]
    if not named:
        return []
    if polarity_hint == "neutral":
        distinct = list(dict.fromkeys(s.aspect for s in named))
        return distinct if len(distinct) == 1 else []
    candidates = [s for s in named if s.polarity == polarity_hint] or named
    best = max(candidates, key=lambda s: s.confidence)
    return [best.aspect]


def map_turn(
    turn: Mapping[str, Any], index: TermIndex, atsa_sentiments: Sequence[AspectSentiment]
) -> dict[str, Any]:
    """One rebuttal point: the turn mapped onto aspects, with weight, polarity hint and provenance."""
    speaker, stance = str(turn.get("speaker") or ""), str(turn.get("stance") or "")
    key_points = [str(k) for k in turn.get("key_points") or []]
    message = str(turn.get("message") or "")
    refs = index.find(" ".join([message, *key_points]))
    polarity = stance_to_polarity(stance)
    mapping = "direct" if refs else "none"
    if not refs:
        refs = fallback_map(atsa_sentiments, polarity)
        if refs:
            mapping = "fallback"
    reason = None
    if mapping == "fallback":
        reason = "fallback_used"
    elif mapping == "none":
        if not index.aspect_terms:
            reason = "no_aspects"
        elif polarity == "neutral":
            reason = "neutral_stance"
        else:
            reason = "no_match"
    return {
        "round": turn.get("round"),
        "speaker": speaker,
        "stance": stance,
        "key_points": key_points,
        "message": message,
        "aspect_refs": refs,
        "mapping": mapping,
        "mapping_fail_reason": reason,
        "weight": stance_weight(stance),
        "polarity_hint": polarity,
        "provenance_hint": f"source:{speaker}/{stance}",
    }


def build_review_context(
    turns: Sequence[Mapping[str, Any]],
    summary: Mapping[str, Any] | None,
    *,
    aspect_terms: Iterable[str],
    atsa_sentiments: Sequence[AspectSentiment] = (),
    synonym_hints: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Seed section 4. ``turns`` carry speaker and stance from the panel's configuration."""
    index = TermIndex.build(aspect_terms, synonym_hints)
    points = [map_turn(t, index, atsa_sentiments) for t in turns]
    stats = {"direct": 0, "fallback": 0, "none": 0}
    fails = dict.fromkeys(FAIL_REASONS, 0)
    aspect_hints: dict[str, list[dict[str, Any]]] = {}
    for p in points:
        stats[p["mapping"]] += 1
        if p["mapping_fail_reason"]:
            fails[p["mapping_fail_reason"]] += 1
        for aspect in p["aspect_refs"]:
            aspect_hints.setdefault(aspect, []).append(
                {k: p[k] for k in ("speaker", "stance", "round", "weight", "polarity_hint", "mapping")}
            )
    return {
        "summary": dict(summary) if summary else {},
        "rebuttal_points": points,
        "aspect_terms": index.aspect_terms,
        "synonym_hints": index.synonym_hints,
        "aspect_hints": aspect_hints,
        "mapping_stats": stats,
        "mapping_fail_reasons": fails,
        "review_guidance": REVIEW_GUIDANCE,
        "fallback_mapping_policy": FALLBACK_MAPPING_POLICY,
    }


def aspect_scores(aspect_hints: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, dict[str, float]]:
    """Per aspect, the summed weights of positive and negative hints (neutral hints carry no sign)."""
    out = {}
    for aspect, hints in aspect_hints.items():
        pos = sum((float(h.get("weight") or 0) for h in hints if h.get("polarity_hint") == "positive"), 0.0)
        neg = sum((float(h.get("weight") or 0) for h in hints if h.get("polarity_hint") == "negative"), 0.0)
        out[aspect] = {"positive": round(pos, 4), "negative": round(neg, 4)}
    return out


# ---------------------------------------------------------------------------
# Section 5.1: Debate override
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OverrideThresholds:
    min_total: float = 1.6
    min_margin: float = 0.8
    min_target_conf: float = 0.7

    @classmethod
    def from_options(cls, data: Mapping[str, Any] | None) -> OverrideThresholds:
        data = dict(data or {})
        unknown = set(data) - {"min_total", "min_margin", "min_target_conf"}
        if unknown:
            raise ValueError(f"debate_override: unknown key(s) {', '.join(sorted(unknown))}")
        base = cls()
        try:
            return cls(**{k: float(data.get(k, getattr(base, k))) for k in ("min_total", "min_margin", "min_target_conf")})
        except (TypeError, ValueError) as exc:
            raise ValueError(f"debate_override: thresholds must be numbers ({exc})") from exc


OVERRIDE_OUTCOMES = ("applied", "skipped_low_signal", "skipped_conflict", "skipped_already_confident")


@dataclass
class OverrideResult:
    sentiments: list[AspectSentiment]
    stats: dict[str, int]
    log: list[dict[str, Any]]
    decisions: dict[str, dict[str, Any]]


def apply_debate_override(
    aspect_hints: Mapping[str, Sequence[Mapping[str, Any]]],
    sentiments: Sequence[AspectSentiment],
    thresholds: OverrideThresholds = OverrideThresholds(),
) -> OverrideResult:
    """Correct aspect polarities toward a clear panel signal; the input list is not modified."""
    patched = [s.model_copy() for s in sentiments]
    stats = dict.fromkeys(OVERRIDE_OUTCOMES, 0)
    log: list[dict[str, Any]] = []
    decisions: dict[str, dict[str, Any]] = {}
    scores = aspect_scores(aspect_hints)
    for aspect, score in scores.items():
        pos, neg = score["positive"], score["negative"]
        total, margin = round(pos + neg, 4), round(abs(pos - neg), 4)
        decision: dict[str, Any] = {"positive": pos, "negative": neg, "total": total, "margin": margin}
        decisions[aspect] = decision
        if total < thresholds.min_total:
            stats["skipped_low_signal"] += 1
            decision["outcome"] = "skipped_low_signal"
            continue
        if margin < thresholds.min_margin:
            stats["skipped_conflict"] += 1
            decision["outcome"] = "skipped_conflict"
            continue
        target = "positive" if pos > neg else "negative"
        decision["target"] = target
        key = normalize_text(strip_particle(aspect))
        matching = [s for s in patched if normalize_text(strip_particle(s.aspect)) == key]
        if not matching:
            patched.append(AspectSentiment(aspect=aspect, polarity=target, confidence=thresholds.min_target_conf,
                                           evidence="debate_override"))
            stats["applied"] += 1
            decision["outcome"] = "applied"
            log.append({"proposal_type": "DEBATE_OVERRIDE", "target_aspect": aspect, "applied": True,
                        "rationale": f"debate_hint {target}", "reason": "debate_override_add"})
            continue
        outcomes = []
        for s in matching:
            if s.confidence >= thresholds.min_target_conf and s.polarity == target:
                stats["skipped_already_confident"] += 1
                outcomes.append("skipped_already_confident")
                continue
            old_pol, old_conf = s.polarity, s.confidence
            s.polarity = target
            s.confidence = max(old_conf, thresholds.min_target_conf)
            stats["applied"] += 1
            outcomes.append("applied")
            log.append({"proposal_type": "DEBATE_OVERRIDE", "target_aspect": aspect, "applied": True,
                        "rationale": f"debate_hint {target}",
                        "reason": f"debate_override_flip {old_pol}->{target}" if old_pol != target
                        else f"debate_override_confidence {old_conf:.2f}->{s.confidence:.2f}"})
        decision["outcome"] = "applied" if "applied" in outcomes else outcomes[0]
    return OverrideResult(patched, stats, log, decisions)


# ---------------------------------------------------------------------------
# Section 6: the moderator
# ---------------------------------------------------------------------------

RULE_E_MAX_CONFIDENCE = 0.55
STAGE2_DROP_GUARD = 0.2
SPAN_IOU_MIN = 0.8
TIEBREAK_DIFF = 0.1

# Seed 6.3, checked in this order: the first list that matches decides.
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
    """Seed 6.2: each rule's label and confidence are the next rule's input."""
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


# ---------------------------------------------------------------------------
# Section 9: metrics and warnings
# ---------------------------------------------------------------------------

DEFAULT_WARN_THRESHOLDS: dict[str, float] = {
    # Coverage is good when high: warn below coverage_warn, severe below coverage_high.
    "coverage_warn": 0.6,
    "coverage_high": 0.4,
    # Failure rates are bad when high: warn above *_warn, severe above *_high.
    "no_match_warn": 0.2,
    "no_match_high": 0.4,
    "neutral_warn": 0.25,
    "neutral_high": 0.4,
}


def warn_thresholds(data: Mapping[str, Any] | None) -> dict[str, float]:
    data = dict(data or {})
    unknown = set(data) - set(DEFAULT_WARN_THRESHOLDS)
    if unknown:
        raise ValueError(f"debate_thresholds: unknown key(s) {', '.join(sorted(unknown))}")
    try:
        return {k: float(data.get(k, v)) for k, v in DEFAULT_WARN_THRESHOLDS.items()}
    except (TypeError, ValueError) as exc:
        raise ValueError(f"debate_thresholds: thresholds must be numbers ({exc})") from exc


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def debate_metrics(
    mapping_stats: Mapping[str, int] | None, fail_reasons: Mapping[str, int] | None, override_stats: Mapping[str, int] | None
) -> dict[str, Any]:
    """Seed section 9. Rates are None when there is nothing to divide (no rebuttal points, no decisions)."""
    ms = {k: int((mapping_stats or {}).get(k, 0)) for k in ("direct", "fallback", "none")}
    fr = {k: int((fail_reasons or {}).get(k, 0)) for k in FAIL_REASONS}
    os_ = {k: int((override_stats or {}).get(k, 0)) for k in OVERRIDE_OUTCOMES}
    total = sum(ms.values())
    decisions = sum(os_.values())
    return {
        "debate_rebuttal_points": total,
        "debate_mapping_coverage": _rate(ms["direct"] + ms["fallback"], total),
        "debate_mapping_direct_rate": _rate(ms["direct"], total),
        "debate_mapping_fallback_rate": _rate(ms["fallback"], total),
        "debate_mapping_none_rate": _rate(ms["none"], total),
        **{f"debate_fail_{k}_rate": _rate(v, total) for k, v in fr.items()},
        **{f"debate_override_{k}": v for k, v in os_.items()},
        "debate_override_skipped_already_confident_rate": _rate(os_["skipped_already_confident"], decisions),
    }


def metric_warnings(metrics: Mapping[str, Any], thresholds: Mapping[str, float]) -> list[str]:
    out = []
    cov = metrics.get("debate_mapping_coverage")
    if cov is not None and cov < thresholds["coverage_warn"]:
        level = "HIGH" if cov < thresholds["coverage_high"] else "WARN"
        out.append(f"[{level}] debate mapping coverage {cov:.2f} is below {thresholds['coverage_warn']:.2f}: "
                   "few panel turns could be tied to the case's aspects; name the aspects in the turns.")
    nm = metrics.get("debate_fail_no_match_rate")
    if nm is not None and nm > thresholds["no_match_warn"]:
        level = "HIGH" if nm > thresholds["no_match_high"] else "WARN"
        out.append(f"[{level}] debate no_match rate {nm:.2f} is above {thresholds['no_match_warn']:.2f}: "
                   "turns mention no known aspect; add synonym_hints to the case signals.")
    ne = metrics.get("debate_fail_neutral_stance_rate")
    if ne is not None and ne > thresholds["neutral_warn"]:
        level = "HIGH" if ne > thresholds["neutral_high"] else "WARN"
        out.append(f"[{level}] debate neutral_stance rate {ne:.2f} is above {thresholds['neutral_warn']:.2f}: "
                   "neutral turns named no aspect; consider a sharper persona stance.")
    return out
