"""Cross critique between two to six agents, each described by its profile, after the cross-critique
source protocol.

Round 1: answers in parallel; once all exist, every agent critiques every other in parallel.
Round 2: each agent revises on the critiques addressed to it. Whenever a CRITICAL or MAJOR critique
is open after a revision (or the debate has not converged) the round's critique step runs: each
critic reviews its own earlier critiques of the target (`previous`: resolved or maintained) and,
when a revision may still follow, raises new ones. Round 3 (the final revision) runs when the
debate has not converged after round 2 and the budget allows; a critique review follows it while
CRITICAL or MAJOR critiques are open. The supervisor receives only the final revisions and the
debate summary; the verdict (converged or escalated, reasons, applied rules) is computed by code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...core.profiles import load_profiles
from ...core.schemas import AgentOutput
from ...engine.runtime import DebateFailed, DebateRun, Outcome
from ...engine.spec import CaseNeed, Projection, ProtocolSpec, StageSpec
from .. import run_options
from . import rows, rules
from .flow import CrossCritiqueFlow
from .models import CritiqueOutput, SupervisorOutput

NAME = "cross_critique"
DEFAULT_ROUNDS = 3  # the budget: debates take 2 rounds and extend to 3 only when section 4 calls for it
MAX_ROUNDS = 3
MIN_ROUNDS = 2
MIN_AGENTS, MAX_AGENTS = 2, 6  # every agent critiques every other: 6 agents make 30 critique steps a round


class Options(BaseModel):
    """The cross critique options (``settings.options``)."""

    model_config = ConfigDict(extra="forbid")

    # No more than an answer may carry (the output model's maxItems, which a grammar enforces).
    max_claims: int = Field(rules.MAX_CLAIMS, ge=1, le=rules.MAX_CLAIMS,
                            description="most main claims kept per agent answer; extra claims are dropped")
    min_critiques: int = Field(rules.MIN_CRITIQUES, ge=0, le=20,
                               description="fewest critiques an agent must raise on each other agent in round 1")
    answer_change_threshold: float = Field(
        rules.ANSWER_CHANGE_THRESHOLD, ge=0, le=1,
        description="answers that change less than this share between rounds count as stable")
    unsupported_limit: float = Field(
        rules.UNSUPPORTED_LIMIT, ge=0, le=1,
        description="escalate when an agent has no evidence for more than this share of its claims")
    convergence_mode: Literal["any", "all"] = Field(
        "any", description="converge when any of the criteria holds, or only when all of them hold")

# Without profiles of its own a case gets this neutral pair, which suits any question: both argue
# from the evidence, one building the answer and one testing it.
DEFAULT_AGENTS: list[dict[str, Any]] = [
    {
        "id": "proponent",
        "name": "Proponent",
        "role": "Builds the strongest answer to the question that the evidence supports, cites the passages "
                "that carry each claim, and says where the evidence stops.",
    },
    {
        "id": "skeptic",
        "name": "Skeptic",
        "role": "Tests every claim against the evidence: looks for passages that contradict, qualify or fail "
                "to support it, and argues for the answer that survives that test.",
    },
]

# Named agent teams live in data files, so that no domain is written into the protocol's code.
AGENT_TEAMS = Path(__file__).resolve().parents[3] / "data" / "agents"


def team(file_name: str, ids: list[str]) -> list[dict[str, Any]]:
    """The profiles with these ids from a team file in data/agents/, in the order asked."""
    by_id = {a["id"]: a for a in load_profiles(AGENT_TEAMS / file_name)}
    return [by_id[i] for i in ids]


# Presets offered by the app (and usable as --rounds/--agents/--option on the CLI).
PRESETS: dict[str, dict[str, Any]] = {
    "two rounds, no extension": {"rounds": 2},
    "strict convergence (all three criteria)": {"options": {"convergence_mode": "all"}},
    # Every default the cross-critique source protocol states: a national-law agent against an
    # adat-law agent; 2 rounds, a third only while conflict remains; at least 3 critiques per agent
    # in round 1; at most 10 main claims; answer change under 15%; evidence missing for over 30% of
    # claims escalates; the debate ends when any one convergence criterion holds.
    "as in the source: national and adat law agents, up to 3 rounds": {
        "rounds": 3, "agents": team("indonesian_law.json", ["nla", "ala"]),
        "options": {"max_claims": 10, "min_critiques": 3, "answer_change_threshold": 0.15,
                    "unsupported_limit": 0.3, "convergence_mode": "any"}},
    "three agents: national, adat, Islamic law": {"agents": team("indonesian_law.json", ["nla", "ala", "ila"])},
}


def _agents(run: DebateRun) -> list[dict[str, Any]]:
    agents = run.agent_profiles(DEFAULT_AGENTS)
    ids = [a.get("id") for a in agents]
    if len(agents) < 2 or not all(ids) or len(set(ids)) != len(ids):
        raise DebateFailed("cross_critique needs at least two agents with distinct ids")
    return agents


async def run(run: DebateRun) -> Outcome:
    agents = _agents(run)
    max_rounds = SPEC.rounds(run.settings.rounds, run.warn)  # the same clamp, with a warning, in every protocol
    options: Options = run_options(run)
    return await CrossCritiqueFlow(run, agents, options, max_rounds).run()


# ---------------------------------------------------------------------------
# The specification the CLI, the app and the exports read
# ---------------------------------------------------------------------------


def _claim_rows(key: Any, output: dict[str, Any]) -> list[dict[str, Any]]:
    if key.stage not in ("answer", "revise"):
        return []
    return [
        {"claim_id": c.get("id"), "statement": c.get("statement"), "evidence": c.get("evidence", []),
         "confidence": c.get("confidence"), "verified": bool(c.get("verified", True)),
         "unverified_evidence": c.get("unverified_evidence", [])}
        for c in output.get("claims", [])
    ]


def _critique_rows(key: Any, output: dict[str, Any]) -> list[dict[str, Any]]:
    if key.stage != "critique":
        return []
    return [
        {"critique_id": c.get("id"), "target_claim_id": c.get("target_claim_id"), "issue_type": c.get("issue_type"),
         "severity": c.get("severity"), "description": c.get("description"), "suggested_fix": c.get("suggested_fix")}
        for c in output.get("critiques", [])
    ]


def export_name(step: dict[str, Any]) -> str:
    """Section 7's file names: debate_round1_nla.json, critique_round1_nla_on_ala.json, ..."""
    stage, rnd, agent, target = step["stage"], step["round"], step["agent"], step["target"]
    if stage in ("answer", "revise"):
        return f"debate_round{rnd}_{agent}.json"
    if stage == "critique":
        return f"critique_round{rnd}_{agent}_on_{target}.json"
    return f"{step['step_id'].replace('.', '_')}.json"


