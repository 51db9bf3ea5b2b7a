"""Section 5.1 of the persona-panel source protocol: aspect polarity correction from the panel's hints (the debate override)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .review_context import aspect_scores, normalize_text, strip_particle
from .signals import AspectSentiment


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
