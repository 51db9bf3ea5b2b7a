"""The critic's rules: missing or unknown evidence, numbers that disagree by more than 5%,
contradicting statements, conflicts of sources, claims resting on another agent's sources,
overclaimed confidence and statements that do not follow from their passage; and its word on
its earlier critiques."""

from __future__ import annotations

import re
from typing import Any

from ....core.schemas import AgentOutput, Case, Claim, Evidence
from ....core.text import DECISIVE_AUTHORITY_GAP, bm25_rank, evidence_authority, overlap
from ....providers.offline.agents import register
from .scoring import (
    agent_label,
    agents_from,
    contradiction,
    domain_of,
    domain_strength,
    is_thesis,
    legal_register,
    outside_age,
    passage_texts,
    short_source,
    support_level,
    thesis_of,
    yields_to,
)


def _conflicting_passage(case: Case, claim: Claim, own: AgentOutput, target: AgentOutput) -> tuple[str, str] | None:
    """A passage of the case (those cited in the debate first, and none a later passage replaces) that
    contradicts the claim: the same point negated, the opposite direction, a figure of the same unit
    more than 5% apart, or another amount once units and periods are read (scoring.contradiction).
    Passages that agree in other words are no conflict."""
    by_id = case.evidence_by_id()
    cited = [e for c in [*own.claims, *target.claims] for e in c.evidence]
    # The passages cited in the debate first, then the rest of the case: a passage nobody cited can
    # still contradict a claim.
    for pid in dict.fromkeys([*cited, *by_id]):
        if pid not in by_id or pid in claim.evidence:
            continue
        if _outdated_by(case, by_id[pid].text, [pid]):
            continue  # a passage a later one replaces does not contradict a current claim
        how = contradiction(claim.statement, by_id[pid].text)
        if how:
            return pid, how
    return None


# How a critique says a claim is limited to cases the question's is not (the revision restates it).
OUT_OF_SCOPE_MARK = "does not apply to the question's case"
# How a critique says a claim rests on a passage a later one replaces (the revision drops such a claim).
OUTDATED_MARK = "which a later passage of at least equal authority replaces"
# Words by which a passage says it replaces an earlier one, or that it was itself replaced.
_REPLACES = re.compile(r"\b(replac\w*|supersed\w*|amend\w*|revis\w*|withdrawn|no longer|repeal\w*|revoked)\b", re.I)
_YEAR_MONTH = re.compile(r"((?:19|20)\d\d)(?:-(\d\d))?(?:-(\d\d))?")
# Share of the claim's terms the later passage must carry to be on the same point.
SAME_POINT_SHARE = 0.3


def _dated(ev: Evidence) -> tuple[int, int, int] | None:
    m = _YEAR_MONTH.search(ev.date or "")
    return (int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)) if m else None


def _outdated_by(case: Case, statement: str, valid: list[str]) -> tuple[str, str] | None:
    """A later passage of at least the cited passages' authority, on the claim's point, where one of the
    two says the later one replaces the earlier ("superseded", "replaced", "amended", "no longer").
    A later date alone is no ground: two sources of equal standing that differ are a conflict, not an update."""
    by_id = case.evidence_by_id()
    cited = [by_id[e] for e in valid]
    dates = [d for d in (_dated(ev) for ev in cited) if d]
    if not dates:
        return None
    newest, authority = max(dates), max(evidence_authority(ev) for ev in cited)
    says_replaced = any(_REPLACES.search(f"{ev.source} {ev.text}") for ev in cited)
    for ev in case.evidence:
        when = _dated(ev)
        if ev.id in valid or when is None or when <= newest or evidence_authority(ev) < authority:
            continue
        if overlap(statement, ev.text) < SAME_POINT_SHARE:
            continue
        if says_replaced or _REPLACES.search(ev.text):
            return ev.id, f"{', '.join(valid)} is dated {max(dates)[0]}, {ev.id} {when[0]}"
    return None


def _passages_contradict(case: Case, ours: list[str], theirs: list[str]) -> tuple[str, str, str] | None:
    """The first pair of passages, one from each side, that contradict each other, and how."""
    by_id = case.evidence_by_id()
    for a in ours:
        for b in theirs:
            if a != b and a in by_id and b in by_id:
                how = contradiction(by_id[a].text, by_id[b].text)
                if how:
                    return a, b, how
    return None


