"""What the cross-critique agents share: how relevant a passage is to an agent, whose focus it
belongs to, what confidence cited evidence carries, and how an answer is composed and capped by
the agent's reading of the case."""

from __future__ import annotations

import re
from typing import Any

from ....core.schemas import AgentOutput, Case, Claim, Evidence
from ....core.text import (
    authority_score,
    bm25_rank,
    has_negation,
    numbers,
    overlap,
    sentences,
    stem,
    terms,
    tokens,
)
from ....providers.offline import reading

THESIS_MARK = "governs this dispute"  # the legal register's thesis (see `legal_register`)
NEUTRAL_THESIS_MARK = "bear most directly on this question"
YIELD_MARK = "except where the sources of the"  # how a revised thesis concedes precedence to another agent
NEUTRAL_YIELD_MARK = "except where the passages of the"
# The words by which the agents' profiles or the case bring the legal register (sources that
# govern, precedence, norms): only then do the agents' claims and critiques speak of it.
LEGAL_REGISTER = ("law", "legal", "statute", "norm", "court", "jurisprudence", "legislation")
# Two sentences are about the same point when this share of the shorter one's content terms is shared.
SAME_POINT = 0.5
# Directions that oppose each other (by stem): "rises" against "falls", "higher" against "lower".
OPPOSITE_DIRECTIONS = (("increas", "decreas"), ("higher", "lower"), ("more", "less"), ("rise", "fall"),
                       ("rais", "reduc"), ("above", "below"), ("greater", "smaller"), ("improv", "worsen"),
                       ("gain", "loss"), ("allow", "prohibit"), ("permit", "forbid"), ("safe", "unsaf"),
                       ("valid", "invalid"), ("effect", "ineffect"), ("benefit", "harm"))


def legal_register(case: Case, agents: list[dict[str, Any]]) -> bool:
    """Whether the agents' profiles or the case (question, scope hint, authority labels) bring the legal
    register; without it the agents speak of passages and focus, not of governing sources and precedence."""
    text = " ".join([case.question, case.domain_hint or "", *(str(e.authority or "") for e in case.evidence),
                     *(focus_text(a) + " " + agent_label(a) for a in agents)])
    words = {stem(t) for t in terms(text)}
    return any(stem(w) in words for w in LEGAL_REGISTER)


def contradiction(text_a: str, text_b: str) -> str | None:
    """How two texts contradict each other, if they do: a pair of sentences about the same point
    (most of the shorter one's content terms shared) where one is negated and the other not, where
    they move in opposite directions, or where they give figures of the same unit more than 5% apart.
    Texts that only word the same point differently, or stress different points, do not contradict."""
    for sa in sentences(text_a) or [text_a]:
        ta = set(terms(sa))
        for sb in sentences(text_b) or [text_b]:
            tb = set(terms(sb))
            if not ta or not tb:
                continue
            shared = ta & tb
            if len(shared) < 2 or len(shared) / min(len(ta), len(tb)) < SAME_POINT:
                continue
            if has_negation(sa) != has_negation(sb):
                return f"one says \"{sa.strip()}\", the other denies it: \"{sb.strip()}\""
            sa_st, sb_st = {t.lower() for t in tokens(sa)}, {t.lower() for t in tokens(sb)}
            for up, down in OPPOSITE_DIRECTIONS:
                a_up, a_down = any(w.startswith(up) for w in sa_st), any(w.startswith(down) for w in sa_st)
                b_up, b_down = any(w.startswith(up) for w in sb_st), any(w.startswith(down) for w in sb_st)
                if (a_up and not a_down and b_down and not b_up) or (a_down and not a_up and b_up and not b_down):
                    return f"\"{sa.strip()}\" and \"{sb.strip()}\" point in opposite directions"
            # Figures are compared only when each sentence gives one figure of a unit: with several
            # (a rate and a share in one sentence) nothing says which of them the other one answers.
            fa, fb = numbers(sa), numbers(sb)
            for unit in {u for _, u in fa if u} & {u for _, u in fb if u}:
                a_vals, b_vals = [v for v, u in fa if u == unit], [v for v, u in fb if u == unit]
                if len(a_vals) == 1 and len(b_vals) == 1:
                    va, vb = a_vals[0], b_vals[0]
                    base = max(abs(va), abs(vb))
                    if base and abs(va - vb) / base > 0.05:
                        return f"\"{sa.strip()}\" gives {va:g}{unit}, \"{sb.strip()}\" gives {vb:g}{unit}"
    return None


