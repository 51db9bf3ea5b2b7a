"""Multi-round hypothesis refinement between root-cause reasoners and a judge, after the
hypothesis-refinement source protocol.

Each round the reasoners give 3-5 hypotheses concurrently (round 1 from the incident data, later
rounds refining their own top hypothesis on the judge's feedback and the other reasoners' top
hypotheses), then the judge scores every hypothesis 0-100. A judge reply that leaves a hypothesis
unscored, scores one twice or refers to an unknown reasoner or index is invalid: it is rejected
inside the provider's retry loop (a model is told what is missing and asked again) and, when the
retries run out, the debate fails naming the judge step. The debate stops on a score plateau, on
consensus, or at the round budget; the best hypothesis across all rounds is the answer.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...core import prompts, steps
from ...core.profiles import identity
from ...engine.runtime import DebateFailed, DebateRun, Outcome
from ...engine.spec import CaseNeed, ProtocolSpec, StageSpec
from .. import run_options
from . import rows, rules
from .models import HypothesesOutput, JudgeOutput

NAME = "refinement"
DEFAULT_ROUNDS = 3
MAX_ROUNDS = 3
MIN_AGENTS, MAX_AGENTS = 2, None


class Options(BaseModel):
    """The refinement options (``settings.options``)."""

    model_config = ConfigDict(extra="forbid")

    plateau_points: float = Field(
        rules.SCORE_PLATEAU_POINTS, ge=0, le=100,
        description="stop when the top score improves by less than this many points over a round")
    consensus_overlap: float = Field(
        rules.CONSENSUS_OVERLAP, ge=0, le=1,
        description="the reasoners agree when their top hypotheses share the category and overlap this much")
    review_score_threshold: float = Field(
        rules.REVIEW_SCORE_THRESHOLD, ge=0, le=100,
        description="send the verdict to a human when the best hypothesis scores below this")
    escalate_without_convergence: bool = Field(
        True, description="send the verdict to a human when the debate ends without convergence")

# The reasoners are profiles (debate_core/core/profiles.py): a case's `agents` or --agents-file replace them.
# `evidence_kinds` is an optional profile field the offline reasoners read: which kinds of passage
# (log, metric, config, topology, history; a passage's own `kind` field, else its source, says which
# it is) a reasoner draws on; without it a reasoner reads every passage. The source protocol's two
# inputs: the log parser's events, errors and timeline, and the knowledge graph's similar incidents,
# causal paths, patterns and the context of the entities (their configuration and dependencies).
DEFAULT_AGENTS: list[dict[str, Any]] = [
    {"id": "log", "name": "Log reasoner",
     "role": "Reads the error messages, event timeline and metrics of the current incident: what the logs "
             "show failed, where and when.",
     "evidence_kinds": ["log", "metric"]},
    {"id": "kg", "name": "Knowledge-graph reasoner",
     "role": "Compares the incident with similar past incidents, causal paths and recurring patterns, and "
             "reads the configuration and dependencies of the entities of the current incident.",
     "evidence_kinds": ["config", "topology", "history"]},
    {"id": "hybrid", "name": "Hybrid reasoner",
     "role": "Combines the current logs and metrics with past incidents, patterns and the entities' "
             "configuration into one causal story.",
     "evidence_kinds": ["log", "metric", "config", "topology", "history"]},
]
# The judge speaks in every debate; its identity enters its prompt like a reasoner's.
JUDGE: dict[str, Any] = {
    "id": "judge", "name": "Judge",
    "role": "Scores every root-cause hypothesis against the evidence: is it supported by the passages it "
            "cites, consistent with them and with the order in which events happened, specific, and resolvable.",
}


PRESETS: dict[str, dict[str, Any]] = {
    # Every default the source states: the log, KG and hybrid reasoners, max_rounds=3 and a
    # convergence_threshold of 5.0 points (the score plateau).
    "as in the source: log, KG and hybrid reasoners, 3 rounds, 5-point plateau": {
        "rounds": 3,
        "agents": [dict(a) for a in DEFAULT_AGENTS],
        "options": {"plateau_points": 5.0},
    },
    "quick (2 rounds)": {"rounds": 2},
    "demanding judge (review below 85)": {"options": {"review_score_threshold": 85}},
    "patient (plateau under 2 points)": {"options": {"plateau_points": 2}},
}

def judge_output_model(expected: dict[str, int]) -> type[JudgeOutput]:
    """JudgeOutput that is only valid when it scores every hypothesis of this round exactly once."""

    class RoundJudgeOutput(JudgeOutput):
        @model_validator(mode="after")
        def _covers_every_hypothesis(self) -> RoundJudgeOutput:
            problems = rules.judge_coverage_problems(self.scores, expected)
            if problems:
                raise ValueError("the judge must score every hypothesis exactly once: " + "; ".join(problems))
            return self

    RoundJudgeOutput.__name__ = "JudgeOutput"
    return RoundJudgeOutput


def _agents(run: DebateRun) -> list[dict[str, Any]]:
    """The reasoners as profiles: chosen ones, else the case's, else the defaults."""
    agents = run.agent_profiles(DEFAULT_AGENTS)
    ids = [a.get("id") for a in agents]
    if len(agents) < 2 or not all(ids) or len(set(ids)) != len(ids):
        raise DebateFailed("refinement needs at least two reasoners with distinct ids")
    if len({rules.normalise_reasoner(i) for i in ids}) != len(ids):
        raise DebateFailed("reasoner ids must differ ignoring case: the judge refers to them by name")
    return [dict(a) for a in agents]