def findings(case: Case, critic: dict[str, Any], target: dict[str, Any], target_out: AgentOutput,
             own: AgentOutput, agents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every issue the critic's rules find in the target's output, worst first (ids not yet given)."""
    domains = domain_of(case, agents)
    by_id = case.evidence_by_id()
    legal = legal_register(case, agents)
    found: list[dict[str, Any]] = []

    def add(claim: Claim, issue: str, severity: str, description: str, fix: str) -> None:
        found.append({"target_claim_id": claim.id, "issue_type": issue, "severity": severity,
                      "description": description, "suggested_fix": fix})

    for claim in target_out.claims:
        valid = [e for e in claim.evidence if e in by_id]
        invalid = [e for e in claim.evidence if e not in by_id]
        if not valid:
            cand = bm25_rank(claim.statement, passage_texts(case))
            hint = f" {cand[0].id} ({short_source(by_id[cand[0].id])}) may be relevant." if cand and cand[0].score else ""
            what = f"cites {', '.join(invalid)}, which are not in the case" if invalid else "cites no evidence"
            add(claim, "evidence_gap", "CRITICAL" if claim.confidence >= 0.7 else "MAJOR",
                f"Claim {claim.id} {what}, yet is asserted with confidence {claim.confidence:.2f}.",
                f"Cite a passage that supports it or mark it as an assumption with lower confidence.{hint}")
            continue
        support = support_level(case, valid)
        if claim.confidence > support + 0.1:
            add(claim, "overclaim", "MAJOR" if claim.confidence - support > 0.2 else "MINOR",
                f"Confidence {claim.confidence:.2f} exceeds what {', '.join(valid)} carries (about {support:.2f}).",
                f"Lower the confidence to {support:.2f} or add corroborating passages.")
        scope = outside_age(claim.statement, case.question)
        if scope:
            add(claim, "logic_gap", "MAJOR", f"Claim {claim.id} {OUT_OF_SCOPE_MARK}: {scope}.",
                f"State what {', '.join(valid)} says for the question's case, or withdraw the claim.")
        newer = _outdated_by(case, claim.statement, valid)
        if newer:
            pid, how = newer
            add(claim, "conflict", "CRITICAL",
                f"Claim {claim.id} rests on {', '.join(valid)}, {OUTDATED_MARK}: {pid}; {how} "
                f"({short_source(by_id[valid[0]])}; {short_source(by_id[pid])}).",
                f"Rest the claim on {pid}, or withdraw it.")
        clash = _conflicting_passage(case, claim, own, target_out)
        if clash:
            pid, how = clash
            theirs, mine = evidence_authority(by_id[pid]), max(evidence_authority(by_id[e]) for e in valid)
            stronger = theirs > mine
            add(claim, "conflict", "MINOR" if mine - theirs >= DECISIVE_AUTHORITY_GAP else
                "CRITICAL" if stronger else "MAJOR",
                f"Claim {claim.id} is contradicted by {pid}: {how} ({short_source(by_id[pid])}).",
                f"Reconcile the claim with {pid} or explain why {', '.join(valid)} should prevail.")
        # A claim that defers to the critic's sources where they govern does not contradict them.
        for mine in ([] if yields_to(claim, critic) else own.claims):
            how = contradiction(claim.statement, mine.statement)
            if how:
                mine_ev = [e for e in mine.evidence if e in by_id]
                if not mine_ev:
                    continue
                own_auth = max(evidence_authority(by_id[e]) for e in mine_ev)
                their_auth = max(evidence_authority(by_id[e]) for e in valid)
                add(claim, "conflict", "MINOR" if their_auth - own_auth >= DECISIVE_AUTHORITY_GAP else
                    "CRITICAL" if own_auth >= their_auth and mine.confidence >= 0.7 else "MAJOR",
                    f"Claim {claim.id} contradicts {critic['id']}.{mine.id} (on {', '.join(mine_ev)}): {how}; "
                    f"{short_source(by_id[mine_ev[0]])}.",
                    f"Justify why {', '.join(valid)} prevails over {', '.join(mine_ev)}, or qualify the claim.")
                break
        rival = thesis_of(own)
        theses_meet = is_thesis(claim) and rival is not None and not yields_to(claim, critic)
        clash_of_theses = (_passages_contradict(case, valid, [e for e in rival.evidence if e in by_id])
                           if theses_meet else None)
        if clash_of_theses:
            # Two theses conflict only when the passages they rest on contradict each other.
            a, b, how = clash_of_theses
            mine_ev = [e for e in rival.evidence if e in by_id]
            strong = domain_strength(case, critic, mine_ev) >= domain_strength(case, target, valid)
            opening = "Conflict of sources" if legal else "Conflicting passages"
            weight = {e: evidence_authority(by_id[e]) for e in (a, b)}
            heavier, lighter = sorted((a, b), key=lambda e: -weight[e])
            if weight[heavier] - weight[lighter] >= DECISIVE_AUTHORITY_GAP:
                # A primary or official text against a forum post is not a conflict of equals: the
                # stronger source settles it, and the claim should rest on it.
                add(claim, "conflict", "MINOR",
                    f"{opening}: {a} and {b} contradict each other ({how}); {heavier} "
                    f"({short_source(by_id[heavier])}) carries far more authority than {lighter} "
                    f"({short_source(by_id[lighter])}), so it settles the point.",
                    f"Rest the claim on {heavier}, not on {lighter}.")
                continue
            add(claim, "conflict", "CRITICAL" if strong else "MAJOR",
                f"{opening}: {a} and {b} contradict each other ({how}); {target['id']}.{claim.id} rests on one "
                f"and {critic['id']}.{rival.id} on the other, and neither is shown to outweigh the other.",
                f"Show why {', '.join(valid)} prevails over {', '.join(mine_ev)} on this question, or limit the claim "
                "to the matters the other passages do not address.")
        if theses_meet:
            continue
        foreign = [e for e in valid if domains.get(e) == critic["id"]]
        if foreign and domains.get(valid[0]) == critic["id"]:
            add(claim, "domain_mismatch", "MAJOR" if claim.confidence >= 0.75 else "MINOR",
                f"Claim {claim.id} rests on {', '.join(foreign)} ({short_source(by_id[foreign[0]])}), which falls "
                f"within the focus of the {agent_label(critic)}; its reading there is not the "
                f"{agent_label(target)}'s to settle.",
                f"Defer to the {agent_label(critic)}'s reading of {foreign[0]} or state the "
                "assumption behind your interpretation.")
        cited_text = " ".join(by_id[e].text for e in valid)
        if overlap(claim.statement, cited_text) < 0.3:
            add(claim, "logic_gap", "MAJOR" if claim.confidence >= 0.75 else "MINOR",
                f"Claim {claim.id} does not follow from {', '.join(valid)}: most of its terms are not in the cited text.",
                "Quote the part of the passage that supports the claim, or add the missing premise as an assumption.")

    order = {"CRITICAL": 0, "MAJOR": 1, "MINOR": 2}
    found.sort(key=lambda c: (order[c["severity"]], c["target_claim_id"]))
    return found


SEVERITY_RANK = {"CRITICAL": 0, "MAJOR": 1, "MINOR": 2}


def review_earlier(earlier: list[Any], target_out: AgentOutput, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The critic's word on its earlier critiques: the same rule checks run again on the revised
    output. A critique is maintained while its check still finds the issue on that claim at the same
    severity or worse, and resolved once the check no longer finds it there (or finds it milder)."""
    claims = {c.id for c in target_out.claims}
    out = []
    for item in earlier:
        k = item.critique
        if k.target_claim_id not in claims:
            out.append({"id": k.id, "status": "resolved", "note": f"{k.target_claim_id} was withdrawn."})
            continue
        same = [f for f in found if f["target_claim_id"] == k.target_claim_id and f["issue_type"] == k.issue_type]
        worst = min(same, key=lambda f: SEVERITY_RANK[f["severity"]], default=None)
        if worst is not None and SEVERITY_RANK[worst["severity"]] <= SEVERITY_RANK[k.severity]:
            out.append({"id": k.id, "status": "maintained", "note": f"Still applies: {worst['description']}"})
        elif worst is not None:
            out.append({"id": k.id, "status": "resolved",
                        "note": f"The {k.issue_type} on {k.target_claim_id} is now {worst['severity']} at most."})
        else:
            out.append({"id": k.id, "status": "resolved",
                        "note": f"The {k.issue_type} check no longer finds the issue in {k.target_claim_id}."})
    return out


@register("cross_critique", "critique")
def critique(payload: dict[str, Any]) -> dict[str, Any]:
    target_out: AgentOutput = payload["target_output"]
    found = findings(payload["case"], payload["critic"], payload["target"], target_out, payload["own_output"],
                     agents_from(payload))
    earlier = payload.get("earlier") or []
    previous = review_earlier(earlier, target_out, found)
    # An issue the critic maintains is not raised a second time under a new id.
    kept = {(item.critique.target_claim_id, item.critique.issue_type)
            for item, review in zip(earlier, previous, strict=True) if review["status"] == "maintained"}
    new = [f for f in found if (f["target_claim_id"], f["issue_type"]) not in kept]
    # Nor does the critic repeat an issue it raised before on the same claim at the same severity: an
    # edit closed that MINOR critique, and the critic has already had its say on it.
    before = {tuple(r) for r in payload.get("raised_before") or []}
    new = [f for f in new if (f["target_claim_id"], f["issue_type"], f["severity"]) not in before]
    if payload.get("final_review"):
        # No revision follows: only what a human reviewer must see is raised.
        new = [f for f in new if f["severity"] == "CRITICAL"]
    new = new[:8]
    for i, c in enumerate(new, start=int(payload.get("first_new_id") or 1)):
        c["id"] = f"K{i}"
    wanted = int(payload.get("min_critiques") or 0) if payload.get("round") == 1 else 0
    shortfall = ""
    if len(new) < wanted:
        # The critic does not invent critiques to reach the minimum: it says how far its rules got.
        shortfall = (f"found {len(new)} grounded issue(s) in {agent_label(payload['target'])}'s "
                     f"{len(target_out.claims)} claim(s), not {wanted}: the other claims follow from the passages "
                     "they cite and none of the cited passages contradicts them")
    return {"critiques": new, "previous": previous, "shortfall": shortfall}

