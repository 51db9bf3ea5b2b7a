"""The rules of the cross-critique source protocol as plain functions: evidence checks, critique states, convergence (section 5),
escalation (section 6) and the debate summary the supervisor receives (section 7).

Critique states. A critique is raised `open`. When the target's next revision edits the claim it
names (rewrites the statement, changes the evidence or lowers the confidence by at least 0.05) it
becomes `addressed_not_confirmed`: the edit may have answered a different critique, so a CRITICAL
or MAJOR critique stays open until its own critic, reviewing it in a later critique step
(`previous`), marks it `resolved`; `maintained` keeps it open. Dropping the claim closes any
critique of it. A MINOR critique closes on an edit. Adding an assumption alone leaves the claim as
it was: the agent maintained it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...core.schemas import MAX_CLAIMS, REVIEWER_ISSUE, AgentOutput, Claim, Critique
from ...core.steering import Intervention
from ...engine.convergence import answer_change, severity_counts
from .. import common
from .claim_rules import distinct_claims
from .models import CritiqueOutput, CritiqueReview, ReviewerCritique

# Section 5: "perubahan jawaban pada revision < 15%" (an answer is stable when a revision changes it by less than 15%).
ANSWER_CHANGE_THRESHOLD = 0.15
UNSUPPORTED_LIMIT = 0.30  # section 6: escalate when an agent has no evidence for > 30% of its claims
MIN_CRITIQUES = 3  # section 8: at least 3 critiques per agent in round 1
CONFIDENCE_DROP = 0.05
DOMAIN_ISSUES = ("conflict", "domain_mismatch")
ESCALATING_CRITICAL = ("evidence_gap", "conflict")  # evidence validity or norm conflict
SEVERE = ("CRITICAL", "MAJOR")

# Critique states, in the order a critique usually passes through them.
OPEN = "open"
ADDRESSED = "addressed_not_confirmed"
RESOLVED = "resolved"
MAINTAINED = "maintained"
STATES = (OPEN, ADDRESSED, MAINTAINED, RESOLVED)
STATE_LABELS = {OPEN: "open", ADDRESSED: "addressed, not confirmed", MAINTAINED: "maintained", RESOLVED: "resolved"}
# Why a critique closed.
BY_CRITIC = "critic"
BY_DROP = "claim dropped"
BY_EDIT = "edited, MINOR"
BY_REVIEWER = "reviewer"
BY_WITHDRAWAL = "claim withdrawn by a reviewer"


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
    """Make claim ids distinct; mark evidence ids not in the case as unverified; keep the `max_claims` most confident."""
    distinct, warnings = distinct_claims(output.claims)
    output = output.model_copy(update={"claims": distinct}) if warnings else output
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
        warnings.append(f"{len(output.claims)} claims exceed the limit of {max_claims}; kept the {max_claims} "
                        f"most confident, dropped {', '.join(dropped)}")
    return output.model_copy(update={"claims": claims}), warnings


def is_supported(claim: Claim) -> bool:
    """A claim is supported when it cites at least one passage and every cited id is in the case."""
    return bool(claim.evidence) and claim.verified and not claim.unverified_evidence


def unsupported_share(output: AgentOutput) -> float:
    if not output.claims:
        return 0.0
    return sum(not is_supported(c) for c in output.claims) / len(output.claims)


def claim_change(before: AgentOutput, after: AgentOutput, claim_id: str) -> str:
    """What a revision did to the claim a critique names: "dropped", "edited" or "unchanged".

    A claim the target never made counts as dropped: there is nothing left for it to answer."""
    old = next((c for c in before.claims if c.id == claim_id), None)
    new = next((c for c in after.claims if c.id == claim_id), None)
    if old is None or new is None:
        return "dropped"
    edited = (
        new.statement.strip() != old.statement.strip()
        or sorted(new.evidence) != sorted(old.evidence)
        or new.confidence <= old.confidence - CONFIDENCE_DROP
    )
    return "edited" if edited else "unchanged"


def state_after_revision(severity: str, state: str, change: str) -> tuple[str, str | None]:
    """Rule: a dropped claim closes every critique of it; an edit closes a MINOR critique and leaves a
    CRITICAL or MAJOR one "addressed, not confirmed" (still open: only its critic closes it); an
    untouched claim keeps the critique where it was. Returns (state, closed_by)."""
    if state == RESOLVED:
        return state, None
    if change == "dropped":
        return RESOLVED, BY_DROP
    if change == "edited":
        return (ADDRESSED, None) if severity in SEVERE else (RESOLVED, BY_EDIT)
    return state, None


def reviewer_state_after_revision(state: str, change: str) -> tuple[str, str | None]:
    """Rule: a reviewer's critique is closed only by that reviewer (or a supervisor). Whatever the
    revision did to the claim, edited or dropped, the critique is at most "addressed, not confirmed"."""
    if state == RESOLVED:
        return state, None
    return (ADDRESSED, None) if change in ("edited", "dropped") else (state, None)


def is_reviewer_critique(critique: Critique) -> bool:
    return critique.issue_type == REVIEWER_ISSUE


def state_after_review(state: str, closed_by: str | None, status: str) -> tuple[str, str | None]:
    """Rule: the critic's own word decides, `resolved` closes and `maintained` keeps it open, except
    that a critique whose claim was dropped stays closed (there is no claim left to keep it on)."""
    if closed_by == BY_DROP:
        return state, closed_by
    return (RESOLVED, BY_CRITIC) if status == "resolved" else (MAINTAINED, None)


@dataclass
class CritiqueRecord:
    """One critique and its state over time (one history entry per step that changed it)."""

    item: AddressedCritique
    raised_in: str
    call: int | None = None  # which call of a re-asked step raised it (None: the only one)
    state: str = OPEN
    closed_by: str | None = None
    note: str = ""
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def is_open(self) -> bool:
        return self.state != RESOLVED

    @property
    def severe(self) -> bool:
        return self.item.critique.severity in SEVERE

    def key(self) -> tuple[str, str, str]:
        return self.item.critic, self.item.target, self.item.critique.id

    def move(self, step_id: str, round_no: int, state: str, closed_by: str | None, note: str = "") -> None:
        if state == self.state and closed_by == self.closed_by and not note:
            return
        self.state, self.closed_by = state, closed_by
        if note:
            self.note = note
        self.history.append({"step": step_id, "round": round_no, "state": state, "by": closed_by, "note": note})

    def label(self) -> str:
        text = STATE_LABELS[self.state]
        return f"{text} ({self.closed_by})" if self.state == RESOLVED and self.closed_by else text

    def state_after(self, round_no: int) -> str | None:
        """The state at the end of a round, None before the critique was raised."""
        seen = [h for h in self.history if h["round"] <= round_no]
        return seen[-1]["state"] if seen else None

    def as_dict(self) -> dict[str, Any]:
        c = self.item.critique
        return {"critic": self.item.critic, "target": self.item.target, "round": self.item.round, "id": c.id,
                "claim": f"{self.item.target}.{c.target_claim_id}", "severity": c.severity,
                "issue_type": c.issue_type, "description": c.description, "suggested_fix": c.suggested_fix,
                "raised_in": self.raised_in, "state": self.state, "closed_by": self.closed_by,
                "note": self.note, "history": [dict(h) for h in self.history]}


def reviewer_critique_ref(rec: CritiqueRecord) -> str:
    """How a reviewer's critique is named: `critic->target:H1`, as the app shows every critique."""
    return f"{rec.item.critic}->{rec.item.target}:{rec.item.critique.id}"