def _identity(agent: dict[str, Any]) -> str:
    return identity(agent)


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {x}" for x in items) if items else "- (none)"


def _hyp_brief(h: dict[str, Any]) -> dict[str, Any]:
    keep = ("hypothesis", "confidence", "category", "evidence", "suggested_resolution")
    return {k: h[k] for k in keep if k in h}


async def _reason(run: DebateRun, r: dict[str, Any], n: int, base: dict[str, str],
                  tops_prev: dict[str, dict[str, Any]], hyps_prev: dict[str, list[dict[str, Any]]]) -> HypothesesOutput:
    """One reasoner's hypotheses: from the incident in round 1, refined on the judge's feedback after.

    The refinement prompt carries only the reasoner's own previous top hypothesis with its score and
    the judge's notes, and the other reasoners' top hypotheses: bounded, never the whole transcript.
    The step payload, which only the offline agents read, also carries every hypothesis the reasoner
    gave last round with the judge's score and feedback (`previous_hypotheses`)."""
    variables = {"identity": _identity(r), "reasoner_id": r["id"], **base}
    if n == 1:
        return await run.step(steps.in_round(n, "hypotheses", r["id"]), HypothesesOutput, "refinement/hypotheses",
                              variables, {"agent": r, "round": n})
    own = tops_prev[r["id"]]
    others = [{"reasoner": o, "score": t["judge_score"], **_hyp_brief(t)} for o, t in tops_prev.items() if o != r["id"]]
    variables.update({
        "round": str(n),
        "previous_hypothesis": prompts.data_block("previous hypothesis", own["hypothesis"]),
        "previous_score": f"{own['judge_score']:.0f}",
        "previous_confidence": f"{own['confidence']:.2f}",
        "strengths": prompts.data_block("strengths", _bullets(own["strengths"])),
        "weaknesses": prompts.data_block("weaknesses", _bullets(own["weaknesses"])),
        "detailed_feedback": prompts.data_block("feedback", own["feedback"] or "(none)"),
        "other_hypotheses": prompts.data_block("other reasoners' top hypotheses",
                                               json.dumps(others, ensure_ascii=False, indent=1)),
    })
    payload = {"agent": r, "round": n, "previous": own, "others": others, "previous_hypotheses": hyps_prev[r["id"]]}
    return await run.step(steps.in_round(n, "hypotheses", r["id"]), HypothesesOutput, "refinement/refine",
                          variables, payload)


