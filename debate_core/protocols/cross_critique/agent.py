"""Rule-based agents for the cross-critique protocol.

An agent knows only its profile (role, instructions, terms), the question and the passages; no word
list of any case or domain is written here. It measures its own reading (debate_core/providers/offline/
reading.py): when the reading is weak its confidence is capped and it names what it could not assess.

Answer: rank the case's passages against the question and the agent's focus (its role and terms),
turn the most relevant sentences into claims that cite them, and state the agent's position.
Critique: by rules — missing or unknown evidence, numbers that disagree by more than 5%, contradicting
statements over shared terms, claims that rest on another agent's sources, confidence above what the
evidence carries, statements that do not follow from the cited passage.
Revise: respond to each critique — find supporting evidence, concede to stronger sources by
qualifying the claim, or maintain it against weaker ones; lower confidence where asked.
Supervisor: the first sentence answers the question from the agreed claim that covers the most of
it; the supporting points, the disputes and what a human must decide follow.
"""

from __future__ import annotations

import re
from typing import Any

from ...core.schemas import REVIEWER_ISSUE, AgentOutput, Case, Claim, Evidence
from ...core.text import (
    authority_score,
    best_sentence,
    bm25_rank,
    has_negation,
    mentioned_ids,
    numbers,
    overlap,
    sentences,
)
from ...providers.offline import reading
from ...providers.offline.agents import register
from ..common import unassessed

TOP_PASSAGES = 5
OWN_DOMAIN_RELEVANCE = 0.3
THESIS_MARK = "governs this dispute"
YIELD_MARK = "except where the sources of the"  # how a revised thesis concedes precedence to another agent
CONCEDE_RATIO = 1.25


# -- shared scoring ------------------------------------------------------------------------------

def _focus_text(agent: dict[str, Any]) -> str:
    """What the agent looks for: its profile's role, instructions and terms."""
    return " ".join([agent.get("role") or "", agent.get("instructions") or "", *(agent.get("terms") or [])])


def _label(agent: dict[str, Any]) -> str:
    return agent.get("name") or str(agent["id"]).replace("_", " ")


def _docs(case: Case) -> dict[str, str]:
    return {e.id: f"{e.source}. {e.text}" for e in case.evidence}


def _normalised(ranked: list[Any]) -> dict[str, float]:
    top = max((r.score for r in ranked), default=0.0) or 1.0
    return {r.id: r.score / top for r in ranked}


def relevance(case: Case, agent: dict[str, Any]) -> dict[str, float]:
    """Passage relevance for one agent: the question counts most, the agent's focus decides ties."""
    docs = _docs(case)
    q = _normalised(bm25_rank(case.question, docs))
    f = _normalised(bm25_rank(_focus_text(agent), docs))
    return {pid: round(0.6 * q.get(pid, 0.0) + 0.4 * f.get(pid, 0.0), 4) for pid in docs}


def domain_of(case: Case, agents: list[dict[str, Any]]) -> dict[str, str | None]:
    """Which agent's focus each passage belongs to: the one whose focus terms score clearly highest
    (by a margin of 20%); passages no focus claims clearly (a deed, a fact) belong to no one."""
    docs = _docs(case)
    raw = {a["id"]: {r.id: r.score for r in bm25_rank(_focus_text(a), docs)} for a in agents}
    out: dict[str, str | None] = {}
    for pid in docs:
        ranked = sorted(((raw[a["id"]].get(pid, 0.0), a["id"]) for a in agents), reverse=True)
        best, runner_up = ranked[0], (ranked[1] if len(ranked) > 1 else (0.0, None))
        out[pid] = best[1] if best[0] > 0 and best[0] > 1.2 * runner_up[0] else None
    return out


def _router_stance(case: Case, agent: dict[str, Any]) -> str:
    """Read the router's scope hint (the case format's `domain_hint`: "pure <scope>", "conflict",
    "consensus"): 'defer' when the question is purely in a scope the agent's id and name do not
    name, 'agree' on a consensus hint, otherwise 'argue' from the evidence."""
    hint = (case.domain_hint or "").strip().lower()
    if hint.startswith("pure"):
        scope = set(hint.split()[1:])
        names = set(str(agent["id"]).lower().replace("_", " ").split()) | set(_label(agent).lower().split())
        return "argue" if not scope or scope & names else "defer"
    if "consensus" in hint:
        return "agree"
    return "argue"