def export_payload(step: dict[str, Any]) -> dict[str, Any]:
    """A step's file as section 3 writes it: round, agent (and target) in capitals, then the output."""
    head: dict[str, Any] = {}
    if step["round"] is not None:
        head["round"] = step["round"]
    if step["agent"]:
        head["agent"] = step["agent"].upper()
    if step["target"]:
        head["target"] = step["target"].upper()
    return {**head, **(step["output"] or {})}


GLOSSARY = {
    "S5.no_critical_at_most_one_major": "No CRITICAL critique is open and at most one MAJOR critique is open.",
    "S5.no_unresolved_domain_conflict": "No MAJOR or CRITICAL conflict between the agents' domains is open.",
    "S5.answer_stable": "Every agent's answer changed by less than the stability threshold since its last revision.",
    "S5.not_converged": "The debate did not converge within its round budget.",
    "S6.critical_evidence_or_norm_conflict": "A CRITICAL critique on the validity of evidence or on a conflict "
                                             "of norms is still open.",
    "S6.hard_contradiction": "The agents still contradict each other on a claim (an open MAJOR or CRITICAL "
                             "conflict critique).",
    "S6.unsupported_claims": "An agent gives no verified evidence for too many of its claims.",
    "S8.echo_chamber": "An agent raised fewer than the three round-1 critiques the source protocol requires, "
                       "even when asked again: its claims were not checked enough (the echo-chamber risk).",
    "S9.unsure_option": "The question offers answers, and the final answer does not choose exactly one of them "
                        "with enough confidence.",
    "unsure_verdict": "The final answer's own confidence is too low for it to stand without a reviewer.",
    "no_agreed_answer": "None of the claims the agents agreed on answers the question: a person gives the answer.",
    "yes_no_unanswered": "The question asks for a yes or a no, and the answer gives neither: a person checks "
                         "which it is.",
    "dropped_condition": "The answer quotes a passage without the condition that passage sets (\"provided ...\", "
                         "\"only if ...\"): whether the case meets it is for a person to check.",
    "low_confidence": "The agents' final revisions carry too little confidence for the verdict to stand unreviewed.",
    "unassessed": "The agents said, in their final revisions, what they could not assess.",
    "reviewer_critique_open": "A critique a human reviewer raised during the debate is still open; only that "
                              "reviewer or a supervisor can resolve it.",
}

SPEC = ProtocolSpec(
    name=NAME,
    title="Cross critique",
    description=(
        "Two or more agents answer the question from the evidence, each claim citing passages; every agent "
        "critiques every other agent's claims with a severity and a concrete fix; the agents revise, and the "
        "critics confirm or keep their critiques. The debate converges only when no critical critique is open; "
        "open critical issues, hard contradictions and unsupported claims send the verdict to a human."
    ),
    default_agents=tuple(DEFAULT_AGENTS),
    min_agents=MIN_AGENTS,
    max_agents=MAX_AGENTS,
    min_rounds=MIN_ROUNDS,
    max_rounds=MAX_ROUNDS,
    default_rounds=DEFAULT_ROUNDS,
    options_model=Options,
    run=run,
    stages=(
        StageSpec("answer", "Answers", AgentOutput, "each agent's first answer, with claims citing evidence",
                  reply_cap=2000, noun="answer"),
        StageSpec("critique", "Cross critiques", CritiqueOutput,
                  "one agent's critiques of another's claims, and its word on its earlier critiques",
                  reply_cap=1800, noun="critique"),
        StageSpec("revise", "Revisions", AgentOutput, "each agent's answer revised on the critiques it received",
                  reply_cap=2000, noun="revision"),
        StageSpec("supervisor", "Supervisor", SupervisorOutput,
                  "the final answer, written from the final revisions and the debate summary",
                  reply_cap=850, noun="supervisor's final answer"),
    ),
    presets=PRESETS,
    case_needs=(
        CaseNeed("evidence", "passages the agents cite for their claims", lambda case: bool(case.evidence)),
    ),
    moderator=(rules.verify_claims, rules.assess, rules.converged, rules.convergence_reason, rules.escalation_reasons,
               rules.low_confidence, rules.could_not_assess, rules.debate_summary),
    glossary=GLOSSARY,
    projection=Projection(claims=_claim_rows, critiques=_critique_rows),
    export_name=export_name,
    export_payload=export_payload,
    interventions=("critique", "evidence", "pin", "strike", "resolve"),
    offline_agent=f"{__name__}.agent",
    plot_thresholds=rows.plot_thresholds,
    rows={"critiques": rows.critique_rows, "critique_groups": rows.critique_groups},
)