async def run(run: DebateRun) -> Outcome:
    reasoners = _agents(run)
    ids = [r["id"] for r in reasoners]
    opts: Options = run_options(run)
    max_rounds = SPEC.rounds(run.settings.rounds, run.warn)
    plateau_points = opts.plateau_points
    overlap = opts.consensus_overlap
    evidence_ids = set(run.case.evidence_by_id())
    question = prompts.data_block("incident", run.case.question)
    evidence = prompts.evidence_block(run.case.evidence)
    domain_hint = run.case.domain_hint or "(none)"

    def new_evidence(iv: Any) -> None:
        """A reviewer's passage (the runtime has added it to the case) joins the following prompts,
        and hypotheses may cite it."""
        nonlocal evidence
        if iv.kind == "evidence" and iv.evidence is not None:
            evidence = prompts.evidence_block(run.case.evidence)
            evidence_ids.add(iv.evidence.id)

    run.on_intervention(new_evidence)

    rounds_out: list[dict[str, Any]] = []
    trajectory: list[dict[str, Any]] = []
    top_scores: list[float] = []
    tops_prev: dict[str, dict[str, Any]] = {}
    hyps_prev: dict[str, list[dict[str, Any]]] = {}
    converged, reason = False, ""

    for n in range(1, max_rounds + 1):
        base = {"question": question, "domain_hint": domain_hint, "evidence": evidence}
        outs = await run.gather(*(_reason(run, r, n, base, tops_prev, hyps_prev) for r in reasoners))
        hyps = {r: [h.model_dump(mode="json") for h in out.hypotheses] for r, out in zip(ids, outs, strict=True)}
        for r, items in hyps.items():
            for i, h in enumerate(items):
                h["verified_evidence"] = [e for e in h["evidence"] if e in evidence_ids]
                h["unverified_evidence"] = [e for e in h["evidence"] if e not in evidence_ids]
                if h["unverified_evidence"]:
                    sid = steps.in_round(n, "hypotheses", r)
                    run.warn(f"{sid}: hypothesis {i} cites evidence ids not in the case: "
                             f"{', '.join(h['unverified_evidence'])} (marked unverified)", sid)

        expected = {r: len(items) for r, items in hyps.items()}
        listing = {r: [{"index": i, **_hyp_brief(h), "reasoning": h["reasoning"],
                        "affected_components": h["affected_components"]} for i, h in enumerate(items)]
                   for r, items in hyps.items()}
        judged = await run.step(
            steps.in_round(n, "judge"), judge_output_model(expected), "refinement/judge",
            {"identity": _identity(JUDGE), "question": question, "evidence": evidence, "round": str(n),
             "expected": ", ".join(f"{r}: indexes 0-{c - 1}" for r, c in expected.items()),
             "hypotheses": prompts.data_block("hypotheses", json.dumps(listing, ensure_ascii=False, indent=1))},
            {"hypotheses": hyps, "round": n},
            stage="judge",
        )
        canonical = {rules.normalise_reasoner(r): r for r in ids}
        for s in judged.scores:
            h = hyps[canonical[rules.normalise_reasoner(s.reasoner)]][s.index]
            h.update(judge_score=float(s.score), strengths=list(s.strengths), weaknesses=list(s.weaknesses),
                     feedback=s.feedback)

        tops: dict[str, dict[str, Any]] = {}
        for r in ids:
            best = max(range(len(hyps[r])), key=lambda i, r=r: (hyps[r][i]["judge_score"], -i))
            tops[r] = {"reasoner": r, "index": best, "round": n, **hyps[r][best]}
        round_top = max(tops.values(), key=lambda t: (t["judge_score"], -ids.index(t["reasoner"])))
        top_scores.append(round_top["judge_score"])
        gain = round(top_scores[-1] - top_scores[-2], 2) if n > 1 else None
        agreed, lowest_overlap = rules.consensus(list(tops.values()), overlap)

        rounds_out.append({
            "round_number": n,
            "hypotheses": {r: [{"index": i, **h} for i, h in enumerate(items)] for r, items in hyps.items()},
            "judge_evaluation": {
                "scores": [{**s.model_dump(mode="json"), "reasoner": canonical[rules.normalise_reasoner(s.reasoner)]}
                           for s in judged.scores],
                "reasoner_top": {r: {"index": t["index"], "score": t["judge_score"]} for r, t in tops.items()},
            },
            "top_hypothesis": dict(round_top),
            "improvement": gain,
            "consensus": {"reached": agreed, "lowest_overlap": lowest_overlap,
                          "categories": {r: t["category"] for r, t in tops.items()}},
        })
        metrics = {"round": n, "judge_scores": {r: t["judge_score"] for r, t in tops.items()},
                   "top_score": round_top["judge_score"], "improvement": gain, "top_reasoner": round_top["reasoner"],
                   "consensus_overlap": lowest_overlap,
                   "confidence": {r: t["confidence"] for r, t in tops.items()}}
        trajectory.append(metrics)
        run.emit("round_closed", round=n, metrics=metrics)
        tops_prev, hyps_prev = tops, hyps

        stop = rules.stop_reason(top_scores, agreed=agreed, lowest_overlap=lowest_overlap,
                                 category=round_top["category"], max_rounds=max_rounds,
                                 plateau_points=plateau_points,
                                 basis=rules.agreement_basis({r: t["verified_evidence"] for r, t in tops.items()}))
        if stop is not None:
            converged, reason = stop.converged, stop.reason
            break

    # The best hypothesis across all rounds: a refinement that scores worse does not replace it.
    best = max((rd["top_hypothesis"] for rd in rounds_out), key=lambda t: (t["judge_score"], t["round"]))
    final = {
        "hypothesis": best["hypothesis"], "confidence": best["confidence"], "judge_score": best["judge_score"],
        "source": best["reasoner"], "reasoning": best["reasoning"], "evidence": best["evidence"],
        "resolution": best["suggested_resolution"], "rounds_refined": best["round"], "category": best["category"],
        "affected_components": best["affected_components"], "verified_evidence": best["verified_evidence"],
        "unverified_evidence": best["unverified_evidence"],
    }
    verdict = rules.verdict(
        final=final, converged=converged, convergence_reason=reason, rounds=len(rounds_out),
        review_threshold=opts.review_score_threshold,
        escalate_without_convergence=opts.escalate_without_convergence,
        passages=[(ev.id, ev.text) for ev in run.case.evidence], rivals=list(tops_prev.values()),
        question=run.case.question,
    )
    result = {
        "rounds": rounds_out,
        "final_hypothesis": final,
        "convergence_achieved": converged,
        "convergence_reason": reason,
        "total_rounds": len(rounds_out),
        "improvement_trajectory": top_scores,
        "settings": {"max_rounds": max_rounds, "plateau_points": plateau_points, "consensus_overlap": overlap},
    }
    return Outcome(
        rounds=len(rounds_out), converged=converged, convergence_reason=reason, verdict=verdict,
        trajectory=trajectory, result=result,
        summary={"final_source": final["source"], "final_score": final["judge_score"],
                 "improvement_trajectory": top_scores},
    )