def support_level(case: Case, evidence_ids: list[str]) -> float:
    """What confidence the cited evidence carries: more and stronger passages carry more."""
    by_id = case.evidence_by_id()
    found = [by_id[e] for e in evidence_ids if e in by_id]
    if not found:
        return 0.3
    best = max(authority_score(e.authority) for e in found)
    return round(min(0.95, 0.45 + 0.3 * best + 0.07 * (min(len(found), 3) - 1)), 2)


def _yields_to(claim: Claim, agent: dict[str, Any]) -> bool:
    """A thesis that names the agent's sources as governing where they apply no longer claims
    precedence over them: there is no conflict of precedence left to raise."""
    return f"{YIELD_MARK} {_label(agent)}" in claim.statement


def _is_thesis(claim: Claim) -> bool:
    return any(a.endswith(THESIS_MARK) for a in claim.assumptions)


def _thesis(output: AgentOutput) -> Claim | None:
    return next((c for c in output.claims if _is_thesis(c)), None)


def domain_strength(case: Case, agent: dict[str, Any], evidence_ids: list[str]) -> float:
    """How strongly an agent's own sources bear on the question: relevance times authority."""
    by_id = case.evidence_by_id()
    rel = relevance(case, agent)
    return round(sum(rel.get(e, 0.0) * authority_score(by_id[e].authority) for e in evidence_ids if e in by_id), 4)


def _short_source(ev: Evidence) -> str:
    return ev.source if len(ev.source) <= 60 else ev.source[:57] + "..."


