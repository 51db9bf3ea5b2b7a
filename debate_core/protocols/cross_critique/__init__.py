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

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...core import profiles, prompts, steps
from ...core.profiles import load_profiles
from ...core.schemas import AgentOutput, Verdict
from ...core.steering import Intervention, human_step_id, stage_end
from ...core.text import mentioned_ids
from ...engine.convergence import severity_counts
from ...engine.runtime import DebateFailed, DebateRun, Outcome
from ...engine.spec import CaseNeed, Projection, ProtocolSpec, StageSpec
from .. import run_options
from ..common import short_answer
from . import rows, rules
from .models import CritiqueOutput, SupervisorOutput

NAME = "cross_critique"
DEFAULT_ROUNDS = 3  # the budget: debates take 2 rounds and extend to 3 only when section 4 calls for it
MAX_ROUNDS = 3
MIN_ROUNDS = 2
MIN_AGENTS, MAX_AGENTS = 2, 6  # every agent critiques every other: 6 agents make 30 critique steps a round


class Options(BaseModel):
    """The cross critique options (``settings.options``)."""

    model_config = ConfigDict(extra="forbid")

    max_claims: int = Field(rules.MAX_CLAIMS, ge=1, le=50,
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
    # The source document's own pair: a national-law agent against an adat-law agent.
    "seed-000-indonesian-law": {"agents": team("indonesian_law.json", ["nla", "ala"])},
    "three agents: national, adat, Islamic law": {"agents": team("indonesian_law.json", ["nla", "ala", "ila"])},
}


def _agents(run: DebateRun) -> list[dict[str, Any]]:
    agents = run.agent_profiles(DEFAULT_AGENTS)
    ids = [a.get("id") for a in agents]
    if len(agents) < 2 or not all(ids) or len(set(ids)) != len(ids):
        raise DebateFailed("cross_critique needs at least two agents with distinct ids")
    return agents


def _name(agent: dict[str, Any]) -> str:
    return agent.get("name") or str(agent["id"]).replace("_", " ")


def _persona(agent: dict[str, Any]) -> dict[str, str]:
    """The agent's identity (name, role, instructions, terms) as every one of its prompts states it."""
    return {"agent_id": agent["id"], "agent_name": _name(agent), "identity": profiles.identity(agent)}


def _cited_evidence(run: DebateRun, *outputs: AgentOutput | None, extra_text: str = "",
                    extra_ids: list[str] | None = None) -> str:
    """Only the passages a step needs (cited by the outputs it reads, named in critiques, or added by
    a reviewer), which keeps later-round prompts bounded instead of replaying the whole case every time."""
    by_id = run.case.evidence_by_id()
    wanted: list[str] = [e for e in (extra_ids or []) if e in by_id]
    for out in outputs:
        if out is None:
            continue
        for claim in out.claims:
            wanted += [e for e in claim.evidence if e in by_id]
    wanted += mentioned_ids(extra_text, by_id)
    seen: list[str] = []
    for e in wanted:
        if e not in seen:
            seen.append(e)
    return prompts.evidence_block([by_id[e] for e in seen])


def _for_prompt(model: Any) -> Any:
    data = model.model_dump(mode="json") if hasattr(model, "model_dump") else model
    if isinstance(data, dict) and isinstance(data.get("claims"), list):
        data = {**data, "claims": [_claim_for_prompt(c) for c in data["claims"]]}
    return data


def _dump(model: Any) -> str:
    return json.dumps(_for_prompt(model), ensure_ascii=False, indent=1)


def _claim_for_prompt(claim: dict[str, Any]) -> dict[str, Any]:
    """The engine's verification marks say something only when a cited id is not in the case;
    a verified claim is shown as the agent wrote it, which keeps every later prompt shorter."""
    if claim.get("verified", True) and not claim.get("unverified_evidence"):
        return {k: v for k, v in claim.items() if k not in ("verified", "unverified_evidence")}
    return claim


