"""Section 9 of the persona-panel source protocol: debate metrics and the warnings drawn from them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .override import OVERRIDE_OUTCOMES
from .review_context import FAIL_REASONS

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
    """Section 9 of the source protocol. Rates are None when there is nothing to divide (no rebuttal points, no decisions)."""
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
    """Section 9 of the source protocol: a warning, or a severe one, for each debate metric past its threshold."""
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
