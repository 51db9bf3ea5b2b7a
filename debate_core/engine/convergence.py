"""Pure convergence measures shared by the protocols (no I/O, no model calls)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from ..core.text import jaccard, tokens


@dataclass(frozen=True)
class Stop:
    """A moderator's decision to end a debate now: converged, or out of rounds, and why."""

    converged: bool
    reason: str


def severity_counts(critiques: Iterable[Any]) -> dict[str, int]:
    counts = {"CRITICAL": 0, "MAJOR": 0, "MINOR": 0}
    for c in critiques:
        sev = c["severity"] if isinstance(c, dict) else c.severity
        counts[sev] = counts.get(sev, 0) + 1
    return counts


def answer_change(before: str, after: str) -> float:
    """Share of the answer that changed between two revisions, by tokens (0 = identical, 1 = all new)."""
    a, b = tokens(before), tokens(after)
    if not a and not b:
        return 0.0
    return round(1.0 - SequenceMatcher(None, a, b, autojunk=False).ratio(), 4)


def rule_jaccard(rule1: str, rule2: str) -> float:
    """The convergence measure of the dialectic (thesis-antithesis-synthesis) source protocol: Jaccard
    similarity of whitespace-separated tokens."""
    return round(jaccard(rule1.split(), rule2.split()), 4)


def score_plateau(top_scores: Sequence[float], threshold: float) -> bool:
    """True when the latest top score improved by less than `threshold` over the previous round."""
    if len(top_scores) < 2:
        return False
    return (top_scores[-1] - top_scores[-2]) < threshold