class CritiqueLedger:
    """Every critique of a debate with its state, fed in the order the steps ran."""

    def __init__(self) -> None:
        self.records: list[CritiqueRecord] = []

    def raised(self, step_id: str, round_no: int, critic: str, target: str, critiques: list[Critique],
               call: int | None = None) -> list[AddressedCritique]:
        items = [AddressedCritique(critic=critic, target=target, round=round_no, critique=k) for k in critiques]
        for item in items:
            rec = CritiqueRecord(item=item, raised_in=step_id, call=call)
            rec.history.append({"step": step_id, "round": round_no, "state": OPEN, "by": None, "note": ""})
            self.records.append(rec)
        return items

    def revised(self, step_id: str, round_no: int, agent: str, before: AgentOutput, after: AgentOutput) -> None:
        for rec in self.records:
            if rec.item.target != agent or not rec.is_open:
                continue
            change = claim_change(before, after, rec.item.critique.target_claim_id)
            if is_reviewer_critique(rec.item.critique):
                state, by = reviewer_state_after_revision(rec.state, change)
            else:
                state, by = state_after_revision(rec.item.critique.severity, rec.state, change)
            rec.move(step_id, round_no, state, by)

    def intervened(self, step_id: str, iv: Any) -> list[str]:
        """Apply a reviewer's intervention (steering.Intervention) to the critique states: a critique
        joins the ledger open; a resolve closes that reviewer critique; a withdrawn claim closes every
        critique of it. Returns warnings for references that match nothing."""
        if iv.kind == "critique":
            critique = ReviewerCritique(id=iv.critique_id, target_claim_id=iv.claim_id, description=iv.description,
                                        severity=iv.severity, suggested_fix=iv.suggested_fix)
            self.raised(step_id, iv.round, step_id.rsplit(".", 1)[1], iv.agent, [critique])
            return []
        if iv.kind == "resolve":
            found = [r for r in self.records if is_reviewer_critique(r.item.critique) and r.is_open
                     and reviewer_critique_ref(r) == iv.target]
            for rec in found:
                rec.move(step_id, iv.round, RESOLVED, BY_REVIEWER, f"resolved by {iv.reviewer}")
            return [] if found else [f"{iv.reviewer} resolved {iv.target}, which is not an open reviewer critique"]
        if iv.kind == "strike":
            for rec in self.records:
                if rec.is_open and rec.item.target == iv.agent and rec.item.critique.target_claim_id == iv.claim_id:
                    rec.move(step_id, iv.round, RESOLVED, BY_WITHDRAWAL)
        return []

    def reviewed(self, step_id: str, round_no: int, critic: str, target: str, reviews: list[CritiqueReview]) -> list[str]:
        """Apply the critic's word on its earlier critiques of this target; unknown ids are reported, not fatal."""
        mine = {rec.item.critique.id: rec for rec in self.records
                if rec.item.critic == critic and rec.item.target == target and rec.raised_in != step_id}
        warnings = []
        for review in reviews:
            rec = mine.get(review.id)
            if rec is None:
                warnings.append(f"{critic} reviewed critique {review.id}, which is not one of its earlier critiques "
                                f"of {target}; ignored")
                continue
            state, by = state_after_review(rec.state, rec.closed_by, review.status)
            rec.move(step_id, round_no, state, by, review.note.strip() or review.status)
        return warnings

    def earlier(self, critic: str, target: str) -> list[CritiqueRecord]:
        """The critic's own critiques of this target that are still open: what its next critique step reviews."""
        return [r for r in self.records if r.item.critic == critic and r.item.target == target and r.is_open]

    def raised_before(self, critic: str, target: str) -> list[tuple[str, str, str]]:
        """(claim, issue type, severity) of every critique the critic has raised on this target."""
        return [(r.item.critique.target_claim_id, r.item.critique.issue_type, r.item.critique.severity)
                for r in self.records if r.item.critic == critic and r.item.target == target]

    def used_ids(self, critic: str, target: str) -> set[str]:
        return {r.item.critique.id for r in self.records if r.item.critic == critic and r.item.target == target}

    def open_records(self, target: str | None = None) -> list[CritiqueRecord]:
        return [r for r in self.records if r.is_open and (target is None or r.item.target == target)]

    def open(self) -> list[AddressedCritique]:
        return [r.item for r in self.open_records()]

    def severe_open_pairs(self) -> list[tuple[str, str]]:
        """Critic and target of each open CRITICAL or MAJOR agent critique: the pairs a review step
        runs for. A reviewer's critique has no critique step: only the reviewer closes it."""
        pairs = []
        for r in self.open_records():
            if is_reviewer_critique(r.item.critique):
                continue
            if r.severe and (r.item.critic, r.item.target) not in pairs:
                pairs.append((r.item.critic, r.item.target))
        return pairs

    def state_counts(self) -> dict[str, int]:
        return {s: sum(1 for r in self.records if r.state == s) for s in STATES}