# ---------------------------------------------------------------------------
# The specification the CLI, the app and the exports read
# ---------------------------------------------------------------------------

GLOSSARY = {
    "final_score_below_threshold": "The best hypothesis scored below the review threshold.",
    "no_convergence_at_max_rounds": "The scores were still moving when the round budget ran out.",
    "unverified_evidence": "The best hypothesis cites evidence that is not in the case.",
    "no_verified_evidence": "The best hypothesis cites no verified evidence.",
    "low_reasoner_confidence": "The reasoner of the best hypothesis is not confident in it.",
    "reasoner_could_not_assess": "The reasoner of the best hypothesis said what it could not assess.",
    "cause_seen_when_nothing_fails": "The evidence shows the best hypothesis' cause also happens when nothing fails.",
    "cause_ruled_out_by_test": "A test in the evidence undid the best hypothesis' cause and the trouble went on.",
    "reasoners_disagree_unseparated": "Reasoners name different causes and the judge's scores do not separate them.",
    "converged_with_sufficient_score": "The scores settled and the best hypothesis scored high enough.",
}

SPEC = ProtocolSpec(
    name=NAME,
    title="Hypothesis refinement",
    description=(
        "Reasoners propose root-cause hypotheses from the incident's evidence, a judge scores every hypothesis "
        "from 0 to 100 with feedback, and the reasoners refine their best one. It stops when the scores settle, "
        "and the best-scored hypothesis is the answer; a low score or unverified evidence sends it to a human."
    ),
    default_agents=tuple(DEFAULT_AGENTS),
    min_agents=MIN_AGENTS,
    max_agents=MAX_AGENTS,
    min_rounds=1,
    max_rounds=MAX_ROUNDS,
    default_rounds=DEFAULT_ROUNDS,
    options_model=Options,
    run=run,
    stages=(
        StageSpec("hypotheses", "Hypotheses", HypothesesOutput, "one reasoner's hypotheses for the round",
                  reply_cap=1800, noun="hypotheses"),
        StageSpec("judge", "Judge", JudgeOutput, "the judge's score and feedback for every hypothesis",
                  reply_cap=1200, noun="judge's scores"),
    ),
    presets=PRESETS,
    case_needs=(
        CaseNeed("evidence", "logs, metrics or observations the hypotheses are built from",
                 lambda case: bool(case.evidence)),
    ),
    moderator=(rules.judge_coverage_problems, rules.consensus, rules.stop_reason,
               rules.reasoner_confidence_reason, rules.reasoner_unassessed_reason, rules.healthy_cause_reasons,
               rules.change_without_trouble_reasons,
               rules.ruled_out_cause_reasons, rules.rival_reasons, rules.verdict),
    glossary=GLOSSARY,
    interventions=("evidence",),
        offline_agent=f"{__name__}.agent",
        plot_thresholds=rows.plot_thresholds,
        rows={"judge_scores": rows.judge_score_rows, "hypotheses": rows.hypothesis_rows},
        review_threshold=("review_score_threshold", 100.0),
    )