def _summary_for_supervisor(summary: dict[str, Any]) -> dict[str, Any]:
    """The supervisor reads the final revisions in full next to the summary, so the summary names
    agreed and disputed claims by reference and leaves out the answers and the critique history
    (the open ones are its conflicts), instead of repeating them."""
    def refs(rows: list[dict[str, Any]]) -> list[str]:
        return [row["ref"] + ("" if row.get("supported", True) else " (unsupported)") for row in rows]

    compact = {k: v for k, v in summary.items() if k not in ("answers", "critiques")}
    compact["agreed_claims"] = refs(summary.get("agreed_claims", []))
    compact["disputed_claims"] = refs(summary.get("disputed_claims", []))
    return compact


async def run(run: DebateRun) -> Outcome:
    agents = _agents(run)
    ids = [a["id"] for a in agents]
    by_id = {a["id"]: a for a in agents}
    max_rounds = SPEC.rounds(run.settings.rounds, run.warn)  # the same clamp, with a warning, in every protocol
    options: Options = run_options(run)
    max_claims = options.max_claims
    min_critiques = options.min_critiques
    change_threshold = options.answer_change_threshold
    unsupported_limit = options.unsupported_limit
    mode = options.convergence_mode
    evidence_ids = set(run.case.evidence_by_id())
    case_evidence = prompts.evidence_block(run.case.evidence)
    domain_hint = prompts.data_block("scope hint", run.case.domain_hint or "(none)")

    # What reviewers did while the debate was paused (steering.py): claims pinned or withdrawn per
    # agent, evidence they added, and a note per agent for its next prompt.
    pinned: dict[str, set[str]] = {}
    struck: dict[str, set[str]] = {}
    added_evidence: list[str] = []
    reviewer_notes: dict[str, list[str]] = {}

    def checked(step_id: str, previous: AgentOutput | None = None, agent: str | None = None):
        def post(output: AgentOutput) -> AgentOutput:
            output, warnings = rules.verify_claims(output, evidence_ids, max_claims)
            if previous is not None and agent is not None:
                output, marks = rules.keep_reviewer_marks(output, previous, pinned.get(agent, set()),
                                                          struck.get(agent, set()))
                warnings += marks
            for w in warnings:
                run.warn(f"{step_id}: {w}", step_id)
            return output

        return post

    def notes_for(agent: str) -> str:
        notes = reviewer_notes.get(agent, [])
        if not notes:
            return ""
        return prompts.data_block("a human reviewer's interventions, which you must respect", "\n".join(notes))

    async def answer(agent: dict[str, Any]) -> AgentOutput:
        sid = steps.in_round(1, "answer", agent["id"])
        return await run.step(
            sid, AgentOutput, "cross_critique_answer",
            {**_persona(agent), "question": prompts.data_block("question", run.case.question),
             "domain_hint": domain_hint, "evidence": case_evidence, "max_claims": str(max_claims)},
            {"agent": agent, "agents": agents},
            postprocess=checked(sid),
        )

    ledger = rules.CritiqueLedger()

    def earlier_for_prompt(critic: str, target: str) -> list[dict[str, Any]]:
        return [{"id": r.item.critique.id, "round": r.item.round, "target_claim_id": r.item.critique.target_claim_id,
                 "issue_type": r.item.critique.issue_type, "severity": r.item.critique.severity,
                 "description": r.item.critique.description, "suggested_fix": r.item.critique.suggested_fix,
                 "status": rules.STATE_LABELS[r.state], **({"your_note": r.note} if r.note else {})}
                for r in ledger.earlier(critic, target)]

    def critique_checks(sid: str, critic: str, target: str):
        used = ledger.used_ids(critic, target)

        def post(output: CritiqueOutput) -> CritiqueOutput:
            output, warnings = rules.unique_critique_ids(output, used)
            for w in warnings:
                run.warn(f"{sid}: {w}", sid)
            return output

        return post

    async def critique(round_no: int, critic: str, target: str, outputs: dict[str, AgentOutput],
                       final_review: bool = False) -> CritiqueOutput:
        sid = steps.in_round(round_no, "critique", critic, target)
        earlier = earlier_for_prompt(critic, target)
        used = ledger.used_ids(critic, target)
        first_new = 1 + max((int(i[1:]) for i in used if i[:1] == "K" and i[1:].isdigit()), default=0)
        variables = {
            **_persona(by_id[critic]), "target_id": target, "target_name": _name(by_id[target]),
            "target_role": by_id[target].get("role") or "(no role given)",
            "question": prompts.data_block("question", run.case.question),
            "target_output": prompts.data_block(f"{target} output", _dump(outputs[target])),
            "evidence": _cited_evidence(run, outputs[target], outputs[critic]),
            "min_critiques": str(min_critiques if round_no == 1 else 0 if final_review else 1), "reask": "",
            "earlier": prompts.data_block("your earlier critiques of this agent, still open", json.dumps(
                earlier, ensure_ascii=False, indent=1)) if earlier else "(none: you have not critiqued this agent before)",
            "first_new_id": f"K{first_new}",
            "review_note": (
                "This review follows the final revision: no revision comes after it. Raise a new critique only "
                "for a problem a human reviewer must see." if final_review else ""),
        }
        payload = {"critic": by_id[critic], "target": by_id[target], "agents": agents, "target_output": outputs[target],
                   "own_output": outputs[critic], "round": round_no,
                   "earlier": [r.item for r in ledger.earlier(critic, target)], "first_new_id": first_new,
                   "raised_before": ledger.raised_before(critic, target),
                   "final_review": final_review}
        post = critique_checks(sid, critic, target)
        out = await run.step(sid, CritiqueOutput, "cross_critique_critique", variables, payload, postprocess=post)
        if round_no == 1 and len(out.critiques) < min_critiques:
            # Section 8, echo chamber: fewer than the minimum is re-asked once, then kept with a warning.
            variables["reask"] = (
                f"Your previous critique had only {len(out.critiques)} item(s). An agent must raise at least "
                f"{min_critiques} critiques in round 1: look again for evidence gaps, logic gaps, conflicts, "
                "domain mismatches and overclaims."
            )
            again = await run.step(sid, CritiqueOutput, "cross_critique_critique", variables, {**payload, "reask": True},
                                   postprocess=post)
            out = [out, again][rules.kept_critique_call([out, again])]
            if len(out.critiques) < min_critiques:
                run.warn(
                    f"{sid}: {critic} raised {len(out.critiques)} critique(s) on {target} after being re-asked "
                    f"(minimum {min_critiques}): possible echo chamber", sid)
        known = {c.id for c in outputs[target].claims}
        for c in out.critiques:
            if c.target_claim_id not in known:
                run.warn(f"{sid}: critique {c.id} names claim {c.target_claim_id}, which {target} did not make", sid)
        return out

    async def critique_round(round_no: int, outputs: dict[str, AgentOutput], pairs: list[tuple[str, str]] | None = None,
                             final_review: bool = False) -> list[rules.AddressedCritique]:
        pairs = pairs or [(c, t) for c in ids for t in ids if c != t]
        results = await run.gather(*(critique(round_no, c, t, outputs, final_review) for c, t in pairs))
        raised: list[rules.AddressedCritique] = []
        for (c, t), out in zip(pairs, results, strict=True):
            sid = steps.in_round(round_no, "critique", c, t)
            # The critic's word on its earlier critiques first: new critiques are not reviewed in the step that raises them.
            for w in ledger.reviewed(sid, round_no, c, t, out.previous):
                run.warn(f"{sid}: {w}", sid)
            raised += ledger.raised(sid, round_no, c, t, out.critiques)
        return raised

    async def revise(round_no: int, agent: str, previous: AgentOutput) -> AgentOutput:
        sid = steps.in_round(round_no, "revise", agent)
        mine = ledger.open_records(agent)
        critiques_json = [{"from": r.item.critic, "round": r.item.round, **r.item.critique.model_dump(mode="json"),
                           "status": rules.STATE_LABELS[r.state], **({"critic_note": r.note} if r.note else {})}
                          for r in mine]
        critique_text = json.dumps(critiques_json, ensure_ascii=False)
        return await run.step(
            sid, AgentOutput, "cross_critique_revise",
            {**_persona(by_id[agent]), "question": prompts.data_block("question", run.case.question),
             "previous_output": prompts.data_block("your previous output", _dump(previous)),
             "critiques": prompts.data_block("critiques addressed to you", json.dumps(critiques_json, ensure_ascii=False, indent=1)),
             "evidence": _cited_evidence(run, previous, extra_text=critique_text, extra_ids=added_evidence),
             "max_claims": str(max_claims), "reviewer_notes": notes_for(agent)},
            {"agent": by_id[agent], "agents": agents, "previous": previous, "critiques": [r.item for r in mine],
             "round": round_no, "pinned": sorted(pinned.get(agent, set())),
             "struck": sorted(struck.get(agent, set()))},
            postprocess=checked(sid, previous, agent),
        )

    async def revision_round(round_no: int, outputs: dict[str, AgentOutput]) -> dict[str, AgentOutput]:
        revised = await run.gather(*(revise(round_no, a, outputs[a]) for a in ids))
        new = dict(zip(ids, revised, strict=True))
        for a in ids:
            ledger.revised(steps.in_round(round_no, "revise", a), round_no, a, outputs[a], new[a])
        return new

    def revised_to(round_no: int, revised: dict[str, AgentOutput]) -> None:
        """The revisions become the current answers; the end of the revisions is a pause point."""
        current.clear()
        current.update(revised)
        run.pause_point(stage_end(round_no, "revisions"))

    trajectory: list[dict[str, Any]] = []

    def agent_metrics(outputs: dict[str, AgentOutput]) -> dict[str, Any]:
        return {
            "confidence": {a: round(sum(c.confidence for c in o.claims) / len(o.claims), 4) for a, o in outputs.items()},
            "claims": {a: len(o.claims) for a, o in outputs.items()},
            "unsupported": {a: round(rules.unsupported_share(o), 4) for a, o in outputs.items()},
        }

    def close_round(entry: dict[str, Any]) -> None:
        trajectory.append(entry)
        run.emit("round_closed", round=entry["round"], metrics=entry)

    def assess(round_no: int, changes: dict[str, float]) -> rules.Assessment:
        return rules.assess(round_no, ledger.open(), changes, change_threshold=change_threshold, mode=mode)

    current: dict[str, AgentOutput] = {}

    def intervene(iv: Intervention) -> None:
        """A reviewer's intervention, applied where the debate paused, before the next step."""
        nonlocal case_evidence
        sid = human_step_id(iv.round, iv.reviewer)
        for w in ledger.intervened(sid, iv):
            run.warn(f"{sid}: {w}", sid)
        agent = iv.agent
        if iv.kind == "evidence" and iv.evidence is not None:
            evidence_ids.add(iv.evidence.id)
            added_evidence.append(iv.evidence.id)
            case_evidence = prompts.evidence_block(run.case.evidence)
            for a in ids:
                reviewer_notes.setdefault(a, []).append(
                    f"{iv.reviewer} added passage {iv.evidence.id} ({iv.evidence.source}); it is among the passages below.")
        elif agent not in by_id:
            run.warn(f"{sid}: {iv.summary()}: there is no agent {agent!r} in this debate; not applied", sid)
        elif iv.kind == "pin":
            pinned.setdefault(agent, set()).add(iv.claim_id or "")
            reviewer_notes.setdefault(agent, []).append(
                f"{iv.reviewer} pinned your claim {iv.claim_id} as established: keep it; you may not drop it.")
        elif iv.kind == "strike":
            struck.setdefault(agent, set()).add(iv.claim_id or "")
            if agent in current:
                current[agent] = rules.without_claim(current[agent], iv.claim_id)
            reviewer_notes.setdefault(agent, []).append(
                f"{iv.reviewer} withdrew your claim {iv.claim_id} from the debate: do not make it again.")
        elif iv.kind == "critique":
            reviewer_notes.setdefault(agent, []).append(
                f"{iv.reviewer} raised {iv.severity} critique {iv.critique_id} on your claim {iv.claim_id}: answer it "
                "in this revision (it is among the critiques above); only the reviewer can close it.")

    run.on_intervention(intervene)

    # Round 1: answers, then cross critique once every answer exists.
    answers = await run.gather(*(answer(by_id[a]) for a in ids))
    current.update(zip(ids, answers, strict=True))
    run.pause_point(stage_end(1, "answers"))
    critiques = await critique_round(1, current)
    close_round({"round": 1, "stage": "answer+critique", "severity": severity_counts(c.critique for c in critiques),
                 "critique_states": ledger.state_counts(), **agent_metrics(current)})

    # Round 2: revision on the critiques received.
    revised = await revision_round(2, current)
    changes = rules.answer_changes(current, revised)
    rounds = 2
    revised_to(2, revised)
    assessment = assess(2, changes)
    entry: dict[str, Any] = {"round": 2, "stage": "revision", **agent_metrics(current)}
    extend = max_rounds >= 3

    if assessment.severe_open or (extend and not assessment.converged):
        # The round-2 critique: critics confirm or keep their critiques and, when round 3 may follow,
        # raise new ones. Without the extension it is a review of the CRITICAL/MAJOR critiques still open.
        if extend:
            critiques2 = await critique_round(2, current)
        else:
            critiques2 = await critique_round(2, current, ledger.severe_open_pairs(), final_review=True)
        entry["stage"] = "revision+critique"
        entry["severity"] = severity_counts(c.critique for c in critiques2)
        assessment = assess(2, changes)
        if extend and not assessment.converged:
            close_round({**entry, **assessment.metrics(), "critique_states": ledger.state_counts()})
            # Round 3, the final revision: the debate has not converged after round 2.
            revised = await revision_round(3, current)
            changes = rules.answer_changes(current, revised)
            rounds = 3
            revised_to(3, revised)
            assessment = assess(3, changes)
            entry = {"round": 3, "stage": "final revision", **agent_metrics(current)}
            if assessment.severe_open:
                # The critics confirm or keep what the final revision did to their open critiques.
                late = await critique_round(3, current, ledger.severe_open_pairs(), final_review=True)
                entry["stage"] = "final revision+review"
                entry["severity"] = severity_counts(c.critique for c in late)
                assessment = assess(3, changes)
    close_round({**entry, **assessment.metrics(), "critique_states": ledger.state_counts()})
    # A reviewer may have intervened at the pause point after the last round: assess again.
    assessment = assess(rounds, changes)

    reasons, applied = rules.escalation_reasons(assessment, current, max_rounds=max_rounds,
                                                unsupported_limit=unsupported_limit)
    applied = [f"S5.{name}" for name, ok in assessment.criteria.items() if ok] + applied
    summary = rules.debate_summary(current, assessment, ledger, rounds)
    summary["escalation_reasons"] = reasons
    summary["convergence_reason"] = rules.convergence_reason(assessment)

    sup = await run.step(
        steps.final("supervisor"), SupervisorOutput, "cross_critique_supervisor",
        {"question": prompts.data_block("question", run.case.question),
         "final_revisions": prompts.data_block("final revisions", json.dumps(
             {a: _for_prompt(o) for a, o in current.items()}, ensure_ascii=False, indent=1)),
         "debate_summary": prompts.data_block("debate summary", json.dumps(
             _summary_for_supervisor(summary), ensure_ascii=False, indent=1))},
        {"finals": current, "summary": summary, "agents": agents},
        stage="supervisor",
    )
    verdict = Verdict(
        answer=sup.answer,
        short_answer=short_answer(sup.answer),
        confidence=sup.confidence,
        needs_human_review=bool(reasons),
        escalation_reasons=reasons,
        rationale=sup.rationale,
        applied_rules=applied,
    )
    return Outcome(
        rounds=rounds,
        converged=assessment.converged,
        convergence_reason=summary["convergence_reason"],
        verdict=verdict,
        trajectory=trajectory,
        result={
            "final_revisions": {a: o.model_dump(mode="json") for a, o in current.items()},
            "supervisor": sup.model_dump(mode="json"),
            "open_critiques": summary["conflicts"],
            "criteria": assessment.criteria,
        },
        summary=summary,
    )


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
                  reply_cap=1500, noun="answer"),
        StageSpec("critique", "Cross critiques", CritiqueOutput,
                  "one agent's critiques of another's claims, and its word on its earlier critiques",
                  reply_cap=1200, noun="critique"),
        StageSpec("revise", "Revisions", AgentOutput, "each agent's answer revised on the critiques it received",
                  reply_cap=1500, noun="revision"),
        StageSpec("supervisor", "Supervisor", SupervisorOutput,
                  "the final answer, written from the final revisions and the debate summary",
                  reply_cap=700, noun="supervisor's final answer"),
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