def kept_critique_call(outputs: list[CritiqueOutput]) -> int:
    """Section 8's re-ask: of the calls of one critique step, the one used is the later call unless it
    raised fewer critiques than the one before. Returns its index."""
    kept = 0
    for i in range(1, len(outputs)):
        if len(outputs[i].critiques) >= len(outputs[kept].critiques):
            kept = i
    return kept


def ledger_from_steps(steps: list[dict[str, Any]]) -> CritiqueLedger:
    """Rebuild the critique states from stored steps (plain dicts in run order with step_id, stage,
    round, agent, target, call, status, output), the way the debate computed them."""
    calls: dict[str, list[dict[str, Any]]] = {}
    order: list[str] = []
    for s in steps:
        if s.get("status") != "ok" or not isinstance(s.get("output"), dict):
            continue
        if s["step_id"] not in calls:
            order.append(s["step_id"])
        calls.setdefault(s["step_id"], []).append(s)
    ledger = CritiqueLedger()
    latest: dict[str, AgentOutput] = {}
    for sid in order:
        group = calls[sid]
        stage, round_no = group[0].get("stage"), group[0].get("round") or 0
        agent, target = group[0].get("agent"), group[0].get("target")
        try:
            if stage == "human":
                for s in group:
                    iv = Intervention.model_validate(s["output"])
                    ledger.intervened(sid, iv)
                    if iv.kind == "strike" and iv.agent in latest:
                        latest[iv.agent] = without_claim(latest[iv.agent], iv.claim_id)
            elif stage in ("answer", "revise"):
                out = AgentOutput.model_validate(group[-1]["output"])
                if stage == "revise" and agent in latest:
                    ledger.revised(sid, round_no, agent, latest[agent], out)
                latest[agent] = out
            elif stage == "critique":
                outs = [CritiqueOutput.model_validate(s["output"]) for s in group]
                kept = kept_critique_call(outs)
                ledger.reviewed(sid, round_no, agent, target, outs[kept].previous)
                ledger.raised(sid, round_no, agent, target, outs[kept].critiques, call=group[kept].get("call"))
        except ValueError:
            continue  # a stored output that no longer validates says nothing about states
    return ledger


