"""Seed 000: cross critique between a National Law Agent and an Adat Law Agent (or any N >= 2 agents).

Round 1: answers in parallel; once all exist, every agent critiques every other in parallel.
Round 2: each agent revises on the critiques addressed to it. Then section 5 is assessed; when the
debate has not converged and the round budget allows, the optional round-2 critique runs, and the
round-3 revision follows only when that critique still finds CRITICAL or MAJOR issues. The
supervisor receives only the final revisions and the debate summary; the verdict (converged or
escalated, reasons, applied rules) is computed by code.
"""

from __future__ import annotations

import json
from typing import Any

from .. import prompts, steps
from ..convergence import severity_counts
from ..moderator import cross_critique as rules
from ..runtime import DebateFailed, DebateRun, Outcome
from ..schemas import AgentOutput, CritiqueOutput, SupervisorOutput, Verdict
from ..text import mentioned_ids

NAME = "cross_critique"
DEFAULT_ROUNDS = 3  # the budget: debates take 2 rounds and extend to 3 only when section 4 calls for it
MAX_ROUNDS = 3
MIN_ROUNDS = 2

DEFAULT_AGENTS: list[dict[str, Any]] = [
    {
        "id": "nla",
        "name": "National Law Agent",
        "domain": "national",
        "framework": "national law (KUHPerdata and national statutes)",
        "role": "National Law Agent (NLA)",
        "focus": "KUHPerdata (the Indonesian Civil Code), national legal principles, statutes and general "
        "jurisprudence of the Supreme Court (Mahkamah Agung)",
        "keywords": [
            "KUHPerdata", "civil code", "Burgerlijk Wetboek", "BW", "national", "statute", "undang-undang",
            "article", "pasal", "Mahkamah Agung", "supreme court", "yurisprudensi", "jurisprudence", "court",
            "pengadilan", "equal", "legitieme portie", "notary", "notaris", "testament", "will", "heirs",
            "ahli waris", "Kompilasi Hukum Islam", "UUPA", "regulation", "law",
        ],
    },
    {
        "id": "ala",
        "name": "Adat Law Agent",
        "domain": "adat",
        "framework": "adat (customary) law",
        "role": "Adat Law Agent (ALA)",
        "focus": "customary (adat) norms of Minangkabau, Bali and Java, and formal rules from the rule engine",
        "keywords": [
            "adat", "customary", "Minangkabau", "matrilineal", "kaum", "suku", "mamak", "kemenakan",
            "harta pusaka", "pusaka tinggi", "pusaka rendah", "nagari", "KAN", "Kerapatan Adat", "Bali",
            "purusa", "patrilineal", "sentana", "banjar", "desa adat", "MUDP", "Jawa", "gono-gini",
            "community", "customary law", "rule", "tradition", "clan", "lineage",
        ],
    },
]



# Presets offered by the app (and usable as --rounds/--agents/--option on the CLI).
PRESETS: dict[str, dict[str, Any]] = {
    "two rounds, no extension": {"rounds": 2},
    "strict convergence (all three criteria)": {"options": {"convergence_mode": "all"}},
    "three agents: national, adat, Islamic law": {
        "agents": [
            {"id": "nla"},
            {"id": "ala"},
            {
                "id": "ila",
                "name": "Islamic Law Agent",
                "domain": "islamic",
                "framework": "Islamic law (Kompilasi Hukum Islam and faraid)",
                "role": "Islamic Law Agent (ILA)",
                "focus": "Kompilasi Hukum Islam, faraid shares and Religious Court (Pengadilan Agama) practice",
                "keywords": ["Kompilasi Hukum Islam", "KHI", "faraid", "Islam", "Islamic", "syarak", "Pengadilan Agama",
                             "religious court", "Muslim", "wasiat", "hibah", "harta bersama", "Kitabullah"],
            },
        ]
    },
}

def _option(run: DebateRun, key: str, default: Any) -> Any:
    return run.settings.options.get(key, default)


def _agents(run: DebateRun) -> list[dict[str, Any]]:
    agents = run.agent_ids(DEFAULT_AGENTS)
    ids = [a.get("id") for a in agents]
    if len(agents) < 2 or not all(ids) or len(set(ids)) != len(ids):
        raise DebateFailed("cross_critique needs at least two agents with distinct ids")
    defaults = {a["id"]: a for a in DEFAULT_AGENTS}
    return [{**defaults.get(a["id"], {}), **a} for a in agents]


def _persona(agent: dict[str, Any]) -> dict[str, str]:
    return {
        "agent_id": agent["id"],
        "role": agent.get("role") or agent.get("name") or agent["id"],
        "focus": agent.get("focus", ""),
    }


