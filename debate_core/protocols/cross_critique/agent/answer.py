"""Round 1: the agent ranks the passages against the question and its focus, turns the most
relevant sentences into claims that cite them, and states its position."""

from __future__ import annotations

from typing import Any

from ....core.bounds import build
from ....core.schemas import CLAIM_CHARS, AgentOutput, Case, Claim
from ....core.text import best_span, evidence_authority
from ....providers.offline.agents import register
from .scoring import (
    NEUTRAL_THESIS_MARK,
    THESIS_MARK,
    agent_label,
    agents_from,
    compose_answer,
    domain_of,
    focus_text,
    honest,
    legal_register,
    relevance,
    short_source,
)

TOP_PASSAGES = 5
OWN_DOMAIN_RELEVANCE = 0.3
AUTHORITY_WEIGHT = 0.3  # how much a passage's authority (primary, official, secondary...) adds to its rank


def _router_stance(case: Case, agent: dict[str, Any]) -> str:
    """Read the router's scope hint (the case format's `domain_hint`: "pure <scope>", "conflict",
    "consensus"): 'defer' when the question is purely in a scope the agent's id and name do not
    name, 'agree' on a consensus hint, otherwise 'argue' from the evidence."""
    hint = (case.domain_hint or "").strip().lower()
    if hint.startswith("pure"):
        scope = set(hint.split()[1:])
        names = set(str(agent["id"]).lower().replace("_", " ").split()) | set(agent_label(agent).lower().split())
        return "argue" if not scope or scope & names else "defer"
    if "consensus" in hint:
        return "agree"
    return "argue"


@register("cross_critique", "answer")
def answer(payload: dict[str, Any]) -> dict[str, Any]:
    case: Case = payload["case"]
    agent = payload["agent"]
    agents = agents_from(payload)
    rel = relevance(case, agent)
    domains = domain_of(case, agents)
    by_id = case.evidence_by_id()
    # Own-domain passages first among the relevant ones: each agent argues from its own sources; among
    # passages as relevant, the one with more authority (primary, official) before a secondary one.
    ranked = sorted(by_id, key=lambda pid: (-(rel[pid] + (0.25 if domains[pid] == agent["id"] else 0.0)
                                              + (AUTHORITY_WEIGHT * evidence_authority(by_id[pid])
                                                 if rel[pid] > 0 else 0.0)), pid))
    chosen = [pid for pid in ranked if rel[pid] > 0][:TOP_PASSAGES] or ranked[:3]
    query = f"{case.question} {focus_text(agent)}"
    claims: list[Claim] = []
    for i, pid in enumerate(chosen, start=1):
        ev = by_id[pid]
        sentence = best_span(ev.text, query, CLAIM_CHARS)
        conf = round(min(0.95, 0.4 + 0.3 * rel[pid] + 0.25 * evidence_authority(ev)), 2)
        # A claim carries one assumption: that its passage applies (and, when dated, is still current).
        assumptions = [f"{short_source(ev)} applies to these facts" if not ev.date
                       else f"{short_source(ev)} applies and is still current"]
        claims.append(build(Claim, id=f"C{i}", statement=sentence, evidence=[pid], confidence=conf, assumptions=assumptions))
    # The agent's own thesis. With relevant sources that its role claims it holds that they decide
    # the question (another agent will contest that if it has sources of its own); when the scope
    # hint places the question outside its role, it says so rather than pretending otherwise. An
    # agent none of whose passages its role claims states no thesis.
    stance = _router_stance(case, agent)
    own = [pid for pid in chosen if domains[pid] == agent["id"] and rel[pid] >= OWN_DOMAIN_RELEVANCE]
    label = agent_label(agent)
    legal = legal_register(case, agents)
    if stance == "agree":
        claims.append(build(Claim,
            id=f"C{len(claims) + 1}",
            statement=(f"On this question the sources of the {label} and the other sources in the evidence lead to "
                       "the same result." if legal else
                       f"On this question the passages the {label} relies on and the other passages point the same way."),
            evidence=own[:1] or chosen[:1],
            confidence=0.7,
            assumptions=["The scope hint (consensus) is right for these facts"],
        ))
    elif stance == "defer":
        claims.append(build(Claim,
            id=f"C{len(claims) + 1}",
            statement=f"None of the passages raises an issue within the role of the {label}; the question lies "
                      "outside it.",
            evidence=[],
            confidence=0.5,
            assumptions=["The evidence provided is complete for this question"],
        ))
    elif own:
        claims.append(build(Claim,
            id=f"C{len(claims) + 1}",
            # The sources are the claim's evidence; the statement stays short enough to carry a
            # concession in revision ("..., except where the passages of the X apply").
            statement=(f"The question should be decided primarily on the sources of the {label}." if legal
                       else f"The passages closest to the {label}'s focus bear most directly on the question."),
            evidence=own[:2],
            confidence=0.8,
            assumptions=[f"These sources {THESIS_MARK}" if legal else f"These passages {NEUTRAL_THESIS_MARK}"],
        ))
    others = [pid for pid in ranked if domains[pid] != agent["id"] and rel[pid] > 0][:2]
    uncertainties = [f"How {short_source(by_id[p])} ({p}) interacts with this position" for p in others]
    open_questions = []
    if others:
        first, other = short_source(by_id[chosen[0]]), short_source(by_id[others[0]])
        open_questions.append(f"Does {other} override {first} here?" if legal
                              else f"Does {other} change what {first} says here?")
    claims, uncertainties = honest(case, agent, claims, uncertainties)
    return build(
        AgentOutput,
        answer=compose_answer(agent, claims, case),
        claims=claims,
        uncertainties=uncertainties,
        open_questions=open_questions,
    ).model_dump(mode="json")
