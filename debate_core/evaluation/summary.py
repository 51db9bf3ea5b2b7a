"""The figures of an evaluation per method (`summarise`): right rate, silent-wrong rate, over-flag
rate, flag rate, mean tokens, total estimated cost, mean wall time, the judge's agreement rate, and
the right rate's difference from `single`, with a paired bootstrap 95% interval over cases (seeded)
when there are at least ten cases.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_MIN_CASES = 10
DEFAULT_SEED = 20240601


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _rate(rows: Sequence[Mapping[str, Any]], key: str) -> float | None:
    return _mean([1.0 if r[key] else 0.0 for r in rows])


def per_case_right(rows: Sequence[Mapping[str, Any]], method: str) -> dict[str, float]:
    """Per case, the share of a method's scored repeats that were right."""
    by_case: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r["method"] == method and r.get("right") is not None:
            by_case[r["case"]].append(1.0 if r["right"] else 0.0)
    return {c: sum(v) / len(v) for c, v in by_case.items()}


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between the closest ranks."""
    pos = q * (len(sorted_values) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def paired_bootstrap(differences: Sequence[float], *, seed: int = DEFAULT_SEED,
                     resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
    """A 95% percentile interval for the mean of per-case differences, resampling cases with
    replacement (both methods' results of a case stay together). Seeded: the same data give the
    same interval."""
    rng = random.Random(seed)
    n = len(differences)
    means = sorted(sum(rng.choices(differences, k=n)) / n for _ in range(resamples))
    return round(_percentile(means, 0.025), 6), round(_percentile(means, 0.975), 6)


def summarise(rows: Sequence[Mapping[str, Any]], methods: Sequence[str], *, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Per method: rates over its scored runs (failed runs are counted as errors, not scored), mean
    tokens and wall time over all its runs, total cost (None unless every run had a price), and the
    right rate's paired difference from `single` over the cases both scored."""
    baseline = per_case_right(rows, "single") if "single" in methods else {}
    out: dict[str, Any] = {}
    for name in methods:
        mine = [r for r in rows if r["method"] == name]
        scored = [r for r in mine if r.get("right") is not None]
        costs = [r.get("cost") for r in mine]
        entry: dict[str, Any] = {
            "runs": len(mine), "scored": len(scored), "errors": len(mine) - len(scored),
            "cases": len({r["case"] for r in mine}),
            "right": sum(1 for r in scored if r["right"]),
            "flagged": sum(1 for r in scored if r["flagged"]),
            "silent_wrong": sum(1 for r in scored if r["silent_wrong"]),
            "over_flagged": sum(1 for r in scored if r["over_flagged"]),
            "right_rate": _rate(scored, "right"), "flag_rate": _rate(scored, "flagged"),
            "silent_wrong_rate": _rate(scored, "silent_wrong"), "over_flag_rate": _rate(scored, "over_flagged"),
            "mean_tokens": _mean([r.get("tokens") or 0 for r in mine]),
            "total_tokens": sum(r.get("tokens") or 0 for r in mine),
            "total_cost": round(sum(costs), 6) if mine and all(c is not None for c in costs) else None,
            "unpriced_models": sorted({m for r in mine for m in r.get("unpriced_models") or []}),
            "mean_wall_ms": _mean([r.get("wall_ms") or 0.0 for r in mine]),
            "right_rate_diff": None, "diff_cases": 0, "diff_ci95": None,
        }
        judged = [r["judge"]["same_conclusion"] for r in mine if r.get("judge") and
                  r["judge"].get("same_conclusion") is not None]
        entry["judge_agreement_rate"] = _mean([1.0 if j else 0.0 for j in judged])
        if baseline and name != "single":
            mine_by_case = per_case_right(rows, name)
            paired = [mine_by_case[c] - baseline[c] for c in mine_by_case if c in baseline]
            if paired:
                entry["right_rate_diff"] = round(sum(paired) / len(paired), 6)
                entry["diff_cases"] = len(paired)
                if len(paired) >= BOOTSTRAP_MIN_CASES:
                    entry["diff_ci95"] = list(paired_bootstrap(paired, seed=seed))
        elif name == "single" and baseline:
            entry["right_rate_diff"], entry["diff_cases"] = 0.0, len(baseline)
        out[name] = entry
    return out