def _cited_evidence(run: DebateRun, *outputs: AgentOutput | None, extra_text: str = "") -> str:
    """Only the passages a step needs (cited by the outputs it reads, or named in critiques), which
    keeps later-round prompts bounded instead of replaying the whole case every time."""
    by_id = run.case.evidence_by_id()
    wanted: list[str] = []
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
    agreed and disputed claims by reference and leaves out the answers, instead of repeating them."""
    def refs(rows: list[dict[str, Any]]) -> list[str]:
        return [row["ref"] + ("" if row.get("supported", True) else " (unsupported)") for row in rows]

    compact = {k: v for k, v in summary.items() if k != "answers"}
    compact["agreed_claims"] = refs(summary.get("agreed_claims", []))
    compact["disputed_claims"] = refs(summary.get("disputed_claims", []))
    return compact


async def run(run: DebateRun) -> Outcome:
    agents = _agents(run)
    ids = [a["id"] for a in agents]
    by_id = {a["id"]: a for a in agents}
    max_rounds = max(MIN_ROUNDS, min(MAX_ROUNDS, int(run.settings.rounds or DEFAULT_ROUNDS)))
    max_claims = int(_option(run, "max_claims", rules.MAX_CLAIMS))
    min_critiques = int(_option(run, "min_critiques", rules.MIN_CRITIQUES))
    change_threshold = float(_option(run, "answer_change_threshold", 0.15))
    unsupported_limit = float(_option(run, "unsupported_limit", rules.UNSUPPORTED_LIMIT))
    mode = str(_option(run, "convergence_mode", "any"))
    evidence_ids = set(run.case.evidence_by_id())
    case_evidence = prompts.evidence_block(run.case.evidence)
    domain_hint = prompts.data_block("domain hint", run.case.domain_hint or "(none)")

    def checked(step_id: str):
        def post(output: AgentOutput) -> AgentOutput:
            output, warnings = rules.verify_claims(output, evidence_ids, max_claims)
            for w in warnings:
                run.warn(f"{step_id}: {w}", step_id)
            return output

        return post

    async def answer(agent: dict[str, Any]) -> AgentOutput:
        sid = steps.answer(agent["id"])
        return await run.step(
            sid, AgentOutput, "cross_critique_answer",
            {**_persona(agent), "question": prompts.data_block("question", run.case.question),
             "domain_hint": domain_hint, "evidence": case_evidence, "max_claims": str(max_claims)},
            {"agent": agent},
            postprocess=checked(sid),
        )

    async def critique(round_no: int, critic: str, target: str, outputs: dict[str, AgentOutput]) -> CritiqueOutput:
        sid = steps.critique(round_no, critic, target)
        variables = {
            **_persona(by_id[critic]), "target_id": target, "target_role": by_id[target].get("role", target),
            "question": prompts.data_block("question", run.case.question),
            "target_output": prompts.data_block(f"{target} output", _dump(outputs[target])),
            "evidence": _cited_evidence(run, outputs[target], outputs[critic]),
            "min_critiques": str(min_critiques if round_no == 1 else 1), "reask": "",
        }
        payload = {"critic": by_id[critic], "target": by_id[target], "target_output": outputs[target],
                   "own_output": outputs[critic], "round": round_no}
        out = await run.step(sid, CritiqueOutput, "cross_critique_critique", variables, payload)
        if round_no == 1 and len(out.critiques) < min_critiques:
            # Section 8, echo chamber: fewer than the minimum is re-asked once, then kept with a warning.
            variables["reask"] = (
                f"Your previous critique had only {len(out.critiques)} item(s). An agent must raise at least "
                f"{min_critiques} critiques in round 1: look again for evidence gaps, logic gaps, conflicts, "
                "domain mismatches and overclaims."
            )
            again = await run.step(sid, CritiqueOutput, "cross_critique_critique", variables, {**payload, "reask": True})
            if len(again.critiques) >= len(out.critiques):
                out = again
            if len(out.critiques) < min_critiques:
                run.warn(
                    f"{sid}: {critic} raised {len(out.critiques)} critique(s) on {target} after being re-asked "
                    f"(minimum {min_critiques}): possible echo chamber", sid)
        known = {c.id for c in outputs[target].claims}
        for c in out.critiques:
            if c.target_claim_id not in known:
                run.warn(f"{sid}: critique {c.id} names claim {c.target_claim_id}, which {target} did not make", sid)
        return out

    async def critique_round(round_no: int, outputs: dict[str, AgentOutput]) -> list[rules.AddressedCritique]:
        pairs = [(c, t) for c in ids for t in ids if c != t]
        results = await run.gather(*(critique(round_no, c, t, outputs) for c, t in pairs))
        return [
            rules.AddressedCritique(critic=c, target=t, round=round_no, critique=k)
            for (c, t), out in zip(pairs, results, strict=True) for k in out.critiques
        ]

    async def revise(round_no: int, agent: str, previous: AgentOutput, addressed: list[rules.AddressedCritique]) -> AgentOutput:
        sid = steps.revise(round_no, agent)
        mine = [c for c in addressed if c.target == agent]
        critiques_json = [{"from": c.critic, **c.critique.model_dump(mode="json")} for c in mine]
        critique_text = json.dumps(critiques_json, ensure_ascii=False)
        return await run.step(
            sid, AgentOutput, "cross_critique_revise",
            {**_persona(by_id[agent]), "question": prompts.data_block("question", run.case.question),
             "previous_output": prompts.data_block("your previous output", _dump(previous)),
             "critiques": prompts.data_block("critiques addressed to you", json.dumps(critiques_json, ensure_ascii=False, indent=1)),
             "evidence": _cited_evidence(run, previous, extra_text=critique_text), "max_claims": str(max_claims)},
            {"agent": by_id[agent], "previous": previous, "critiques": mine, "round": round_no},
            postprocess=checked(sid),
        )

    async def revision_round(round_no: int, outputs: dict[str, AgentOutput], addressed: list[rules.AddressedCritique]) -> dict[str, AgentOutput]:
        revised = await run.gather(*(revise(round_no, a, outputs[a], addressed) for a in ids))
        return dict(zip(ids, revised, strict=True))

    trajectory: list[dict[str, Any]] = []
    all_critiques: list[rules.AddressedCritique] = []

    def agent_metrics(outputs: dict[str, AgentOutput]) -> dict[str, Any]:
        return {
            "confidence": {a: round(sum(c.confidence for c in o.claims) / len(o.claims), 4) for a, o in outputs.items()},
            "claims": {a: len(o.claims) for a, o in outputs.items()},
            "unsupported": {a: round(rules.unsupported_share(o), 4) for a, o in outputs.items()},
        }

    def close_round(entry: dict[str, Any]) -> None:
        trajectory.append(entry)
        run.emit("round_closed", round=entry["round"], metrics=entry)

    # Round 1: answers, then cross critique once every answer exists.
    answers = await run.gather(*(answer(by_id[a]) for a in ids))
    current = dict(zip(ids, answers, strict=True))
    critiques = await critique_round(1, current)
    all_critiques += critiques
    close_round({"round": 1, "stage": "answer+critique", "severity": severity_counts(c.critique for c in critiques),
                 **agent_metrics(current)})

    # Round 2: revision on the critiques received.
    revised = await revision_round(2, current, critiques)
    assessment = rules.assess(2, critiques, current, revised, change_threshold=change_threshold, mode=mode)
    current, rounds = revised, 2
    entry = {"round": 2, "stage": "revision", **agent_metrics(current), **assessment.metrics()}

    if not assessment.converged and max_rounds >= 3:
        # Optional round-2 critique: conflict is still high.
        critiques2 = await critique_round(2, current)
        all_critiques += critiques2
        counts2 = severity_counts(c.critique for c in critiques2)
        entry["stage"] = "revision+critique"
        entry["severity"] = counts2
        close_round(entry)
        if counts2["CRITICAL"] or counts2["MAJOR"]:
            # Round 3 only when CRITICAL/MAJOR conflict remains after round 2.
            revised = await revision_round(3, current, critiques2)
            assessment = rules.assess(3, critiques2, current, revised, change_threshold=change_threshold, mode=mode)
            current, rounds = revised, 3
            close_round({"round": 3, "stage": "final revision", **agent_metrics(current), **assessment.metrics()})
        else:
            assessment = rules.assess(2, critiques2, current, None, change_threshold=change_threshold, mode=mode)
            assessment.criteria["no_critical_at_most_one_major"] = True
            assessment.reasons.insert(0, "the round-2 critique found no CRITICAL or MAJOR issue")
            trajectory[-1].update({"open_severity": severity_counts(c.critique for c in assessment.open),
                                   "criteria": assessment.criteria, "converged": assessment.converged})
    else:
        close_round(entry)

    reasons, applied = rules.escalation_reasons(assessment, current, max_rounds=max_rounds,
                                                unsupported_limit=unsupported_limit)
    applied = [f"S5.{name}" for name, ok in assessment.criteria.items() if ok] + applied
    summary = rules.debate_summary(current, assessment, all_critiques, rounds)
    summary["escalation_reasons"] = reasons
    summary["convergence_reason"] = "; ".join(assessment.reasons) if assessment.converged else "not converged"

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