def _agents_from(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Every agent of the debate, as the protocol passes their profiles in the payload."""
    agents = payload.get("agents")
    if agents:
        return list(agents)
    return [payload[k] for k in ("agent", "critic", "target") if isinstance(payload.get(k), dict)]


def asked(question: str) -> str:
    """What the question asks: its interrogative sentences. The sentences before them state the facts
    (names, places, dates), which the passages are not expected to repeat."""
    parts = [q for q in sentences(question) if q.rstrip().endswith("?")]
    return " ".join(parts) or question


def contradicted(claim: Claim, others: list[Claim]) -> Claim | None:
    """An other claim of the same agent that says the opposite about the same thing, if any."""
    for other in others:
        if other.id != claim.id and overlap(claim.statement, other.statement) >= 0.3 \
                and has_negation(claim.statement) != has_negation(other.statement):
            return other
    return None


def lead_claim(claims: list[Claim], question: str) -> Claim | None:
    """The claim an answer opens with: the most confident one that bears on the question (covers
    some of its terms) and that none of the agent's other, at least as confident, claims contradicts."""
    terms = reading.question_terms(question)

    def bears(c: Claim) -> float:
        return len(reading.covered(terms, [c.statement])) / len(terms) if terms else 0.0

    ordered = sorted(claims, key=lambda c: (-(c.confidence * (0.5 + bears(c))), c.id))
    for c in ordered:
        rival = contradicted(c, [o for o in claims if o.confidence >= c.confidence])
        if rival is None and bears(c) > 0:
            return c
    return None


def compose_answer(agent: dict[str, Any], claims: list[Claim], case: Case, note: str = "") -> str:
    """The answer's first sentence answers the question (or says the evidence does not settle it);
    the grounds follow."""
    by_id = case.evidence_by_id()
    lead = lead_claim(claims, asked(case.question))
    ordered = sorted((c for c in claims if c is not lead), key=lambda c: -c.confidence)
    grounds = []
    for i, c in enumerate(ordered[:3], start=1):
        src = ", ".join(_short_source(by_id[e]) for e in c.evidence if e in by_id) or "no cited passage"
        grounds.append(f"({i}) {c.statement} [{src}]")
    first = lead.statement if lead else "The evidence does not settle the question."
    text = first + (" Grounds: " + " ".join(grounds) if grounds else "")
    return text + (f" {note}" if note else "")


# A part of the question counts as answered when the agent's claims carry at least this share of its words.
ASPECT_COVERAGE = 0.5


def question_parts(question: str) -> list[str]:
    """The parts the question asks, one per clause of its interrogative sentences ("is the will
    valid", "how far can the bequest stand"); clauses with fewer than two content words are
    not parts on their own."""
    clauses = re.split(r"[,;:]\s*|\s+and\s+(?=(?:what|how|which|who|whom|whose|when|where|why|whether|is|are|was|"
                       r"were|can|could|should|would|will|may|must|do|does|did|has|have)\b)", asked(question))
    parts = [re.sub(r"^(?:and|or)\s+", "", c.strip(" ?")) for c in clauses if len(reading.question_terms(c)) >= 2]
    return parts if len(parts) > 1 else []


def answered_parts(parts: list[str], claims: list[Claim]) -> list[str]:
    statements = [c.statement for c in claims]
    out = []
    for part in parts:
        terms = reading.question_terms(part)
        if terms and len(reading.covered(terms, statements)) / len(terms) >= ASPECT_COVERAGE:
            out.append(part)
    return out


def measured(case: Case, agent: dict[str, Any], claims: list[Claim], gaps: list[str]) -> reading.Reading:
    """The agent's reading of the case: how much of the question the passages it cites cover, and
    which parts of a question with several its claims answer."""
    by_id = case.evidence_by_id()
    cited = list(dict.fromkeys(e for c in claims for e in c.evidence if e in by_id))
    texts = [by_id[e].text for e in cited]
    parts = question_parts(case.question)
    return reading.read(asked(case.question), texts, passages=len(cited), gaps=gaps,
                        aspects_asked=[f'"{p}"' for p in parts],
                        aspects_matched=[f'"{p}"' for p in answered_parts(parts, claims)])


def own_contradictions(claims: list[Claim], case: Case) -> list[str]:
    """What the agent could not settle among its own claims: pairs that say opposite things."""
    by_id = case.evidence_by_id()
    gaps: list[str] = []
    for i, c in enumerate(claims):
        rival = contradicted(c, claims[i + 1:])
        if rival is not None:
            a = ", ".join(e for e in c.evidence if e in by_id) or c.id
            b = ", ".join(e for e in rival.evidence if e in by_id) or rival.id
            gaps.append(f"which of its own sources prevails where {a} and {b} disagree")
    return gaps


def honest(case: Case, agent: dict[str, Any], claims: list[Claim], uncertainties: list[str],
           gaps: list[str] = ()) -> tuple[list[Claim], list[str]]:
    """Claims with confidence capped by the reading, and the uncertainties with the reading's own
    notes (earlier reading notes are replaced, not repeated)."""
    read = measured(case, agent, claims, [*gaps, *own_contradictions(claims, case)])
    capped = [c.model_copy(update={"confidence": read.cap(c.confidence)}) for c in claims]
    kept = [u for u in uncertainties
            if not u.startswith(("could not assess:", "weak reading:"))]
    return capped, list(dict.fromkeys([*read.uncertainties(), *kept]))


# -- round 1 answer ------------------------------------------------------------------------------

@register("cross_critique", "answer")
def answer(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    agent = payload["agent"]
    agents = _agents_from(payload)
    rel = relevance(case, agent)
    domains = domain_of(case, agents)
    by_id = case.evidence_by_id()
    # Own-domain passages first among the relevant ones: each agent argues from its own sources.
    ranked = sorted(by_id, key=lambda pid: (-(rel[pid] + (0.25 if domains[pid] == agent["id"] else 0.0)), pid))
    chosen = [pid for pid in ranked if rel[pid] > 0][:TOP_PASSAGES] or ranked[:3]
    query = f"{case.question} {_focus_text(agent)}"
    claims: list[Claim] = []
    for i, pid in enumerate(chosen, start=1):
        ev = by_id[pid]
        sentence = best_sentence(ev.text, query)
        conf = round(min(0.95, 0.4 + 0.3 * rel[pid] + 0.25 * authority_score(ev.authority)), 2)
        assumptions = [f"{_short_source(ev)} applies to the facts in the question"]
        if ev.date:
            assumptions.append(f"{_short_source(ev)} ({ev.date}) is still current")
        claims.append(Claim(id=f"C{i}", statement=sentence, evidence=[pid], confidence=conf, assumptions=assumptions))
    # The agent's own thesis. With relevant sources that its role claims it holds that they decide
    # the question (another agent will contest that if it has sources of its own); when the scope
    # hint places the question outside its role, it says so rather than pretending otherwise. An
    # agent none of whose passages its role claims states no thesis.
    stance = _router_stance(case, agent)
    own = [pid for pid in chosen if domains[pid] == agent["id"] and rel[pid] >= OWN_DOMAIN_RELEVANCE]
    label = _label(agent)
    sources = ", ".join(_short_source(by_id[p]) for p in own[:2])
    if stance == "agree":
        claims.append(Claim(
            id=f"C{len(claims) + 1}",
            statement=f"On this question the sources of the {label} and the other sources in the evidence lead to "
                      "the same result.",
            evidence=own[:1] or chosen[:1],
            confidence=0.7,
            assumptions=["The scope hint (consensus) is right for these facts"],
        ))
    elif stance == "defer":
        claims.append(Claim(
            id=f"C{len(claims) + 1}",
            statement=f"None of the passages raises an issue within the role of the {label}; the question lies "
                      "outside it.",
            evidence=[],
            confidence=0.5,
            assumptions=["The evidence provided is complete for this question"],
        ))
    elif own:
        claims.append(Claim(
            id=f"C{len(claims) + 1}",
            statement=f"The question should be decided primarily on the sources of the {label} ({sources}).",
            evidence=own[:2],
            confidence=0.8,
            assumptions=[f"{sources} {THESIS_MARK}"],
        ))
    others = [pid for pid in ranked if domains[pid] != agent["id"] and rel[pid] > 0][:2]
    uncertainties = [f"How {_short_source(by_id[p])} ({p}) interacts with this position" for p in others]
    open_questions = []
    if others:
        open_questions.append(f"Does {_short_source(by_id[others[0]])} override {_short_source(by_id[chosen[0]])} here?")
    claims, uncertainties = honest(case, agent, claims, uncertainties)
    return AgentOutput(
        answer=compose_answer(agent, claims, case),
        claims=claims,
        uncertainties=uncertainties,
        open_questions=open_questions,
    ).model_dump(mode="json")


# -- critique -------------------------------------------------------------------------------------

def _conflicting_number(case: Case, claim: Claim, own: AgentOutput, target: AgentOutput) -> tuple[str, float, float, str] | None:
    """A number in the claim (or its passage) that disagrees by > 5% with one about the same thing
    (same unit, shared terms) in the critic's sources or the target's other sources."""
    by_id = case.evidence_by_id()
    mine = [(claim.statement, None)]
    cited = [e for c in [*own.claims, *target.claims] for e in c.evidence]
    theirs = [(by_id[e].text, e) for e in dict.fromkeys(cited) if e in by_id and e not in claim.evidence]
    for text_a, _ in mine:
        for value_a, unit_a in numbers(text_a):
            for text_b, pid_b in theirs:
                if overlap(text_a, text_b) < 0.25:
                    continue
                for value_b, unit_b in numbers(text_b):
                    if not unit_a or unit_a != unit_b:
                        continue  # bare numbers (years, article numbers) are not quantities to compare
                    base = max(abs(value_a), abs(value_b))
                    if base and abs(value_a - value_b) / base > 0.05:
                        return pid_b, value_a, value_b, unit_a
    return None


def findings(case: Case, critic: dict[str, Any], target: dict[str, Any], target_out: AgentOutput,
             own: AgentOutput, agents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every issue the critic's rules find in the target's output, worst first (ids not yet given)."""
    domains = domain_of(case, agents)
    by_id = case.evidence_by_id()
    found: list[dict[str, Any]] = []

    def add(claim: Claim, issue: str, severity: str, description: str, fix: str) -> None:
        found.append({"target_claim_id": claim.id, "issue_type": issue, "severity": severity,
                      "description": description, "suggested_fix": fix})

    for claim in target_out.claims:
        valid = [e for e in claim.evidence if e in by_id]
        invalid = [e for e in claim.evidence if e not in by_id]
        if not valid:
            cand = bm25_rank(claim.statement, _docs(case))
            hint = f" {cand[0].id} ({_short_source(by_id[cand[0].id])}) may be relevant." if cand and cand[0].score else ""
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
        clash = _conflicting_number(case, claim, own, target_out)
        if clash:
            pid, a, b, unit = clash
            stronger = authority_score(by_id[pid].authority) > max(authority_score(by_id[e].authority) for e in valid)
            add(claim, "conflict", "CRITICAL" if stronger else "MAJOR",
                f"Claim {claim.id} relies on the figure {a:g}{unit} but {pid} ({_short_source(by_id[pid])}) gives "
                f"{b:g}{unit}, a difference above 5%.",
                f"Reconcile the figure with {pid} or explain why {', '.join(valid)} should prevail.")
        # A claim that defers to the critic's sources where they govern does not contradict them.
        for mine in ([] if _yields_to(claim, critic) else own.claims):
            shared = overlap(claim.statement, mine.statement)
            if shared >= 0.3 and has_negation(claim.statement) != has_negation(mine.statement):
                mine_ev = [e for e in mine.evidence if e in by_id]
                if not mine_ev:
                    continue
                own_auth = max(authority_score(by_id[e].authority) for e in mine_ev)
                their_auth = max(authority_score(by_id[e].authority) for e in valid)
                add(claim, "conflict", "CRITICAL" if own_auth >= their_auth and mine.confidence >= 0.7 else "MAJOR",
                    f"Claim {claim.id} contradicts {critic['id']}.{mine.id} ('{mine.statement[:120]}'), "
                    f"which rests on {', '.join(mine_ev)} ({_short_source(by_id[mine_ev[0]])}).",
                    f"Justify why {', '.join(valid)} prevails over {', '.join(mine_ev)}, or qualify the claim.")
                break
        rival = _thesis(own)
        if _is_thesis(claim) and rival is not None and not _yields_to(claim, critic):
            mine_ev = [e for e in rival.evidence if e in by_id]
            strong = domain_strength(case, critic, mine_ev) >= domain_strength(case, target, valid)
            add(claim, "conflict", "CRITICAL" if strong else "MAJOR",
                f"Conflict of sources: {target['id']} holds that {claim.statement[:-1].lower()}, while "
                f"{critic['id']}.{rival.id} holds that {rival.statement[:-1].lower()} ({', '.join(mine_ev)}). "
                "Neither rule is shown to yield to the other.",
                f"Show why {', '.join(valid)} prevails over {', '.join(mine_ev)} on this question, or limit the claim "
                "to the matters the other sources do not decide.")
            continue
        foreign = [e for e in valid if domains.get(e) == critic["id"]]
        if foreign and domains.get(valid[0]) == critic["id"]:
            add(claim, "domain_mismatch", "MAJOR" if claim.confidence >= 0.75 else "MINOR",
                f"Claim {claim.id} rests on {', '.join(foreign)} ({_short_source(by_id[foreign[0]])}), which falls "
                f"within the role of the {_label(critic)}; its reading there is not the "
                f"{_label(target)}'s to settle.",
                f"Defer to the {_label(critic)}'s reading of {foreign[0]} or state the "
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
                     _agents_from(payload))
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
    return {"critiques": new, "previous": previous}


# -- revision -------------------------------------------------------------------------------------

@register("cross_critique", "revise")
def revise(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    agent = payload["agent"]
    previous: AgentOutput = payload["previous"]
    addressed = payload["critiques"]
    by_id = case.evidence_by_id()
    claims = {c.id: c.model_copy(deep=True) for c in previous.claims}
    uncertainties = list(previous.uncertainties)
    open_questions = list(previous.open_questions)
    conceded, maintained = [], []
    for item in addressed:
        k = item.critique
        claim = claims.get(k.target_claim_id)
        if claim is None:
            continue
        named = [m for m in mentioned_ids(k.description + " " + k.suggested_fix, by_id) if m not in claim.evidence]
        if k.issue_type == "evidence_gap":
            ranked = [r for r in bm25_rank(claim.statement, _docs(case)) if r.score > 0]
            best = next((r.id for r in ranked if overlap(claim.statement, by_id[r.id].text) >= 0.3), None)
            if best:
                claim.evidence = [e for e in claim.evidence if e in by_id] + [best]
                claim.confidence = min(claim.confidence, support_level(case, claim.evidence))
                conceded.append(f"{claim.id}: now cites {best}")
            else:
                claim.evidence = [e for e in claim.evidence if e in by_id]
                claim.confidence = round(max(0.2, claim.confidence - 0.25), 2)
                uncertainties.append(f"{claim.id} has no direct support in the evidence")
                conceded.append(f"{claim.id}: confidence lowered, no supporting passage")
        elif k.issue_type == "overclaim":
            claim.confidence = min(claim.confidence, support_level(case, claim.evidence))
            conceded.append(f"{claim.id}: confidence lowered to {claim.confidence:.2f}")
        elif k.issue_type == "conflict" and _is_thesis(claim):
            critic_agent = next((a for a in _agents_from(payload) if a["id"] == item.critic), {"id": item.critic})
            theirs_strength = domain_strength(case, critic_agent, named)
            mine_strength = domain_strength(case, agent, claim.evidence)
            if theirs_strength > CONCEDE_RATIO * mine_strength:
                claim.statement = (f"{claim.statement.rstrip('.')}, {YIELD_MARK} "
                                   f"{_label(critic_agent)} ({', '.join(named)}) govern.")
                claim.evidence = claim.evidence + named[:1]
                claim.confidence = round(max(0.2, claim.confidence - 0.2), 2)
                conceded.append(f"{claim.id}: precedence limited in favour of {item.critic}")
            else:
                claim.assumptions.append(
                    f"Maintained against {item.critic}'s {k.id}: own sources weigh {mine_strength:.2f} against "
                    f"{theirs_strength:.2f}")
                open_questions.append(f"Whose sources decide the question: {_label(agent)} or {item.critic}?")
                maintained.append(f"{claim.id} (precedence, against {item.critic})")
        elif k.issue_type == "conflict":
            theirs = max((authority_score(by_id[m].authority) for m in named), default=0.0)
            mine = max((authority_score(by_id[e].authority) for e in claim.evidence if e in by_id), default=0.0)
            if named and theirs > mine:
                src = _short_source(by_id[named[0]])
                claim.statement = f"{claim.statement.rstrip('.')}, subject to {src} ({named[0]}), which carries more authority."
                claim.evidence = claim.evidence + [named[0]]
                claim.confidence = round(max(0.2, claim.confidence - 0.15), 2)
                conceded.append(f"{claim.id}: qualified by {named[0]}")
            else:
                ours = ", ".join(e for e in claim.evidence if e in by_id) or "our sources"
                claim.assumptions.append(
                    f"Maintained against {item.critic}'s {k.id}: {ours} carries at least as much authority as "
                    f"{', '.join(named) or 'the opposing source'}")
                open_questions.append(f"Which norm prevails on {claim.id}: {ours} or {', '.join(named) or item.critic}?")
                maintained.append(f"{claim.id} (against {item.critic})")
        elif k.issue_type == "domain_mismatch":
            claim.assumptions.append(f"Reading of {', '.join(claim.evidence)} deferred to {item.critic}, whose role covers it")
            claim.confidence = round(max(0.2, claim.confidence - 0.1), 2)
            conceded.append(f"{claim.id}: deferred to {item.critic}")
        elif k.issue_type == REVIEWER_ISSUE:
            # A person's critique in free text: the rule-based agent cannot weigh it. It cites the
            # passages the reviewer named, lowers its confidence and says what it could not assess.
            if named:
                claim.evidence = claim.evidence + named[:2]
                conceded.append(f"{claim.id}: now also cites {', '.join(named[:2])}, as {item.critic} pointed out")
            claim.confidence = round(max(0.2, claim.confidence - 0.15), 2)
            uncertainties.append(f"could not assess: {item.critic}'s critique {k.id} on {claim.id} "
                                 f"(\"{k.description.strip()}\") needs a reader who can weigh it")
            conceded.append(f"{claim.id}: confidence lowered after {item.critic}'s critique {k.id}")
        elif k.issue_type == "logic_gap":
            cited = " ".join(by_id[e].text for e in claim.evidence if e in by_id)
            restated = best_sentence(cited, claim.statement) if cited else ""
            if restated and not _is_thesis(claim) and all(restated != c.statement for c in claims.values()):
                claim.statement = restated
                claim.assumptions.append("Restated to follow the cited passage")
                conceded.append(f"{claim.id}: restated from its passage")
            else:
                claim.assumptions.append("Missing premise made explicit: the cited passages apply to these facts")
                claim.confidence = round(max(0.2, claim.confidence - 0.1), 2)
                conceded.append(f"{claim.id}: premise made explicit, confidence lowered")
        claim.assumptions = list(dict.fromkeys(claim.assumptions))
    kept = [c for c in claims.values() if c.confidence >= 0.25 or c.evidence]
    kept, uncertainties = honest(case, agent, kept, uncertainties)
    note_parts = []
    if conceded:
        note_parts.append("Revised: " + "; ".join(conceded) + ".")
    if maintained:
        note_parts.append("Maintained: " + "; ".join(maintained) + ".")
    return AgentOutput(
        answer=compose_answer(agent, kept, case, " ".join(note_parts)),
        claims=kept,
        uncertainties=list(dict.fromkeys(uncertainties)),
        open_questions=list(dict.fromkeys(open_questions)),
    ).model_dump(mode="json")


# -- supervisor -----------------------------------------------------------------------------------

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
