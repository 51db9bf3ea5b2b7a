"""The supervisor: the first sentence answers the question from the agreed claim that covers the
most of it; the supporting points, the disputes and what a human must decide follow."""

from __future__ import annotations

from typing import Any

from ....core.schemas import AgentOutput, Case
from ....providers.offline import reading
from ....providers.offline.agents import register
from ...common import unassessed
from .scoring import YIELD_MARK, asked


def _opening(claims: list[dict[str, Any]], question: str) -> dict[str, Any] | None:
    """The agreed claim the verdict opens with: among the supported claims that bear on the question
    (not the agents' statements about whose sources decide), the one that covers the most of the
    question's terms, then the most confident."""
    terms = reading.question_terms(question)

    def covers(row: dict[str, Any]) -> float:
        return len(reading.covered(terms, [row["statement"]])) / len(terms) if terms else 0.0

    usable = [r for r in claims if r["supported"] and covers(r) > 0 and not _about_sources(r["statement"])]
    return max(usable, key=lambda r: (covers(r) * r["confidence"], r["confidence"], r["ref"]), default=None)


def _about_sources(statement: str) -> bool:
    """An agent's statement about whose sources decide, not about the question itself."""
    return any(mark in statement for mark in ("should be decided primarily on the sources of",
                                              "lies outside it", "lead to the same result", YIELD_MARK))


@register("cross_critique", "supervisor")
def supervisor(payload: dict[str, Any]) -> dict[str, Any]:
    finals: dict[str, AgentOutput] = payload["finals"]
    summary = payload["summary"]
    case: Case = payload["case"]
    agreed = summary["agreed_claims"]
    disputed = summary["disputed_claims"]
    opening = _opening(agreed, asked(case.question))
    parts = [opening["statement"] if opening else "The agreed claims do not answer the question."]
    rest = sorted((c for c in agreed if c is not opening and c["supported"] and not _about_sources(c["statement"])),
                  key=lambda c: (-c["confidence"], c["ref"]))
    seen = {parts[0]}
    points = []
    for c in rest:
        if c["statement"] not in seen:
            seen.add(c["statement"])
            points.append(f"{c['statement']} [{c['ref']}]")
    if opening:
        parts[0] += f" [{opening['ref']}]"
    if points:
        parts.append("Supporting points: " + " ".join(f"({i}) {p}" for i, p in enumerate(points[:3], start=1)))
    if disputed:
        parts.append("Disputed: " + " ".join(f"{c['statement']} [{c['ref']}]" for c in disputed[:3]))
    gaps = unassessed(u for out in finals.values() for u in out.uncertainties)
    if gaps:
        parts.append("The agents could not assess: " + "; ".join(gaps[:3]) + ".")
    if summary.get("escalation_reasons"):
        parts.append("A human reviewer must decide: " + "; ".join(summary["escalation_reasons"][:3]))
    confs = [c["confidence"] for c in agreed if c["supported"]]
    confidence = sum(confs) / len(confs) if confs else 0.3
    if disputed:
        confidence *= max(0.5, 1 - 0.08 * len(disputed))
    if gaps:
        confidence = min(confidence, reading.WEAK_CONFIDENCE_CAP)
    rationale = (
        f"{len(agreed)} claims stood after {summary['rounds']} rounds, {len(disputed)} remain disputed; "
        "open critiques: " + (", ".join(f"{n} {sev}" for sev, n in summary["open_critiques"].items() if n) or "none")
        + "."
    )
    return {
        "answer": " ".join(parts),
        "confidence": round(min(0.95, confidence), 2),
        "rationale": rationale,
        "agreed_claims": [c["ref"] for c in agreed],
        "disputed_claims": [c["ref"] for c in disputed],
    }