# -- shared scoring ------------------------------------------------------------------------------

def focus_text(agent: dict[str, Any]) -> str:
    """What the agent looks for: its profile's role, instructions and terms."""
    return " ".join([agent.get("role") or "", agent.get("instructions") or "", *(agent.get("terms") or [])])


def agent_label(agent: dict[str, Any]) -> str:
    return agent.get("name") or str(agent["id"]).replace("_", " ")


def passage_texts(case: Case) -> dict[str, str]:
    return {e.id: f"{e.source}. {e.text}" for e in case.evidence}


def _normalised(ranked: list[Any]) -> dict[str, float]:
    top = max((r.score for r in ranked), default=0.0) or 1.0
    return {r.id: r.score / top for r in ranked}


def relevance(case: Case, agent: dict[str, Any]) -> dict[str, float]:
    """Passage relevance for one agent: the question counts most, the agent's focus decides ties."""
    docs = passage_texts(case)
    q = _normalised(bm25_rank(case.question, docs))
    f = _normalised(bm25_rank(focus_text(agent), docs))
    return {pid: round(0.6 * q.get(pid, 0.0) + 0.4 * f.get(pid, 0.0), 4) for pid in docs}


def domain_of(case: Case, agents: list[dict[str, Any]]) -> dict[str, str | None]:
    """Which agent's focus each passage belongs to: the one whose focus terms score clearly highest
    (by a margin of 20%); passages no focus claims clearly (a deed, a fact) belong to no one."""
    docs = passage_texts(case)
    raw = {a["id"]: {r.id: r.score for r in bm25_rank(focus_text(a), docs)} for a in agents}
    out: dict[str, str | None] = {}
    for pid in docs:
        ranked = sorted(((raw[a["id"]].get(pid, 0.0), a["id"]) for a in agents), reverse=True)
        best, runner_up = ranked[0], (ranked[1] if len(ranked) > 1 else (0.0, None))
        out[pid] = best[1] if best[0] > 0 and best[0] > 1.2 * runner_up[0] else None
    return out


def support_level(case: Case, evidence_ids: list[str]) -> float:
    """What confidence the cited evidence carries: more and stronger passages carry more."""
    by_id = case.evidence_by_id()
    found = [by_id[e] for e in evidence_ids if e in by_id]
    if not found:
        return 0.3
    best = max(authority_score(e.authority) for e in found)
    return round(min(0.95, 0.45 + 0.3 * best + 0.07 * (min(len(found), 3) - 1)), 2)


def yields_to(claim: Claim, agent: dict[str, Any]) -> bool:
    """A thesis that names the agent's sources as governing where they apply no longer claims
    precedence over them: there is no conflict of precedence left to raise."""
    return any(f"{mark} {agent_label(agent)}" in claim.statement for mark in (YIELD_MARK, NEUTRAL_YIELD_MARK))


def is_thesis(claim: Claim) -> bool:
    return any(a.endswith((THESIS_MARK, NEUTRAL_THESIS_MARK)) for a in claim.assumptions)


def thesis_of(output: AgentOutput) -> Claim | None:
    return next((c for c in output.claims if is_thesis(c)), None)


def domain_strength(case: Case, agent: dict[str, Any], evidence_ids: list[str]) -> float:
    """How strongly an agent's own sources bear on the question: relevance times authority."""
    by_id = case.evidence_by_id()
    rel = relevance(case, agent)
    return round(sum(rel.get(e, 0.0) * authority_score(by_id[e].authority) for e in evidence_ids if e in by_id), 4)


def short_source(ev: Evidence) -> str:
    return ev.source if len(ev.source) <= 60 else ev.source[:57] + "..."


def agents_from(payload: dict[str, Any]) -> list[dict[str, Any]]:
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
        src = ", ".join(short_source(by_id[e]) for e in c.evidence if e in by_id) or "no cited passage"
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