def without_claim(output: AgentOutput, claim_id: str | None) -> AgentOutput:
    """An agent's output with a claim withdrawn by a reviewer (never its last claim)."""
    kept = [c for c in output.claims if c.id != claim_id]
    return output.model_copy(update={"claims": kept}) if kept else output


def keep_reviewer_marks(output: AgentOutput, previous: AgentOutput, pinned: set[str],
                        struck: set[str]) -> tuple[AgentOutput, list[str]]:
    """Rule: a claim a reviewer pinned is established, so a revision that drops it gets it back as
    it stood; a claim a reviewer withdrew stays out, even when the agent makes it again under the
    same id. Returns the output and a warning per change."""
    warnings: list[str] = []
    claims = list(output.claims)
    have = {c.id for c in claims}
    for claim in previous.claims:
        if claim.id in pinned and claim.id not in have:
            claims.append(claim)
            warnings.append(f"claim {claim.id} was pinned by a reviewer and may not be dropped: kept as it stood")
    kept = [c for c in claims if c.id not in struck]
    if len(kept) < len(claims):
        warnings.append("claims withdrawn by a reviewer were left out: "
                        + ", ".join(c.id for c in claims if c.id in struck))
    if not kept:  # nothing but withdrawn claims: keep the previous output's other claims
        kept = [c for c in previous.claims if c.id not in struck] or claims
    if kept == list(output.claims):
        return output, warnings
    return output.model_copy(update={"claims": kept}), warnings


