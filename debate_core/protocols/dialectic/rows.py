"""Dialectic's table for the app: per round the rule, its critique and the synthesis."""

from __future__ import annotations

from typing import Any

from ...core.steps import outputs_by_stage
from ...core.text import word_diff


def dialectic_rounds(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Dialectic: per round the rule under test, the critic's answer and the synthesis, with the rule diff."""
    theses = {s.get("round"): s["output"] for s in outputs_by_stage(steps, "thesis")}
    antis = {s.get("round"): s["output"] for s in outputs_by_stage(steps, "antithesis")}
    syns = {s.get("round"): s["output"] for s in outputs_by_stage(steps, "synthesis")}
    rounds = sorted(r for r in set(theses) | set(antis) | set(syns) if r is not None)
    out = []
    prev_rule = (theses.get(1) or {}).get("rule")
    for r in rounds:
        syn = syns.get(r)
        rule = (syn or {}).get("rule")
        out.append({
            "round": r, "thesis": theses.get(r), "antithesis": antis.get(r), "synthesis": syn,
            "before": prev_rule, "after": rule,
            "diff": word_diff(prev_rule or "", rule or "") if prev_rule and rule else [],
        })
        if rule:
            prev_rule = rule
    return out


def plot_thresholds(options: Any) -> dict[str, tuple[float, str]]:
    """The rule-similarity (Jaccard) line of the per-round plot: the debate converges at it."""
    jac = options.convergence_threshold
    return {"jaccard": (float(jac), f"converged at {jac:g}")}
