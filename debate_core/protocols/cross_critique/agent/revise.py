"""The revision: each critique is answered, by finding supporting evidence, conceding to
stronger sources by qualifying the claim, or maintaining it against weaker ones."""

from __future__ import annotations

from typing import Any

from ....core.bounds import build
from ....core.schemas import CLAIM_CHARS, REVIEWER_ISSUE, AgentOutput, Case
from ....core.text import (
    DECISIVE_AUTHORITY_GAP,
    best_span,
    bm25_rank,
    clip_words,
    mentioned_ids,
    overlap,
    sentences,
)
from ....providers.offline.agents import register
from .critique import OUT_OF_SCOPE_MARK, OUTDATED_MARK
from .scoring import (
    NEUTRAL_YIELD_MARK,
    YIELD_MARK,
    age_ranges,
    agent_label,
    agents_from,
    compose_answer,
    domain_strength,
    honest,
    is_thesis,
    legal_register,
    outside_age,
    passage_texts,
    short_source,
    standing,
    support_level,
)

CONCEDE_RATIO = 1.25


def _qualified(statement: str, qualifiers: list[str], question: str) -> str:
    """`statement` with the longest of `qualifiers` that fits a claim beside it whole; failing that,
    the shortest qualifier after the statement's clauses closest to the question: the qualification
    is what the revision is for, and a claim holds CLAIM_CHARS characters."""
    body = statement.rstrip(".").rstrip()
    for qualifier in qualifiers:
        if len(body) + len(qualifier) <= CLAIM_CHARS:
            return body + qualifier
    qualifier = min(qualifiers, key=len)
    room = CLAIM_CHARS - len(qualifier)
    body = best_span(statement, question, room).rstrip(".").rstrip()
    if len(body) > room:
        body = clip_words(body, room)
    return body + qualifier