def open_reviewer_critiques(still_open: list[AddressedCritique]) -> str | None:
    """Rule: a critique a reviewer raised and has not resolved sends the verdict to a human, since
    only that reviewer (or a supervisor) may close it."""
    mine = [c for c in still_open if is_reviewer_critique(c.critique)]
    if not mine:
        return None
    parts = [f"{c.critic}'s {c.critique.severity} critique {c.critique.id} on {c.target}.{c.critique.target_claim_id}: "
             f"{c.critique.description.strip()}" for c in mine]
    return "a reviewer's critique is still open (only its reviewer or a supervisor can resolve it): " + "; ".join(parts)


def converged(criteria: dict[str, bool], open_counts: dict[str, int], mode: str = "any") -> bool:
    """Section 5 read with sections 4 and 6: "kecuali ada kritik CRITICAL". A debate is converged only
    when no CRITICAL critique is open *and* the section-5 criteria hold: any one of them in the
    source protocol's reading ("salah satu kondisi terpenuhi", mode "any"), every one of them in mode "all"."""
    if open_counts.get("CRITICAL", 0):
        return False
    values = list(criteria.values())
    return all(values) if mode == "all" else any(values)


@dataclass
class Assessment:
    """Where a debate stands after a step: the section 5 criteria and the open critiques."""

    round: int
    open: list[AddressedCritique]
    answer_change: dict[str, float]
    criteria: dict[str, bool]
    mode: str = "any"
    reasons: list[str] = field(default_factory=list)

    @property
    def open_counts(self) -> dict[str, int]:
        return severity_counts(c.critique for c in self.open)

    @property
    def converged(self) -> bool:
        return converged(self.criteria, self.open_counts, self.mode)

    @property
    def severe_open(self) -> bool:
        counts = self.open_counts
        return bool(counts["CRITICAL"] or counts["MAJOR"])

    def metrics(self) -> dict[str, Any]:
        return {
            "open_severity": self.open_counts,
            "answer_change": self.answer_change,
            "criteria": self.criteria,
            "converged": self.converged,
        }


def answer_changes(before: dict[str, AgentOutput], after: dict[str, AgentOutput]) -> dict[str, float]:
    return {a: answer_change(before[a].answer, after[a].answer) for a in after if a in before}


def assess(
    round_no: int,
    still_open: list[AddressedCritique],
    changes: dict[str, float],
    *,
    change_threshold: float = ANSWER_CHANGE_THRESHOLD,
    mode: str = "any",
) -> Assessment:
    """Section 5 over the critiques still open and the answer changes of the latest revision. The
    source protocol ends the debate when *any one* of its conditions holds; `mode="all"` requires all three.
    Either way `converged` also requires that no CRITICAL critique is open."""
    counts = severity_counts(c.critique for c in still_open)
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


