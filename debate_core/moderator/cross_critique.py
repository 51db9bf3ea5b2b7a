"""Seed 000 rules as plain functions: evidence checks, open critiques, convergence (section 5),
escalation (section 6) and the debate summary the supervisor receives (section 7).

"Open" critiques: a critique stays open until the target's next revision addresses the claim it
names, i.e. drops the claim, rewrites its statement, changes its evidence or lowers its confidence
by at least 0.05. Adding an assumption alone keeps the claim as it was: the agent maintained it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..convergence import ANSWER_CHANGE_THRESHOLD, answer_change, severity_counts
from ..schemas import AgentOutput, Claim, Critique

UNSUPPORTED_LIMIT = 0.30  # section 6: escalate when an agent has no evidence for > 30% of its claims
MAX_CLAIMS = 10  # section 8: limit 8-10 main claims per agent
MIN_CRITIQUES = 3  # section 8: at least 3 critiques per agent in round 1
CONFIDENCE_DROP = 0.05
DOMAIN_ISSUES = ("conflict", "domain_mismatch")
ESCALATING_CRITICAL = ("evidence_gap", "conflict")  # evidence validity or norm conflict


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class AddressedCritique:
    """A critique together with who made it and whom it targets."""

    critic: str
    target: str
    round: int
    critique: Critique

    def ref(self) -> str:
        c = self.critique
        return f"{self.critic}->{self.target}:{c.id} on {c.target_claim_id} ({c.severity} {c.issue_type})"


def verify_claims(output: AgentOutput, evidence_ids: set[str], max_claims: int = MAX_CLAIMS) -> tuple[AgentOutput, list[str]]:
    """Mark evidence ids not in the case as unverified; cut to the `max_claims` most confident."""
    warnings: list[str] = []
    claims: list[Claim] = []
    for claim in output.claims:
        unknown = [e for e in claim.evidence if e not in evidence_ids]
        claims.append(claim.model_copy(update={"verified": not unknown, "unverified_evidence": unknown}))
        if unknown:
            warnings.append(f"claim {claim.id} cites evidence not in the case: {', '.join(unknown)} (marked unverified)")
    if len(claims) > max_claims:
        ranked = sorted(range(len(claims)), key=lambda i: (-claims[i].confidence, i))[:max_claims]
        dropped = [claims[i].id for i in range(len(claims)) if i not in set(ranked)]
        claims = [claims[i] for i in sorted(ranked)]
        warnings.append(
            f"{len(output.claims)} claims exceed the limit of {max_claims}; kept the {max_claims} most confident, "
            f"dropped {', '.join(dropped)}"
        )
    return output.model_copy(update={"claims": claims}), warnings


def is_supported(claim: Claim) -> bool:
    """A claim is supported when it cites at least one passage and every cited id is in the case."""
    return bool(claim.evidence) and claim.verified and not claim.unverified_evidence


def unsupported_share(output: AgentOutput) -> float:
    if not output.claims:
        return 0.0
    return sum(not is_supported(c) for c in output.claims) / len(output.claims)


def claim_addressed(before: AgentOutput, after: AgentOutput | None, claim_id: str) -> bool:
    if after is None:
        return False
    old = next((c for c in before.claims if c.id == claim_id), None)
    new = next((c for c in after.claims if c.id == claim_id), None)
    if old is None:
        return True  # the critique named a claim that never existed: nothing left to resolve
    if new is None:
        return True  # dropped
    return (
        new.statement.strip() != old.statement.strip()
        or sorted(new.evidence) != sorted(old.evidence)
        or new.confidence <= old.confidence - CONFIDENCE_DROP
    )


def open_critiques(
    critiques: list[AddressedCritique],
    before: dict[str, AgentOutput],
    after: dict[str, AgentOutput] | None,
) -> list[AddressedCritique]:
    """Critiques the following revision did not address (all of them when there was no revision)."""
    if after is None:
        return list(critiques)
    return [
        c for c in critiques
        if not claim_addressed(before[c.target], after.get(c.target), c.critique.target_claim_id)
    ]


@dataclass
class Assessment:
    """Where a debate stands after a revision: the section 5 criteria and the open critiques."""

    round: int
    open: list[AddressedCritique]
    answer_change: dict[str, float]
    criteria: dict[str, bool]
    mode: str = "any"
    reasons: list[str] = field(default_factory=list)

    @property
    def converged(self) -> bool:
        values = list(self.criteria.values())
        return all(values) if self.mode == "all" else any(values)

    def metrics(self) -> dict[str, Any]:
        return {
            "open_severity": severity_counts(c.critique for c in self.open),
            "answer_change": self.answer_change,
            "criteria": self.criteria,
            "converged": self.converged,
        }


def assess(
    round_no: int,
    critiques: list[AddressedCritique],
    before: dict[str, AgentOutput],
    after: dict[str, AgentOutput] | None,
    *,
    change_threshold: float = ANSWER_CHANGE_THRESHOLD,
    mode: str = "any",
) -> Assessment:
    """Section 5. The seed ends the debate when *any one* of its conditions holds ("salah satu kondisi
    terpenuhi"); `mode="all"` requires all three, for teams that want the stricter reading."""
    still_open = open_critiques(critiques, before, after)
    counts = severity_counts(c.critique for c in still_open)
    changes = {a: answer_change(before[a].answer, after[a].answer) for a in (after or {}) if a in before}
    domain_open = [c for c in still_open if c.critique.issue_type in DOMAIN_ISSUES and c.critique.severity != "MINOR"]
    criteria = {
        "no_critical_at_most_one_major": counts["CRITICAL"] == 0 and counts["MAJOR"] <= 1,
        "no_unresolved_domain_conflict": not domain_open,
        "answer_stable": bool(changes) and all(v < change_threshold for v in changes.values()) and counts["CRITICAL"] == 0,
    }
    reasons = []
    if criteria["no_critical_at_most_one_major"]:
        reasons.append(f"no open CRITICAL critique and {counts['MAJOR']} open MAJOR (<= 1)")
    if criteria["no_unresolved_domain_conflict"]:
        reasons.append("no unresolved domain conflict")
    if criteria["answer_stable"]:
        worst = max(changes.values())
        reasons.append(f"answers stable: largest change {worst:.0%} < {change_threshold:.0%}")
    return Assessment(round_no, still_open, changes, criteria, mode, reasons)


def escalation_reasons(
    assessment: Assessment,
    finals: dict[str, AgentOutput],
    *,
    max_rounds: int,
    unsupported_limit: float = UNSUPPORTED_LIMIT,
) -> tuple[list[str], list[str]]:
    """Section 6 (and the end of section 5). Returns (reasons, applied rule names)."""
    reasons: list[str] = []
    rules: list[str] = []
    critical = [c for c in assessment.open if c.critique.severity == "CRITICAL" and c.critique.issue_type in ESCALATING_CRITICAL]
    if critical:
        rules.append("S6.critical_evidence_or_norm_conflict")
        for c in critical:
            kind = "evidence validity" if c.critique.issue_type == "evidence_gap" else "norm conflict"
            reasons.append(f"CRITICAL critique on {kind} left unresolved: {c.ref()}: {_clip(c.critique.description)}")
    hard = [c for c in assessment.open if c.critique.issue_type == "conflict" and c.critique.severity in ("CRITICAL", "MAJOR")]
    if hard:
        rules.append("S6.hard_contradiction")
        pairs = sorted({f"{c.critic} vs {c.target} on {c.target}.{c.critique.target_claim_id}" for c in hard})
        reasons.append("hard contradiction between agents left unresolved: " + "; ".join(pairs))
    for agent, out in finals.items():
        share = unsupported_share(out)
        if share > unsupported_limit:
            rules.append(f"S6.unsupported_claims.{agent}")
            n = sum(not is_supported(c) for c in out.claims)
            reasons.append(
                f"{agent} gives no verified evidence for {n} of {len(out.claims)} claims ({share:.0%} > {unsupported_limit:.0%})"
            )
    if not assessment.converged:
        rules.append("S5.not_converged")
        reasons.append(f"not converged after round {assessment.round} (limit {max_rounds})")
    return reasons, rules


def debate_summary(
    finals: dict[str, AgentOutput],
    assessment: Assessment,
    all_critiques: list[AddressedCritique],
    rounds: int,
) -> dict[str, Any]:
    """Seed section 7's debate_summary.json: conflict summary, agreed claims, disputed claims."""
    disputed_refs = {f"{c.target}.{c.critique.target_claim_id}" for c in assessment.open}
    agreed, disputed = [], []
    for agent, out in finals.items():
        for claim in out.claims:
            ref = f"{agent}.{claim.id}"
            row = {"ref": ref, "statement": claim.statement, "evidence": claim.evidence,
                   "confidence": claim.confidence, "supported": is_supported(claim)}
            (disputed if ref in disputed_refs else agreed).append(row)
    return {
        "rounds": rounds,
        "conflicts": [
            {"critic": c.critic, "target": c.target, "round": c.round, "claim": f"{c.target}.{c.critique.target_claim_id}",
             "issue_type": c.critique.issue_type, "severity": c.critique.severity,
             "description": c.critique.description, "suggested_fix": c.critique.suggested_fix}
            for c in assessment.open
        ],
        "agreed_claims": agreed,
        "disputed_claims": disputed,
        "critiques_total": severity_counts(c.critique for c in all_critiques),
        "open_critiques": severity_counts(c.critique for c in assessment.open),
        "criteria": assessment.criteria,
        "answers": {agent: out.answer for agent, out in finals.items()},
    }