def _yielded_thesis(agent: dict[str, Any], other: dict[str, Any], named: list[str], legal: bool) -> str:
    """A thesis that concedes precedence where the other agent's passages apply, said in a claim's
    length: the passage ids are left out when the names alone fill it."""
    own, theirs = agent_label(agent), agent_label(other)
    for ids in (f" ({', '.join(named[:2])})", f" ({named[0]})" if named else "", ""):
        text = (f"The sources of the {own} decide, {YIELD_MARK} {theirs}{ids} govern." if legal else
                f"The {own}'s passages decide, {NEUTRAL_YIELD_MARK} {theirs}{ids} apply.")
        if len(text) <= CLAIM_CHARS:
            return text
    return text


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
    dropped: set[str] = set()
    legal = legal_register(case, agents_from(payload))
    for item in addressed:
        k = item.critique
        claim = claims.get(k.target_claim_id)
        if claim is None:
            continue
        named = [m for m in mentioned_ids(k.description + " " + k.suggested_fix, by_id) if m not in claim.evidence]
        if k.issue_type == "evidence_gap":
            ranked = [r for r in bm25_rank(claim.statement, passage_texts(case)) if r.score > 0]
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
        elif k.issue_type == "logic_gap" and OUT_OF_SCOPE_MARK in k.description:
            # The claim is limited to other cases: restated from a sentence of its passages that covers
            # the question's case, else withdrawn.
            fitting = [sent for e in claim.evidence if e in by_id for sent in sentences(by_id[e].text)
                       if age_ranges(sent) and not outside_age(sent, case.question)]
            if fitting:
                claim.statement = best_span(" ".join(fitting), case.question, CLAIM_CHARS)
                claim.assumptions.append("Restated for the question's case")
                conceded.append(f"{claim.id}: restated for the question's case")
            else:
                dropped.add(claim.id)
                conceded.append(f"{claim.id}: withdrawn, it does not apply to the question's case")
        elif k.issue_type == "conflict" and OUTDATED_MARK in k.description and not is_thesis(claim):
            # The claim rests on a passage a later one of at least equal authority replaces: withdrawn.
            dropped.add(claim.id)
            conceded.append(f"{claim.id}: withdrawn, its passage is replaced by a later one")
        elif k.issue_type == "conflict" and is_thesis(claim):
            critic_agent = next((a for a in agents_from(payload) if a["id"] == item.critic), {"id": item.critic})
            theirs_strength = domain_strength(case, critic_agent, named)
            mine_strength = domain_strength(case, agent, claim.evidence)
            if theirs_strength > CONCEDE_RATIO * mine_strength:
                claim.statement = _yielded_thesis(agent, critic_agent, named, legal)
                claim.evidence = claim.evidence + named[:1]
                claim.confidence = round(max(0.2, claim.confidence - 0.2), 2)
                conceded.append(f"{claim.id}: precedence limited in favour of {item.critic}" if legal
                                else f"{claim.id}: qualified where {item.critic}'s passages apply")
            else:
                claim.assumptions.append(
                    f"Maintained against {item.critic}'s {k.id}: own passages weigh {mine_strength:.2f} against "
                    f"{theirs_strength:.2f}")
                open_questions.append(f"Whose sources decide the question: {agent_label(agent)} or {item.critic}?"
                                      if legal else
                                      f"Whose passages bear more on the question: {agent_label(agent)}'s or "
                                      f"{item.critic}'s?")
                maintained.append(f"{claim.id} ({'precedence, ' if legal else ''}against {item.critic})")
        elif k.issue_type == "conflict":
            theirs = standing(named, by_id)
            mine = standing(claim.evidence, by_id)
            if named and theirs - mine >= DECISIVE_AUTHORITY_GAP:
                # A claim resting on a forum post that a primary text contradicts is not qualified but
                # given up: the stronger passage settles the point.
                dropped.add(claim.id)
                conceded.append(f"{claim.id}: withdrawn, {named[0]} carries far more authority than "
                                f"{', '.join(e for e in claim.evidence if e in by_id)}")
            elif named and theirs > mine:
                src = short_source(by_id[named[0]])
                claim.statement = _qualified(claim.statement, [
                    f", subject to {src} ({named[0]}), which carries more authority.",
                    f", subject to {named[0]}, which carries more authority.", f", subject to {named[0]}."],
                    case.question)
                claim.evidence = claim.evidence + [named[0]]
                claim.confidence = round(max(0.2, claim.confidence - 0.15), 2)
                conceded.append(f"{claim.id}: qualified by {named[0]}")
            else:
                ours = ", ".join(e for e in claim.evidence if e in by_id) or "our sources"
                claim.assumptions.append(
                    f"Maintained against {item.critic}'s {k.id}: {ours} carries at least as much authority as "
                    f"{', '.join(named) or 'the opposing source'}")
                open_questions.append(f"Which {'norm' if legal else 'passage'} prevails on {claim.id}: {ours} or "
                                      f"{', '.join(named) or item.critic}?")
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
            restated = best_span(cited, claim.statement, CLAIM_CHARS) if cited else ""
            if restated and not is_thesis(claim) and all(restated != c.statement for c in claims.values()):
                claim.statement = restated
                claim.assumptions.append("Restated to follow the cited passage")
                conceded.append(f"{claim.id}: restated from its passage")
            else:
                claim.assumptions.append("Missing premise made explicit: the cited passages apply to these facts")
                claim.confidence = round(max(0.2, claim.confidence - 0.1), 2)
                conceded.append(f"{claim.id}: premise made explicit, confidence lowered")
        claim.assumptions = list(dict.fromkeys(claim.assumptions))
    kept = [c for c in claims.values() if (c.confidence >= 0.25 or c.evidence) and c.id not in dropped]
    kept, uncertainties = honest(case, agent, kept, uncertainties)
    note_parts = []
    if conceded:
        note_parts.append("Revised: " + "; ".join(conceded) + ".")
    if maintained:
        note_parts.append("Maintained: " + "; ".join(maintained) + ".")
    return build(
        AgentOutput,
        answer=compose_answer(agent, kept, case, " ".join(note_parts)),
        claims=kept,
        uncertainties=list(dict.fromkeys(uncertainties)),
        open_questions=list(dict.fromkeys(open_questions)),
    ).model_dump(mode="json")