def convergence_reason(assessment: Assessment) -> str:
    """Why the debate converged (the section 5 conditions that held) or why not: the source protocol ends the
    debate once its conditions hold, and an open CRITICAL critique always blocks that."""
    if assessment.converged:
        return "; ".join(assessment.reasons)
    critical = assessment.open_counts["CRITICAL"]
    return f"not converged: {critical} CRITICAL critique(s) still open" if critical else "not converged"


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
            kind = "evidence validity" if c.critique.issue_type == "evidence_gap" else "a conflict between sources"
            reasons.append(f"CRITICAL critique on {kind} left unresolved: {c.ref()}: {c.critique.description.strip()}")
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
    reviewer = open_reviewer_critiques(assessment.open)
    if reviewer:
        rules.append("reviewer_critique_open")
        reasons.append(reviewer)
    if not assessment.converged:
        rules.append("S5.not_converged")
        reasons.append(f"not converged after round {assessment.round} (limit {max_rounds})")
    low = low_confidence(finals)
    if low:
        rules.append("low_confidence")
        reasons.append(low)
    gaps = could_not_assess(finals)
    if gaps:
        rules.append("unassessed")
        reasons.append(gaps)
    return reasons, rules


@dataclass(frozen=True)
class Shortfall:
    """A critic short of the round-1 minimum over its targets even when asked again, and what it said."""
    critic: str
    raised: int
    minimum: int
    said: list[str] = field(default_factory=list)


def echo_chamber_reason(shortfalls: list[Shortfall]) -> str | None:
    """Section 8, echo chamber: a critic short of the round-1 minimum over the agents it critiques,
    even when asked again, sends the verdict to a human, naming the critic and its words."""
    parts = [f"{s.critic} raised {s.raised} critique(s) of the other agents' claims in round 1, fewer than the "
             f"{s.minimum} required, even when asked again" + (f" (it said: {'; '.join(s.said)})" if s.said else "")
             for s in shortfalls]
    return "possible echo chamber, the agents' claims were not checked enough: " + "; ".join(parts) if parts else None


def final_confidence(output: AgentOutput) -> float | None:
    """An agent's confidence in its final revision: the mean over its claims (None without claims)."""
    if not output.claims:
        return None
    return round(sum(c.confidence for c in output.claims) / len(output.claims), 4)


def low_confidence(finals: dict[str, AgentOutput], threshold: float = common.LOW_CONFIDENCE) -> str | None:
    """Rule: the agents whose final revisions decide the verdict must be confident in them; the
    reason names each agent below the threshold (protocols/common.py)."""
    return common.low_confidence_reason({a: final_confidence(o) for a, o in finals.items()}, threshold)


def could_not_assess(finals: dict[str, AgentOutput]) -> str | None:
    """Rule: what the deciding agents said, in their final revisions, they could not assess sends the
    verdict to a human, with those words as the reason."""
    return common.unassessed_reason(u for out in finals.values() for u in out.uncertainties)


def debate_summary(
    finals: dict[str, AgentOutput],
    assessment: Assessment,
    ledger: CritiqueLedger,
    rounds: int,
) -> dict[str, Any]:
    """The source protocol's section 7 debate_summary.json: conflict summary, agreed claims, disputed claims, and
    every critique with its state over time."""
    # A claim is disputed while a CRITICAL or MAJOR critique of it is open; a MINOR one is a remark.
    disputed_refs = {f"{c.target}.{c.critique.target_claim_id}" for c in assessment.open
                     if c.critique.severity in ("CRITICAL", "MAJOR")}
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
            {"critic": r.item.critic, "target": r.item.target, "round": r.item.round, "id": r.item.critique.id,
             "claim": f"{r.item.target}.{r.item.critique.target_claim_id}",
             "issue_type": r.item.critique.issue_type, "severity": r.item.critique.severity,
             "state": r.state, "critic_note": r.note,
             "description": r.item.critique.description, "suggested_fix": r.item.critique.suggested_fix}
            for r in ledger.open_records()
        ],
        "agreed_claims": agreed,
        "disputed_claims": disputed,
        "critiques_total": severity_counts(r.item.critique for r in ledger.records),
        "open_critiques": severity_counts(c.critique for c in assessment.open),
        "critique_states": ledger.state_counts(),
        "criteria": assessment.criteria,
        "answers": {agent: out.answer for agent, out in finals.items()},
        "critiques": [r.as_dict() for r in ledger.records],
    }
